//! How the steering feels in the driver's hands: the geometry that turns
//! the front tires' forces into a torque on the hand wheel. It feeds the
//! `rack_force` and `hand_wheel_torque` telemetry channels only, never the
//! simulation.

use serde::{Deserialize, Serialize};

/// The steering as the driver's hands feel it: the geometry that turns
/// the front tires' forces into a torque on the hand wheel (the
/// `rack_force` and `hand_wheel_torque` channels, what a force-feedback
/// wheel plays).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SteeringFeel {
    /// Hand-wheel angle at full lock, rad: with `max_angle` it sets the
    /// steering ratio (450°, two and a half turns lock to lock, by
    /// default).
    pub hand_wheel_lock: f64,
    /// Caster trail: how far behind the steering axis the contact patch
    /// lies, m. The tire's lateral force acts through it.
    pub mechanical_trail: f64,
    /// Steering arm: from the steering axis to the track-rod joint, m.
    pub steering_arm: f64,
}

impl Default for SteeringFeel {
    fn default() -> Self {
        SteeringFeel {
            hand_wheel_lock: 450.0 * std::f64::consts::PI / 180.0,
            mechanical_trail: 0.02,
            steering_arm: 0.12,
        }
    }
}
