//! Roll centres (`SuspensionDefinition::roll_centre_height`): the links
//! hand the tires' lateral forces to the body at the roll centre, so the
//! body rolls by the weight's height above the roll axis, not above the
//! ground; the rest of the load transfer reaches the tires through the
//! links, so the total a steady turn moves across the car stays m·ay·h.

mod common;

use skidpad_core::{
    CarDefinition, CarId, CarInput, InitialPose, Lod, LodSetting, World, WorldConfig, preset,
};

const DT: f64 = 1.0 / 120.0;

/// The hatchback with both roll centres at `height`, m.
fn with_roll_centres(height: f64) -> CarDefinition {
    let mut def = preset("fwd_hatchback").unwrap();
    def.suspension.front.roll_centre_height = height;
    def.suspension.rear.roll_centre_height = height;
    def
}

/// A car turning left (steer −0.08) at about 20 m/s for 6 s.
fn steady_turn(def: &CarDefinition, lod: Lod) -> (World, CarId) {
    let mut world = World::new(WorldConfig::default()).unwrap();
    let pose = InitialPose {
        speed: 20.0,
        ..InitialPose::default()
    };
    let id = world.add_car(def, pose).unwrap();
    world.set_lod(id, LodSetting::new(lod)).unwrap();
    common::hold_turn_at_20(&mut world, id, -0.08, 6.0);
    (world, id)
}

/// Body roll per m/s² of lateral acceleration, and the moment of the load
/// the turn moved onto the right (outer) wheels, per m/s², summed over
/// the axles, N·m per (m/s²).
fn roll_and_transfer(def: &CarDefinition) -> (f64, f64) {
    let (world, id) = steady_turn(def, Lod::Full);
    let c = |name: &str| world.channel(id, name).unwrap();
    // The turn's centripetal acceleration, level (the body's own y axis
    // leans with the roll and would take in a share of gravity).
    let ay = c("speed") * c("yaw_rate");
    assert!(ay > 3.0, "a left turn: ay {ay}");
    let track = &def.chassis.track;
    let moved = (c("wheel_fr_load") - c("wheel_fl_load")) / 2.0 * track.front
        + (c("wheel_rr_load") - c("wheel_rl_load")) / 2.0 * track.rear;
    (c("roll") / ay, moved / ay)
}

#[test]
fn the_body_rolls_about_the_roll_axis_and_the_tires_still_take_all_the_transfer() {
    let ground = with_roll_centres(0.0);
    let h = ground.chassis.cg_height;
    let (roll_0, moved_0) = roll_and_transfer(&ground);
    let (roll_half, moved_half) = roll_and_transfer(&with_roll_centres(h / 2.0));
    // Half the lever arm, half the roll (the springs are the same).
    let ratio = roll_half / roll_0;
    assert!((ratio - 0.5).abs() < 0.05, "roll ratio {ratio}");
    // Statics: the moment of the load moved is m·ay·h, plus the weight's
    // lean as the body rolls φ about an axis h − h_rc below it,
    // m·g·(h − h_rc)·φ. What the springs no longer carry the links do.
    // (Within 2.5 %: the struts' contacts also slide sideways as the body
    // leans, which moves the weight against them a little more.)
    for (moved, roll, arm) in [(moved_0, roll_0, h), (moved_half, roll_half, h / 2.0)] {
        let statics = ground.chassis.mass * (h + 9.81 * arm * roll);
        assert!(
            (moved - statics).abs() < 0.025 * statics,
            "moved {moved} N·m per m/s² against {statics}"
        );
    }
}

#[test]
fn roll_centres_at_the_weight_leave_the_body_level() {
    let def = preset("fwd_hatchback").unwrap();
    let (roll_0, _) = roll_and_transfer(&def);
    let (roll, moved) = roll_and_transfer(&with_roll_centres(def.chassis.cg_height));
    assert!(roll.abs() < 0.05 * roll_0, "roll {roll} against {roll_0}");
    let statics = def.chassis.mass * def.chassis.cg_height;
    assert!(
        (moved - statics).abs() < 0.05 * statics,
        "{moved} vs {statics}"
    );
}

#[test]
fn the_single_track_model_moves_the_same_load() {
    // Its loads come from the steady-state transfer at vx·r, which the
    // roll centres split between springs and links.
    let def = with_roll_centres(0.3);
    let (world, id) = steady_turn(&def, Lod::SingleTrack);
    let c = |name: &str| world.channel(id, name).unwrap();
    let track = &def.chassis.track;
    let moved = (c("wheel_fr_load") - c("wheel_fl_load")) / 2.0 * track.front
        + (c("wheel_rr_load") - c("wheel_rl_load")) / 2.0 * track.rear;
    let ay = c("speed") * c("yaw_rate");
    let statics = def.chassis.mass * def.chassis.cg_height;
    assert!(
        (moved / ay - statics).abs() < 0.05 * statics,
        "{} vs {statics}",
        moved / ay
    );
}

#[test]
fn a_snapshot_mid_turn_carries_the_axle_forces_and_goes_on_bit_for_bit() {
    let def = with_roll_centres(0.25);
    let (mut world, id) = steady_turn(&def, Lod::Full);
    let snapshot = world.snapshot(id).unwrap();
    let mut other = World::new(WorldConfig::default()).unwrap();
    let other_id = other.add_car(&def, InitialPose::default()).unwrap();
    other.restore(other_id, &snapshot).unwrap();
    let input = CarInput {
        steer: -0.08,
        throttle: 0.4,
        ..CarInput::default()
    };
    for _ in 0..240 {
        world.set_input(id, input).unwrap();
        other.set_input(other_id, input).unwrap();
        world.step(DT).unwrap();
        other.step(DT).unwrap();
    }
    assert_eq!(
        world.snapshot(id).unwrap(),
        other.snapshot(other_id).unwrap()
    );
}

#[test]
fn a_roll_centre_outside_its_range_is_refused() {
    for height in [-0.6, 1.6, f64::NAN] {
        let err = with_roll_centres(height)
            .validate()
            .unwrap_err()
            .to_string();
        assert!(err.contains("roll_centre_height"), "{err}");
    }
}
