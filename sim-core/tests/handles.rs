//! Car handles: ids are never given out twice, a removed car is gone from
//! stepping, hashing and contact, and `reinstate_car` puts it back as it
//! was.

use skidpad_core::{CarId, CarInput, CoreError, InitialPose, World, WorldConfig, preset};

/// Sports cars on the x axis heading +x, at (x, speed) each.
fn world_at(cars: &[(f64, f64)]) -> (World, Vec<CarId>) {
    let mut world = World::new(WorldConfig::default()).unwrap();
    let def = preset("rwd_sports").unwrap();
    let ids = cars
        .iter()
        .map(|&(x, speed)| {
            world
                .add_car(
                    &def,
                    InitialPose {
                        x,
                        speed,
                        ..InitialPose::default()
                    },
                )
                .unwrap()
        })
        .collect();
    (world, ids)
}

fn world_of(xs: &[f64]) -> (World, Vec<CarId>) {
    world_at(&xs.iter().map(|&x| (x, 10.0)).collect::<Vec<_>>())
}

fn drive(world: &mut World, steps: usize) {
    for _ in 0..steps {
        for id in world.car_ids().collect::<Vec<_>>() {
            world
                .set_input(
                    id,
                    CarInput {
                        throttle: 0.4,
                        ..CarInput::default()
                    },
                )
                .unwrap();
        }
        world.step(1.0 / 60.0).unwrap();
    }
}

#[test]
fn ids_are_never_given_out_twice_and_a_removed_id_names_no_car() {
    let (mut world, ids) = world_of(&[0.0, 50.0, 100.0]);
    assert_eq!(
        ids.iter().map(|c| c.to_raw()).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    world.remove_car(ids[1]).unwrap();
    let def = preset("fwd_hatchback").unwrap();
    let added = world.add_car(&def, InitialPose::default()).unwrap();
    assert_eq!(added.to_raw(), 3, "the removed id 1 is not reused");
    assert_eq!(
        world.car_ids().collect::<Vec<_>>(),
        [ids[0], ids[2], added],
        "stepping order is id order"
    );
    let unknown = |r: Result<(), CoreError>| {
        assert!(
            matches!(r, Err(CoreError::UnknownCar(c)) if c == ids[1]),
            "{r:?}"
        );
    };
    unknown(world.set_input(ids[1], CarInput::default()));
    unknown(world.pose(ids[1]).map(drop));
    unknown(world.snapshot(ids[1]).map(drop));
    unknown(world.telemetry(ids[1]).map(drop));
    unknown(world.remove_car(ids[1]).map(drop));
    assert!(!world.contains_car(ids[1]));
    assert_eq!(world.car_count(), 3);
    assert_eq!(world.last_step_records().len(), 3);
}

#[test]
fn a_removed_car_leaves_the_others_bits_alone() {
    // Cars 50 m apart never touch: removing the middle one after 60 steps
    // leaves the outer two exactly as in a world that never had it after
    // that point, and as they would have been with it.
    let (mut with, ids) = world_of(&[0.0, 50.0, 100.0]);
    let (mut without, _) = world_of(&[0.0, 50.0, 100.0]);
    drive(&mut with, 60);
    drive(&mut without, 60);
    let removed = without.remove_car(ids[1]).unwrap();
    assert_eq!(removed.id(), ids[1]);
    assert_eq!(
        removed.definition().name,
        preset("rwd_sports").unwrap().name
    );
    drive(&mut with, 120);
    drive(&mut without, 120);
    for id in [ids[0], ids[2]] {
        assert_eq!(with.car_hash(id).unwrap(), without.car_hash(id).unwrap());
    }
    assert_ne!(with.world_hash(), without.world_hash());
    // The world hash is over the cars in the world, nothing else.
    let (mut two, two_ids) = world_of(&[0.0, 100.0]);
    for (&from, &to) in [ids[0], ids[2]].iter().zip(&two_ids) {
        two.restore(to, &without.snapshot(from).unwrap()).unwrap();
    }
    two.set_step_count(without.step_count());
    assert_eq!(two.world_hash(), without.world_hash());
}

#[test]
fn a_removed_car_takes_no_part_in_contact() {
    // Car 1 sits 6 m ahead of car 0, which closes at 10 m/s.
    let (mut world, ids) = world_at(&[(0.0, 10.0), (6.0, 0.0)]);
    let mut control = world.clone();
    world.remove_car(ids[1]).unwrap();
    let mut touched = false;
    for _ in 0..120 {
        control.step(1.0 / 60.0).unwrap();
        touched |= control.contacts().iter().any(|c| c.second.is_some());
        world.step(1.0 / 60.0).unwrap();
        assert!(world.contacts().iter().all(|c| c.second.is_none()));
    }
    assert!(touched, "with both cars in the world they collide");
    let alone = world.pose(ids[0]).unwrap().position.x;
    let blocked = control.pose(ids[0]).unwrap().position.x;
    assert!(alone > blocked + 1.0, "{alone} vs {blocked}");
}

#[test]
fn reinstating_puts_the_car_back_as_it_was() {
    let (mut world, ids) = world_of(&[0.0, 50.0, 100.0]);
    drive(&mut world, 30);
    let before = world.world_hash();
    let hash = world.car_hash(ids[1]).unwrap();
    let removed = world.remove_car(ids[1]).unwrap();
    let kept = removed.clone();
    assert_eq!(world.reinstate_car(removed).unwrap(), ids[1]);
    assert_eq!(world.car_ids().collect::<Vec<_>>(), ids);
    assert_eq!(world.car_hash(ids[1]).unwrap(), hash);
    assert_eq!(world.world_hash(), before);
    // Twice, or into a world that never gave the id out: refused.
    assert!(world.reinstate_car(kept.clone()).is_err());
    let (mut other, _) = world_of(&[0.0]);
    let err = other.reinstate_car(kept).unwrap_err();
    assert!(err.to_string().contains("never gave out"), "{err}");
    assert_eq!(other.car_count(), 1);
}

#[test]
fn car_index_follows_removals_whatever_the_hint() {
    let (mut world, ids) = world_of(&[0.0, 10.0, 20.0]);
    for (k, &id) in ids.iter().enumerate() {
        for hint in [0, 1, 2, 7] {
            assert_eq!(world.car_index(id, hint), Some(k));
        }
    }
    world.remove_car(ids[1]).unwrap();
    assert_eq!(world.car_index(ids[1], 1), None);
    // Car 2 moved down one place; a stale hint still finds it, and the
    // index lines up with the step records.
    assert_eq!(world.car_index(ids[2], 2), Some(1));
    assert_eq!(world.car_index(ids[2], 1), Some(1));
    assert_eq!(world.car_ids().nth(1), Some(ids[2]));
    assert_eq!(world.last_step_records().len(), 2);
}

/// `World::car` gives one car's pose, speed, input, definition and
/// telemetry in a view, the same values the calls by id give, and typed
/// channel ids read the same values as their names.
#[test]
fn a_car_view_reads_what_the_calls_by_id_read() {
    use skidpad_core::{CHANNEL_COUNT, ChannelId, channels};
    let (mut world, ids) = world_at(&[(0.0, 12.0), (30.0, 8.0)]);
    world
        .set_input(
            ids[1],
            CarInput {
                throttle: 0.7,
                steer: 0.2,
                ..CarInput::default()
            },
        )
        .unwrap();
    for _ in 0..90 {
        world.step(1.0 / 60.0).unwrap();
    }
    let car = world.car(ids[1]).unwrap();
    assert_eq!(car.id(), ids[1]);
    assert_eq!(car.pose(), world.pose(ids[1]).unwrap());
    assert_eq!(car.speed(), world.pose(ids[1]).unwrap().speed);
    assert_eq!(car.input(), world.input(ids[1]).unwrap());
    assert_eq!(
        car.definition().name,
        world.definition(ids[1]).unwrap().name
    );
    assert_eq!(&car.telemetry()[..], world.telemetry(ids[1]).unwrap());
    assert_eq!(car.telemetry().len(), CHANNEL_COUNT);
    for (id, name) in [
        (channels::SPEED, "speed"),
        (channels::ENGINE_RPM, "engine_rpm"),
        (channels::GEAR, "gear"),
    ] {
        assert_eq!(
            car.channel(id).to_bits(),
            world.channel(ids[1], name).unwrap().to_bits(),
            "{name}"
        );
    }
    const MY_CHANNEL: ChannelId = ChannelId::of("wheel_rl_slip_ratio");
    assert_eq!(
        car.channel(MY_CHANNEL),
        car.channel_named("wheel_rl_slip_ratio").unwrap()
    );
    assert!(matches!(
        car.channel_named("sped"),
        Err(CoreError::UnknownName { .. })
    ));
    assert!(matches!(
        world.car(CarId::from_raw(7)),
        Err(CoreError::UnknownCar(_))
    ));
}
