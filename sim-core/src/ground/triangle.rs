//! The one ray–triangle test every built-in ground uses
//! (Möller–Trumbore), written so that its answer is the same on every
//! target: plain `+ − × ÷` in a fixed order, no fused multiply-add.
//!
//! Triangles are one-sided: a ray counts only when it enters through the
//! front face, the side the counter-clockwise winding (seen from above)
//! makes the normal point to. A strut under a bridge therefore does not
//! hit the deck's underside.

use glam::DVec3;

use crate::ground::GroundRay;

/// How far outside its edges (in barycentric units) a triangle still
/// counts as hit. Two triangles sharing an edge overlap by this much, so
/// a ray down the shared edge cannot slip through a rounding gap between
/// them; the tie goes to the lower triangle index.
pub(crate) const EDGE_TOLERANCE: f64 = 1e-9;

/// A triangle as one vertex and two edges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Triangle {
    pub v0: DVec3,
    pub e1: DVec3,
    pub e2: DVec3,
}

impl Triangle {
    pub(crate) fn new(a: DVec3, b: DVec3, c: DVec3) -> Triangle {
        Triangle {
            v0: a,
            e1: b - a,
            e2: c - a,
        }
    }

    /// The front face's unit normal; zero for a degenerate triangle.
    pub(crate) fn normal(&self) -> DVec3 {
        self.e1.cross(self.e2).normalize_or_zero()
    }

    /// Twice the area (the length of e1 × e2).
    pub(crate) fn double_area(&self) -> f64 {
        self.e1.cross(self.e2).length()
    }

    /// The ray parameter at which the ray enters through the front face,
    /// if it lies in `[t_min, t_max]`.
    pub(crate) fn intersect(&self, ray: &GroundRay, t_min: f64, t_max: f64) -> Option<f64> {
        let d = ray.direction;
        let p = d.cross(self.e2);
        // det = e1 · (d × e2) = −d · (e1 × e2): positive when the ray
        // runs against the front normal, i.e. enters from above.
        let det = self.e1.dot(p);
        if det <= 0.0 {
            return None;
        }
        let inv_det = 1.0 / det;
        let s = ray.origin - self.v0;
        let u = s.dot(p) * inv_det;
        if !(-EDGE_TOLERANCE..=1.0 + EDGE_TOLERANCE).contains(&u) {
            return None;
        }
        let q = s.cross(self.e1);
        let v = d.dot(q) * inv_det;
        if v < -EDGE_TOLERANCE || u + v > 1.0 + EDGE_TOLERANCE {
            return None;
        }
        let t = self.e2.dot(q) * inv_det;
        (t_min..=t_max).contains(&t).then_some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn down_ray(x: f64, y: f64, z: f64) -> GroundRay {
        GroundRay {
            origin: DVec3::new(x, y, z),
            direction: -DVec3::Z,
            max_distance: 1.0,
        }
    }

    #[test]
    fn a_ray_from_above_hits_the_front_face_at_the_right_distance() {
        let tri = Triangle::new(
            DVec3::new(0.0, 0.0, 1.0),
            DVec3::new(2.0, 0.0, 1.0),
            DVec3::new(0.0, 2.0, 1.0),
        );
        assert_eq!(tri.normal(), DVec3::Z);
        assert_eq!(tri.double_area(), 4.0);
        assert_eq!(
            tri.intersect(&down_ray(0.5, 0.5, 1.5), -1.0, 1.0),
            Some(0.5)
        );
        // Below the surface: found with a negative parameter.
        assert_eq!(
            tri.intersect(&down_ray(0.5, 0.5, 0.75), -1.0, 1.0),
            Some(-0.25)
        );
        // Out of reach, outside the triangle, or from below: no hit.
        assert_eq!(tri.intersect(&down_ray(0.5, 0.5, 3.0), -1.0, 1.0), None);
        assert_eq!(tri.intersect(&down_ray(1.5, 1.5, 1.5), -1.0, 1.0), None);
        let up = GroundRay {
            direction: DVec3::Z,
            ..down_ray(0.5, 0.5, 0.5)
        };
        assert_eq!(tri.intersect(&up, -1.0, 1.0), None);
    }

    #[test]
    fn a_ray_down_a_shared_edge_hits_both_triangles() {
        let (a, b, c, d) = (
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(0.0, 1.0, 0.0),
        );
        let (lower, upper) = (Triangle::new(a, b, c), Triangle::new(a, c, d));
        let ray = down_ray(0.3, 0.3, 0.5);
        assert_eq!(lower.intersect(&ray, -1.0, 1.0), Some(0.5));
        assert_eq!(upper.intersect(&ray, -1.0, 1.0), Some(0.5));
    }
}
