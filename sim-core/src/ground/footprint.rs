//! A uniform grid over a mesh's footprint (its x–y extent), the fast path
//! of a mesh's ray cast for the rays a car casts: struts and body corners,
//! short and mostly vertical, over ground that is mostly a ribbon.
//!
//! It prunes and never decides: a triangle is listed in every cell its
//! padded x–y box touches, a ray looks only in the cells its padded x–y
//! box touches, and the candidates go through the same ray–triangle test
//! as the brute-force cast, keeping the smallest (parameter, index). A
//! triangle the ray can hit has its hit point inside both boxes, so it is
//! always among the candidates, and the answer is the brute-force answer
//! bit for bit (the tests hold it to that). Cells are found by
//! `⌊(x − origin) / cell⌋`, clamped to the grid: a monotonic function of x,
//! so a box that overlaps another always shares a cell with it.
//!
//! Each cell also keeps the highest point of the triangles listed in it,
//! so a body whose box lies above every cell under it can skip its rays
//! ([`FootprintGrid::highest_within`]).

use glam::{DVec2, DVec3};

use crate::ground::height_bound::HeightBound;
use crate::ground::triangle::Triangle;

/// Padding of every box, m: far above the rounding of the hit point and
/// the triangle test's edge tolerance at track scale. Triangles add a
/// relative part, since that tolerance is relative to their size.
const PAD: f64 = 1e-6;
const RELATIVE_PAD: f64 = 1e-8;

/// A triangle touching more cells than this is tested for every ray
/// instead of being listed in each (a large ground plane would otherwise
/// fill the grid). The tracks' long road strips stay well under it.
const MAX_CELLS_PER_TRIANGLE: u64 = 64;

/// A ray touching more cells than this (a long or nearly horizontal ray)
/// is left to the mesh's hierarchy.
pub(crate) const MAX_CELLS_PER_RAY: u64 = 16;

/// A rectangle touching more cells than this gets no height bound (a
/// car's body touches a few dozen at most).
const MAX_CELLS_PER_BOUND: u64 = 256;

/// Below this many triangles the hierarchy is as quick.
const MIN_TRIANGLES: usize = 64;

/// The grid: cells in rows of `columns`, each listing its triangles in
/// rising index order (compressed: `items[starts[c]..starts[c + 1]]`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FootprintGrid {
    origin: DVec2,
    inv_cell: f64,
    columns: u64,
    rows: u64,
    /// The last column and row as floats (kept: a u64 → f64 conversion
    /// takes several instructions on x86-64's baseline).
    last_cell: DVec2,
    starts: Vec<u32>,
    items: Vec<u32>,
    /// Triangles too large to list per cell: candidates for every ray.
    large: Vec<u32>,
    /// Per cell, the highest vertex of the triangles listed in it (−∞
    /// for an empty cell).
    tops: Vec<f64>,
    /// The highest vertex of the `large` triangles (−∞ without any).
    large_top: f64,
    /// Every triangle's padded x–y box: a candidate whose box misses the
    /// ray's is skipped before the ray–triangle test (a cell holds more
    /// than the ray's box meets).
    boxes: Vec<(DVec2, DVec2)>,
    /// Every listed triangle's first cell (column, row), so a search of
    /// several cells can visit it once.
    first_cells: Vec<(u32, u32)>,
    /// Every triangle's height bound by its plane, for
    /// [`FootprintGrid::lies_below`].
    heights: Vec<HeightBound>,
}

/// A triangle's padded x–y box.
fn footprint(tri: &Triangle) -> (DVec2, DVec2) {
    let corners = [tri.v0, tri.v0 + tri.e1, tri.v0 + tri.e2];
    let (mut min, mut max) = (DVec2::splat(f64::MAX), DVec2::splat(f64::MIN));
    for c in corners {
        min = min.min(c.truncate());
        max = max.max(c.truncate());
    }
    let pad = PAD + RELATIVE_PAD * (max - min).max_element();
    (min - DVec2::splat(pad), max + DVec2::splat(pad))
}

impl FootprintGrid {
    /// The grid for `triangles`, or `None` when a mesh is too small to
    /// gain from one. The cell is half the mean triangle's x–y size (on
    /// the built-in tracks a strut's ray then tests a few triangles: a
    /// quarter of the hierarchy's instructions), doubled until the cells
    /// number at most four per triangle (plus 64 K).
    pub(crate) fn build(triangles: &[Triangle]) -> Option<FootprintGrid> {
        if triangles.len() < MIN_TRIANGLES {
            return None;
        }
        let boxes: Vec<(DVec2, DVec2)> = triangles.iter().map(footprint).collect();
        let (mut lo, mut hi) = (DVec2::splat(f64::MAX), DVec2::splat(f64::MIN));
        let mut sizes = 0.0;
        for (min, max) in &boxes {
            lo = lo.min(*min);
            hi = hi.max(*max);
            sizes += (*max - *min).max_element();
        }
        let extent = hi - lo;
        let max_cells = 4 * triangles.len() as u64 + (1 << 16);
        let mut cell = (0.5 * sizes / triangles.len() as f64).max(0.25);
        let dims = |cell: f64| {
            let n = |len: f64| (len / cell) as u64 + 1;
            (n(extent.x), n(extent.y))
        };
        while dims(cell).0.saturating_mul(dims(cell).1) > max_cells {
            cell *= 2.0;
        }
        let (columns, rows) = dims(cell);
        let mut grid = FootprintGrid {
            origin: lo,
            inv_cell: 1.0 / cell,
            columns,
            rows,
            last_cell: DVec2::new((columns - 1) as f64, (rows - 1) as f64),
            starts: Vec::new(),
            items: Vec::new(),
            large: Vec::new(),
            tops: vec![f64::NEG_INFINITY; (columns * rows) as usize],
            large_top: f64::NEG_INFINITY,
            boxes: Vec::new(),
            heights: triangles.iter().map(HeightBound::of).collect(),
            first_cells: vec![(0, 0); triangles.len()],
        };
        let top_of = |tri: &Triangle| tri.v0.z.max(tri.v0.z + tri.e1.z).max(tri.v0.z + tri.e2.z);
        // Two passes (count, then fill) build the compressed lists in
        // triangle order without a list per cell.
        let cells = (columns * rows) as usize;
        let mut counts = vec![0u32; cells + 1];
        let mut listed = vec![false; triangles.len()];
        for (i, (min, max)) in boxes.iter().enumerate() {
            let (c0, r0, c1, r1) = grid.range(*min, *max);
            // Cells number at most 4 per triangle plus 64 K: u32 indices.
            grid.first_cells[i] = (c0 as u32, r0 as u32);
            let top = top_of(&triangles[i]);
            if (c1 - c0 + 1) * (r1 - r0 + 1) > MAX_CELLS_PER_TRIANGLE {
                grid.large.push(i as u32);
                grid.large_top = grid.large_top.max(top);
                continue;
            }
            listed[i] = true;
            for r in r0..=r1 {
                for c in c0..=c1 {
                    let cell = (r * columns + c) as usize;
                    counts[cell + 1] += 1;
                    grid.tops[cell] = grid.tops[cell].max(top);
                }
            }
        }
        for k in 1..counts.len() {
            counts[k] += counts[k - 1];
        }
        let mut next = counts.clone();
        grid.items = vec![0; counts[cells] as usize];
        for (i, (min, max)) in boxes.iter().enumerate() {
            if !listed[i] {
                continue;
            }
            let (c0, r0, c1, r1) = grid.range(*min, *max);
            for r in r0..=r1 {
                for c in c0..=c1 {
                    let slot = &mut next[(r * columns + c) as usize];
                    grid.items[*slot as usize] = i as u32;
                    *slot += 1;
                }
            }
        }
        grid.starts = counts;
        grid.boxes = boxes;
        Some(grid)
    }

    /// The cell column or row of a coordinate, clamped to the grid (of
    /// `count` cells along that axis, the last one `last`).
    fn index(&self, v: f64, origin: f64, count: u64, last: f64) -> u64 {
        let k = (v - origin) * self.inv_cell;
        // Clamped first (NaN and negatives to the first cell, the far side
        // to the last), then truncated, which is the floor for what is
        // left, without `floor`'s libcall on x86-64's baseline or the
        // saturating conversion's fix-ups: a monotonic function of `v`.
        if k >= 0.0 {
            if k < last { k as i64 as u64 } else { count - 1 }
        } else {
            0
        }
    }

    /// The columns and rows (inclusive, first ≤ last) a box touches.
    fn range(&self, min: DVec2, max: DVec2) -> (u64, u64, u64, u64) {
        let column = |x: f64| self.index(x, self.origin.x, self.columns, self.last_cell.x);
        let row = |y: f64| self.index(y, self.origin.y, self.rows, self.last_cell.y);
        let (c0, c1) = (column(min.x), column(max.x));
        let (r0, r1) = (row(min.y), row(max.y));
        (c0.min(c1), r0.min(r1), c0.max(c1), r0.max(r1))
    }

    /// Calls `visit` with every candidate triangle of the segment from
    /// `centre − reach` to `centre + reach` (a triangle listed in several
    /// of its cells comes once per cell), or returns false without calling
    /// it when the segment touches more than [`MAX_CELLS_PER_RAY`] cells or
    /// is not finite. Its x–y box is `centre ± |reach|` per axis.
    pub(crate) fn candidates(
        &self,
        centre: DVec3,
        reach: DVec3,
        mut visit: impl FnMut(u32),
    ) -> bool {
        let (x, y) = (centre.x, centre.y);
        let (rx, ry) = (reach.x.abs() + PAD, reach.y.abs() + PAD);
        let (min, max) = (DVec2::new(x - rx, y - ry), DVec2::new(x + rx, y + ry));
        self.meeting(min, max, (MAX_CELLS_PER_RAY, false), |i| {
            visit(i);
            true
        })
    }

    /// Calls `visit` with every triangle whose box meets triangle `i`'s
    /// (`i` included) until it returns false, or returns false without
    /// calling it for a triangle too large to be listed in cells.
    pub(crate) fn overlapping(&self, i: u32, visit: impl FnMut(u32) -> bool) -> bool {
        let (min, max) = self.boxes[i as usize];
        self.meeting(min, max, (MAX_CELLS_PER_TRIANGLE, true), visit)
    }

    /// Calls `visit` with every triangle whose box meets `[min, max]`
    /// until it returns false (`once`: each triangle once; otherwise once
    /// per cell it shares with the box), unless the box is not finite or
    /// touches more than `max_cells`; whether the box was searched (to
    /// the end or to the visit that stopped it).
    fn meeting(
        &self,
        min: DVec2,
        max: DVec2,
        (max_cells, once): (u64, bool),
        mut visit: impl FnMut(u32) -> bool,
    ) -> bool {
        if !(min.is_finite() && max.is_finite()) {
            return false;
        }
        let (c0, r0, c1, r1) = self.range(min, max);
        if (c1 - c0 + 1) * (r1 - r0 + 1) > max_cells {
            return false;
        }
        let meets = |i: u32| {
            let (lo, hi) = self.boxes[i as usize];
            lo.x <= max.x && min.x <= hi.x && lo.y <= max.y && min.y <= hi.y
        };
        for &i in &self.large {
            if meets(i) && !visit(i) {
                return true;
            }
        }
        if once {
            // Cell by cell, each triangle in the first cell (row-major) it
            // shares with the box only: a body's box spans a few cells
            // that list the same long road triangles.
            for r in r0..=r1 {
                for c in c0..=c1 {
                    let cell = (r * self.columns + c) as usize;
                    let (first, last) = (self.starts[cell], self.starts[cell + 1]);
                    for &i in &self.items[first as usize..last as usize] {
                        let (tc, tr) = self.first_cells[i as usize];
                        let first_shared = u64::from(tc).max(c0) == c && u64::from(tr).max(r0) == r;
                        if first_shared && meets(i) && !visit(i) {
                            return true;
                        }
                    }
                }
            }
            return true;
        }
        for r in r0..=r1 {
            let row = r * self.columns;
            let (first, last) = (
                self.starts[(row + c0) as usize],
                self.starts[(row + c1 + 1) as usize],
            );
            for &i in &self.items[first as usize..last as usize] {
                if meets(i) && !visit(i) {
                    return true;
                }
            }
        }
        true
    }

    /// An upper bound of the height of every triangle point whose x–y lies
    /// in the rectangle `[min, max]`, or `None` when the rectangle is not
    /// finite or touches more than [`MAX_CELLS_PER_BOUND`] cells. A
    /// triangle reaching into the rectangle is listed in a cell the
    /// rectangle touches (both are found by the same monotonic `index`),
    /// so the bound is the highest top among those cells and the large
    /// triangles'. It is a vertex height, exact; callers keep a margin for
    /// the rounding of a hit point and the triangle test's edge tolerance.
    pub(crate) fn highest_within(&self, min: DVec2, max: DVec2) -> Option<f64> {
        if !(min.is_finite() && max.is_finite()) {
            return None;
        }
        let (c0, r0, c1, r1) = self.range(min, max);
        if (c1 - c0 + 1) * (r1 - r0 + 1) > MAX_CELLS_PER_BOUND {
            return None;
        }
        let mut top = self.large_top;
        for r in r0..=r1 {
            let row = (r * self.columns) as usize;
            for &t in &self.tops[row + c0 as usize..=row + c1 as usize] {
                top = top.max(t);
            }
        }
        Some(top)
    }

    /// Whether no triangle point with x–y in `[min, max]` lies at or above
    /// `z`: first by the cells' highest vertices, then, if they do not
    /// prove it, triangle by triangle by their planes (see
    /// `height_bound.rs`). False when unproven, or past
    /// [`MAX_CELLS_PER_BOUND`] cells.
    pub(crate) fn lies_below(&self, min: DVec2, max: DVec2, z: f64) -> bool {
        match self.highest_within(min, max) {
            None => false,
            Some(top) if top < z => true,
            Some(_) => {
                let mut below = true;
                let searched = self.meeting(min, max, (MAX_CELLS_PER_BOUND, true), |i| {
                    below = self.heights[i as usize].over(min, max) < z;
                    below
                });
                searched && below
            }
        }
    }

    /// Whether every triangle near `points` lies `margin` below their
    /// convex hull (by `height_bound.rs`): false when unproven, or past
    /// [`MAX_CELLS_PER_BOUND`] cells.
    pub(crate) fn lies_under_hull(&self, points: &[DVec3], margin: f64) -> bool {
        let (mut min, mut max) = (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY));
        let (mut lowest, mut reach) = (f64::INFINITY, DVec3::ZERO);
        for p in points {
            min = min.min(p.truncate());
            max = max.max(p.truncate());
            lowest = lowest.min(p.z);
            reach = reach.max(p.abs());
        }
        let pad = DVec2::splat(margin);
        let (min, max) = (min - pad, max + pad);
        if self
            .highest_within(min, max)
            .is_some_and(|top| top < lowest - margin)
        {
            return true;
        }
        let mut below = true;
        let searched = self.meeting(min, max, (MAX_CELLS_PER_BOUND, true), |i| {
            below = self.heights[i as usize].under_hull(points, lowest, reach, margin);
            below
        });
        // NaN makes `lowest` NaN and every comparison false.
        searched && below && lowest.is_finite()
    }

    /// Triangles listed in cells and tested for every ray, for tests and
    /// the mesh's description of its memory.
    #[cfg(test)]
    pub(crate) fn counts(&self) -> (usize, usize, u64) {
        (self.items.len(), self.large.len(), self.columns * self.rows)
    }
}

#[cfg(test)]
mod tests {
    use crate::Track;

    #[test]
    fn a_track_surface_lists_its_triangles_in_a_few_cells_each() {
        for name in crate::track_names() {
            let mesh = Track::builtin(name).unwrap().ground().unwrap();
            let grid = mesh
                .grid
                .as_ref()
                .expect("a track is big enough for a grid");
            let (items, large, cells) = grid.counts();
            let triangles = mesh.triangle_count();
            println!(
                "{name}: {triangles} triangles, {cells} cells, {items} listings, {large} large"
            );
            // Each listed triangle is in a few cells, and none is tested
            // for every ray.
            assert!(items <= 8 * triangles && large == 0, "{name}");
        }
    }
}
