//! Ackermann steering: the inner front wheel turns tighter than the outer
//! so both roll about a common turn centre on the rear axle's line;
//! compliance steer, the road wheels giving way under the steering torque;
//! and roll steer, each axle steered by the body's roll on its springs.

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

    /// The same geometry with each axle's roll steer
    /// (`SuspensionDefinition::roll_steer`) added for the body's roll on
    /// that axle's springs, read from the struts' compressions `travel`
    /// (m; a wheel in the air counts as fully extended). The roll is
    /// positive right side down, as in a left turn, and a positive
    /// coefficient understeers: the front wheels turn out of the turn,
    /// the rear wheels into it. None where neither axle has roll steer,
    /// so a car without it keeps its angles and pays two comparisons.
    pub(crate) fn roll_steered(
        &self,
        def: &CarDefinition,
        travel: &[f64; 4],
    ) -> Option<SteerGeometry> {
        let coefficients = [
            def.suspension.front.roll_steer,
            def.suspension.rear.roll_steer,
        ];
        if coefficients == [0.0, 0.0] {
            return None;
        }
        let mut steered = *self;
        for (front, l, r) in [(true, 0, 1), (false, 2, 3)] {
            let coefficient = coefficients[usize::from(!front)];
            let roll = (travel[r] - travel[l]) / def.chassis.track.get(front);
            let turn = if front { -coefficient } else { coefficient } * roll;
            let (sin, cos) = math::sin_cos(turn);
            for i in [l, r] {
                steered.angle[i] = self.angle[i] + turn;
                steered.sin[i] = self.sin[i] * cos + self.cos[i] * sin;
                steered.cos[i] = self.cos[i] * cos - self.sin[i] * sin;
            }
        }
        Some(steered)
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
    fn roll_steer_turns_each_axle_by_its_coefficient_and_understeers_when_positive() {
        let mut def = crate::vehicle::presets::preset("fwd_hatchback").unwrap();
        let geometry = SteerGeometry::new(&def, -0.3);
        // The body rolled right side down (a left turn) by 0.02 rad on
        // both axles.
        let lean = |track: f64| 0.02 * track;
        let travel = [
            0.05,
            0.05 + lean(def.chassis.track.front),
            0.05,
            0.05 + lean(def.chassis.track.rear),
        ];
        assert_eq!(geometry.roll_steered(&def, &travel), None);
        def.suspension.front.roll_steer = 0.1;
        def.suspension.rear.roll_steer = 0.2;
        let steered = geometry.roll_steered(&def, &travel).unwrap();
        for i in 0..4 {
            // Out of the turn (right, negative) at the front, into it at
            // the rear: both understeer.
            let want = if i < 2 { -0.1 * 0.02 } else { 0.2 * 0.02 };
            let turned = steered.angle[i] - geometry.angle[i];
            assert!((turned - want).abs() < 1e-12, "wheel {i}: {turned}");
            let (sin, cos) = math::sin_cos(steered.angle[i]);
            assert!((steered.sin[i] - sin).abs() < 1e-15 && (steered.cos[i] - cos).abs() < 1e-15);
        }
        assert_eq!(steered.centre, geometry.centre);
    }

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
