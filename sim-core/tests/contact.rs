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
    let speeds = |w: &World| [0, 1].map(|i| w.channel(CarId(i), "vx").unwrap());
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
    assert_eq!((contact.first, contact.second), (CarId(0), CarId(1)));
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
    let gap = world.pose(CarId(1)).unwrap().position.x - world.pose(CarId(0)).unwrap().position.x;
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
    let (a, b) = (world.pose(CarId(0)).unwrap(), world.pose(CarId(1)).unwrap());
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
        .set_lod(CarId(2), LodSetting::new(Lod::Frozen))
        .unwrap();
    for _ in 0..120 {
        world.step(DT).unwrap();
        assert!(world.contacts().is_empty(), "{:?}", world.contacts());
    }
    // Car 0 drove straight through the frozen car's place.
    assert!(world.pose(CarId(0)).unwrap().position.x > 15.0);
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
