//! Roll steer (`SuspensionDefinition::roll_steer`): each axle steers by
//! its coefficient times the body's roll on that axle's springs, a
//! positive coefficient understeers at either axle, the definition leaves
//! it out when it is 0 (so every preset keeps its bits, which the golden
//! hashes check) and refuses what is out of range.

mod common;

use skidpad_core::{CarDefinition, CarId, InitialPose, World, WorldConfig, preset};

/// The hatchback with roll steer `front` and `rear`.
fn with_roll_steer(front: f64, rear: f64) -> CarDefinition {
    let mut def = preset("fwd_hatchback").unwrap();
    def.suspension.front.roll_steer = front;
    def.suspension.rear.roll_steer = rear;
    def
}

/// A car turning left (steer −0.08) at about 20 m/s for 6 s, in the full
/// model (the default level of detail).
fn steady_turn(def: &CarDefinition) -> (World, CarId) {
    let mut world = World::new(WorldConfig::default()).unwrap();
    let pose = InitialPose {
        speed: 20.0,
        ..InitialPose::default()
    };
    let id = world.add_car(def, pose).unwrap();
    common::hold_turn_at_20(&mut world, id, -0.08, 6.0);
    (world, id)
}

#[test]
fn each_axle_steers_by_its_coefficient_times_the_roll_on_its_springs() {
    let def = with_roll_steer(0.1, 0.2);
    let (world, plain_id) = steady_turn(&preset("fwd_hatchback").unwrap());
    let plain = |name: &str| world.channel(plain_id, name).unwrap();
    let (world, id) = steady_turn(&def);
    let c = |name: &str| world.channel(id, name).unwrap();
    let track = &def.chassis.track;
    let front_roll = (c("wheel_fr_travel") - c("wheel_fl_travel")) / track.front;
    let rear_roll = (c("wheel_rr_travel") - c("wheel_rl_travel")) / track.rear;
    // A left turn rolls the body right side down on both axles.
    assert!(
        front_roll > 0.005 && rear_roll > 0.005,
        "{front_roll} {rear_roll}"
    );
    // The rear wheels steer into the turn (left, positive) by 0.2 × roll.
    for wheel in ["rl", "rr"] {
        let steer = c(&format!("wheel_{wheel}_steer"));
        assert!(
            (steer - 0.2 * rear_roll).abs() < 1e-12,
            "{wheel}: {steer} against {}",
            0.2 * rear_roll
        );
    }
    // The front wheels turn out of it by 0.1 × roll from the Ackermann
    // angles the same input asks for (no compliance: the hatchback's
    // steering is rigid), so their difference is the Ackermann one.
    let ackermann = plain("wheel_fl_steer") - plain("wheel_fr_steer");
    let steered = c("wheel_fl_steer") - c("wheel_fr_steer");
    assert!((steered - ackermann).abs() < 1e-12, "{steered} {ackermann}");
    let centre = c("input_steer") * -def.steering.max_angle;
    let mean = (c("wheel_fl_steer") + c("wheel_fr_steer")) / 2.0;
    let plain_mean = (plain("wheel_fl_steer") + plain("wheel_fr_steer")) / 2.0;
    assert!(
        (mean - plain_mean + 0.1 * front_roll).abs() < 1e-12,
        "mean front angle {mean}, without roll steer {plain_mean}, centre {centre}"
    );
}

#[test]
fn positive_roll_steer_understeers_and_negative_oversteers() {
    let yaw = |front: f64, rear: f64| {
        let (world, id) = steady_turn(&with_roll_steer(front, rear));
        world.channel(id, "yaw_rate").unwrap()
    };
    let plain = yaw(0.0, 0.0);
    assert!(plain > 0.15, "a left turn: yaw rate {plain}");
    for (front, rear) in [(0.15, 0.0), (0.0, 0.15)] {
        let under = yaw(front, rear);
        let over = yaw(-front, -rear);
        assert!(
            under < 0.97 * plain && over > 1.03 * plain,
            "front {front}, rear {rear}: {under} < {plain} < {over}"
        );
    }
}

#[test]
fn no_roll_steer_is_the_default_and_the_json_leaves_it_out() {
    let def = with_roll_steer(0.0, 0.0);
    assert_eq!(def, preset("fwd_hatchback").unwrap());
    let json = serde_json::to_string(&def).unwrap();
    assert!(!json.contains("roll_steer"), "{json}");
    let steered = with_roll_steer(0.0, 0.12);
    let json = serde_json::to_string(&steered).unwrap();
    assert!(json.contains("\"roll_steer\":0.12"), "{json}");
    let back: CarDefinition = serde_json::from_str(&json).unwrap();
    assert_eq!(back, steered);
}

#[test]
fn roll_steer_outside_its_range_is_refused() {
    for value in [-0.6, 0.51, f64::NAN] {
        for (front, rear, axle) in [(value, 0.0, "front"), (0.0, value, "rear")] {
            let err = with_roll_steer(front, rear)
                .validate()
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(&format!("suspension.{axle}.roll_steer")),
                "{err}"
            );
        }
    }
}
