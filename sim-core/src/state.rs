//! The canonical per-car state: every bit that influences a car's future.
//! Snapshots and hashes are made from exactly this struct (see
//! `snapshot.rs`); outputs that only feed telemetry live in `StepOutputs`.

use glam::{DQuat, DVec3};

use crate::ground::GroundSlope;
use crate::input::CarInput;
use crate::lod::LodSetting;
use crate::surface::SurfaceId;

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
}

impl CarState {
    /// True when every float is finite (SPEC §3.5: NaN and ±inf never
    /// enter the state).
    pub(crate) fn is_finite(&self) -> bool {
        self.position.is_finite()
            && self.orientation.is_finite()
            && self.velocity.is_finite()
            && self.angular_velocity.is_finite()
            && self.wheel_omega.iter().all(|w| w.is_finite())
            && self.elapsed.is_finite()
    }
}

/// One wheel's telemetry from the last substep.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct WheelOutput {
    pub load: f64,
    pub slip_ratio: f64,
    pub slip_angle: f64,
    pub fx: f64,
    pub fy: f64,
    /// Suspension compression, m.
    pub travel: f64,
    pub contact: bool,
    /// Road-wheel steer angle, rad.
    pub steer: f64,
}

/// Derived values from the last substep that feed telemetry only; they
/// never influence the future, so they are not hashed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct StepOutputs {
    pub wheels: [WheelOutput; 4],
    pub engine_rpm: f64,
    pub engine_torque: f64,
    /// Centre-of-mass acceleration in the body frame, m/s².
    pub acceleration: DVec3,
    pub drag: f64,
    pub lift_front: f64,
    pub lift_rear: f64,
}
