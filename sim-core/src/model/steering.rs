//! Ackermann steering: the inner front wheel turns tighter than the outer
//! so both roll about a common turn centre on the rear axle's line.

use crate::math;
use crate::vehicle::definition::CarDefinition;

/// Steer angles with their sines and cosines. The input is constant over a
/// host step, so this is computed once per step, not per substep.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct SteerGeometry {
    /// Road-wheel angle of the front axle's centre line, rad, positive
    /// left (what a single-track car would steer).
    pub centre: f64,
    pub angle: [f64; 4],
    pub sin: [f64; 4],
    pub cos: [f64; 4],
}

impl SteerGeometry {
    pub(crate) fn new(def: &CarDefinition, steer_input: f64) -> Self {
        let angle = wheel_angles(def, steer_input);
        // The rear wheels do not steer: their angle is 0, sin 0 and cos 1.
        let (sin_l, cos_l) = math::sin_cos(angle[0]);
        let (sin_r, cos_r) = math::sin_cos(angle[1]);
        SteerGeometry {
            centre: -steer_input * def.steering.max_angle,
            angle,
            sin: [sin_l, sin_r, 0.0, 0.0],
            cos: [cos_l, cos_r, 1.0, 1.0],
        }
    }
}

/// Road-wheel angles (ISO: positive left) for a steer input in [−1, 1]
/// (positive right, as a stick). Rear wheels do not steer.
pub(crate) fn wheel_angles(def: &CarDefinition, steer_input: f64) -> [f64; 4] {
    let centre = -steer_input * def.steering.max_angle;
    if centre == 0.0 {
        return [0.0; 4];
    }
    let wheelbase = def.chassis.wheelbase;
    let half_track = def.chassis.track.front / 2.0;
    // Turn radius of the axle centre line about the turn centre,
    // wheelbase / tan(centre).
    let (sin, cos) = math::sin_cos(centre.abs());
    let radius = wheelbase * cos / sin;
    let inner = math::atan(wheelbase / (radius - half_track).max(1e-3));
    let outer = math::atan(wheelbase / (radius + half_track));
    let a = def.steering.ackermann;
    let blend = |geometric: f64| centre.abs() + a * (geometric - centre.abs());
    let (left, right) = if centre > 0.0 {
        (blend(inner), blend(outer))
    } else {
        (-blend(outer), -blend(inner))
    };
    [left, right, 0.0, 0.0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn left_turn_steers_the_left_wheel_more() {
        let def = crate::vehicle::presets::preset("fwd_hatchback").unwrap();
        let [l, r, rl, rr] = wheel_angles(&def, -0.5);
        assert!(l > r && r > 0.0, "{l} {r}");
        assert_eq!((rl, rr), (0.0, 0.0));
        let [l2, r2, ..] = wheel_angles(&def, 0.5);
        assert_eq!((l2, r2), (-r, -l));
        // Both wheels point at one turn centre on the rear-axle line.
        let x_centre_l = def.chassis.wheelbase / libm::tan(l);
        let x_centre_r = def.chassis.wheelbase / libm::tan(r);
        let track = def.chassis.track.front;
        let full = (x_centre_r - x_centre_l - track).abs();
        assert!(def.steering.ackermann < 1.0 || full < 1e-9);
    }
}
