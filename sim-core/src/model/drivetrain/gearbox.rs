//! Gear selection (manual and the automatic shift schedule) and ratios.

use crate::input::CarInput;
use crate::vehicle::definition::{CarDefinition, DriveLayout, ShiftMode};

/// Overall ratio engine→wheel for `gear` (negative in reverse, 0 neutral).
pub(crate) fn overall_ratio(def: &CarDefinition, gear: i32) -> f64 {
    let g = &def.gearbox;
    match gear {
        0 => 0.0,
        n if n < 0 => -g.reverse_ratio * g.final_drive,
        n => g.ratios[(n as usize).min(g.ratios.len()) - 1] * g.final_drive,
    }
}

/// The gear to run this substep with. `ground_speed` is the car's speed
/// along its heading, m/s.
pub(crate) fn select_gear(
    def: &CarDefinition,
    input: &CarInput,
    current: i32,
    carrier_omega: f64,
    ground_speed: f64,
) -> i32 {
    let requested = input.gear_number();
    match def.gearbox.mode {
        ShiftMode::Manual => requested,
        ShiftMode::Automatic if requested < 0 => -1,
        ShiftMode::Automatic => {
            let radius = def.wheels.get(def.drive == DriveLayout::Fwd).radius;
            scheduled_gear(
                def,
                current.max(1),
                input.throttle,
                carrier_omega,
                ground_speed / radius,
            )
        }
    }
}

/// The automatic schedule: one gear up above the upshift point, one down
/// below the downshift point, both at `throttle` (the driver's pedal: the
/// points move with it when the gearbox has light-throttle points).
/// Validation guarantees an upshift lands above the downshift point at
/// every throttle. The driven wheels' speed alone would still hunt under
/// wheelspin (spin up, shift up, the wheels slow, shift down), so upshifts
/// read the slower and downshifts the faster of the driven wheels' speed
/// and the road speed (`ground_omega`, the same speed as a wheel spin).
pub(crate) fn scheduled_gear(
    def: &CarDefinition,
    current: i32,
    throttle: f64,
    carrier_omega: f64,
    ground_omega: f64,
) -> i32 {
    let (upshift_rpm, downshift_rpm) = def.gearbox.shift_points(throttle);
    let rpm_in = |gear: i32, omega: f64| {
        (omega * overall_ratio(def, gear)).abs() * 60.0 / (2.0 * core::f64::consts::PI)
    };
    let (slower, faster) = if carrier_omega.abs() < ground_omega.abs() {
        (carrier_omega, ground_omega)
    } else {
        (ground_omega, carrier_omega)
    };
    let top = def.top_gear();
    if current < top && rpm_in(current, slower) > upshift_rpm {
        current + 1
    } else if current > 1 && rpm_in(current, faster) < downshift_rpm {
        current - 1
    } else {
        current
    }
}
