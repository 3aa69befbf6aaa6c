//! Engine → gearbox → differential → wheels, plus brakes. Both vehicle
//! models call [`Drivetrain::torques`] once per substep.

pub(crate) mod brakes;
pub(crate) mod differential;
pub(crate) mod engine;
pub(crate) mod gearbox;

use crate::definition::CarDefinition;
use crate::input::CarInput;

/// What the drivetrain hands to the wheels for one substep.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WheelTorques {
    /// Drive torque per wheel, N·m, positive forward.
    pub drive: [f64; 4],
    /// Friction torque magnitude per wheel (brake, handbrake), N·m.
    pub brake: [f64; 4],
    /// Engine speed, rpm.
    pub engine_rpm: f64,
    /// Engine output torque, N·m (negative while engine braking).
    pub engine_torque: f64,
}

/// Computes this substep's torques and updates the engaged gear;
/// `ground_speed` is the car's speed along its heading, m/s.
pub(crate) fn torques(
    def: &CarDefinition,
    input: &CarInput,
    wheel_omega: &[f64; 4],
    ground_speed: f64,
    gear: &mut i32,
) -> WheelTorques {
    let carrier_omega = differential::input_speed(def, wheel_omega);
    *gear = gearbox::select_gear(def, input, *gear, carrier_omega, ground_speed);
    let ratio = gearbox::overall_ratio(def, *gear);
    let engine_rpm = engine::rpm_from_carrier(def, carrier_omega, ratio);
    let engine_torque = engine::output_torque(def, engine_rpm, input.throttle, ratio != 0.0);
    // The clutch pedal scales what the clutch can pass.
    let at_wheels = engine_torque * ratio * def.gearbox.efficiency * (1.0 - input.clutch);
    let mut drive = [0.0; 4];
    differential::split(def, at_wheels, &mut drive);
    WheelTorques {
        drive,
        brake: brakes::friction_torques(def, input),
        engine_rpm,
        engine_torque,
    }
}
