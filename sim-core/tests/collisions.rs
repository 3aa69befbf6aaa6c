//! Car-to-car contact: bodies that meet push apart with the momentum
//! they had, separate, never stay inside each other, and are reported as
//! contacts; frozen cars and cars apart take no part; a pile-up on the
//! thread pool gives the bits of one thread.

use skidpad_core::glam::DVec3;
use skidpad_core::{
    CONTACT_RESTITUTION, CarId, CarInput, InitialPose, Lod, LodSetting, World, WorldConfig, preset,
};

const DT: f64 = 1.0 / 60.0;

fn world_with(cars: &[(&str, InitialPose)]) -> World {
    let mut world = World::new(WorldConfig::default()).unwrap();
    for (name, pose) in cars {
        world.add_car(&preset(name).unwrap(), *pose).unwrap();
    }
    world
}

fn pose(x: f64, y: f64, yaw: f64, speed: f64) -> InitialPose {
    InitialPose { x, y, yaw, speed }
}

/// Momentum along the heading of cars that drive straight, kg·m/s.
fn momentum(world: &World) -> DVec3 {
    world
        .car_ids()
        .map(|id| {
            let mass = world.definition(id).unwrap().chassis.mass;
            let yaw = world.pose(id).unwrap().yaw;
            let forward = world.channel(id, "vx").unwrap();
            DVec3::new(libm::cos(yaw), libm::sin(yaw), 0.0) * (mass * forward)
        })
        .sum()
}

#[test]
fn a_car_running_into_a_parked_one_hands_over_its_momentum() {
    let mut world = world_with(&[
        ("rwd_sports", pose(0.0, 0.0, 0.0, 12.0)),
        ("rwd_sports", pose(12.0, 0.0, 0.0, 0.0)),
    ]);
    let speeds = |w: &World| [0, 1].map(|i| w.channel(CarId::from_raw(i), "vx").unwrap());
    let mut step = 0;
    let (before, momentum_before) = loop {
        let state = (speeds(&world), momentum(&world));
        world.step(DT).unwrap();
        step += 1;
        if !world.contacts().is_empty() {
            break state;
        }
        assert!(step < 90, "the cars never met");
    };
    // 12 m apart centre to centre, about 4.3 m of body each: they meet
    // after about 7.7 m at 12 m/s.
    assert!((35..50).contains(&step), "met at step {step}");
    let contact = world.contacts()[0];
    assert_eq!(
        (contact.first, contact.second),
        (CarId::from_raw(0), Some(CarId::from_raw(1)))
    );
    assert!(
        (contact.normal - DVec3::X).length() < 1e-9,
        "{:?}",
        contact.normal
    );
    assert!(contact.impulse > 0.0 && contact.depth > 0.0);
    // In the step they met: momentum kept (tires and air act for one
    // step only) and the closing speed reversed by the restitution.
    let after = speeds(&world);
    let momentum_after = momentum(&world);
    assert!(
        (momentum_after.x / momentum_before.x - 1.0).abs() < 0.02,
        "momentum {} before, {} after",
        momentum_before.x,
        momentum_after.x
    );
    let closing = before[0] - before[1];
    let parting = after[1] - after[0];
    assert!(
        (parting / closing - CONTACT_RESTITUTION).abs() < 0.05,
        "closing {closing} m/s, parting {parting} m/s"
    );
    assert!(after[1] > 5.0, "the struck car was pushed: {after:?}");
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    let gap = world.pose(CarId::from_raw(1)).unwrap().position.x
        - world.pose(CarId::from_raw(0)).unwrap().position.x;
    assert!(gap > 4.2, "the bodies are apart: {gap} m between centres");
}

#[test]
fn a_head_on_meeting_reverses_the_closing_speed_and_leaves_no_overlap() {
    let mut world = world_with(&[
        ("fwd_hatchback", pose(0.0, 0.0, 0.0, 10.0)),
        (
            "fwd_hatchback",
            pose(20.0, 0.3, core::f64::consts::PI, 10.0),
        ),
    ]);
    let mut deepest = 0.0_f64;
    let mut met = false;
    for _ in 0..120 {
        world.step(DT).unwrap();
        for c in world.contacts() {
            met = true;
            deepest = deepest.max(c.depth);
        }
    }
    assert!(met);
    // One host step of closing at 20 m/s is 0.33 m: the overlap never
    // grows past that before the pass separates the bodies.
    assert!(deepest < 0.4, "deepest overlap {deepest} m");
    let (a, b) = (
        world.pose(CarId::from_raw(0)).unwrap(),
        world.pose(CarId::from_raw(1)).unwrap(),
    );
    assert!(
        b.position.x - a.position.x > 3.5,
        "{:?} {:?}",
        a.position,
        b.position
    );
    assert!(world.contacts().is_empty(), "apart by now");
}

#[test]
fn cars_apart_and_frozen_cars_do_not_touch() {
    let mut world = world_with(&[
        ("rwd_sports", pose(0.0, 0.0, 0.0, 10.0)),
        ("rwd_sports", pose(0.0, 3.0, 0.0, 10.0)),
        ("rwd_sports", pose(15.0, 0.0, 0.0, 0.0)),
    ]);
    world
        .set_lod(CarId::from_raw(2), LodSetting::new(Lod::Frozen))
        .unwrap();
    for _ in 0..120 {
        world.step(DT).unwrap();
        assert!(world.contacts().is_empty(), "{:?}", world.contacts());
    }
    // Car 0 drove straight through the frozen car's place.
    assert!(world.pose(CarId::from_raw(0)).unwrap().position.x > 15.0);
}

#[test]
fn a_pile_up_gives_the_same_bits_on_one_two_and_four_threads() {
    let run = || {
        // Eight cars in two columns, the rear ones faster, steering into
        // each other.
        let mut world = World::new(WorldConfig::default()).unwrap();
        for k in 0..8 {
            let name = if k % 2 == 0 {
                "rwd_sports"
            } else {
                "fwd_hatchback"
            };
            let id = world
                .add_car(
                    &preset(name).unwrap(),
                    pose(
                        -5.0 * (k / 2) as f64,
                        2.2 * (k % 2) as f64,
                        0.0,
                        8.0 + k as f64,
                    ),
                )
                .unwrap();
            let steer = if k % 2 == 0 { 0.1 } else { -0.1 };
            world
                .set_input(
                    id,
                    CarInput {
                        throttle: 0.5,
                        steer,
                        ..CarInput::default()
                    },
                )
                .unwrap();
        }
        let mut hashes = Vec::new();
        let mut contacts = 0;
        for _ in 0..180 {
            world.step(DT).unwrap();
            contacts += world.contacts().len();
            hashes.push(world.world_hash());
        }
        (hashes, contacts)
    };
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let one = pool(1).install(run);
    assert!(one.1 > 10, "a pile-up: {} contacts", one.1);
    for threads in [2, 4] {
        assert!(pool(threads).install(run) == one, "{threads} threads");
    }
}

/// Overwrites f64 field `index` (in `FLOAT_FIELDS` order) of a snapshot.
fn set_float(snapshot: &mut [u8], index: usize, value: f64) {
    let at = 18 + 8 * index;
    snapshot[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

#[test]
fn a_car_dropped_on_its_roof_comes_to_rest_on_it() {
    let mut world = world_with(&[("rwd_sports", pose(0.0, 0.0, 0.0, 0.0))]);
    let mut upside_down = world.snapshot(CarId::from_raw(0)).unwrap();
    // Two metres up, rolled half a turn about its forward axis.
    set_float(&mut upside_down, 2, 2.0);
    for (k, q) in [1.0, 0.0, 0.0, 0.0].into_iter().enumerate() {
        set_float(&mut upside_down, 3 + k, q);
    }
    world.restore(CarId::from_raw(0), &upside_down).unwrap();
    let mut touched = 0;
    let mut heights = Vec::new();
    for _ in 0..240 {
        world.step(DT).unwrap();
        heights.push(world.pose(CarId::from_raw(0)).unwrap().position.z);
        touched += world
            .contacts()
            .iter()
            .filter(|c| c.second.is_none())
            .count();
    }
    let p = world.pose(CarId::from_raw(0)).unwrap();
    // On its roof: the body's top (about 1 m above the centre of mass when
    // upright) is under the centre now, and the car is still.
    assert!(touched > 10, "the roof touched the ground {touched} times");
    assert!((0.5..1.3).contains(&p.position.z), "{:?}", p.position);
    assert!(p.roll.abs() > 3.0, "still upside down: roll {}", p.roll);
    // Resting contact is an impulse per host step against gravity's
    // 0.16 m/s per step, so the body settles to within a centimetre.
    let last = &heights[180..];
    let (lo, hi) = last
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &z| (a.min(z), b.max(z)));
    assert!(hi - lo < 0.01, "settled: height between {lo} and {hi} m");
    assert!(p.speed < 0.2, "at rest: {} m/s", p.speed);
}

#[test]
fn a_car_driven_at_a_barrier_bounces_off_it() {
    // Ground for x < 40 and a 2 m wall at x = 30 facing the car.
    let v = |x: f64, y: f64, z: f64| DVec3::new(x, y, z);
    let vertices = [
        v(-10.0, -20.0, 0.0),
        v(40.0, -20.0, 0.0),
        v(40.0, 20.0, 0.0),
        v(-10.0, 20.0, 0.0),
        v(30.0, -20.0, 0.0),
        v(30.0, 20.0, 0.0),
        v(30.0, 20.0, 2.0),
        v(30.0, -20.0, 2.0),
    ];
    let mesh =
        skidpad_core::TriangleMesh::new(&vertices, &[[0, 1, 2], [0, 2, 3], [4, 6, 5], [4, 7, 6]])
            .unwrap();
    let mut world = World::new(WorldConfig::default()).unwrap();
    world.set_ground(std::sync::Arc::new(mesh)).unwrap();
    let id = world
        .add_car(
            &preset("fwd_hatchback").unwrap(),
            pose(10.0, 0.0, 0.0, 15.0),
        )
        .unwrap();
    let mut wall = None;
    let mut furthest = f64::MIN;
    for _ in 0..180 {
        world.step(DT).unwrap();
        furthest = furthest.max(world.pose(id).unwrap().position.x);
        if wall.is_none() {
            wall = world
                .contacts()
                .iter()
                .find(|c| c.second.is_none())
                .copied();
        }
    }
    let wall = wall.expect("the car struck the wall");
    assert!(
        (wall.normal - DVec3::new(-1.0, 0.0, 0.0)).length() < 1e-9,
        "{:?}",
        wall.normal
    );
    assert!(
        wall.impulse > 1000.0,
        "a 15 m/s impact: {} N·s",
        wall.impulse
    );
    // The nose stops at the wall (centre of mass about 2.2 m behind it).
    assert!(furthest < 29.0, "the body went {furthest} m, into the wall");
    let p = world.pose(id).unwrap();
    assert!(
        p.position.x < 28.5 && world.channel(id, "vx").unwrap() < 1.0,
        "{:?}",
        p.position
    );
}
