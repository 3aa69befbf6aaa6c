//! The combustion engine: torque curve, idle governor, rev limiter, engine
//! braking. The engine has its own speed (state) and inertia; the clutch
//! (`clutch.rs`) couples it to the gearbox.

use crate::vehicle::definition::CarDefinition;

/// rpm per rad/s.
pub(crate) const RAD_PER_S_TO_RPM: f64 = 60.0 / (2.0 * core::f64::consts::PI);

/// How fast the idle governor pulls a slow engine back to idle, s.
const IDLE_RESPONSE: f64 = 0.05;

/// Net engine torque at `omega` (rad/s): what the throttle lets the
/// engine give (`EngineDefinition::throttled_torque`; nothing at or
/// above the limiter), minus engine braking on a closed throttle above
/// idle, plus the idle governor below idle (capped at the curve's torque
/// there), which keeps the engine from stalling.
pub(crate) fn output_torque(def: &CarDefinition, omega: f64, throttle: f64) -> f64 {
    let e = &def.engine;
    let rpm = omega * RAD_PER_S_TO_RPM;
    let drive = if rpm >= e.limiter_rpm {
        0.0
    } else {
        e.throttled_torque(throttle, rpm)
    };
    let above_idle = ((rpm - e.idle_rpm) / (e.limiter_rpm - e.idle_rpm)).clamp(0.0, 1.5);
    let braking = (1.0 - throttle) * e.engine_braking * above_idle;
    let idle_omega = e.idle_rpm / RAD_PER_S_TO_RPM;
    let governor = if omega < idle_omega {
        (e.inertia * (idle_omega - omega) / IDLE_RESPONSE).min(e.full_throttle_torque(e.idle_rpm))
    } else {
        0.0
    };
    drive - braking + governor.max(0.0)
}
