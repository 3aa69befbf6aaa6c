//! A heightfield: heights on a regular grid, each cell split into two
//! triangles along the diagonal from its low-x, low-y corner. Outside the
//! grid there is no ground.

use glam::{DVec2, DVec3};

use crate::ground::triangle::Triangle;
use crate::ground::{FingerprintWriter, Ground, GroundHit, GroundRay, TriangleMesh};
use crate::surface::SurfaceId;
use crate::{CoreError, Result};

/// Most samples a heightfield may hold (a 4 096 × 4 096 grid): 128 MiB of
/// heights, far more than any track needs.
pub const MAX_HEIGHTFIELD_SAMPLES: usize = 1 << 24;

/// Largest |height| accepted, m.
const MAX_HEIGHT: f64 = 1e4;

/// Heights on a square grid. Sample `(i, j)` (column `i` along +x, row `j`
/// along +y) sits at `(x0 + i·spacing, y0 + j·spacing, heights[j·columns +
/// i])`. Cell `(i, j)` is triangles `2·(j·(columns − 1) + i)` (below its
/// diagonal) and that plus one (above it).
///
/// ```
/// use std::sync::Arc;
/// use skidpad_core::{Heightfield, World, WorldConfig, preset, InitialPose};
///
/// // 3 × 3 samples 10 m apart, rising 1 m per sample along x: a 10 % grade.
/// let heights = vec![0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0];
/// let hill = Heightfield::new(-10.0, -10.0, 10.0, 3, 3, heights)?;
/// let mut world = World::new(WorldConfig::default())?;
/// world.set_ground(Arc::new(hill))?;
/// // A new car is put down on the ground under it.
/// let car = world.add_car(&preset("fwd_hatchback")?, InitialPose::default())?;
/// world.step(1.0 / 60.0)?;
/// assert!(world.pose(car)?.position.z > 1.0, "on the slope, 1 m up at x = 0");
/// # Ok::<(), skidpad_core::CoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Heightfield {
    x0: f64,
    y0: f64,
    spacing: f64,
    columns: usize,
    rows: usize,
    heights: Vec<f64>,
    /// One surface per cell, when set.
    surfaces: Option<Vec<SurfaceId>>,
    fingerprint: [u8; 32],
}

impl Heightfield {
    /// A heightfield of `columns × rows` samples (each at least 2) whose
    /// first sample is at `(x0, y0)`, `spacing` metres apart. Heights are
    /// row-major (x fastest), finite and within ±10 km.
    pub fn new(
        x0: f64,
        y0: f64,
        spacing: f64,
        columns: usize,
        rows: usize,
        heights: Vec<f64>,
    ) -> Result<Heightfield> {
        let invalid = |reason: String| CoreError::InvalidArgument {
            what: "heightfield",
            reason,
        };
        if !(x0.is_finite() && y0.is_finite() && x0.abs() <= 1e7 && y0.abs() <= 1e7) {
            return Err(invalid(format!(
                "origin must be finite and within ±1e7 m, got ({x0}, {y0})"
            )));
        }
        if !(spacing.is_finite() && (0.01..=1000.0).contains(&spacing)) {
            return Err(invalid(format!(
                "spacing must be in [0.01, 1000] m, got {spacing}"
            )));
        }
        if columns < 2 || rows < 2 {
            return Err(invalid(format!(
                "needs at least 2 × 2 samples, got {columns} × {rows}"
            )));
        }
        let count = columns
            .checked_mul(rows)
            .filter(|&n| n <= MAX_HEIGHTFIELD_SAMPLES)
            .ok_or_else(|| {
                invalid(format!(
                    "{columns} × {rows} samples exceed the limit of {MAX_HEIGHTFIELD_SAMPLES}"
                ))
            })?;
        if heights.len() != count {
            return Err(invalid(format!(
                "{columns} × {rows} samples need {count} heights, got {}",
                heights.len()
            )));
        }
        if let Some(i) = heights
            .iter()
            .position(|h| !(h.is_finite() && h.abs() <= 1e4))
        {
            return Err(invalid(format!(
                "height {i} must be finite and within ±10 000 m, got {}",
                heights[i]
            )));
        }
        let mut field = Heightfield {
            x0,
            y0,
            spacing,
            columns,
            rows,
            heights,
            surfaces: None,
            fingerprint: [0; 32],
        };
        field.fingerprint = field.compute_fingerprint();
        Ok(field)
    }

    /// Gives every cell a surface, row-major like the samples:
    /// `(columns − 1) × (rows − 1)` ids.
    pub fn with_cell_surfaces(mut self, surfaces: Vec<SurfaceId>) -> Result<Heightfield> {
        let cells = (self.columns - 1) * (self.rows - 1);
        if surfaces.len() != cells {
            return Err(CoreError::InvalidArgument {
                what: "heightfield",
                reason: format!(
                    "{cells} cells need {cells} surfaces, got {}",
                    surfaces.len()
                ),
            });
        }
        self.surfaces = Some(surfaces);
        self.fingerprint = self.compute_fingerprint();
        Ok(self)
    }

    /// The ground height at `(x, y)` (on the cell's triangles), or `None`
    /// outside the grid.
    #[must_use]
    pub fn height_at(&self, x: f64, y: f64) -> Option<f64> {
        // Straight down from above the highest height `new` accepts, far
        // enough to reach the lowest.
        let ray = GroundRay {
            origin: DVec3::new(x, y, MAX_HEIGHT + 1.0),
            direction: -DVec3::Z,
            max_distance: 2.0 * MAX_HEIGHT + 2.0,
        };
        self.cast_ray(&ray).map(|hit| hit.point.z)
    }

    /// The same triangles as a [`TriangleMesh`] (triangle `k` here is
    /// triangle `k` there, with its cell's surface): it answers every ray
    /// with the same bits, as the tests check.
    #[must_use]
    pub fn to_mesh(&self) -> TriangleMesh {
        let vertices: Vec<DVec3> = (0..self.rows)
            .flat_map(|j| (0..self.columns).map(move |i| (i, j)))
            .map(|(i, j)| self.sample(i, j))
            .collect();
        let at = |i: usize, j: usize| (j * self.columns + i) as u32;
        let mut triangles = Vec::with_capacity(2 * (self.columns - 1) * (self.rows - 1));
        for j in 0..self.rows - 1 {
            for i in 0..self.columns - 1 {
                triangles.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
                triangles.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
            }
        }
        let mesh = TriangleMesh::new(&vertices, &triangles)
            .expect("a valid heightfield's cells are valid, non-degenerate triangles");
        match &self.surfaces {
            Some(cells) => mesh
                .with_surfaces(cells.iter().flat_map(|&s| [s, s]).collect())
                .expect("two surfaces per cell, one per triangle"),
            None => mesh,
        }
    }

    fn sample(&self, i: usize, j: usize) -> DVec3 {
        DVec3::new(
            self.x0 + i as f64 * self.spacing,
            self.y0 + j as f64 * self.spacing,
            self.heights[j * self.columns + i],
        )
    }

    fn cell_triangles(&self, i: usize, j: usize) -> [Triangle; 2] {
        let (p00, p10, p11, p01) = (
            self.sample(i, j),
            self.sample(i + 1, j),
            self.sample(i + 1, j + 1),
            self.sample(i, j + 1),
        );
        [Triangle::new(p00, p10, p11), Triangle::new(p00, p11, p01)]
    }

    /// The range of cell indices along one axis that the interval
    /// `[lo, hi]` overlaps, or `None` when it misses the grid.
    fn cell_range(&self, lo: f64, hi: f64, origin: f64, cells: usize) -> Option<(usize, usize)> {
        let first = libm::floor((lo - origin) / self.spacing);
        let last = libm::floor((hi - origin) / self.spacing);
        if last < 0.0 || first >= cells as f64 {
            return None;
        }
        // Both are whole numbers within [0, cells) after clamping, so the
        // casts are exact.
        Some((
            first.max(0.0) as usize,
            last.min(cells as f64 - 1.0) as usize,
        ))
    }

    fn compute_fingerprint(&self) -> [u8; 32] {
        let mut w = FingerprintWriter::new("heightfield");
        w.f64(self.x0)
            .f64(self.y0)
            .f64(self.spacing)
            .u64(self.columns as u64)
            .u64(self.rows as u64);
        for &h in &self.heights {
            w.f64(h);
        }
        if let Some(surfaces) = &self.surfaces {
            w.bytes(&surfaces.iter().map(|s| s.0).collect::<Vec<u8>>());
        }
        w.finish()
    }
}

impl Ground for Heightfield {
    fn cast_ray(&self, ray: &GroundRay) -> Option<GroundHit> {
        let reach = ray.max_distance;
        if !(reach.is_finite() && reach >= 0.0) {
            return None;
        }
        let (a, b) = (ray.at(-reach), ray.at(reach));
        // Widened by a hair so that a hit the triangle test's edge
        // tolerance accepts just outside the segment's box is still seen:
        // the same answer as the same triangles in a `TriangleMesh`.
        let pad = self.spacing * 1e-6;
        let (xs, ys) = (
            self.cell_range(
                a.x.min(b.x) - pad,
                a.x.max(b.x) + pad,
                self.x0,
                self.columns - 1,
            )?,
            self.cell_range(
                a.y.min(b.y) - pad,
                a.y.max(b.y) + pad,
                self.y0,
                self.rows - 1,
            )?,
        );
        // Cells in row-major order and triangles in index order, keeping
        // the first smallest parameter: the answer does not depend on
        // which cells happen to be visited first.
        let mut best: Option<(f64, usize, Triangle)> = None;
        for j in ys.0..=ys.1 {
            for i in xs.0..=xs.1 {
                let cell = j * (self.columns - 1) + i;
                for (k, tri) in self.cell_triangles(i, j).into_iter().enumerate() {
                    let t_max = best.map_or(reach, |(t, _, _)| t);
                    if let Some(t) = tri.intersect(ray, -reach, t_max)
                        && best.is_none_or(|(bt, _, _)| t < bt)
                    {
                        best = Some((t, 2 * cell + k, tri));
                    }
                }
            }
        }
        let (t, index, tri) = best?;
        Some(GroundHit {
            distance: t,
            point: ray.at(t),
            normal: tri.normal(),
            surface: self.surfaces.as_ref().map(|s| s[index / 2]),
        })
    }

    fn fingerprint(&self) -> [u8; 32] {
        self.fingerprint
    }

    /// The highest sample of the cells the rectangle (widened as a ray's
    /// box is) overlaps; −∞ off the grid, where there is no ground. `None`
    /// past 256 cells, where the scan would cost more than the rays.
    fn highest_within(&self, min: DVec2, max: DVec2) -> Option<f64> {
        if !(min.is_finite() && max.is_finite()) {
            return None;
        }
        let pad = self.spacing * 1e-6;
        let ranges = (
            self.cell_range(min.x - pad, max.x + pad, self.x0, self.columns - 1),
            self.cell_range(min.y - pad, max.y + pad, self.y0, self.rows - 1),
        );
        let (Some(xs), Some(ys)) = ranges else {
            return Some(f64::NEG_INFINITY);
        };
        if (xs.1 - xs.0 + 1) * (ys.1 - ys.0 + 1) > 256 {
            return None;
        }
        let mut top = f64::NEG_INFINITY;
        for j in ys.0..=ys.1 + 1 {
            let row = &self.heights[j * self.columns..(j + 1) * self.columns];
            for &h in &row[xs.0..=xs.1 + 1] {
                top = top.max(h);
            }
        }
        Some(top)
    }

    fn max_surface_id(&self) -> Option<SurfaceId> {
        self.surfaces.as_ref()?.iter().copied().max()
    }

    fn describe(&self) -> String {
        format!(
            "heightfield {} × {} at {} m",
            self.columns, self.rows, self.spacing
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tilted_heightfield_gives_its_height_and_normal() {
        // z = 0.1·x over 10 m × 10 m in 1 m cells.
        let heights = (0..11)
            .flat_map(|_| (0..11).map(|i| 0.1 * f64::from(i)))
            .collect();
        let field = Heightfield::new(0.0, 0.0, 1.0, 11, 11, heights).unwrap();
        let z = field.height_at(4.25, 7.5).unwrap();
        assert!((z - 0.425).abs() < 1e-12, "{z}");
        let hit = field
            .cast_ray(&GroundRay {
                origin: DVec3::new(4.25, 7.5, 1.0),
                direction: -DVec3::Z,
                max_distance: 1.0,
            })
            .unwrap();
        let expected = DVec3::new(-0.1, 0.0, 1.0).normalize();
        assert!((hit.normal - expected).length() < 1e-12, "{:?}", hit.normal);
        assert!(field.height_at(-0.5, 5.0).is_none());
        assert!(field.height_at(5.0, 10.5).is_none());
    }

    #[test]
    fn bad_heightfields_are_refused_with_reasons() {
        let err = |r: Result<Heightfield>| r.unwrap_err().to_string();
        assert!(
            err(Heightfield::new(0.0, 0.0, 1.0, 2, 2, vec![0.0; 3])).contains("need 4 heights")
        );
        assert!(err(Heightfield::new(0.0, 0.0, 0.0, 2, 2, vec![0.0; 4])).contains("spacing"));
        assert!(err(Heightfield::new(0.0, 0.0, 1.0, 1, 2, vec![0.0; 2])).contains("2 × 2"));
        assert!(
            err(Heightfield::new(
                0.0,
                0.0,
                1.0,
                2,
                2,
                vec![0.0, f64::NAN, 0.0, 0.0]
            ))
            .contains("height 1")
        );
        assert!(
            err(Heightfield::new(0.0, 0.0, 1.0, 1 << 13, 1 << 13, vec![]))
                .contains("exceed the limit")
        );
        let ok = Heightfield::new(0.0, 0.0, 1.0, 2, 2, vec![0.0; 4]).unwrap();
        assert!(err(ok.with_cell_surfaces(vec![])).contains("1 cells need 1 surfaces"));
    }
}
