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

use crate::ground::TriangleMesh;
use crate::surface::SurfaceId;
use crate::track::Track;
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
        let n = self.points.len();
        let half = self.width / 2.0;
        let kerb = half + KERB_WIDTH;
        // Eight vertices per section: ground at offsets −G, −K, −H, H, K, G,
        // then the tops of the right and left barriers.
        let mut vertices = Vec::with_capacity(8 * n);
        for i in 0..n {
            let tangent = (self.points[(i + 1) % n] - self.points[(i + n - 1) % n]).normalize();
            let left = tangent.perp();
            let curvature = self.curvature[i];
            let inside = if curvature.abs() > 1e-9 {
                (INSIDE_REACH / curvature.abs()).max(kerb + 1.0)
            } else {
                f64::INFINITY
            };
            let grass = kerb + RUNOFF_WIDTH;
            // Positive curvature turns left: the left side is the inside.
            let (right_reach, left_reach) = if curvature > 0.0 {
                (grass, grass.min(inside))
            } else {
                (grass.min(inside), grass)
            };
            let tan_bank = libm::tan(self.banking[i]);
            let z0 = self.elevation[i];
            // The road and kerbs lie on the banked plane; the run-off stays
            // level with the kerb's outer edge.
            let height = |offset: f64| z0 - offset.clamp(-kerb, kerb) * tan_bank;
            let at = |p: DVec2, offset: f64, lift: f64| {
                let q = p + left * offset;
                DVec3::new(q.x, q.y, height(offset) + lift)
            };
            let p = self.points[i];
            for (offset, lift) in [
                (-right_reach, 0.0),
                (-kerb, 0.0),
                (-half, 0.0),
                (half, 0.0),
                (kerb, 0.0),
                (left_reach, 0.0),
                (-right_reach, BARRIER_HEIGHT),
                (left_reach, BARRIER_HEIGHT),
            ] {
                vertices.push(at(p, offset, lift));
            }
        }
        let strips = [
            (0, 1, SurfaceId::GRASS),
            (1, 2, SurfaceId::KERB),
            (2, 3, SurfaceId::DRY_ASPHALT),
            (3, 4, SurfaceId::KERB),
            (4, 5, SurfaceId::GRASS),
        ];
        let mut triangles = Vec::with_capacity(14 * n);
        let mut surfaces = Vec::with_capacity(14 * n);
        for i in 0..n {
            let (a, b) = (8 * i as u32, 8 * ((i + 1) % n) as u32);
            // Counter-clockwise seen from above: along the strip's right
            // edge first (see `ground/triangle.rs`).
            for (r, l, surface) in strips {
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
        TriangleMesh::new(&vertices, &triangles)
            .and_then(|mesh| mesh.with_surfaces(surfaces))
            .map_err(|e| CoreError::InvalidArgument {
                what: "track ground",
                reason: format!("{}: {e}", self.name),
            })
    }
}
