//! Gear selection (manual and the automatic shift schedule) and ratios.

use crate::definition::{CarDefinition, ShiftMode};
use crate::input::CarInput;

/// Overall ratio engine→wheel for `gear` (negative in reverse, 0 neutral).
pub(crate) fn overall_ratio(def: &CarDefinition, gear: i32) -> f64 {
    let g = &def.gearbox;
    match gear {
        0 => 0.0,
        n if n < 0 => -g.reverse_ratio * g.final_drive,
        n => g.ratios[(n as usize).min(g.ratios.len()) - 1] * g.final_drive,
    }
}

/// The gear to run this substep with.
pub(crate) fn select_gear(
    def: &CarDefinition,
    input: &CarInput,
    current: i32,
    carrier_omega: f64,
) -> i32 {
    let requested = input.gear_number();
    match def.gearbox.mode {
        ShiftMode::Manual => requested,
        ShiftMode::Automatic if requested < 0 => -1,
        ShiftMode::Automatic => scheduled_gear(def, current.max(1), carrier_omega),
    }
}

/// The automatic schedule: one gear up above `upshift_rpm`, one down below
/// `downshift_rpm`. Validation guarantees an upshift lands above the
/// downshift point, so it cannot hunt.
pub(crate) fn scheduled_gear(def: &CarDefinition, current: i32, carrier_omega: f64) -> i32 {
    let g = &def.gearbox;
    let rpm_in = |gear: i32| {
        (carrier_omega * overall_ratio(def, gear)).abs() * 60.0 / (2.0 * core::f64::consts::PI)
    };
    let top = def.top_gear();
    if current < top && rpm_in(current) > g.upshift_rpm {
        current + 1
    } else if current > 1 && rpm_in(current) < g.downshift_rpm {
        current - 1
    } else {
        current
    }
}
