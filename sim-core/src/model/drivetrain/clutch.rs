//! The clutch between engine and gearbox.
//!
//! Slipping, it passes its capacity in the direction of the speed
//! difference. Locked, engine and driveline turn as one: the engine's
//! torque goes through whole and its inertia, reflected through the gear
//! ratio, is added to the driven wheels' spin inertia for the substep,
//! which is exact for a rigid coupling and keeps the wheels' implicit spin
//! update in charge. After the wheels' update the clutch locks when the two
//! speeds meet, and slips when holding them together would take more
//! torque than its capacity.

use crate::model::drivetrain::engine::RAD_PER_S_TO_RPM;
use crate::vehicle::car_params::CarParams;

/// Torque the clutch can pass now, N·m: its maximum scaled by the pedal
/// (0 engaged … 1 open) and by the automatic engagement, which rises from
/// 0 at `bite_rpm` to 1 at `engaged_rpm` of the faster side (engine or
/// gearbox input), so a car at rest with the engine idling is declutched
/// and a rolling one engaged. Zero in neutral.
pub(crate) fn capacity(
    params: &CarParams,
    pedal: f64,
    engine_omega: f64,
    shaft_omega: f64,
    ratio: f64,
) -> f64 {
    if ratio == 0.0 {
        return 0.0;
    }
    let c = &params.clutch;
    let rpm = engine_omega.abs().max(shaft_omega.abs()) * RAD_PER_S_TO_RPM;
    let engagement = ((rpm - c.bite_rpm) / (c.engaged_rpm - c.bite_rpm)).clamp(0.0, 1.0);
    c.max_torque * engagement * (1.0 - pedal)
}

/// The torque through a slipping clutch: the capacity, against the speed
/// difference (engine minus gearbox input); when the speeds are equal, as
/// much of the engine torque as the capacity allows.
pub(crate) fn slipping_torque(
    capacity: f64,
    engine_omega: f64,
    shaft_omega: f64,
    engine_torque: f64,
) -> f64 {
    let difference = engine_omega - shaft_omega;
    if difference > 0.0 {
        capacity
    } else if difference < 0.0 {
        -capacity
    } else {
        engine_torque.clamp(-capacity, capacity)
    }
}
