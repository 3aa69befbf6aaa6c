//! The chassis channels appended after the axle block (each strut's
//! forces, camber and contact patch, the wheels' torques, more per axle,
//! the driveline's shift event, gearbox speed and clutch slip) agree with
//! the channels they come from and behave physically.

use skidpad_core::glam::{DQuat, DVec3};
use skidpad_core::{CarId, CarInput, InitialPose, World, WorldConfig, preset};

const DT: f64 = 1.0 / 120.0;
const WHEELS: [&str; 4] = ["fl", "fr", "rl", "rr"];

fn car_at(speed: f64, car: &str) -> (World, CarId) {
    let mut world = World::new(WorldConfig::default()).unwrap();
    let id = world
        .add_car(
            &preset(car).unwrap(),
            InitialPose {
                speed,
                ..InitialPose::default()
            },
        )
        .unwrap();
    (world, id)
}

fn drive(world: &mut World, id: CarId, input: CarInput, seconds: f64) {
    world.set_input(id, input).unwrap();
    for _ in 0..(seconds / DT) as usize {
        world.step(DT).unwrap();
    }
}

fn channel(world: &World, id: CarId, name: &str) -> f64 {
    world.channel(id, name).unwrap()
}

fn up_axis(world: &World, id: CarId) -> DVec3 {
    let c = |n: &str| channel(world, id, n);
    DQuat::from_xyzw(
        c("orientation_x"),
        c("orientation_y"),
        c("orientation_z"),
        c("orientation_w"),
    ) * DVec3::Z
}

/// On flat ground a tire's load is the strut's force (spring, bump stop,
/// damper and anti-roll bar, never pulling) along the body's up axis
/// projected on the ground's normal.
fn assert_struts_carry_the_loads(world: &World, id: CarId, when: &str) {
    let up_z = up_axis(world, id).z;
    for w in WHEELS {
        let c = |n: &str| channel(world, id, &format!("wheel_{w}_{n}"));
        if c("contact") == 0.0 {
            continue;
        }
        let strut =
            (c("spring_force") + c("bump_stop_force") + c("damper_force") + c("anti_roll_force"))
                .max(0.0);
        let load = c("load");
        assert!(
            // The body turns a little within the step's last substep.
            (strut * up_z - load).abs() <= 1e-4 * load.max(1.0),
            "{when}, {w}: strut {strut} N × {up_z} against a load of {load} N"
        );
    }
}

#[test]
fn struts_carry_the_loads_at_rest_and_in_a_turn() {
    let (mut world, id) = car_at(0.0, "rwd_sports");
    drive(&mut world, id, CarInput::default(), 2.0);
    assert_struts_carry_the_loads(&world, id, "at rest");
    for w in WHEELS {
        let rate = channel(&world, id, &format!("wheel_{w}_travel_rate"));
        assert!(rate.abs() < 1e-3, "{w} still moves at {rate} m/s at rest");
        assert_eq!(
            channel(&world, id, &format!("wheel_{w}_anti_roll_force")),
            0.0
        );
    }
    let (mut world, id) = car_at(20.0, "rwd_sports");
    let turn = CarInput {
        steer: 0.4,
        throttle: 0.4,
        ..CarInput::default()
    };
    world.set_input(id, turn).unwrap();
    let mut compressing = false;
    for step in 0..240 {
        world.step(DT).unwrap();
        assert_struts_carry_the_loads(&world, id, &format!("turning, step {step}"));
        compressing |= channel(&world, id, "wheel_fl_damper_force") > 100.0;
    }
    assert!(
        compressing,
        "turning in never compressed the outer front damper"
    );
    // Steering right loads the left: its strut is compressed more, the
    // bar pushes it up and the right one down, and the axle rolls left
    // side down (negative).
    assert!(channel(&world, id, "wheel_fl_anti_roll_force") > 0.0);
    assert!(channel(&world, id, "wheel_fr_anti_roll_force") < 0.0);
    let roll = channel(&world, id, "axle_front_roll");
    assert!(roll < -0.005, "front axle roll {roll} rad");
    let (l, r) = (
        channel(&world, id, "wheel_fl_travel"),
        channel(&world, id, "wheel_fr_travel"),
    );
    assert!((channel(&world, id, "axle_front_heave") - (l + r) / 2.0).abs() < 1e-15);
}

#[test]
fn the_outer_wheels_lean_out_in_a_turn_and_stand_upright_at_rest() {
    let (mut world, id) = car_at(0.0, "rwd_sports");
    drive(&mut world, id, CarInput::default(), 2.0);
    for w in WHEELS {
        let camber = channel(&world, id, &format!("wheel_{w}_camber"));
        assert!(camber.abs() < 1e-3, "{w}: {camber} rad at rest");
    }
    let (mut world, id) = car_at(20.0, "rwd_sports");
    drive(
        &mut world,
        id,
        CarInput {
            steer: -0.4,
            throttle: 0.4,
            ..CarInput::default()
        },
        3.0,
    );
    // A left turn rolls the body right side down (positive roll): with no
    // camber geometry every wheel leans with the body, the outer (right)
    // ones out (positive), the inner ones in, by about the roll.
    let roll = channel(&world, id, "roll");
    assert!(roll > 0.01, "roll {roll}");
    for (w, sign) in [("fl", -1.0), ("fr", 1.0), ("rl", -1.0), ("rr", 1.0)] {
        let camber = channel(&world, id, &format!("wheel_{w}_camber"));
        assert!(
            (camber - sign * roll).abs() < 0.2 * roll,
            "{w}: camber {camber} against a roll of {roll}"
        );
    }
}

#[test]
fn the_contact_patch_slides_and_the_slip_passes_its_peak_in_a_spin() {
    let (mut world, id) = car_at(25.0, "rwd_sports");
    drive(&mut world, id, CarInput::default(), 0.5);
    // The undriven front wheels roll freely (engine braking slows the
    // rear ones a little): the patch moves as the wheel turns.
    for w in ["fl", "fr"] {
        let c = |n: &str| channel(&world, id, &format!("wheel_{w}_{n}"));
        assert!(
            (c("patch_vx") - c("speed")).abs() < 0.05
                && c("slip_speed") < 0.05
                && c("slip_usage") < 0.1,
            "{w}: patch {} m/s, rim {} m/s, sliding {} m/s, {} of the peak slip",
            c("patch_vx"),
            c("speed"),
            c("slip_speed"),
            c("slip_usage")
        );
    }
    let mut def = preset("rwd_sports").unwrap();
    def.assists = Default::default();
    let mut world = World::new(WorldConfig::default()).unwrap();
    let id = world
        .add_car(
            &def,
            InitialPose {
                speed: 20.0,
                ..InitialPose::default()
            },
        )
        .unwrap();
    let mut sliding = 0.0_f64;
    let mut past_peak = false;
    world
        .set_input(
            id,
            CarInput {
                steer: 1.0,
                handbrake: 1.0,
                ..CarInput::default()
            },
        )
        .unwrap();
    for _ in 0..120 {
        world.step(DT).unwrap();
        sliding = sliding.max(channel(&world, id, "wheel_rl_slip_speed"));
        past_peak |= channel(&world, id, "wheel_rl_slip_usage") > 1.5;
    }
    assert!(sliding > 5.0, "the locked rear slid at most {sliding} m/s");
    assert!(
        past_peak,
        "a handbrake spin never took the rear past its peak slip"
    );
}

#[test]
fn torques_reach_the_wheels_and_shifts_are_events() {
    let (mut world, id) = car_at(0.0, "rwd_sports");
    world
        .set_input(
            id,
            CarInput {
                throttle: 0.7,
                ..CarInput::default()
            },
        )
        .unwrap();
    let mut gear = channel(&world, id, "gear");
    let (mut ups, mut steps_locked) = (0.0, 0);
    for _ in 0..(12.0 / DT) as usize {
        world.step(DT).unwrap();
        let now = channel(&world, id, "gear");
        let shift = channel(&world, id, "shift");
        assert_eq!(shift, now - gear, "the shift event is the gear's change");
        ups += shift;
        gear = now;
        // Rear drive: only the rear wheels are driven, and the total is
        // their sum.
        assert_eq!(channel(&world, id, "wheel_fl_drive_torque"), 0.0);
        let total = channel(&world, id, "wheel_rl_drive_torque")
            + channel(&world, id, "wheel_rr_drive_torque");
        assert_eq!(channel(&world, id, "drive_torque"), total);
        if channel(&world, id, "clutch_slip") == 0.0 && channel(&world, id, "gear") > 0.0 {
            steps_locked += 1;
            let (engine, gearbox) = (
                channel(&world, id, "engine_rpm"),
                channel(&world, id, "gearbox_rpm"),
            );
            assert!(
                gearbox > 0.0 && (engine - gearbox).abs() < 0.02 * engine,
                "{engine} {gearbox}"
            );
        }
    }
    assert!(ups >= 2.0, "12 s of throttle shifted up {ups} times");
    assert!(
        steps_locked > 600,
        "the clutch held on {steps_locked} steps"
    );
    assert!(channel(&world, id, "drive_torque") > 0.0);
    assert_eq!(channel(&world, id, "wheel_fl_brake_torque"), 0.0);
    world
        .set_input(
            id,
            CarInput {
                brake: 0.5,
                ..CarInput::default()
            },
        )
        .unwrap();
    world.step(DT).unwrap();
    for w in WHEELS {
        let brake = channel(&world, id, &format!("wheel_{w}_brake_torque"));
        assert!(brake > 100.0, "{w}: {brake} N·m at half brake");
    }
}
