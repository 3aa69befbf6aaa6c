//! Reading a car's pose: position, yaw/pitch/roll (z-y-x, ISO 8855) and the
//! few scalars a ghost or a camera needs.

use glam::{DQuat, DVec2, DVec3};

/// Where a car is and how it is oriented.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CarPose {
    /// Centre of mass, world frame, m.
    pub position: DVec3,
    /// Body to world rotation.
    pub orientation: DQuat,
    /// Rotation about world z, rad (positive: nose turned left).
    pub yaw: f64,
    /// Rotation about the yawed y axis, rad (positive: nose down).
    pub pitch: f64,
    /// Rotation about the body x axis, rad (positive: right side down).
    pub roll: f64,
    /// Mean road-wheel angle of the front wheels, rad (positive: left).
    pub steer_angle: f64,
    /// Speed over ground, m/s.
    pub speed: f64,
}

/// Yaw, pitch and roll of a body-to-world rotation composed z-y-x.
#[must_use]
pub fn yaw_pitch_roll(q: DQuat) -> (f64, f64, f64) {
    let (x, y, z, w) = (q.x, q.y, q.z, q.w);
    let yaw = libm::atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z));
    let sin_pitch = (2.0 * (w * y - z * x)).clamp(-1.0, 1.0);
    let pitch = libm::asin(sin_pitch);
    let roll = libm::atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y));
    (yaw, pitch, roll)
}

/// The direction the body's x axis points in the ground plane, unit
/// length: (cos yaw, sin yaw) for the yaw of [`yaw_pitch_roll`], built from
/// the same two components without taking the angle. A body pointing
/// straight up or down has no heading; it gets +x, as yaw 0 would.
#[must_use]
pub(crate) fn planar_heading(q: DQuat) -> DVec2 {
    let (x, y, z, w) = (q.x, q.y, q.z, q.w);
    let along = DVec2::new(1.0 - 2.0 * (y * y + z * z), 2.0 * (w * z + x * y));
    let length = along.length();
    if length > 0.0 {
        along / length
    } else {
        DVec2::X
    }
}

/// The rotation with these angles, composed yaw about z, then pitch about
/// the new y, then roll about the new x.
#[must_use]
pub fn rotation_from_yaw_pitch_roll(yaw: f64, pitch: f64, roll: f64) -> DQuat {
    DQuat::from_rotation_z(yaw) * DQuat::from_rotation_y(pitch) * DQuat::from_rotation_x(roll)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planar_heading_points_along_the_yaw() {
        for &(yaw, pitch, roll) in &[
            (0.3, -0.2, 0.1),
            (-2.9, 0.5, -1.0),
            (3.0, 1.2, 2.5),
            (1.0, 0.0, 0.0),
        ] {
            let q = rotation_from_yaw_pitch_roll(yaw, pitch, roll);
            let heading = planar_heading(q);
            assert!(
                (heading - DVec2::new(libm::cos(yaw), libm::sin(yaw))).length() < 1e-12,
                "{yaw} {pitch} {roll}"
            );
        }
        let nose_up = rotation_from_yaw_pitch_roll(0.7, core::f64::consts::FRAC_PI_2, 0.0);
        assert!(planar_heading(nose_up).is_finite());
        assert_eq!(
            planar_heading(DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0)),
            DVec2::X
        );
    }

    #[test]
    fn angles_round_trip() {
        for &(yaw, pitch, roll) in &[(0.3, -0.2, 0.1), (-2.9, 0.5, -1.0), (3.0, 1.2, 2.5)] {
            let (y, p, r) = yaw_pitch_roll(rotation_from_yaw_pitch_roll(yaw, pitch, roll));
            assert!(
                (y - yaw).abs() < 1e-12 && (p - pitch).abs() < 1e-12 && (r - roll).abs() < 1e-12
            );
        }
    }

    #[test]
    fn positive_pitch_is_nose_down() {
        let nose = rotation_from_yaw_pitch_roll(0.0, 0.2, 0.0) * DVec3::X;
        assert!(nose.z < 0.0);
        let left = rotation_from_yaw_pitch_roll(0.0, 0.0, 0.2) * DVec3::Y;
        assert!(left.z > 0.0, "positive roll lifts the left side");
    }
}
