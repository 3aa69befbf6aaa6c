//! Angles and orientation: shortest-arc interpolation and the quaternion of
//! a ghost pose.

use std::f32::consts::PI;

use crate::GhostPose;

const TWO_PI: f32 = 2.0 * PI;

/// Wraps an angle into (−π, π].
#[must_use]
pub fn wrap_angle(a: f32) -> f32 {
    // Playback only ever wraps values within one turn of the range, where a
    // conditional add is exact and far cheaper than fmod.
    if a.abs() <= 3.0 * PI {
        return wrap_once(a);
    }
    wrap_once(a % TWO_PI)
}

/// Wraps an angle within (−3π, 3π] into (−π, π].
fn wrap_once(a: f32) -> f32 {
    if a > PI {
        a - TWO_PI
    } else if a <= -PI {
        a + TWO_PI
    } else {
        a
    }
}

/// Interpolates from angle `a` to `b` along the shorter arc; `u` in [0, 1].
#[must_use]
pub fn lerp_angle(a: f32, b: f32, u: f32) -> f32 {
    wrap_angle(a + wrap_angle(b - a) * u)
}

/// The body-to-world rotation of a pose as a unit quaternion
/// `[qx, qy, qz, qw]`: yaw about z, then pitch about the new y, then roll
/// about the new x (z-y-x, ISO 8855), as the core's channels compose them.
#[must_use]
pub fn ghost_quaternion(pose: &GhostPose) -> [f32; 4] {
    let half = |a: f32| libm::sincos(f64::from(a) * 0.5);
    let (sy, cy) = half(pose.yaw);
    let (sp, cp) = half(pose.pitch);
    let (sr, cr) = half(pose.roll);
    let qw = cr * cp * cy + sr * sp * sy;
    let qx = sr * cp * cy - cr * sp * sy;
    let qy = cr * sp * cy + sr * cp * sy;
    let qz = cr * cp * sy - sr * sp * cy;
    [qx as f32, qy as f32, qz as f32, qw as f32]
}
