//! What a step produced that only feeds telemetry: per-wheel loads,
//! slips, forces and travel, the body's acceleration, drivetrain and aero
//! figures, assist activity. None of it influences the future, so none of
//! it is in `CarState`, snapshots or hashes.

use glam::DVec3;

use crate::math;
use crate::model::aero::AeroForces;
use crate::model::drivetrain::WheelTorques;
use crate::model::wheel::{WheelContact, WheelResult};

/// One wheel's telemetry from the last substep.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct WheelOutput {
    pub load: f64,
    pub slip_ratio: f64,
    /// Tangent of the slip angle: telemetry takes the angle itself when it
    /// is read (`WheelOutput::slip_angle`), so a step whose telemetry
    /// nobody reads takes no arc tangent for it.
    pub lateral_slip: f64,
    pub fx: f64,
    pub fy: f64,
    /// Suspension compression, m.
    pub travel: f64,
    pub contact: bool,
    /// Road-wheel steer angle, rad.
    pub steer: f64,
    /// Aligning moment, N·m.
    pub mz: f64,
    /// Strut compression rate, m/s, positive compressing (0 in the
    /// single-track model, whose struts hold their static travel).
    pub travel_rate: f64,
    /// The ground's normal at the contact, world frame (zero when the
    /// model has none: airborne, or the single-track model, which does
    /// not roll).
    pub normal: DVec3,
    /// The contact patch's ground velocity along the wheel's heading and
    /// to its left, m/s.
    pub patch_velocity: [f64; 2],
    /// Drive torque on the wheel after traction control, N·m.
    pub drive_torque: f64,
    /// The brake's torque on the wheel after ABS, N·m (what it can hold:
    /// a wheel at rest takes only what keeps it there).
    pub brake_torque: f64,
}

impl WheelOutput {
    /// A wheel in contact with the ground after a substep.
    pub(crate) fn in_contact(
        contact: &WheelContact<'_>,
        result: &WheelResult,
        travel: f64,
        steer: f64,
    ) -> Self {
        WheelOutput {
            load: contact.load,
            slip_ratio: result.slip_ratio,
            lateral_slip: result.lateral_slip,
            fx: result.fx,
            fy: result.fy,
            travel,
            contact: true,
            mz: result.mz,
            patch_velocity: [contact.vx, contact.vy],
            ..WheelOutput::airborne(contact, result, steer)
        }
    }

    /// A wheel off the ground after a substep: it only spins under its
    /// torques.
    pub(crate) fn airborne(contact: &WheelContact<'_>, result: &WheelResult, steer: f64) -> Self {
        WheelOutput {
            steer,
            drive_torque: contact.drive_torque * (1.0 - result.tc_cut),
            brake_torque: contact.brake_torque * (1.0 - result.abs_release),
            ..WheelOutput::default()
        }
    }

    /// Slip angle, rad.
    pub(crate) fn slip_angle(&self) -> f64 {
        math::atan(self.lateral_slip)
    }
}

/// Derived values from the last substep that feed telemetry only; they
/// never influence the future, so they are not hashed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct StepOutputs {
    pub wheels: [WheelOutput; 4],
    pub engine_rpm: f64,
    pub engine_torque: f64,
    /// Torque through the clutch, N·m.
    pub clutch_torque: f64,
    /// Centre-of-mass acceleration in the body frame, m/s².
    pub acceleration: DVec3,
    pub drag: f64,
    pub lift_front: f64,
    pub lift_rear: f64,
    /// Largest share of brake torque ABS gave back on any wheel.
    pub abs_active: f64,
    /// Largest share of drive torque traction control cut on any wheel.
    pub tc_active: f64,
    /// Stability control's brake torque as a share of its maximum.
    pub esc_active: f64,
    /// The gear engaged before the step (`None` until a step ran): a
    /// shift is a sound event.
    pub gear_before: Option<i32>,
}

impl StepOutputs {
    /// Records the drivetrain and aero values of a substep.
    pub(crate) fn set_drivetrain_and_aero(&mut self, torques: &WheelTorques, aero: &AeroForces) {
        self.engine_rpm = torques.engine_rpm;
        self.engine_torque = torques.engine_torque;
        self.clutch_torque = torques.clutch_torque;
        self.drag = aero.drag;
        self.lift_front = aero.lift_front;
        self.lift_rear = aero.lift_rear;
    }

    /// Records the assists' activity over a substep's wheels.
    pub(crate) fn set_assists(&mut self, wheels: AssistActivity, esc: f64) {
        self.abs_active = wheels.abs_release;
        self.tc_active = wheels.tc_cut;
        self.esc_active = esc;
    }
}

/// The largest share of torque ABS gave back and traction control cut on
/// any wheel of a substep, gathered wheel by wheel (telemetry only).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AssistActivity {
    abs_release: f64,
    tc_cut: f64,
}

impl AssistActivity {
    /// Takes one wheel's result into account.
    pub(crate) fn add(&mut self, wheel: &WheelResult) {
        self.abs_release = self.abs_release.max(wheel.abs_release);
        self.tc_cut = self.tc_cut.max(wheel.tc_cut);
    }
}
