//! Aerodynamic drag and per-axle lift.

use crate::vehicle::definition::CarDefinition;

/// Aero forces for one substep.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AeroForces {
    /// Drag magnitude, N (acts against the velocity).
    pub drag: f64,
    /// Lift at the front axle, N (negative: downforce).
    pub lift_front: f64,
    /// Lift at the rear axle, N.
    pub lift_rear: f64,
}

/// Drag from the full airspeed; lift from the forward component only.
pub(crate) fn forces(
    def: &CarDefinition,
    air_density: f64,
    speed: f64,
    forward: f64,
) -> AeroForces {
    let q = 0.5 * air_density;
    let a = &def.aero;
    AeroForces {
        drag: q * a.drag_area * speed * speed,
        lift_front: q * a.lift_area.front * forward * forward,
        lift_rear: q * a.lift_area.rear * forward * forward,
    }
}
