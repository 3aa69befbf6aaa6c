//! The steering torque channels behave as a driver's hands expect: nothing
//! at rest on the straight, a pull back towards centre that grows with
//! lateral acceleration, lighter again past the front tires' peak, and
//! signed with the steer input both ways.

use skidpad_core::{CarInput, InitialPose, World, WorldConfig, preset};

const DT: f64 = 1.0 / 120.0;

/// (lateral acceleration, hand-wheel torque, rack force) along a slow
/// ramp of steer to `lock` at about 22 m/s.
fn ramp_steer(car: &str, lock: f64) -> Vec<(f64, f64, f64)> {
    let mut world = World::new(WorldConfig::default()).unwrap();
    let id = world
        .add_car(
            &preset(car).unwrap(),
            InitialPose {
                speed: 22.0,
                ..InitialPose::default()
            },
        )
        .unwrap();
    let mut samples = Vec::new();
    let steps = (16.0 / DT) as usize;
    for k in 0..steps {
        let speed = world.channel(id, "speed").unwrap();
        // Hold the speed with the throttle as a driver would.
        let throttle = (0.4 + 0.3 * (22.0 - speed)).clamp(0.0, 1.0);
        let steer = lock * (k as f64 / steps as f64);
        world
            .set_input(
                id,
                CarInput {
                    steer,
                    throttle,
                    ..CarInput::default()
                },
            )
            .unwrap();
        world.step(DT).unwrap();
        samples.push((
            world.channel(id, "ay").unwrap(),
            world.channel(id, "hand_wheel_torque").unwrap(),
            world.channel(id, "rack_force").unwrap(),
        ));
    }
    samples
}

#[test]
fn at_rest_on_the_straight_the_wheel_is_weightless() {
    let mut world = World::new(WorldConfig::default()).unwrap();
    let id = world
        .add_car(&preset("rwd_sports").unwrap(), InitialPose::default())
        .unwrap();
    for _ in 0..240 {
        world.step(DT).unwrap();
    }
    let torque = world.channel(id, "hand_wheel_torque").unwrap();
    assert!(torque.abs() < 1e-3, "{torque} N·m at rest");
}

#[test]
fn the_pull_grows_with_lateral_acceleration_then_goes_light_and_is_signed() {
    for car in ["rwd_sports", "fwd_hatchback"] {
        let right = ramp_steer(car, 1.0);
        let left = ramp_steer(car, -1.0);
        // Steering right (positive input), the tires pull the hand wheel
        // back left (negative), and the other way round.
        let at = |run: &[(f64, f64, f64)], ay: f64| {
            run.iter()
                .find(|(a, _, _)| a.abs() >= ay)
                .map(|&(_, t, _)| t)
                .unwrap_or_else(|| panic!("{car}: never reached {ay} m/s²"))
        };
        for ay in [1.0, 2.0, 4.0] {
            let (r, l) = (at(&right, ay), at(&left, ay));
            println!("{car}: at {ay} m/s² the hand wheel pulls {r:.2} / {l:.2} N·m");
            assert!(r < 0.0 && l > 0.0, "{car} at {ay} m/s²: {r} / {l}");
            assert!(
                (r + l).abs() < 0.1 * r.abs(),
                "{car}: mirror images: {r} / {l}"
            );
        }
        assert!(
            at(&right, 1.0).abs() < at(&right, 2.0).abs()
                && at(&right, 2.0).abs() < at(&right, 4.0).abs(),
            "{car}: the pull grows with lateral acceleration"
        );
        // Past the front tires' peak the pull falls while the car still
        // corners: the wheel goes light.
        let (peak_index, peak) = right
            .iter()
            .enumerate()
            .map(|(k, &(_, t, _))| (k, t.abs()))
            .fold((0, 0.0), |best, x| if x.1 > best.1 { x } else { best });
        let last = right.last().unwrap();
        println!(
            "{car}: peak {peak:.2} N·m at {:.2} m/s², then {:.2} N·m at {:.2} m/s²",
            right[peak_index].0, last.1, last.0
        );
        assert!(
            peak_index < right.len() - 1 && last.1.abs() < 0.8 * peak,
            "{car} goes light"
        );
        // The rack force carries the same sign.
        assert!(
            right.iter().all(|&(_, t, f)| t * f >= 0.0),
            "{car}: rack and wheel agree"
        );
    }
}

#[test]
fn the_feel_scales_the_torque_and_changes_no_simulated_bit() {
    let base = preset("rwd_sports").unwrap();
    assert!(
        !base.to_json().contains("feel"),
        "a default feel stays out of the JSON"
    );
    let mut slow = base.clone();
    slow.steering.feel.hand_wheel_lock *= 2.0;
    slow.validate().unwrap();
    let run = |def: &skidpad_core::CarDefinition| {
        let mut world = World::new(WorldConfig::default()).unwrap();
        let pose = InitialPose {
            speed: 20.0,
            ..InitialPose::default()
        };
        let id = world.add_car(def, pose).unwrap();
        let input = CarInput {
            steer: 0.2,
            throttle: 0.3,
            ..CarInput::default()
        };
        world.set_input(id, input).unwrap();
        for _ in 0..240 {
            world.step(DT).unwrap();
        }
        let telemetry = world.telemetry(id).unwrap().to_vec();
        let torque = world.channel(id, "hand_wheel_torque").unwrap();
        (telemetry, torque)
    };
    let ((a, ta), (b, tb)) = (run(&base), run(&slow));
    let n = skidpad_core::channel_index("rack_force").unwrap();
    assert_eq!(a[..n], b[..n], "every simulated channel has the same bits");
    assert_eq!(a[n], b[n], "the rack force does not depend on the ratio");
    assert!(
        (ta - 2.0 * tb).abs() < 1e-9 * ta.abs(),
        "twice the ratio, half the torque: {ta} / {tb}"
    );
}

/// The telemetry after 2 s at `speed` m/s with `steer` held.
fn settle(def: &skidpad_core::CarDefinition, speed: f64, steer: f64) -> Vec<f64> {
    let mut world = World::new(WorldConfig::default()).unwrap();
    let pose = InitialPose {
        speed,
        ..InitialPose::default()
    };
    let id = world.add_car(def, pose).unwrap();
    let input = CarInput {
        steer,
        throttle: 0.2,
        ..CarInput::default()
    };
    world.set_input(id, input).unwrap();
    for _ in 0..240 {
        world.step(DT).unwrap();
    }
    world.telemetry(id).unwrap().to_vec()
}

#[test]
fn a_power_assist_lightens_the_wheel_most_when_parking_and_changes_no_simulated_bit() {
    let channel = |name| skidpad_core::channel_index(name).unwrap();
    let (hand_wheel, assist, driver, speed) = (
        channel("hand_wheel_torque"),
        channel("assist_torque"),
        channel("driver_torque"),
        channel("speed"),
    );
    let base = preset("rwd_sports").unwrap();
    let mut assisted = base.clone();
    let power = skidpad_core::PowerAssist {
        boost: 3.0,
        fade_speed: 15.0,
        max_torque: 30.0,
    };
    assisted.steering.feel.assist = Some(power);
    assisted.validate().unwrap();
    for (v, steer) in [(4.0, 0.6), (12.0, -0.3), (30.0, 0.05)] {
        let plain = settle(&base, v, steer);
        let with = settle(&assisted, v, steer);
        assert_eq!(
            plain[..assist],
            with[..assist],
            "no simulated channel moved"
        );
        assert_eq!(plain[assist], 0.0, "no assist, no assist torque");
        assert_eq!(plain[driver], plain[hand_wheel], "the driver holds it all");
        // The boost at this speed, as the definition states it.
        let fade = with[speed] / power.fade_speed;
        let boost = power.boost / (1.0 + fade * fade);
        let share = with[driver] / with[hand_wheel];
        println!(
            "assist at {:.1} m/s: hand wheel {:.2} N·m, driver {:.2} N·m ({share:.3} of it)",
            with[speed], with[hand_wheel], with[driver]
        );
        assert!(
            with[hand_wheel].abs() > 0.05,
            "a torque to share at {v} m/s"
        );
        assert!(
            (share - 1.0 / (1.0 + boost)).abs() < 1e-9,
            "at {v} m/s the driver holds 1/(1+boost): {share}"
        );
        assert!(
            with[assist] * with[hand_wheel] > 0.0,
            "the assist pulls the way the tires do"
        );
    }
    // A saturated assist leaves the driver the rest.
    let mut weak = assisted.clone();
    weak.steering.feel.assist = Some(skidpad_core::PowerAssist {
        max_torque: 0.05,
        ..power
    });
    let t = settle(&weak, 12.0, 0.3);
    assert_eq!(t[assist].abs(), 0.05, "capped at max_torque");
    assert!((t[driver] + t[assist] - t[hand_wheel]).abs() < 1e-12);
    assert!(
        assisted.to_json().contains("\"assist\""),
        "an assist is written in the definition"
    );
    let mut bad = assisted.clone();
    bad.steering.feel.assist = Some(skidpad_core::PowerAssist {
        fade_speed: f64::NAN,
        ..power
    });
    let error = bad.validate().unwrap_err().to_string();
    assert!(error.contains("steering.feel.assist.fade_speed"), "{error}");
}
