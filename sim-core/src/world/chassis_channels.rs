//! The telemetry channels appended after the axle block: each strut's
//! forces, camber, contact patch and torques, more per axle, and the
//! driveline's shift event, gearbox speed, clutch slip and drive torque.
//! Like every channel they are computed when read, from the state and the
//! last substep's outputs, so a step nobody reads pays nothing for them.

use crate::model::drivetrain::{differential, engine::RAD_PER_S_TO_RPM, gearbox};
use crate::model::outputs::{StepOutputs, WheelOutput};
use crate::state::car_state::CarState;
use crate::vehicle::car_params::CarParams;
use crate::vehicle::definition::CarDefinition;

/// The channels one wheel adds, in `CHANNELS` order.
pub(super) fn wheel(
    def: &CarDefinition,
    params: &CarParams,
    s: &CarState,
    o: &StepOutputs,
    k: usize,
) -> [f64; 13] {
    let w = &o.wheels[k];
    let front = k < 2;
    let susp = def.suspension.get(front);
    let other = o.wheels[k ^ 1].travel;
    let spring = susp.spring_rate * w.travel;
    let bump_stop = susp.bump_stop_rate * (w.travel - susp.max_travel).max(0.0);
    let damping = if w.travel_rate > 0.0 {
        susp.bump_damping
    } else {
        susp.rebound_damping
    };
    let anti_roll = susp.anti_roll_rate * (w.travel - other);
    let radius = def.wheels.get(front).radius;
    let [vx, vy] = w.patch_velocity;
    let (slip_speed, slip_usage) = if w.contact {
        let peaks = &params.wheel_constants[k].peaks;
        (
            libm::hypot(s.wheel_omega[k] * radius - vx, vy),
            libm::hypot(
                w.slip_ratio * peaks.inv_kappa,
                w.lateral_slip * peaks.inv_alpha,
            ),
        )
    } else {
        (0.0, 0.0)
    };
    [
        w.travel_rate,
        spring,
        bump_stop,
        damping * w.travel_rate,
        anti_roll,
        camber(s, w, k.is_multiple_of(2)),
        vx,
        vy,
        slip_speed,
        s.tire_deflection[k][0],
        slip_usage,
        w.drive_torque,
        w.brake_torque,
    ]
}

/// The wheel's inclination to the ground's normal, positive with its top
/// leaning out of the car. The wheel turns with the body about the body's
/// up axis by its steer angle and no other way, so its spin axis is the
/// body's left axis turned by the steer; where that axis climbs towards
/// the car's left, every wheel's top leans right: inwards on the left,
/// outwards on the right.
fn camber(s: &CarState, w: &WheelOutput, left_side: bool) -> f64 {
    let (sin_d, cos_d) = (libm::sin(w.steer), libm::cos(w.steer));
    let axis = s.orientation * glam::DVec3::new(-sin_d, cos_d, 0.0);
    let lean_right = libm::asin(axis.dot(w.normal).clamp(-1.0, 1.0));
    if left_side { -lean_right } else { lean_right }
}

/// The channels one axle adds, given its wheels' grip usage.
pub(super) fn axle(def: &CarDefinition, o: &StepOutputs, front: bool, usage: [f64; 2]) -> [f64; 6] {
    let pair = if front {
        &o.wheels[..2]
    } else {
        &o.wheels[2..]
    };
    let (sum, on_ground) = pair
        .iter()
        .filter(|w| w.contact)
        .fold((0.0, 0u32), |(sum, n), w| (sum + w.slip_ratio, n + 1));
    let slip_ratio = if on_ground == 0 {
        0.0
    } else {
        sum / f64::from(on_ground)
    };
    let track = *def.chassis.track.get(front);
    [
        pair[0].load + pair[1].load,
        slip_ratio,
        pair[0].mz + pair[1].mz,
        libm::atan((pair[1].travel - pair[0].travel) / track),
        (pair[0].travel + pair[1].travel) / 2.0,
        usage[0].max(usage[1]),
    ]
}

/// The shift event, gearbox input speed, clutch slip and total drive
/// torque.
pub(super) fn driveline(def: &CarDefinition, s: &CarState, o: &StepOutputs) -> [f64; 4] {
    let shift = o.gear_before.map_or(0, |before| s.gear - before);
    let shaft =
        differential::input_speed(def, &s.wheel_omega) * gearbox::overall_ratio(def, s.gear);
    [
        f64::from(shift),
        shaft * RAD_PER_S_TO_RPM,
        (s.engine_omega - shaft) * RAD_PER_S_TO_RPM,
        o.wheels.iter().map(|w| w.drive_torque).sum(),
    ]
}
