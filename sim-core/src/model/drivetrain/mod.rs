//! Engine → clutch → gearbox → differentials → wheels, plus brakes. The
//! gear is chosen once per host step ([`select_gear`]); both vehicle
//! models call [`torques`] before their wheels' spin update and
//! [`after_wheels`] after it, once per substep.

pub(crate) mod brakes;
pub(crate) mod clutch;
pub(crate) mod differential;
pub(crate) mod engine;
pub(crate) mod gearbox;

use crate::state::car_state::CarState;
use crate::vehicle::car_params::CarParams;
use crate::vehicle::definition::CarDefinition;

/// What the drivetrain hands to the wheels for one substep, and what
/// [`after_wheels`] needs to finish it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WheelTorques {
    /// Drive torque per wheel, N·m, positive forward.
    pub drive: [f64; 4],
    /// Friction torque magnitude per wheel (brake, handbrake), N·m.
    pub brake: [f64; 4],
    /// Inertia added to each wheel's spin for the substep (the engine's,
    /// reflected through a locked clutch), kg·m².
    pub extra_inertia: [f64; 4],
    /// Engine speed, rpm.
    pub engine_rpm: f64,
    /// Engine output torque, N·m (negative while engine braking).
    pub engine_torque: f64,
    /// Torque through the clutch, N·m.
    pub clutch_torque: f64,
    /// Overall ratio of the engaged gear (0 in neutral).
    pub ratio: f64,
    /// What the clutch could pass this substep, N·m.
    pub clutch_capacity: f64,
}

/// Picks the gear for the coming host step (a shift opens the clutch; it
/// takes up the new ratio by slipping); `ground_speed` is the car's speed
/// along its heading, m/s.
pub(crate) fn select_gear(def: &CarDefinition, state: &mut CarState, ground_speed: f64) {
    let carrier_omega = differential::input_speed(def, &state.wheel_omega);
    let gear = gearbox::select_gear(def, &state.input, state.gear, carrier_omega, ground_speed);
    if gear != state.gear {
        state.clutch_locked = false;
        state.gear = gear;
    }
}

/// Computes this substep's torques in the host step's gear (`ratio`) with
/// its brake torques.
pub(crate) fn torques(
    def: &CarDefinition,
    params: &CarParams,
    state: &mut CarState,
    ratio: f64,
    brake: [f64; 4],
) -> WheelTorques {
    let input = state.input;
    let carrier_omega = differential::input_speed(def, &state.wheel_omega);
    let shaft = carrier_omega * ratio;
    let engine_torque = engine::output_torque(def, state.engine_omega, input.throttle);
    let capacity = clutch::capacity(params, input.clutch, state.engine_omega, shaft, ratio);
    if capacity <= 0.0 {
        state.clutch_locked = false;
    }
    let driven = def.drive.driven_wheels();
    let mut extra_inertia = [0.0; 4];
    let clutch_torque = if state.clutch_locked {
        let reflected = def.engine.inertia * ratio * ratio / driven.len() as f64;
        for &i in driven {
            extra_inertia[i] = reflected;
        }
        engine_torque
    } else {
        clutch::slipping_torque(capacity, state.engine_omega, shaft, engine_torque)
    };
    let at_wheels = clutch_torque * ratio * def.gearbox.efficiency;
    let mut drive = [0.0; 4];
    differential::split(def, at_wheels, &mut drive);
    WheelTorques {
        drive,
        brake,
        extra_inertia,
        engine_rpm: state.engine_omega * engine::RAD_PER_S_TO_RPM,
        engine_torque,
        clutch_torque,
        ratio,
        clutch_capacity: capacity,
    }
}

/// Finishes the substep after the wheels' spin update (which settled each
/// axle's differential, `differential::settle_axle`): couples the axles
/// through an AWD centre differential, then moves the engine and locks or
/// releases the clutch.
pub(crate) fn after_wheels(
    def: &CarDefinition,
    params: &CarParams,
    state: &mut CarState,
    t: &WheelTorques,
    h: f64,
) {
    // The differentials see each wheel with what turns with it (the
    // engine too, through a locked clutch).
    let inertia: [f64; 4] = core::array::from_fn(|i| params.wheel_inertia[i] + t.extra_inertia[i]);
    differential::couple_centre(def, &t.drive, &inertia, &mut state.wheel_omega, h);
    let shaft = differential::input_speed(def, &state.wheel_omega) * t.ratio;
    let inertia = def.engine.inertia;
    if state.clutch_locked {
        // The torque the clutch had to pass to keep the engine with the
        // driveline: the engine's own torque less what accelerated it.
        let needed = t.engine_torque - inertia * (shaft - state.engine_omega) / h;
        if needed.abs() <= t.clutch_capacity {
            state.engine_omega = shaft;
            return;
        }
        state.clutch_locked = false;
        let slip = t.clutch_capacity * needed.signum();
        state.engine_omega += h * (t.engine_torque - slip) / inertia;
        return;
    }
    let before = state.engine_omega - shaft;
    // An engine does not run backwards.
    state.engine_omega =
        (state.engine_omega + h * (t.engine_torque - t.clutch_torque) / inertia).max(0.0);
    let after = state.engine_omega - shaft;
    // The speeds met (or crossed) while the clutch could hold: lock (never
    // onto a driveline turning the engine backwards).
    if t.clutch_capacity > 0.0 && shaft >= 0.0 && before * after <= 0.0 {
        state.engine_omega = shaft;
        state.clutch_locked = true;
    }
}
