//! The Jeep scenario's world: NHTSA's 1997 Jeep Cherokee as
//! `examples/data/jeep_cherokee_1997.json` defines it, the one definition
//! here with the drivetrain parts no preset has (a torque converter, a
//! throttle body, an automatic box with light-throttle shift points) and
//! tires that combine their slips by the file's own weighting. Two of
//! them, AI driven from rest: the second with compliance steer and its lag.

use std::sync::Arc;

use skidpad_core::{CarDefinition, SteeringCompliance, Track, World, WorldConfig};

/// The estimated build's definition.
fn jeep() -> CarDefinition {
    CarDefinition::from_json(include_str!("../../examples/data/jeep_cherokee_1997.json"))
        .expect("the Jeep's definition reads")
}

/// Two Jeeps single file from the line at rest, AI driven: launches
/// through the converter, shifts up at part throttle and down on the
/// brakes for Brandwood's corners.
pub(crate) fn world(track: &Arc<Track>) -> World {
    let mut world = World::new(WorldConfig::default()).expect("default config");
    let plain = jeep();
    let mut compliant = jeep();
    compliant.steering.compliance = Some(SteeringCompliance {
        stiffness: 3400.0,
        lag: 0.05,
    });
    for (k, car) in [plain, compliant].iter().enumerate() {
        let pose =
            skidpad_core::race::pose_along(track, track.length() - 12.0 * k as f64, 0.0, 0.0);
        let id = world.add_car(car, pose).expect("car");
        world.set_driver(id, Some(track.clone())).expect("driver");
    }
    world
}
