//! Driver aids (SPEC §4.3), off unless the definition enables them.
//!
//! ABS and traction control are slip limits that `wheel.rs` applies inside
//! each wheel's spin update (they release brake torque or cut drive torque
//! just enough to hold the tire at its peak-force slip); this module picks
//! the limits. Stability control is computed here: it compares the yaw
//! rate with the one the steering asks for on a linear single-track car
//! and brakes one wheel to close the gap.

use crate::ids::Wheel;
use crate::surface::{SurfaceId, SurfaceTable};
use crate::vehicle::car_params::CarParams;
use crate::vehicle::definition::{CarDefinition, STANDARD_GRAVITY};

/// Below this forward speed (m/s) stability control stays out.
const ESC_MIN_SPEED: f64 = 5.0;
/// Yaw-rate error ignored, rad/s, plus this share of the reference.
const ESC_DEADBAND: f64 = 0.03;
const ESC_DEADBAND_SHARE: f64 = 0.1;
/// Brake torque per rad/s of yaw-rate error beyond the deadband, N·m.
const ESC_GAIN: f64 = 12_000.0;
/// Most brake torque stability control adds, as a share of the pedal's
/// full torque.
const ESC_MAX_SHARE: f64 = 0.3;
/// Body slip (rad) beyond which a rear sliding out counts as oversteer
/// whatever the yaw rate, and its weight against yaw-rate error (rad/s per
/// rad).
const ESC_MAX_SLIP: f64 = 0.06;
const ESC_SLIP_GAIN: f64 = 3.0;
/// The reference yaw rate is capped at this share of what the tires' peak
/// friction allows.
const ESC_FRICTION_SHARE: f64 = 0.85;

/// Mean grip scale of the surfaces under the four wheels.
pub(crate) fn mean_grip(surfaces: &SurfaceTable, under: &[SurfaceId; 4]) -> f64 {
    under
        .iter()
        .map(|&s| surfaces.get_checked(s).grip)
        .sum::<f64>()
        / 4.0
}

/// What stability control reads of the car in a substep.
#[derive(Clone, Copy, Debug)]
pub(crate) struct YawState {
    /// Speed along the body's heading, m/s.
    pub forward_speed: f64,
    /// Speed to the body's left, m/s.
    pub lateral_speed: f64,
    /// Yaw rate, rad/s, positive left.
    pub yaw_rate: f64,
    /// Front axle road-wheel angle, rad, positive left.
    pub steer_angle: f64,
    /// Mean grip scale of the surfaces under the wheels.
    pub grip: f64,
}

/// Stability control's extra brake torque per wheel, and its activity
/// (0 … 1).
///
/// The reference yaw rate is the linear single-track car's, v·δ/(L + K v²),
/// capped by what the tires' peak friction on these surfaces can turn the
/// car at. Too much yaw, or the rear sliding out (body slip beyond
/// `ESC_MAX_SLIP` against the turn), brakes the outer front wheel; too
/// little brakes the inner rear.
fn stability_brakes(def: &CarDefinition, params: &CarParams, car: &YawState) -> ([f64; 4], f64) {
    if !def.assists.stability_control || car.forward_speed < ESC_MIN_SPEED {
        return ([0.0; 4], 0.0);
    }
    let v = car.forward_speed;
    let r = car.yaw_rate;
    let linear = v * car.steer_angle / (def.chassis.wheelbase + params.understeer * v * v);
    let cap = ESC_FRICTION_SHARE * params.peak_friction * car.grip * STANDARD_GRAVITY / v;
    let reference = linear.clamp(-cap, cap);
    let deadband = ESC_DEADBAND + ESC_DEADBAND_SHARE * reference.abs();
    // Rear sliding out: the velocity points outside the heading, against
    // the direction the car is yawing.
    let body_slip = libm::atan2(car.lateral_speed, v);
    let slide = if body_slip * r < 0.0 {
        (body_slip.abs() - ESC_MAX_SLIP).max(0.0)
    } else {
        0.0
    };
    let yaw_excess =
        (r.abs() - reference.abs()).max(0.0) * f64::from(u8::from(r * reference >= 0.0));
    let oversteer = (yaw_excess - deadband).max(0.0) + ESC_SLIP_GAIN * slide;
    let understeer = if r * reference >= 0.0 {
        (reference.abs() - r.abs() - deadband).max(0.0)
    } else {
        0.0
    };
    let max = ESC_MAX_SHARE * def.brakes.max_torque;
    let (wheel, excess) = if oversteer > 0.0 {
        // Too much yaw: brake the outer front wheel, which yaws the car
        // back out of the turn it is spinning into.
        let outer = if r > 0.0 {
            Wheel::FrontRight
        } else {
            Wheel::FrontLeft
        };
        (outer, oversteer)
    } else if understeer > 0.0 {
        let inner = if reference > 0.0 {
            Wheel::RearLeft
        } else {
            Wheel::RearRight
        };
        (inner, understeer)
    } else {
        return ([0.0; 4], 0.0);
    };
    let torque = (ESC_GAIN * excess).min(max);
    let mut brakes = [0.0; 4];
    brakes[wheel.index()] = torque;
    (brakes, torque / max)
}

/// Adds stability control's brake torques to `brakes` and returns its
/// activity. `car` is read only when the car has stability control. Nothing
/// is added (not even zeros) while it is idle, so a car without it keeps
/// its exact bits.
pub(crate) fn add_stability_brakes(
    def: &CarDefinition,
    params: &CarParams,
    car: impl FnOnce() -> YawState,
    brakes: &mut [f64; 4],
) -> f64 {
    if !def.assists.stability_control {
        return 0.0;
    }
    let (extra, activity) = stability_brakes(def, params, &car());
    if activity > 0.0 {
        for (brake, add) in brakes.iter_mut().zip(extra) {
            *brake += add;
        }
    }
    activity
}
