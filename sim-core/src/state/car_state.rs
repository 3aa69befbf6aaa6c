//! The canonical per-car state: every bit that influences a car's future.
//! Snapshots and hashes are made from exactly this struct (see
//! `snapshot.rs`); outputs that only feed telemetry live in `StepOutputs`
//! (`outputs.rs`).

use glam::{DQuat, DVec3};

use crate::ground::GroundSlope;
use crate::input::CarInput;
use crate::lod::LodSetting;
use crate::surface::SurfaceId;

/// Largest coordinate a state may hold, m.
pub(crate) const MAX_POSITION: f64 = 1e7;
/// Largest velocity component, m/s.
pub(crate) const MAX_SPEED: f64 = 1e4;
/// Largest body or wheel rotation rate, rad/s.
pub(crate) const MAX_RATE: f64 = 1e5;
/// Largest tire deflection, m (the wheel model clamps far below it).
pub(crate) const MAX_DEFLECTION: f64 = 100.0;
/// Longest simulated time, s (about 31 700 years).
pub(crate) const MAX_ELAPSED: f64 = 1e12;

/// A car's dynamic state.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CarState {
    /// Centre of mass, world frame, m.
    pub position: DVec3,
    /// Body to world rotation.
    pub orientation: DQuat,
    /// Centre-of-mass velocity, world frame, m/s.
    pub velocity: DVec3,
    /// Angular velocity, body frame, rad/s.
    pub angular_velocity: DVec3,
    /// Wheel spin, rad/s, positive rolling forward.
    pub wheel_omega: [f64; 4],
    /// Engaged gear: −1 reverse, 0 neutral, 1.. forward.
    pub gear: i32,
    /// Simulated time this car has been stepped for, s.
    pub elapsed: f64,
    /// The input the car runs with (what a driver last wrote).
    pub input: CarInput,
    /// Level of detail.
    pub lod: LodSetting,
    /// Surface under each wheel.
    pub surfaces: [SurfaceId; 4],
    /// Ground slope under the car.
    pub slope: GroundSlope,
    /// Contact-patch deflection of each tire, m: (along the wheel's
    /// heading, to its left). The relaxation-length state: at speed it lags
    /// the slip, at rest it is the spring that holds the car.
    pub tire_deflection: [[f64; 2]; 4],
    /// Engine speed, rad/s.
    pub engine_omega: f64,
    /// True while the clutch holds engine and gearbox at one speed.
    pub clutch_locked: bool,
}

/// Number of floats in a car state.
pub(crate) const FLOATS: usize = 36;
/// Where `elapsed` sits in `FLOAT_FIELDS` (it must also not be negative).
const ELAPSED: usize = 17;

/// One f64 of the state: its name in reports, its bound, and how it is
/// read from and written into a `CarState`.
pub(crate) struct FloatField {
    pub name: &'static str,
    /// Largest magnitude the state may hold (∞: finite is enough; those
    /// fields are validated by their own setters).
    pub bound: f64,
    pub get: fn(&CarState) -> f64,
    pub set: fn(&mut CarState, f64),
}

/// A field reached by a place expression on the state (`position.x`,
/// `wheel_omega[0]`, `tire_deflection[2][1]`).
macro_rules! float_field {
    ($name:literal, $bound:expr, $($place:tt)+) => {
        FloatField {
            name: $name,
            bound: $bound,
            get: |s| s.$($place)+,
            set: |s, v| s.$($place)+ = v,
        }
    };
}

/// The state's floats, listed once: the snapshot encoder and decoder
/// (in this order), the field names of desync reports and the bounds
/// check all read this table.
pub(crate) const FLOAT_FIELDS: [FloatField; FLOATS] = [
    float_field!("position.x", MAX_POSITION, position.x),
    float_field!("position.y", MAX_POSITION, position.y),
    float_field!("position.z", MAX_POSITION, position.z),
    float_field!("orientation.x", f64::INFINITY, orientation.x),
    float_field!("orientation.y", f64::INFINITY, orientation.y),
    float_field!("orientation.z", f64::INFINITY, orientation.z),
    float_field!("orientation.w", f64::INFINITY, orientation.w),
    float_field!("velocity.x", MAX_SPEED, velocity.x),
    float_field!("velocity.y", MAX_SPEED, velocity.y),
    float_field!("velocity.z", MAX_SPEED, velocity.z),
    float_field!("angular_velocity.x", MAX_RATE, angular_velocity.x),
    float_field!("angular_velocity.y", MAX_RATE, angular_velocity.y),
    float_field!("angular_velocity.z", MAX_RATE, angular_velocity.z),
    float_field!("wheel_omega.fl", MAX_RATE, wheel_omega[0]),
    float_field!("wheel_omega.fr", MAX_RATE, wheel_omega[1]),
    float_field!("wheel_omega.rl", MAX_RATE, wheel_omega[2]),
    float_field!("wheel_omega.rr", MAX_RATE, wheel_omega[3]),
    float_field!("elapsed", MAX_ELAPSED, elapsed),
    float_field!("input.steer", f64::INFINITY, input.steer),
    float_field!("input.throttle", f64::INFINITY, input.throttle),
    float_field!("input.brake", f64::INFINITY, input.brake),
    float_field!("input.handbrake", f64::INFINITY, input.handbrake),
    float_field!("input.clutch", f64::INFINITY, input.clutch),
    float_field!("input.gear", f64::INFINITY, input.gear),
    // No override is stored as 0, which no valid rate is.
    FloatField {
        name: "lod.substep_rate",
        bound: f64::INFINITY,
        get: |s| s.lod.substep_rate.unwrap_or(0.0),
        set: |s, v| s.lod.substep_rate = (v != 0.0).then_some(v),
    },
    float_field!("slope.grade", f64::INFINITY, slope.grade),
    float_field!("slope.cross_slope", f64::INFINITY, slope.cross_slope),
    float_field!(
        "tire_deflection_x.fl",
        MAX_DEFLECTION,
        tire_deflection[0][0]
    ),
    float_field!(
        "tire_deflection_y.fl",
        MAX_DEFLECTION,
        tire_deflection[0][1]
    ),
    float_field!(
        "tire_deflection_x.fr",
        MAX_DEFLECTION,
        tire_deflection[1][0]
    ),
    float_field!(
        "tire_deflection_y.fr",
        MAX_DEFLECTION,
        tire_deflection[1][1]
    ),
    float_field!(
        "tire_deflection_x.rl",
        MAX_DEFLECTION,
        tire_deflection[2][0]
    ),
    float_field!(
        "tire_deflection_y.rl",
        MAX_DEFLECTION,
        tire_deflection[2][1]
    ),
    float_field!(
        "tire_deflection_x.rr",
        MAX_DEFLECTION,
        tire_deflection[3][0]
    ),
    float_field!(
        "tire_deflection_y.rr",
        MAX_DEFLECTION,
        tire_deflection[3][1]
    ),
    float_field!("engine_omega", MAX_RATE, engine_omega),
];

impl CarState {
    /// The first float that is not finite or lies beyond its bound, or a
    /// negative elapsed time (SPEC §3.5: NaN and ±inf never enter the
    /// state). The bounds are far beyond anything a car does, and keep
    /// derived values such as |v|² finite.
    pub(crate) fn first_out_of_bounds(&self) -> Option<&'static FloatField> {
        FLOAT_FIELDS
            .iter()
            .find(|f| {
                let v = (f.get)(self);
                !(v.is_finite() && v.abs() <= f.bound)
            })
            .or_else(|| (self.elapsed < 0.0).then(|| &FLOAT_FIELDS[ELAPSED]))
    }

    /// True when every float is finite and within its bound.
    pub(crate) fn is_sane(&self) -> bool {
        self.first_out_of_bounds().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_elapsed_index_names_elapsed() {
        assert_eq!(FLOAT_FIELDS[ELAPSED].name, "elapsed");
    }
}
