//! The clutch between engine and gearbox.
//!
//! Slipping, it passes its capacity in the direction of the speed
//! difference. Locked, engine and driveline turn as one: the engine's
//! torque goes through whole and its inertia, reflected through the gear
//! ratio, is added to the driven wheels' spin inertia for the substep,
//! which is exact for a rigid coupling and keeps the wheels' implicit spin
//! update in charge. The clutch locks when the two speeds meet (foreseen
//! at the substep's start by [`catches_within`], or found after the
//! wheels' update), and slips when holding them together would take more
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

/// Whether a clutch passing `slipping` N·m for `h` seconds would bring the
/// engine to the gearbox input's speed (or past it), the input held at
/// `shaft_omega`. Engines are light against their clutches: 400 N·m moves
/// a 0.15 kg·m² flywheel 22 rad/s in a 120 Hz substep, so at a coarse
/// rate the capacity can close the gap well inside one substep. Left to
/// slip for the whole substep, the clutch overshot the match, reversed,
/// and handed the wheels the capacity's impulse both ways, substep after
/// substep: at 120 Hz a rear-drive car rolling in first gear onto a slow
/// engine locked its rear wheels, and its lap came out 31 % slower than at
/// 480 Hz. Locking at the substep's start instead makes the match
/// independent of the rate.
pub(crate) fn catches_within(
    engine_omega: f64,
    shaft_omega: f64,
    engine_torque: f64,
    slipping: f64,
    engine_inertia: f64,
    h: f64,
) -> bool {
    let gap = engine_omega - shaft_omega;
    let gap_after = gap + h * (engine_torque - slipping) / engine_inertia;
    gap * gap_after <= 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: f64 = 1.0 / 120.0;

    #[test]
    fn a_gap_the_capacity_closes_within_the_substep_is_caught() {
        // 300 N·m against an engine of 0.2 kg·m² moves it 12.5 rad/s in a
        // 120 Hz substep: a 10 rad/s gap closes, a 20 rad/s gap does not.
        let slowing = slipping_torque(300.0, 160.0, 150.0, 0.0);
        assert_eq!(slowing, 300.0);
        assert!(catches_within(160.0, 150.0, 0.0, slowing, 0.2, H));
        assert!(!catches_within(170.0, 150.0, 0.0, slowing, 0.2, H));
        // From below, the engine's own torque helping.
        let pulling = slipping_torque(300.0, 140.0, 150.0, 100.0);
        assert_eq!(pulling, -300.0);
        assert!(catches_within(140.0, 150.0, 100.0, pulling, 0.2, H));
        assert!(!catches_within(120.0, 150.0, 100.0, pulling, 0.2, H));
        // Speeds already equal with the engine's torque within the
        // capacity: nothing opens the gap, so it is held.
        let held = slipping_torque(300.0, 150.0, 150.0, 100.0);
        assert!(catches_within(150.0, 150.0, 100.0, held, 0.2, H));
    }
}
