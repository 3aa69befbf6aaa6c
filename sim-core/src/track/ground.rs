//! A track's 3D surface as a `TriangleMesh`: the road (banked, following
//! the centre line's elevation), a kerb along each edge, grass run-off and
//! a barrier wall at the run-off's outer edge, each strip with its surface.
//!
//! Cross-sections are taken at every polyline point, across the centre
//! line. Offsets are measured to the left; from the right-hand barrier to
//! the left-hand one a section is: wall, grass, kerb, road, kerb, grass,
//! wall. On the inside of a bend the run-off is cut short of the bend's
//! centre so that consecutive sections never fold over each other.

use glam::{DVec2, DVec3};

use crate::ground::{MeshSource, TriangleMesh};
use crate::surface::{SurfaceId, SurfaceTable};
use crate::track::Track;
use crate::track::{Side, Strip};
use crate::{CoreError, Result};

/// Width of each kerb, m.
pub const KERB_WIDTH: f64 = 1.0;
/// Width of the grass run-off beyond each kerb, m.
pub const RUNOFF_WIDTH: f64 = 12.0;
/// Height of the barriers, m.
pub const BARRIER_HEIGHT: f64 = 1.2;
/// Share of a bend's radius the inside run-off may reach.
const INSIDE_REACH: f64 = 0.85;

impl Track {
    /// The track's surface as a triangle mesh (see the module docs), in
    /// the default surface table's ids: asphalt, kerb, grass.
    pub fn ground(&self) -> Result<TriangleMesh> {
        let source = self.ground_source();
        TriangleMesh::new(&source.vertices, &source.triangles)
            .and_then(|mesh| mesh.with_surfaces(source.surfaces.unwrap_or_default()))
            .map_err(|e| CoreError::InvalidArgument {
                what: "track ground",
                reason: format!("{}: {e}", self.name()),
            })
    }

    /// The inputs of [`ground`](Self::ground): what a replay carries
    /// (`GroundSource::Mesh`) so that a tool without the track's file
    /// drives on the same surface.
    #[must_use]
    pub fn ground_source(&self) -> MeshSource {
        let n = self.points.len();
        // Eight vertices per section: ground at offsets −G, −K, −H, H, K, G
        // (each side's own road edge H and kerb K), then the tops of the
        // right and left barriers.
        let mut vertices = Vec::with_capacity(8 * n);
        for i in 0..n {
            let tangent = (self.points[(i + 1) % n] - self.points[(i + n - 1) % n]).normalize();
            let left = tangent.perp();
            let curvature = self.curvature[i];
            let (left_edge, right_edge) = (self.left[i], self.right[i]);
            let (left_kerb, right_kerb) = (left_edge + KERB_WIDTH, right_edge + KERB_WIDTH);
            // Positive curvature turns left: the left side is the inside.
            let inside_kerb = if curvature > 0.0 {
                left_kerb
            } else {
                right_kerb
            };
            let inside = if curvature.abs() > 1e-9 {
                (INSIDE_REACH / curvature.abs()).max(inside_kerb + 1.0)
            } else {
                f64::INFINITY
            };
            let (left_grass, right_grass) = (left_kerb + RUNOFF_WIDTH, right_kerb + RUNOFF_WIDTH);
            let (right_reach, left_reach) = if curvature > 0.0 {
                (right_grass, left_grass.min(inside))
            } else {
                (right_grass.min(inside), left_grass)
            };
            let tan_bank = libm::tan(self.banking[i]);
            let z0 = self.elevation[i];
            // The road and kerbs lie on the banked plane; the run-off stays
            // level with the kerb's outer edge.
            let height = |offset: f64| z0 - offset.clamp(-right_kerb, left_kerb) * tan_bank;
            let at = |p: DVec2, offset: f64, lift: f64| {
                let q = p + left * offset;
                DVec3::new(q.x, q.y, height(offset) + lift)
            };
            let p = self.points[i];
            for (offset, lift) in [
                (-right_reach, 0.0),
                (-right_kerb, 0.0),
                (-right_edge, 0.0),
                (left_edge, 0.0),
                (left_kerb, 0.0),
                (left_reach, 0.0),
                (-right_reach, BARRIER_HEIGHT),
                (left_reach, BARRIER_HEIGHT),
            ] {
                vertices.push(at(p, offset, lift));
            }
        }
        // (right vertex, left vertex, the strip's place, its own surface).
        let strips = [
            (0, 1, Some((Side::Right, Strip::Runoff)), SurfaceId::GRASS),
            (1, 2, Some((Side::Right, Strip::Kerb)), SurfaceId::KERB),
            (2, 3, None, SurfaceId::DRY_ASPHALT),
            (3, 4, Some((Side::Left, Strip::Kerb)), SurfaceId::KERB),
            (4, 5, Some((Side::Left, Strip::Runoff)), SurfaceId::GRASS),
        ];
        let table = SurfaceTable::default();
        let spans = &self.definition.surfaces;
        let mut triangles = Vec::with_capacity(14 * n);
        let mut surfaces = Vec::with_capacity(14 * n);
        for i in 0..n {
            let (a, b) = (8 * i as u32, 8 * ((i + 1) % n) as u32);
            // Counter-clockwise seen from above: along the strip's right
            // edge first (see `ground/triangle.rs`).
            for (r, l, place, own) in strips {
                // A stretch the definition gives this strip, at the
                // section's distance along the line.
                let surface = place
                    .and_then(|(side, strip)| {
                        spans
                            .iter()
                            .find(|span| span.holds(self.distance[i], side, strip))
                    })
                    .and_then(|span| table.id_of(&span.surface))
                    .unwrap_or(own);
                triangles.push([a + r, b + r, b + l]);
                triangles.push([a + r, b + l, a + l]);
                surfaces.extend([surface; 2]);
            }
            // Barriers face the track: the right wall's normal points left,
            // the left wall's right.
            triangles.push([a, b + 6, b]);
            triangles.push([a, a + 6, b + 6]);
            triangles.push([a + 5, b + 5, b + 7]);
            triangles.push([a + 5, b + 7, a + 7]);
            surfaces.extend([SurfaceId::GRASS; 4]);
        }
        MeshSource {
            vertices,
            triangles,
            surfaces: Some(surfaces),
        }
    }
}
