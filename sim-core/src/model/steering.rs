//! Ackermann steering: the inner front wheel turns tighter than the outer
//! so both roll about a common turn centre on the rear axle's line; and
//! compliance steer, the road wheels giving way under the steering torque.

use crate::math;
use crate::vehicle::definition::{CarDefinition, SteeringDefinition};
use crate::vehicle::steering_feel::SteeringFeel;

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

impl SteerGeometry {
    /// The same geometry with both front wheels turned a further `give`
    /// rad (the steering's compliance): one sine and cosine per substep,
    /// the wheels' own by the angle-sum identities. The centre line keeps
    /// the driver's command, which is what stability control reads.
    pub(crate) fn given(&self, give: f64) -> SteerGeometry {
        let (sin, cos) = math::sin_cos(give);
        let mut given = *self;
        for i in 0..2 {
            given.angle[i] = self.angle[i] + give;
            given.sin[i] = self.sin[i] * cos + self.cos[i] * sin;
            given.cos[i] = self.cos[i] * cos - self.sin[i] * sin;
        }
        given
    }
}

/// One front wheel's moment about its steering axis, N·m, positive
/// turning it left: the aligning moment `mz` as it is, and the lateral
/// force `fy` (positive left) acting the caster trail behind the axis,
/// which turns the wheel right.
#[inline(always)]
pub(crate) fn kingpin_moment(feel: &SteeringFeel, fy: f64, mz: f64) -> f64 {
    mz - feel.mechanical_trail * fy
}

/// The steering's give after a substep of `h` s in which the front wheels
/// put `kingpin` N·m about their steering axes: it moves towards
/// kingpin / stiffness with the compliance's lag (implicit, so any lag and
/// substep are stable), and never past the lock.
pub(crate) fn settle_give(steering: &SteeringDefinition, give: f64, kingpin: f64, h: f64) -> f64 {
    let Some(compliance) = &steering.compliance else {
        return 0.0;
    };
    let target = kingpin / compliance.stiffness;
    let settled = give + (target - give) * h / (compliance.lag + h);
    settled.clamp(-steering.max_angle, steering.max_angle)
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
