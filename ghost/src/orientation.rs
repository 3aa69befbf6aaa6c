//! Orientation: the quaternion of a ghost pose, and the shortest-arc
//! angle interpolation ghosts are drawn with.

use crate::GhostPose;

/// The shorter-arc angle arithmetic ghosts are drawn with (the core's,
/// shared with every crate that draws between samples).
pub use skidpad_core::{lerp_angle, wrap_angle};

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
