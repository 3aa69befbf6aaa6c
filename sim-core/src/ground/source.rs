//! A ground as the game built it, kept so that it can travel: the inputs
//! of a [`TriangleMesh`] or a [`Heightfield`], from which the same ground
//! (the same fingerprint, so the same answer to every ray) is built again
//! anywhere. A replay carries one when the game asks, so a verifier or a
//! viewer that has never seen the game's world can play the race.

use std::sync::Arc;

use glam::DVec3;

use super::{Ground, Heightfield, TriangleMesh};
use crate::Result;
use crate::surface::SurfaceId;

/// The inputs of a ground this core builds.
#[derive(Clone, Debug, PartialEq)]
pub enum GroundSource {
    /// A [`TriangleMesh`].
    Mesh(MeshSource),
    /// A [`Heightfield`].
    Heightfield(HeightfieldSource),
}

/// [`TriangleMesh::new`]'s vertices and triangles, and the surfaces of
/// [`TriangleMesh::with_surfaces`] if any.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshSource {
    /// Vertex positions, m.
    pub vertices: Vec<DVec3>,
    /// Each triangle's three vertex indices.
    pub triangles: Vec<[u32; 3]>,
    /// One surface per triangle, or none (every triangle the world's
    /// default).
    pub surfaces: Option<Vec<SurfaceId>>,
}

/// [`Heightfield::new`]'s grid, and the surfaces of
/// [`Heightfield::with_cell_surfaces`] if any.
#[derive(Clone, Debug, PartialEq)]
pub struct HeightfieldSource {
    /// The first sample's x, m.
    pub x0: f64,
    /// The first sample's y, m.
    pub y0: f64,
    /// Distance between samples, m.
    pub spacing: f64,
    /// Samples along x.
    pub columns: usize,
    /// Samples along y.
    pub rows: usize,
    /// Heights, row-major (x fastest), m.
    pub heights: Vec<f64>,
    /// One surface per cell, or none.
    pub surfaces: Option<Vec<SurfaceId>>,
}

impl GroundSource {
    /// The ground as the mesh of its triangles, for drawing: a mesh as it
    /// is; a heightfield's samples as vertices and each cell as its two
    /// triangles, split as the physics splits it (along the diagonal from
    /// the cell's low-x, low-y corner), both with the cell's surface.
    #[must_use]
    pub fn as_mesh(&self) -> MeshSource {
        let h = match self {
            GroundSource::Mesh(m) => return m.clone(),
            GroundSource::Heightfield(h) => h,
        };
        let vertices = h
            .heights
            .iter()
            .enumerate()
            .map(|(k, &z)| {
                let (i, j) = ((k % h.columns) as f64, (k / h.columns) as f64);
                DVec3::new(h.x0 + i * h.spacing, h.y0 + j * h.spacing, z)
            })
            .collect();
        let columns = h.columns as u32;
        let mut triangles = Vec::with_capacity(2 * (h.columns - 1) * (h.rows - 1));
        for j in 0..h.rows as u32 - 1 {
            for i in 0..columns - 1 {
                let p00 = j * columns + i;
                let (p10, p01) = (p00 + 1, p00 + columns);
                triangles.push([p00, p10, p01 + 1]);
                triangles.push([p00, p01 + 1, p01]);
            }
        }
        let surfaces = h
            .surfaces
            .as_ref()
            .map(|cells| cells.iter().flat_map(|&s| [s, s]).collect());
        MeshSource {
            vertices,
            triangles,
            surfaces,
        }
    }

    /// Builds the ground, checked as its constructor checks it.
    pub fn build(&self) -> Result<Arc<dyn Ground>> {
        Ok(match self {
            GroundSource::Mesh(m) => {
                let mesh = TriangleMesh::new(&m.vertices, &m.triangles)?;
                match &m.surfaces {
                    Some(s) => Arc::new(mesh.with_surfaces(s.clone())?),
                    None => Arc::new(mesh),
                }
            }
            GroundSource::Heightfield(h) => {
                let field =
                    Heightfield::new(h.x0, h.y0, h.spacing, h.columns, h.rows, h.heights.clone())?;
                match &h.surfaces {
                    Some(s) => Arc::new(field.with_cell_surfaces(s.clone())?),
                    None => Arc::new(field),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_builds_the_ground_it_describes_to_the_same_fingerprint() {
        let vertices = vec![
            DVec3::new(0.0, 0.0, 0.1),
            DVec3::new(10.0, 0.0, 0.3),
            DVec3::new(0.0, 10.0, 0.2),
        ];
        let triangles = vec![[0, 1, 2]];
        let direct = TriangleMesh::new(&vertices, &triangles)
            .unwrap()
            .with_surfaces(vec![SurfaceId(2)])
            .unwrap();
        let source = GroundSource::Mesh(MeshSource {
            vertices,
            triangles,
            surfaces: Some(vec![SurfaceId(2)]),
        });
        assert_eq!(source.build().unwrap().fingerprint(), direct.fingerprint());
        let heights = vec![0.0, 0.5, 1.0, 0.25];
        let field = Heightfield::new(-1.0, -1.0, 2.0, 2, 2, heights.clone()).unwrap();
        let source = GroundSource::Heightfield(HeightfieldSource {
            x0: -1.0,
            y0: -1.0,
            spacing: 2.0,
            columns: 2,
            rows: 2,
            heights,
            surfaces: None,
        });
        assert_eq!(source.build().unwrap().fingerprint(), field.fingerprint());
        // Drawn as a mesh, the heightfield is the same surface: a ray down
        // anywhere over it meets both at one height.
        let drawn = GroundSource::Mesh(source.as_mesh()).build().unwrap();
        let built = source.build().unwrap();
        for (x, y) in [(-0.5, -0.7), (0.3, 0.9), (0.8, -0.2), (-0.9, 0.6)] {
            let ray = crate::GroundRay {
                origin: DVec3::new(x, y, 5.0),
                direction: DVec3::NEG_Z,
                max_distance: 10.0,
            };
            let (a, b) = (drawn.cast_ray(&ray).unwrap(), built.cast_ray(&ray).unwrap());
            assert!((a.distance - b.distance).abs() < 1e-9, "at ({x}, {y})");
        }
        // A bad source is refused as its constructor refuses it.
        let bad = GroundSource::Mesh(MeshSource {
            vertices: vec![DVec3::ZERO; 3],
            triangles: vec![[0, 1, 2]],
            surfaces: None,
        });
        assert!(bad.build().is_err());
    }
}
