//! Compliance steer (`SteeringDefinition::compliance`): the road wheels
//! give way by the steering torque over the steering's stiffness, with its
//! lag, in both vehicle models; a rigid steering gives nothing; the give is
//! state, so a restored snapshot carries on bit for bit.

mod common;

use skidpad_core::{
    CarDefinition, CarId, InitialPose, Lod, LodSetting, SteeringCompliance, World, WorldConfig,
    preset,
};

fn compliant(stiffness: f64, lag: f64) -> CarDefinition {
    let mut def = preset("fwd_hatchback").unwrap();
    def.steering.compliance = Some(SteeringCompliance { stiffness, lag });
    def
}

fn turning(def: &CarDefinition, lod: Lod) -> (World, CarId) {
    let mut world = World::new(WorldConfig::default()).unwrap();
    let id = world
        .add_car(
            def,
            InitialPose {
                speed: 20.0,
                ..InitialPose::default()
            },
        )
        .unwrap();
    world.set_lod(id, LodSetting::new(lod)).unwrap();
    (world, id)
}

/// Steps a car turning left (steer −0.1) at about 20 m/s for `seconds`.
fn run(world: &mut World, id: CarId, seconds: f64) {
    common::hold_turn_at_20(world, id, -0.1, seconds);
}

#[test]
fn in_a_steady_turn_the_wheels_give_the_steering_torque_over_the_stiffness() {
    for lod in [Lod::Full, Lod::SingleTrack] {
        let stiffness = 4000.0;
        let def = compliant(stiffness, 0.05);
        let (mut world, id) = turning(&def, lod);
        run(&mut world, id, 6.0);
        let give = world.channel(id, "steer_give").unwrap();
        // The telemetry's hand-wheel torque is the front wheels' moment
        // about their steering axes through the ratio, signed as the input.
        let kingpin = -world.channel(id, "hand_wheel_torque").unwrap() * def.steering.ratio();
        assert!(
            give < -0.002,
            "{lod:?}: a left turn gives way to the right: {give}"
        );
        assert!(
            (give - kingpin / stiffness).abs() < 0.02 * give.abs(),
            "{lod:?}: give {give} rad, torque over stiffness {}",
            kingpin / stiffness
        );
        // The mean road-wheel angle is the command plus the give.
        let commanded = 0.1 * def.steering.max_angle;
        let steer_angle = world.channel(id, "steer_angle").unwrap();
        assert!(
            (steer_angle - (commanded + give)).abs() < 0.01 * commanded,
            "{lod:?}: {steer_angle} vs {commanded} + {give}"
        );
        let hand_wheel = world.channel(id, "hand_wheel_angle").unwrap();
        assert!(
            (hand_wheel - 0.1 * def.steering.feel.hand_wheel_lock).abs() < 1e-4,
            "{hand_wheel}"
        );
    }
}

#[test]
fn compliance_adds_understeer_and_a_rigid_steering_gives_nothing() {
    let yaw_rate = |def: &CarDefinition| {
        let (mut world, id) = turning(def, Lod::Full);
        run(&mut world, id, 6.0);
        (
            world.channel(id, "yaw_rate").unwrap(),
            world.channel(id, "steer_give").unwrap(),
        )
    };
    let (rigid, rigid_give) = yaw_rate(&preset("fwd_hatchback").unwrap());
    let (soft, _) = yaw_rate(&compliant(2000.0, 0.05));
    let (stiff, _) = yaw_rate(&compliant(20_000.0, 0.05));
    assert_eq!(rigid_give, 0.0);
    assert!(soft < stiff && stiff < rigid, "{soft} < {stiff} < {rigid}");
}

#[test]
fn the_lag_slows_the_give() {
    let give_after = |lag: f64, seconds: f64| {
        let (mut world, id) = turning(&compliant(3000.0, lag), Lod::Full);
        run(&mut world, id, seconds);
        world.channel(id, "steer_give").unwrap()
    };
    let (quick, slow) = (give_after(0.0, 0.1), give_after(0.3, 0.1));
    assert!(slow.abs() < 0.6 * quick.abs(), "{slow} vs {quick}");
    // Both settle to the same give.
    let (quick, slow) = (give_after(0.0, 5.0), give_after(0.3, 5.0));
    assert!(
        (quick - slow).abs() < 0.01 * quick.abs(),
        "{slow} vs {quick}"
    );
}

#[test]
fn a_snapshot_mid_turn_carries_the_give_and_goes_on_bit_for_bit() {
    let def = compliant(3000.0, 0.1);
    let (mut world, id) = turning(&def, Lod::Full);
    run(&mut world, id, 1.0);
    let snapshot = world.snapshot(id).unwrap();
    let (mut other, other_id) = turning(&def, Lod::Full);
    other.restore(other_id, &snapshot).unwrap();
    run(&mut world, id, 2.0);
    run(&mut other, other_id, 2.0);
    assert_eq!(
        world.snapshot(id).unwrap(),
        other.snapshot(other_id).unwrap()
    );
    assert!(world.channel(id, "steer_give").unwrap() != 0.0);
}

#[test]
fn a_compliance_outside_its_range_is_refused() {
    for (stiffness, lag) in [(0.0, 0.1), (f64::NAN, 0.1), (3000.0, -0.1), (3000.0, 5.0)] {
        let err = compliant(stiffness, lag)
            .validate()
            .unwrap_err()
            .to_string();
        assert!(err.contains("steering.compliance"), "{err}");
    }
}
