//! Triangles alone over their footprint: a shortcut for a ray that stays
//! over the triangle its caller's previous ray hit.
//!
//! A wheel's strut ray lands on the same road triangle step after step.
//! A triangle is *alone* when no other triangle of the mesh covers any
//! point of its x–y projection (its neighbours only touch its edges), as
//! on a road ribbon without bridges. If a ray's whole x–y extent (the box
//! of `origin ± max_distance · direction`) lies at least [`MARGIN`] inside
//! such a triangle, no other triangle can be hit by it: any hit point lies
//! in that box, and every other triangle, widened by the ray–triangle
//! test's edge tolerance, lies outside the triangle shrunk by the margin.
//! The answer is then that triangle's own test (a hit, or none), which is
//! what the brute-force cast gives, bit for bit. Anything unproven, such
//! as a neighbour that overlaps, a ray near an edge, a huge triangle, or
//! a NaN, falls back to the full cast.

use glam::{DVec2, DVec3};

use crate::ground::footprint::FootprintGrid;
use crate::ground::triangle::{EDGE_TOLERANCE, Triangle};

/// How far inside a triangle's edges a ray's x–y box must stay, m: far
/// above the rounding of the separation test at track coordinates, and far
/// below a strut ray's sideways extent, so the shortcut almost always holds.
const MARGIN: f64 = 1e-3;

/// Slack for the rounding of the separation test itself, m.
const SLACK: f64 = 1e-6;

/// Padding of a ray's x–y box for the rounding of its hit point, m.
const RAY_PAD: f64 = 1e-6;

/// Most neighbours a triangle is checked against; past them it is not
/// called alone (a road triangle has a few dozen at most).
const MAX_NEIGHBOURS: u32 = 256;

/// One edge of an alone triangle: a point `p` is at least [`MARGIN`]
/// inside it when `normal · p ≥ limit`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct EdgeLine {
    normal: DVec2,
    limit: f64,
}

/// For every triangle, its three shrunk edge lines when it is alone.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LoneTriangles {
    edges: Vec<Option<[EdgeLine; 3]>>,
}

/// A triangle's x–y corners.
fn corners(tri: &Triangle) -> [DVec2; 3] {
    [tri.v0, tri.v0 + tri.e1, tri.v0 + tri.e2].map(DVec3::truncate)
}

/// Twice the signed area of a 2D triangle (positive counter-clockwise).
fn signed_double_area([a, b, c]: [DVec2; 3]) -> f64 {
    (b - a).perp_dot(c - a)
}

/// How far the ray–triangle test's edge tolerance widens `tri` in x–y at
/// most, m (the barycentric tolerance times the edges' lengths, twice).
fn widening(tri: &Triangle) -> f64 {
    2.0 * EDGE_TOLERANCE * (tri.e1.truncate().length() + tri.e2.truncate().length())
}

/// Whether `other`, widened by `widen`, stays out of `own` shrunk by
/// [`MARGIN`]: a separating axis among the six edge normals, coordinates
/// taken relative to `origin` so that they stay small.
fn separated(own: [DVec2; 3], other: [DVec2; 3], widen: f64, origin: DVec2) -> bool {
    let own = own.map(|p| p - origin);
    let other = other.map(|p| p - origin);
    let axes = (0..3)
        .map(|k| (own[(k + 1) % 3] - own[k]).perp())
        .chain((0..3).map(|k| (other[(k + 1) % 3] - other[k]).perp()));
    axes.into_iter().any(|axis| {
        let length = axis.length();
        if length == 0.0 || !length.is_finite() {
            return false;
        }
        let span = |points: [DVec2; 3]| {
            let d = points.map(|p| axis.dot(p));
            (d[0].min(d[1]).min(d[2]), d[0].max(d[1]).max(d[2]))
        };
        let ((own_lo, own_hi), (other_lo, other_hi)) = (span(own), span(other));
        let reach = (widen + SLACK) * length;
        let inset = MARGIN * length;
        other_hi + reach < own_lo + inset || other_lo - reach > own_hi - inset
    })
}

impl LoneTriangles {
    /// Finds the alone triangles of a mesh through its footprint grid
    /// (a triangle's possible overlaps are the candidates of its own box).
    pub(crate) fn find(triangles: &[Triangle], grid: &FootprintGrid) -> LoneTriangles {
        let edges = triangles
            .iter()
            .enumerate()
            .map(|(i, tri)| {
                let own = corners(tri);
                // Only upward-facing triangles with some x–y area (the
                // ones a strut stands on; NaN is neither).
                let upward = signed_double_area(own) > 0.0;
                if !upward {
                    return None;
                }
                // The first overlap settles it; a crowd of neighbours (a
                // mesh heaped into one cell) is not searched past
                // MAX_NEIGHBOURS, so finding stays linear in the mesh.
                let (mut alone, mut seen) = (true, 0);
                let listed = grid.overlapping(i as u32, |j| {
                    seen += 1;
                    alone = seen <= MAX_NEIGHBOURS
                        && (j as usize == i || {
                            let other = &triangles[j as usize];
                            separated(own, corners(other), widening(other), own[0])
                        });
                    alone
                });
                (listed && alone).then(|| {
                    [0, 1, 2].map(|k| {
                        let (a, b) = (own[k], own[(k + 1) % 3]);
                        // Counter-clockwise: the inside is to the left.
                        let normal = (b - a).perp();
                        EdgeLine {
                            normal,
                            limit: normal.dot(a) + MARGIN * normal.length(),
                        }
                    })
                })
            })
            .collect();
        LoneTriangles { edges }
    }

    /// Whether the whole x–y extent of `origin ± reach · direction` lies
    /// [`MARGIN`] inside triangle `index` and that triangle is alone: then
    /// the triangle's own test is the mesh's answer.
    pub(crate) fn covers(&self, index: u32, origin: DVec3, reach: DVec3) -> bool {
        let Some(Some(edges)) = self.edges.get(index as usize) else {
            return false;
        };
        let half = DVec2::new(reach.x.abs(), reach.y.abs()) + DVec2::splat(RAY_PAD);
        let centre = origin.truncate();
        // NaN anywhere makes a comparison false: no shortcut.
        edges
            .iter()
            .all(|e| e.normal.dot(centre) - e.normal.abs().dot(half) >= e.limit)
    }

    /// How many triangles are alone, for tests.
    #[cfg(test)]
    pub(crate) fn count(&self) -> usize {
        self.edges.iter().filter(|e| e.is_some()).count()
    }
}

#[cfg(test)]
mod tests {
    use glam::DVec3;

    use crate::{Track, TriangleMesh};

    #[test]
    fn a_mesh_heaped_into_one_cell_builds_at_once_and_nothing_there_is_alone() {
        // 20 000 small triangles stacked on one spot and one far away: the
        // grid puts the heap in one cell, so without a bound on the
        // neighbours checked the search would be quadratic.
        let mut vertices = Vec::new();
        let mut triangles = Vec::new();
        for k in 0..20_000u32 {
            let z = f64::from(k) * 1e-3;
            vertices.extend([
                DVec3::new(0.0, 0.0, z),
                DVec3::new(0.1, 0.0, z),
                DVec3::new(0.0, 0.1, z),
            ]);
            triangles.push([3 * k, 3 * k + 1, 3 * k + 2]);
        }
        let far = vertices.len() as u32;
        vertices.extend([
            DVec3::new(1e5, 1e5, 0.0),
            DVec3::new(1e5 + 1.0, 1e5, 0.0),
            DVec3::new(1e5, 1e5 + 1.0, 0.0),
        ]);
        triangles.push([far, far + 1, far + 2]);
        let started = std::time::Instant::now();
        let mesh = TriangleMesh::new(&vertices, &triangles).unwrap();
        assert_eq!(mesh.lone_count(), Some(1), "only the far triangle");
        println!("built in {:?}", started.elapsed());
    }

    #[test]
    fn most_of_a_track_surface_is_alone() {
        for name in crate::track_names() {
            let mesh = Track::builtin(name).unwrap().ground().unwrap();
            let alone = mesh.lone_count().expect("a track has a grid");
            let triangles = mesh.triangle_count();
            println!("{name}: {alone} of {triangles} triangles alone");
            // The barriers' walls have no x–y area and the verges under
            // them overlap them; the road, kerbs and grass are alone.
            assert!(alone * 10 > triangles * 7, "{name}: {alone} of {triangles}");
        }
    }
}
