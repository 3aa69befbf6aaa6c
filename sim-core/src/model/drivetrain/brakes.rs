//! Service brakes with front/rear bias, and the handbrake on the rear.

use crate::ids::Wheel;
use crate::input::CarInput;
use crate::vehicle::definition::CarDefinition;

/// Friction-torque magnitude per wheel, N·m.
pub(crate) fn friction_torques(def: &CarDefinition, input: &CarInput) -> [f64; 4] {
    let b = &def.brakes;
    Wheel::ALL.map(|w| {
        let axle_share = if w.is_front() {
            b.front_bias
        } else {
            1.0 - b.front_bias
        };
        let service = input.brake * b.max_torque * axle_share / 2.0;
        let hand = if w.is_front() {
            0.0
        } else {
            input.handbrake * b.handbrake_torque
        };
        service + hand
    })
}
