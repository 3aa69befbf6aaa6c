//! A level's Bevy mesh baked into a skidpad ground. The baked vertices
//! (f32 positions carried into skidpad's axes as f64, exactly) are the
//! ground from then on: the replay carries them, so a server that has
//! never seen the game's assets plays the run on the same triangles.
//! Bake once and ship the result: the placement is applied in f32, which
//! two builds of the game need not round alike, so online clients should
//! share one baked source rather than bake each their own.

use std::sync::Arc;

use bevy_math::Vec3;
use bevy_transform::components::GlobalTransform;
use skidpad_core::glam::DVec3;
use skidpad_core::{Ground, GroundSource, MeshSource, SurfaceId};

/// Why a mesh could not become a ground.
#[derive(Debug, thiserror::Error)]
pub enum BakeError {
    /// The index list is not whole triangles.
    #[error("a triangle list needs indices in threes, got {0}")]
    NotTriangles(usize),
    /// The surfaces are not one per triangle.
    #[error("{surfaces} surfaces for {triangles} triangles: give one per triangle")]
    SurfaceCount {
        /// Surfaces given.
        surfaces: usize,
        /// Triangles in the mesh.
        triangles: usize,
    },
    /// skidpad refused the triangles (a vertex out of range, an index past
    /// the vertices, a degenerate triangle; the message names it).
    #[error(transparent)]
    Core(#[from] skidpad_core::CoreError),
}

/// A baked level: the source the replay carries and the ground built
/// from it for the world.
#[derive(Debug, Clone)]
pub struct BakedGround {
    /// The triangles as skidpad keeps them: pass this as the recorder's
    /// `RecorderOptions::ground`.
    pub source: GroundSource,
    /// The ground to give the world (`World::set_ground`).
    pub ground: Arc<dyn Ground>,
}

/// Bakes a triangle list (a `Mesh`'s `ATTRIBUTE_POSITION` and its
/// indices, in the mesh's own space) placed by `placement` (the level
/// entity's `GlobalTransform`) into a ground, with one surface per
/// triangle or the world's default for all. Front faces (counter-clockwise
/// seen from outside, Bevy's default) are the driving side.
///
/// ```
/// use bevy_transform::components::GlobalTransform;
/// use skidpad_bevy::bake_ground;
/// use skidpad_core::{World, WorldConfig};
///
/// // A 100 m square of two triangles, 1 m up, counter-clockwise from above.
/// let corners = [[-50.0, 1.0, -50.0], [-50.0, 1.0, 50.0], [50.0, 1.0, 50.0], [50.0, 1.0, -50.0]];
/// let baked = bake_ground(&corners, &[0, 1, 2, 0, 2, 3], &GlobalTransform::IDENTITY, None)?;
/// let mut world = World::new(WorldConfig::default())?;
/// world.set_ground(baked.ground)?;
/// // baked.source goes into RecorderOptions::ground.
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn bake_ground(
    positions: &[[f32; 3]],
    indices: &[u32],
    placement: &GlobalTransform,
    surfaces: Option<Vec<SurfaceId>>,
) -> Result<BakedGround, BakeError> {
    if !indices.len().is_multiple_of(3) {
        return Err(BakeError::NotTriangles(indices.len()));
    }
    let triangles: Vec<[u32; 3]> = indices
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    if let Some(s) = &surfaces
        && s.len() != triangles.len()
    {
        return Err(BakeError::SurfaceCount {
            surfaces: s.len(),
            triangles: triangles.len(),
        });
    }
    let vertices = positions
        .iter()
        .map(|&p| skidpad_position(placement.transform_point(Vec3::from_array(p))))
        .collect();
    let source = GroundSource::Mesh(MeshSource {
        vertices,
        triangles,
        surfaces,
    });
    let ground = source.build()?;
    Ok(BakedGround { source, ground })
}

/// A Bevy position in skidpad's axes: the inverse of
/// [`bevy_translation`](crate::bevy_translation), (X, Y, Z) → (X, −Z, Y).
fn skidpad_position(p: Vec3) -> DVec3 {
    DVec3::new(f64::from(p.x), -f64::from(p.z), f64::from(p.y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bevy_translation;

    #[test]
    fn a_position_maps_back_exactly() {
        let p = Vec3::new(1.25, -3.5, 7.0);
        assert_eq!(bevy_translation(skidpad_position(p)), p);
    }

    #[test]
    fn bad_meshes_are_refused_with_a_reason() {
        let square = [[0.0, 0.0, 0.0], [10.0, 0.0, 0.0], [10.0, 0.0, -10.0]];
        let at = GlobalTransform::IDENTITY;
        assert!(matches!(
            bake_ground(&square, &[0, 1], &at, None),
            Err(BakeError::NotTriangles(2))
        ));
        let e = bake_ground(&square, &[0, 1, 3], &at, None).unwrap_err();
        assert!(e.to_string().contains("beyond the 3"), "{e}");
        let e = bake_ground(&square, &[0, 1, 2], &at, Some(vec![])).unwrap_err();
        assert!(matches!(
            e,
            BakeError::SurfaceCount {
                surfaces: 0,
                triangles: 1
            }
        ));
        assert!(bake_ground(&square, &[0, 1, 2], &at, None).is_ok());
    }
}
