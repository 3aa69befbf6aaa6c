//! `World::reset_car`: a car put back down behaves from there exactly as
//! a new car put down at that pose, keeps what the game set on it, and
//! the next step's record carries the pose for a replay.

use skidpad_core::{CarInput, InitialPose, World, WorldConfig, preset};

const DT: f64 = 1.0 / 60.0;

fn driving() -> CarInput {
    CarInput {
        throttle: 0.8,
        steer: 0.6,
        ..CarInput::default()
    }
}

#[test]
fn a_reset_car_drives_on_as_a_new_car_at_that_pose() {
    let def = preset("rwd_sports").unwrap();
    let target = InitialPose {
        x: 40.0,
        y: -12.0,
        yaw: 1.1,
        speed: 5.0,
    };
    let mut world = World::new(WorldConfig::default()).unwrap();
    let other = world
        .add_car(
            &def,
            InitialPose {
                y: 30.0,
                ..InitialPose::default()
            },
        )
        .unwrap();
    let car = world.add_car(&def, InitialPose::default()).unwrap();
    world.set_input(car, driving()).unwrap();
    for _ in 0..240 {
        world.step(DT).unwrap();
    }
    let before_other = world.snapshot(other).unwrap();
    let input = world.input(car).unwrap();
    world.reset_car(car, target).unwrap();
    assert_eq!(
        world.snapshot(other).unwrap(),
        before_other,
        "the other car is untouched"
    );
    assert_eq!(world.input(car).unwrap(), input, "the input is kept");

    let mut fresh = World::new(WorldConfig::default()).unwrap();
    let new = fresh.add_car(&def, target).unwrap();
    fresh.set_input(new, driving()).unwrap();
    assert_eq!(world.pose(car).unwrap(), fresh.pose(new).unwrap());
    world.step(DT).unwrap();
    assert_eq!(world.last_step_record(car).unwrap().reset, Some(target));
    assert_eq!(world.last_step_record(other).unwrap().reset, None);
    for _ in 0..299 {
        fresh.step(DT).unwrap();
        world.step(DT).unwrap();
        assert_eq!(
            world.last_step_record(car).unwrap().reset,
            None,
            "recorded once"
        );
    }
    fresh.step(DT).unwrap();
    // Bit for bit: the same motion from the same start.
    assert_eq!(world.pose(car).unwrap(), fresh.pose(new).unwrap());
    assert_eq!(
        world.channel(car, "speed").unwrap().to_bits(),
        fresh.channel(new, "speed").unwrap().to_bits()
    );
}

#[test]
fn a_bad_reset_changes_nothing() {
    let def = preset("fwd_hatchback").unwrap();
    let mut world = World::new(WorldConfig::default()).unwrap();
    let car = world
        .add_car(
            &def,
            InitialPose {
                speed: 10.0,
                ..InitialPose::default()
            },
        )
        .unwrap();
    world.step(DT).unwrap();
    let before = world.snapshot(car).unwrap();
    let nan = InitialPose {
        x: f64::NAN,
        ..InitialPose::default()
    };
    let err = world.reset_car(car, nan).unwrap_err().to_string();
    assert!(err.contains("x must be finite"), "{err}");
    let far = InitialPose {
        y: 1e300,
        ..InitialPose::default()
    };
    assert!(world.reset_car(car, far).is_err());
    let gone = skidpad_core::CarId::from_raw(7);
    assert!(world.reset_car(gone, InitialPose::default()).is_err());
    assert_eq!(world.snapshot(car).unwrap(), before);
    world.step(DT).unwrap();
    assert_eq!(world.last_step_record(car).unwrap().reset, None);
}
