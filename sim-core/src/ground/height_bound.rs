//! How high one triangle can reach over an x–y rectangle: its plane's
//! height at the rectangle's highest corner, never above its highest
//! vertex. On a sloping road this is the road's own height there, where
//! a grid cell's highest vertex can stand a wheel's clearance above it,
//! so a car's body on a hill skips the rays that only run through air.

use glam::{DVec2, DVec3};

use crate::ground::triangle::Triangle;

/// Triangles steeper than this (the normal's vertical share) are bounded
/// by their highest vertex alone: a wall's plane says little about its
/// height over a rectangle.
const MIN_NORMAL_Z: f64 = 0.2;

/// Relative padding of a plane's height for its rounding (the slope and
/// offset computed from the vertices, then evaluated at a corner).
const RELATIVE_PAD: f64 = 1e-10;
/// Absolute padding, m.
const PAD: f64 = 1e-9;

/// A triangle's height bound: `z ≤ slope · (x, y) + offset` over its
/// plane, and `z ≤ top`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct HeightBound {
    slope: DVec2,
    offset: f64,
    /// |slope| · |v0| + |v0.z|: the size of the terms the plane's
    /// height is computed from at the triangle, for its padding.
    scale: f64,
    top: f64,
    /// Whether the plane is used (not for steep triangles).
    planar: bool,
}

impl HeightBound {
    pub(crate) fn of(tri: &Triangle) -> HeightBound {
        let top = tri.v0.z.max(tri.v0.z + tri.e1.z).max(tri.v0.z + tri.e2.z);
        let n = tri.e1.cross(tri.e2);
        let planar = n.z.abs() > MIN_NORMAL_Z * n.length();
        let slope = if planar {
            DVec2::new(-n.x / n.z, -n.y / n.z)
        } else {
            DVec2::ZERO
        };
        let offset = tri.v0.z - slope.dot(tri.v0.truncate());
        HeightBound {
            slope,
            offset,
            scale: slope.abs().dot(tri.v0.truncate().abs()) + tri.v0.z.abs(),
            top,
            planar,
        }
    }

    /// No point of the triangle with x–y in `[min, max]` lies above this.
    pub(crate) fn over(&self, min: DVec2, max: DVec2) -> f64 {
        if !self.planar {
            return self.top;
        }
        // A plane is highest at the rectangle's corner its slope points to.
        let x = if self.slope.x > 0.0 { max.x } else { min.x };
        let y = if self.slope.y > 0.0 { max.y } else { min.y };
        let terms = self.slope.x * x + self.slope.y * y;
        let size = self.slope.x.abs() * x.abs() + self.slope.y.abs() * y.abs() + self.scale;
        let plane = terms + self.offset + RELATIVE_PAD * size + PAD;
        plane.min(self.top)
    }

    /// Whether every point of the triangle lies at least `margin` below
    /// the convex hull of `points`, whose lowest height is `lowest` and
    /// largest |x|, |y| and |z| are `reach`: the hull is above the
    /// triangle's highest vertex, or every point is above its plane, and
    /// then so is the whole hull.
    pub(crate) fn under_hull(
        &self,
        points: &[DVec3],
        lowest: f64,
        reach: DVec3,
        margin: f64,
    ) -> bool {
        if lowest - margin > self.top {
            return true;
        }
        if !self.planar {
            return false;
        }
        // One padding for every point: the largest any of them needs.
        let size = self.slope.abs().dot(reach.truncate()) + reach.z + self.scale;
        let floor = self.offset + RELATIVE_PAD * size + PAD + margin;
        points
            .iter()
            .all(|p| p.z - self.slope.x * p.x - self.slope.y * p.y > floor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sloping_triangle_is_bounded_by_its_plane_and_a_wall_by_its_top() {
        // z = 0.1 x + 2 over a 10 m triangle.
        let at = |x: f64, y: f64| DVec3::new(x, y, 0.1 * x + 2.0);
        let ramp = HeightBound::of(&Triangle::new(at(0.0, 0.0), at(10.0, 0.0), at(0.0, 10.0)));
        let bound = ramp.over(DVec2::new(1.0, 1.0), DVec2::new(2.0, 3.0));
        assert!((2.2..2.2 + 1e-8).contains(&bound), "{bound}");
        // Far out of the triangle the plane rises past it: the top holds.
        assert_eq!(ramp.over(DVec2::new(40.0, 0.0), DVec2::new(50.0, 1.0)), 3.0);
        let wall = HeightBound::of(&Triangle::new(
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(5.0, 0.0, 0.0),
            DVec3::new(0.0, 0.0, 1.2),
        ));
        assert_eq!(wall.over(DVec2::new(1.0, -1.0), DVec2::new(2.0, 1.0)), 1.2);
    }
}
