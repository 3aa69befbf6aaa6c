//! The channels appended for tools (body 3D, engine power and limiter,
//! each wheel's grip, each axle) agree with the channels and state they
//! are derived from, and behave physically: wheels lock under a panic stop
//! without ABS, a car cornering at its limit uses its tires' grip, and a
//! car at rest uses little of it.

use skidpad_core::{CarInput, InitialPose, World, WorldConfig, preset, yaw_pitch_roll};

const DT: f64 = 1.0 / 120.0;

fn car_at(speed: f64, car: &str) -> (World, skidpad_core::CarId) {
    let mut world = World::new(WorldConfig::default()).unwrap();
    let mut def = preset(car).unwrap();
    // Brakes and cornering as they are, without the assists.
    def.assists = Default::default();
    let id = world
        .add_car(
            &def,
            InitialPose {
                speed,
                ..InitialPose::default()
            },
        )
        .unwrap();
    (world, id)
}

fn drive(world: &mut World, id: skidpad_core::CarId, input: CarInput, seconds: f64) {
    world.set_input(id, input).unwrap();
    for _ in 0..(seconds / DT) as usize {
        world.step(DT).unwrap();
    }
}

#[test]
fn derived_channels_agree_with_their_sources() {
    let (mut world, id) = car_at(20.0, "rwd_sports");
    drive(
        &mut world,
        id,
        CarInput {
            steer: 0.3,
            throttle: 0.6,
            ..CarInput::default()
        },
        3.0,
    );
    let c = |name: &str| world.channel(id, name).unwrap();
    // The quaternion is unit and gives the yaw, pitch and roll channels.
    let q = skidpad_core::glam::DQuat::from_xyzw(
        c("orientation_x"),
        c("orientation_y"),
        c("orientation_z"),
        c("orientation_w"),
    );
    assert!((q.length() - 1.0).abs() < 1e-12);
    let (yaw, pitch, roll) = yaw_pitch_roll(q);
    assert!((yaw - c("yaw")).abs() < 1e-12 && (pitch - c("pitch")).abs() < 1e-12);
    assert!((roll - c("roll")).abs() < 1e-12);
    // World velocity is the body velocity turned by the orientation.
    let body = skidpad_core::glam::DVec3::new(c("vx"), c("vy"), c("vz"));
    let world_v = q * body;
    assert!((world_v.x - c("world_vx")).abs() < 1e-9);
    assert!((world_v.y - c("world_vy")).abs() < 1e-9);
    assert!(((world_v.length() - c("speed")) / c("speed")).abs() < 1e-12);
    let accel = q * skidpad_core::glam::DVec3::new(c("ax"), c("ay"), c("az"));
    assert!((accel.y - c("world_ay")).abs() < 1e-9);
    // Power is torque times engine speed.
    let power = c("engine_torque") * c("engine_rpm") * std::f64::consts::TAU / 60.0;
    assert!((power - c("engine_power")).abs() <= 1e-9 * power.abs().max(1.0));
    assert_eq!(c("rev_limiter"), 0.0);
    // Each axle sums its wheels.
    assert_eq!(c("axle_front_fy"), c("wheel_fl_fy") + c("wheel_fr_fy"));
    assert_eq!(c("axle_rear_fx"), c("wheel_rl_fx") + c("wheel_rr_fx"));
    assert_eq!(
        c("axle_front_load_transfer"),
        (c("wheel_fl_load") - c("wheel_fr_load")) / 2.0
    );
    // Steering right (a positive input) loads the left side: positive
    // transfer, as ay is negative (to the right).
    assert!(c("ay") < 0.0);
    assert!(c("axle_front_load_transfer") > 0.0);
    assert_eq!(c("wheel_fl_surface_grip"), 1.0);
    for w in ["fl", "fr", "rl", "rr"] {
        let usage = c(&format!("wheel_{w}_grip_usage"));
        assert!((0.0..1.2).contains(&usage), "{w}: {usage}");
        assert!(c(&format!("wheel_{w}_peak_fy")) > 0.0);
    }
}

#[test]
fn a_panic_stop_without_abs_locks_the_wheels() {
    let (mut world, id) = car_at(30.0, "fwd_hatchback");
    let mut locked_seen = false;
    world
        .set_input(
            id,
            CarInput {
                brake: 1.0,
                ..CarInput::default()
            },
        )
        .unwrap();
    for _ in 0..(1.0 / DT) as usize {
        world.step(DT).unwrap();
        locked_seen |= world.channel(id, "wheel_fl_locked").unwrap() == 1.0;
    }
    assert!(
        locked_seen,
        "a full brake without ABS never locked the front"
    );
}

#[test]
fn cornering_at_the_limit_uses_the_grip_and_rest_uses_little() {
    let (mut world, id) = car_at(25.0, "rwd_sports");
    drive(
        &mut world,
        id,
        CarInput {
            steer: 1.0,
            throttle: 0.3,
            ..CarInput::default()
        },
        2.0,
    );
    let front = world.channel(id, "wheel_fr_grip_usage").unwrap();
    assert!(
        front > 0.8,
        "full lock at 25 m/s uses {front} of the front-right tire"
    );
    // At rest a tire makes only the force that holds the car: little of
    // its grip.
    let (mut world, id) = car_at(0.0, "rwd_sports");
    drive(&mut world, id, CarInput::default(), 2.0);
    let resting = world.channel(id, "wheel_rl_grip_usage").unwrap();
    assert!(resting < 0.05, "{resting} of the grip at rest");
    assert!(world.channel(id, "wheel_rl_peak_fx").unwrap() > 1000.0);
}
