//! `Transform`s that follow the cars. By default a car's transform is its
//! pose after the last step; a frame usually falls between two steps, so
//! a car can be drawn between its last two poses ([`PoseInterpolation`]:
//! smooth, one step behind) or ahead of the last one along its motion
//! ([`PoseExtrapolation`]: current, may overshoot a sudden turn; avian's
//! docs suggest it for racing games' own car). Drawing only: the
//! simulation never reads a transform.

use bevy_ecs::prelude::*;
use bevy_math::Quat;
use bevy_time::{Fixed, Time};
use bevy_transform::components::Transform;

use crate::axes::{bevy_rotation, bevy_translation};
use crate::cars::CarMotion;
use crate::plugin::SimulationRate;

/// Draw this car between its last two poses, by how far the frame is
/// into the next fixed step.
#[derive(Component, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PoseInterpolation;

/// Draw this car ahead of its last pose by how far the frame is into the
/// next fixed step, continuing its last step's motion.
#[derive(Component, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PoseExtrapolation;

type Smoothing = (Has<PoseInterpolation>, Has<PoseExtrapolation>);

/// Sets each car's `Transform` from its motion.
pub(crate) fn sync_transforms(
    mut cars: Query<(&CarMotion, &mut Transform, Smoothing)>,
    fixed: Res<Time<Fixed>>,
    rate: Res<SimulationRate>,
) {
    // Outside a fixed schedule every frame is one step: nothing between.
    let fraction = if rate.fixed_schedule {
        fixed.overstep_fraction()
    } else {
        0.0
    };
    for (motion, mut transform, (interpolate, extrapolate)) in &mut cars {
        let position = bevy_translation(motion.pose.position);
        let rotation = bevy_rotation(motion.pose.orientation);
        let previous_position = bevy_translation(motion.previous.position);
        let previous_rotation = bevy_rotation(motion.previous.orientation);
        let (translation, rotation) = if interpolate {
            (
                previous_position.lerp(position, fraction),
                previous_rotation.slerp(rotation, fraction),
            )
        } else if extrapolate {
            let turn = rotation * previous_rotation.inverse();
            (
                position + (position - previous_position) * fraction,
                (Quat::IDENTITY.slerp(turn, fraction) * rotation).normalize(),
            )
        } else {
            (position, rotation)
        };
        transform.translation = translation;
        transform.rotation = rotation;
    }
}
