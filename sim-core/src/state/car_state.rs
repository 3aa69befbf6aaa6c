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

impl CarState {
    /// True when every float is finite and within physical bounds (SPEC
    /// §3.5: NaN and ±inf never enter the state). The bounds are far beyond
    /// anything a car does, and keep derived values such as |v|² finite.
    pub(crate) fn is_sane(&self) -> bool {
        let within = |v: f64, limit: f64| v.is_finite() && v.abs() <= limit;
        let vec_within = |v: DVec3, limit: f64| v.to_array().iter().all(|&c| within(c, limit));
        vec_within(self.position, MAX_POSITION)
            && self.orientation.is_finite()
            && vec_within(self.velocity, MAX_SPEED)
            && vec_within(self.angular_velocity, MAX_RATE)
            && self.wheel_omega.iter().all(|&w| within(w, MAX_RATE))
            && within(self.engine_omega, MAX_RATE)
            && self
                .tire_deflection
                .iter()
                .flatten()
                .all(|&d| within(d, MAX_DEFLECTION))
            && within(self.elapsed, MAX_ELAPSED)
            && self.elapsed >= 0.0
    }
}
