//! The combustion engine: torque curve, idle, rev limiter, engine braking.
//!
//! The engine has no spin state of its own here: its speed follows the
//! driven wheels through the gearbox and never drops below idle, as if a
//! slipping clutch held it there at low road speed.

use crate::definition::CarDefinition;

const RAD_PER_S_TO_RPM: f64 = 60.0 / (2.0 * core::f64::consts::PI);

/// Engine speed for a carrier speed and overall ratio (0 = neutral).
pub(crate) fn rpm_from_carrier(def: &CarDefinition, carrier_omega: f64, ratio: f64) -> f64 {
    let coupled = (carrier_omega * ratio).abs() * RAD_PER_S_TO_RPM;
    if ratio == 0.0 {
        def.engine.idle_rpm
    } else {
        coupled.max(def.engine.idle_rpm)
    }
}

/// Full-throttle torque at `rpm`, linear between curve points.
pub(crate) fn curve_torque(def: &CarDefinition, rpm: f64) -> f64 {
    let curve = &def.engine.torque_curve;
    let first = curve[0];
    if rpm <= first[0] {
        return first[1];
    }
    for pair in curve.windows(2) {
        let ([r0, t0], [r1, t1]) = (pair[0], pair[1]);
        if rpm <= r1 {
            return t0 + (t1 - t0) * (rpm - r0) / (r1 - r0);
        }
    }
    curve[curve.len() - 1][1]
}

/// Net engine torque: throttle × curve, minus engine braking on a closed
/// throttle while coupled, and nothing at or above the limiter.
pub(crate) fn output_torque(def: &CarDefinition, rpm: f64, throttle: f64, coupled: bool) -> f64 {
    let e = &def.engine;
    let drive = if rpm >= e.limiter_rpm {
        0.0
    } else {
        throttle * curve_torque(def, rpm)
    };
    let braking = if coupled {
        let above_idle = ((rpm - e.idle_rpm) / (e.limiter_rpm - e.idle_rpm)).clamp(0.0, 1.5);
        (1.0 - throttle) * e.engine_braking * above_idle
    } else {
        0.0
    };
    drive - braking
}
