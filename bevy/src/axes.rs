//! From skidpad's axes to Bevy's. skidpad follows ISO 8855 (x forward, y
//! left, z up); Bevy is y up with the same handedness, so the map is the
//! rotation taking z to y: (x, y, z) → (x, z, −y). A car that drives
//! along skidpad's +x drives along Bevy's +x, and its left is Bevy's −z.

use bevy_math::{Quat, Vec3};
use skidpad_core::glam::{DQuat, DVec3};

/// A skidpad position (m, world frame) in Bevy's axes, as `f32` for
/// drawing.
#[must_use]
pub fn bevy_translation(position: DVec3) -> Vec3 {
    Vec3::new(position.x as f32, position.z as f32, -position.y as f32)
}

/// A skidpad body-to-world rotation in Bevy's axes: the same rotation,
/// its axis carried by the same map as positions.
#[must_use]
pub fn bevy_rotation(orientation: DQuat) -> Quat {
    Quat::from_xyzw(
        orientation.x as f32,
        orientation.z as f32,
        -orientation.y as f32,
        orientation.w as f32,
    )
    .normalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rotated_vector_maps_like_its_rotation() {
        let q = DQuat::from_rotation_z(0.7)
            * DQuat::from_rotation_y(-0.2)
            * DQuat::from_rotation_x(0.3);
        for v in [DVec3::X, DVec3::Y, DVec3::Z, DVec3::new(1.5, -2.0, 0.25)] {
            let in_bevy = bevy_rotation(q) * bevy_translation(v);
            let mapped = bevy_translation(q * v);
            assert!(
                (in_bevy - mapped).length() < 1e-5,
                "{v}: {in_bevy} vs {mapped}"
            );
        }
    }

    #[test]
    fn up_is_up_and_left_is_minus_z() {
        assert_eq!(bevy_translation(DVec3::Z), Vec3::Y);
        assert_eq!(bevy_translation(DVec3::Y), Vec3::NEG_Z);
        assert_eq!(bevy_translation(DVec3::X), Vec3::X);
    }
}
