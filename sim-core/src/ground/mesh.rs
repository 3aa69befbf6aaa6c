//! A triangle mesh ground with a bounding-volume hierarchy, for tracks
//! with elevation, banking and barriers, or a game's own level geometry.
//!
//! The hierarchy is built top-down by median split along the longest axis
//! of the triangles' centroids, sorting by (centroid, triangle index), so
//! the same mesh always builds the same tree on every target. A ray keeps
//! the hit with the smallest (parameter, triangle index): the answer is
//! the same whatever order the tree is walked in.

use glam::{DVec2, DVec3};

use crate::ground::footprint::FootprintGrid;
use crate::ground::lone::LoneTriangles;
use crate::ground::triangle::Triangle;
use crate::ground::{FingerprintWriter, Ground, GroundHint, GroundHit, GroundRay};
use crate::surface::SurfaceId;
use crate::{CoreError, Result};

/// Most triangles a mesh may hold (32 M, the triangles of the largest
/// heightfield): a detailed circuit needs well under a million.
pub const MAX_MESH_TRIANGLES: usize = 1 << 25;

/// Largest |coordinate| of a vertex, m: beyond every car's position bound
/// and every heightfield's extent.
pub const MAX_MESH_COORDINATE: f64 = 1e8;

/// Most triangles in one leaf of the hierarchy.
const LEAF_SIZE: usize = 4;

/// Deepest a traversal stack can grow: median splits halve the triangle
/// count per level, so 2^25 triangles in leaves of 4 need 24 levels.
const MAX_DEPTH: usize = 48;

/// Boxes are padded by this much, m, so that a hit the triangle test's
/// edge tolerance accepts is never culled by its box.
const BOX_PADDING: f64 = 1e-6;

/// One node of the hierarchy, stored flat: a leaf holds `count > 0`
/// triangles from `first` in `order`; an inner node's children are
/// `first` and `first + 1`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Node {
    min: DVec3,
    max: DVec3,
    first: u32,
    count: u32,
}

/// A triangle mesh. Triangles wind counter-clockwise seen from above (the
/// side a wheel stands on); see `triangle.rs`.
///
/// ```
/// use skidpad_core::glam::DVec3;
/// use skidpad_core::{Ground, GroundRay, TriangleMesh};
///
/// // A 20 m square at z = 2, as two triangles.
/// let v = [(-10.0, -10.0), (10.0, -10.0), (10.0, 10.0), (-10.0, 10.0)]
///     .map(|(x, y)| DVec3::new(x, y, 2.0));
/// let deck = TriangleMesh::new(&v, &[[0, 1, 2], [0, 2, 3]])?;
/// let ray = GroundRay { origin: DVec3::new(1.0, 1.0, 2.4), direction: DVec3::NEG_Z, max_distance: 1.0 };
/// let hit = deck.cast_ray(&ray).expect("the deck is under the ray");
/// assert!((hit.distance - 0.4).abs() < 1e-12);
/// # Ok::<(), skidpad_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct TriangleMesh {
    triangles: Vec<Triangle>,
    normals: Vec<DVec3>,
    surfaces: Option<Vec<SurfaceId>>,
    nodes: Vec<Node>,
    /// Triangle indices in leaf order.
    order: Vec<u32>,
    /// The fast path for short rays (`footprint.rs`); `None` for small meshes.
    pub(super) grid: Option<FootprintGrid>,
    /// The triangles a hinted ray may be answered by alone (`lone.rs`);
    /// `None` without a grid.
    lone: Option<LoneTriangles>,
    fingerprint: [u8; 32],
}

impl TriangleMesh {
    /// A mesh of `triangles` (vertex indices) over `vertices`. Vertices
    /// must be finite and within ±[`MAX_MESH_COORDINATE`], indices in
    /// range and triangles not degenerate (area at least 1 mm²).
    pub fn new(vertices: &[DVec3], triangles: &[[u32; 3]]) -> Result<TriangleMesh> {
        let invalid = |reason: String| CoreError::InvalidArgument {
            what: "triangle mesh",
            reason,
        };
        if triangles.is_empty() || triangles.len() > MAX_MESH_TRIANGLES {
            return Err(invalid(format!(
                "needs 1 to {MAX_MESH_TRIANGLES} triangles, got {}",
                triangles.len()
            )));
        }
        if let Some(i) = vertices
            .iter()
            .position(|v| !(v.is_finite() && v.abs().max_element() <= MAX_MESH_COORDINATE))
        {
            return Err(invalid(format!(
                "vertex {i} must be finite and within ±{MAX_MESH_COORDINATE} m, got {}",
                vertices[i]
            )));
        }
        let mut built = Vec::with_capacity(triangles.len());
        for (t, corners) in triangles.iter().enumerate() {
            let [a, b, c] = corners.map(|k| vertices.get(k as usize).copied());
            let (Some(a), Some(b), Some(c)) = (a, b, c) else {
                return Err(invalid(format!(
                    "triangle {t} names a vertex beyond the {} given: {corners:?}",
                    vertices.len()
                )));
            };
            let tri = Triangle::new(a, b, c);
            if tri.double_area() < 2e-6 {
                return Err(invalid(format!(
                    "triangle {t} is degenerate (area below 1 mm²)"
                )));
            }
            built.push(tri);
        }
        let normals = built.iter().map(Triangle::normal).collect();
        let mut mesh = TriangleMesh {
            triangles: built,
            normals,
            surfaces: None,
            nodes: Vec::new(),
            order: Vec::new(),
            grid: None,
            lone: None,
            fingerprint: [0; 32],
        };
        mesh.build_hierarchy();
        mesh.grid = FootprintGrid::build(&mesh.triangles);
        mesh.lone = mesh
            .grid
            .as_ref()
            .map(|grid| LoneTriangles::find(&mesh.triangles, grid));
        mesh.fingerprint = mesh.compute_fingerprint();
        Ok(mesh)
    }

    /// Gives every triangle a surface, in triangle order.
    pub fn with_surfaces(mut self, surfaces: Vec<SurfaceId>) -> Result<TriangleMesh> {
        if surfaces.len() != self.triangles.len() {
            return Err(CoreError::InvalidArgument {
                what: "triangle mesh",
                reason: format!(
                    "{} triangles need {} surfaces, got {}",
                    self.triangles.len(),
                    self.triangles.len(),
                    surfaces.len()
                ),
            });
        }
        self.surfaces = Some(surfaces);
        self.fingerprint = self.compute_fingerprint();
        Ok(self)
    }

    /// Number of triangles.
    #[must_use]
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    /// How many triangles a hinted ray may be answered by alone, for tests.
    #[cfg(test)]
    pub(crate) fn lone_count(&self) -> Option<usize> {
        self.lone.as_ref().map(LoneTriangles::count)
    }

    /// Depth of the hierarchy (1 for a single leaf).
    #[must_use]
    pub fn depth(&self) -> usize {
        fn depth_of(nodes: &[Node], i: usize) -> usize {
            let node = nodes[i];
            if node.count > 0 {
                1
            } else {
                let c = node.first as usize;
                1 + depth_of(nodes, c).max(depth_of(nodes, c + 1))
            }
        }
        depth_of(&self.nodes, 0)
    }

    /// The nearest front-face hit by testing every triangle in index
    /// order, without the hierarchy: what [`Ground::cast_ray`] must agree
    /// with, bit for bit (the tests check it).
    #[must_use]
    pub fn cast_ray_brute_force(&self, ray: &GroundRay) -> Option<GroundHit> {
        let mut best: Option<(f64, u32)> = None;
        for (i, tri) in self.triangles.iter().enumerate() {
            let t_max = best.map_or(ray.max_distance, |(t, _)| t);
            if let Some(t) = tri.intersect(ray, -ray.max_distance, t_max)
                && best.is_none_or(|(bt, _)| t < bt)
            {
                best = Some((t, i as u32));
            }
        }
        best.map(|(t, i)| self.hit(ray, t, i))
    }

    fn hit(&self, ray: &GroundRay, t: f64, index: u32) -> GroundHit {
        let i = index as usize;
        GroundHit {
            distance: t,
            point: ray.at(t),
            normal: self.normals[i],
            surface: self.surfaces.as_ref().map(|s| s[i]),
        }
    }

    fn build_hierarchy(&mut self) {
        let centroids: Vec<DVec3> = self
            .triangles
            .iter()
            .map(|t| t.v0 + (t.e1 + t.e2) * (1.0 / 3.0))
            .collect();
        self.order = (0..self.triangles.len() as u32).collect();
        self.nodes = vec![Node {
            min: DVec3::ZERO,
            max: DVec3::ZERO,
            first: 0,
            count: 0,
        }];
        // (node, first, count) still to fill in; an explicit stack keeps
        // the build's recursion off the thread stack.
        let mut pending = vec![(0usize, 0usize, self.triangles.len())];
        while let Some((node, first, count)) = pending.pop() {
            let members = &mut self.order[first..first + count];
            let (mut min, mut max) = (DVec3::splat(f64::MAX), DVec3::splat(f64::MIN));
            let (mut cmin, mut cmax) = (min, max);
            for &t in members.iter() {
                let tri = &self.triangles[t as usize];
                for v in [tri.v0, tri.v0 + tri.e1, tri.v0 + tri.e2] {
                    min = min.min(v);
                    max = max.max(v);
                }
                cmin = cmin.min(centroids[t as usize]);
                cmax = cmax.max(centroids[t as usize]);
            }
            self.nodes[node].min = min - DVec3::splat(BOX_PADDING);
            self.nodes[node].max = max + DVec3::splat(BOX_PADDING);
            if count <= LEAF_SIZE {
                self.nodes[node].first = first as u32;
                self.nodes[node].count = count as u32;
                continue;
            }
            let extent = cmax - cmin;
            let axis = if extent.x >= extent.y && extent.x >= extent.z {
                0
            } else if extent.y >= extent.z {
                1
            } else {
                2
            };
            members.sort_unstable_by(|&a, &b| {
                centroids[a as usize][axis]
                    .total_cmp(&centroids[b as usize][axis])
                    .then(a.cmp(&b))
            });
            let half = count / 2;
            let child = self.nodes.len();
            self.nodes[node].first = child as u32;
            self.nodes[node].count = 0;
            self.nodes.extend([self.nodes[node]; 2]);
            pending.push((child + 1, first + half, count - half));
            pending.push((child, first, half));
        }
    }

    fn compute_fingerprint(&self) -> [u8; 32] {
        let mut w = FingerprintWriter::new("triangle mesh");
        w.u64(self.triangles.len() as u64);
        for tri in &self.triangles {
            for v in [tri.v0, tri.e1, tri.e2] {
                w.f64(v.x).f64(v.y).f64(v.z);
            }
        }
        if let Some(surfaces) = &self.surfaces {
            w.bytes(&surfaces.iter().map(|s| s.0).collect::<Vec<u8>>());
        }
        w.finish()
    }
}

/// Whether the ray's parameter interval `[lo, hi]` meets the box. The ray
/// comes as its origin and the reciprocals of its direction (infinite for
/// a zero component: then the slab's two parameters are both infinite of
/// one sign, or NaN at a slab's face, which `min`/`max` skip), so a box
/// costs multiplications only. Boxes are padded by [`BOX_PADDING`], far
/// above the rounding of this test, so it never culls a box whose
/// triangles the exact test would hit.
fn meets_box(
    origin: DVec3,
    inv_dir: DVec3,
    min: DVec3,
    max: DVec3,
    mut lo: f64,
    mut hi: f64,
) -> bool {
    for axis in 0..3 {
        let t1 = (min[axis] - origin[axis]) * inv_dir[axis];
        let t2 = (max[axis] - origin[axis]) * inv_dir[axis];
        lo = lo.max(t1.min(t2));
        hi = hi.min(t1.max(t2));
        if lo > hi {
            return false;
        }
    }
    true
}

impl TriangleMesh {
    /// The cast through the grid of the mesh's footprint, or `None` when
    /// the mesh has no grid or the ray spans too many of its cells.
    fn nearest_in_grid(&self, ray: &GroundRay) -> Option<Option<(f64, u32)>> {
        let grid = self.grid.as_ref()?;
        let reach = ray.max_distance;
        // The ray searches back as far as it reaches forward: a segment
        // centred on its origin.
        let mut best: Option<(f64, u32)> = None;
        let searched = grid.candidates(ray.origin, ray.direction * reach, |i| {
            let t_max = best.map_or(reach, |(t, _)| t);
            if let Some(t) = self.triangles[i as usize].intersect(ray, -reach, t_max)
                && best.is_none_or(|(bt, bi)| t < bt || (t == bt && i < bi))
            {
                best = Some((t, i));
            }
        });
        searched.then_some(best)
    }

    /// The nearest hit's parameter and triangle, through the grid for the
    /// short rays of struts and body corners, the hierarchy otherwise.
    fn nearest(&self, ray: &GroundRay) -> Option<(f64, u32)> {
        let reach = ray.max_distance;
        if !(reach.is_finite() && reach >= 0.0) {
            return None;
        }
        match self.nearest_in_grid(ray) {
            Some(answer) => answer,
            None => self.nearest_in_hierarchy(ray),
        }
    }

    /// The cast through the bounding-volume hierarchy alone (what
    /// [`Ground::cast_ray`] falls back to for long rays); public so tests
    /// can hold it to [`cast_ray_brute_force`](Self::cast_ray_brute_force)
    /// too.
    #[must_use]
    pub fn cast_ray_hierarchy(&self, ray: &GroundRay) -> Option<GroundHit> {
        self.nearest_in_hierarchy(ray)
            .map(|(t, i)| self.hit(ray, t, i))
    }

    fn nearest_in_hierarchy(&self, ray: &GroundRay) -> Option<(f64, u32)> {
        let reach = ray.max_distance;
        if !(reach.is_finite() && reach >= 0.0) {
            return None;
        }
        let mut best: Option<(f64, u32)> = None;
        let inv_dir = DVec3::ONE / ray.direction;
        let mut stack = [0u32; MAX_DEPTH];
        let mut depth = 1;
        while depth > 0 {
            depth -= 1;
            let node = self.nodes[stack[depth] as usize];
            // Ties at the best parameter still matter (a lower index wins),
            // so boxes are culled only beyond it, not at it.
            let t_max = best.map_or(reach, |(t, _)| t);
            if !meets_box(ray.origin, inv_dir, node.min, node.max, -reach, t_max) {
                continue;
            }
            if node.count == 0 {
                stack[depth] = node.first;
                stack[depth + 1] = node.first + 1;
                depth += 2;
                continue;
            }
            let leaf = &self.order[node.first as usize..(node.first + node.count) as usize];
            for &i in leaf {
                let t_max = best.map_or(reach, |(t, _)| t);
                if let Some(t) = self.triangles[i as usize].intersect(ray, -reach, t_max)
                    && best.is_none_or(|(bt, bi)| t < bt || (t == bt && i < bi))
                {
                    best = Some((t, i));
                }
            }
        }
        best
    }
}

impl Ground for TriangleMesh {
    /// The nearest hit, ties to the lower triangle index: through the
    /// footprint grid for the short rays of struts and body corners, the
    /// hierarchy otherwise. Both prune only, so the answer is the brute
    /// force's bit for bit.
    fn cast_ray(&self, ray: &GroundRay) -> Option<GroundHit> {
        self.nearest(ray).map(|(t, i)| self.hit(ray, t, i))
    }

    /// The hint is the triangle the last ray hit: when that triangle is
    /// alone and this ray's whole x–y extent lies well inside it
    /// (`lone.rs`), its own test is the answer; otherwise the full cast,
    /// whose triangle becomes the hint.
    fn cast_ray_hinted(&self, ray: &GroundRay, hint: &mut GroundHint) -> Option<GroundHit> {
        let reach = ray.max_distance;
        if !(reach.is_finite() && reach >= 0.0) {
            return None;
        }
        if let Some(lone) = &self.lone
            && lone.covers(hint.0, ray.origin, ray.direction * reach)
        {
            let i = hint.0;
            return self.triangles[i as usize]
                .intersect(ray, -reach, reach)
                .map(|t| self.hit(ray, t, i));
        }
        let found = self.nearest(ray);
        if let Some((_, i)) = found {
            *hint = GroundHint(i);
        }
        found.map(|(t, i)| self.hit(ray, t, i))
    }

    fn fingerprint(&self) -> [u8; 32] {
        self.fingerprint
    }

    /// The footprint grid's bound: the highest vertex listed in the cells
    /// the rectangle touches. A mesh without a grid gives none.
    fn highest_within(&self, min: DVec2, max: DVec2) -> Option<f64> {
        self.grid.as_ref()?.highest_within(min, max)
    }

    /// The grid's cells first, then the planes of the triangles there.
    fn lies_below(&self, min: DVec2, max: DVec2, z: f64) -> bool {
        self.grid
            .as_ref()
            .is_some_and(|grid| grid.lies_below(min, max, z))
    }

    /// The grid's cells first, then each nearby triangle's plane against
    /// every point.
    fn lies_under_hull(&self, points: &[DVec3], margin: f64) -> bool {
        self.grid
            .as_ref()
            .is_some_and(|grid| grid.lies_under_hull(points, margin))
    }

    fn max_surface_id(&self) -> Option<SurfaceId> {
        self.surfaces.as_ref()?.iter().copied().max()
    }

    fn describe(&self) -> String {
        format!("triangle mesh of {} triangles", self.triangles.len())
    }
}
