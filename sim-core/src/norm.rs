//! Lengths and unit vectors through the hardware square root.
//!
//! glam, built with its `libm` feature (SPEC §3.2), takes every square
//! root through libm, and libm uses wasm's `f64.sqrt` instruction only on
//! a nightly toolchain: a stable wasm build runs a software square root,
//! which was a fifth of a single-track car-step in node (the track lookup
//! alone takes thirteen a step). std's `sqrt` gives the same correctly
//! rounded IEEE result (SPEC §3.1 counts it exact everywhere) in one
//! instruction on every target, so these are glam's own formulas, bit for
//! bit, with that square root.

use glam::{DQuat, DVec2, DVec3, DVec4};

/// Length and normalisation, as glam computes them.
pub(crate) trait Norm: Copy {
    /// `length()`: the square root of the dot product with itself.
    fn norm(self) -> f64;

    /// `normalize_or(fallback)`: times the reciprocal of the length, or
    /// `fallback` when that reciprocal is not finite and positive.
    fn unit_or(self, fallback: Self) -> Self;

    /// `try_normalize()`.
    fn try_unit(self) -> Option<Self>;
}

macro_rules! norm_for {
    ($vector:ty) => {
        impl Norm for $vector {
            #[inline]
            fn norm(self) -> f64 {
                self.length_squared().sqrt()
            }

            #[inline]
            fn unit_or(self, fallback: Self) -> Self {
                self.try_unit().unwrap_or(fallback)
            }

            #[inline]
            fn try_unit(self) -> Option<Self> {
                let rcp = 1.0 / self.norm();
                (rcp.is_finite() && rcp > 0.0).then(|| self * rcp)
            }
        }
    };
}

norm_for!(DVec2);
norm_for!(DVec3);

/// `DQuat::normalize()`: the quaternion as a 4-vector, times the
/// reciprocal of its length.
#[inline]
pub(crate) fn unit_quat(q: DQuat) -> DQuat {
    let v = DVec4::from(q);
    DQuat::from_vec4(v * (1.0 / v.length_squared().sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn component() -> impl Strategy<Value = f64> {
        prop_oneof![
            -1e6..1e6,
            -1e-6..1e-6,
            Just(0.0),
            Just(-0.0),
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(1e-170),
            Just(1e170),
        ]
    }

    fn same(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn every_result_has_glams_bits(
            [x, y, z, w] in prop::array::uniform4(component()),
        ) {
            let (v2, v3) = (DVec2::new(x, y), DVec3::new(x, y, z));
            prop_assert!(same(v2.norm(), v2.length()));
            prop_assert!(same(v3.norm(), v3.length()));
            let fallback = DVec3::new(7.0, 8.0, 9.0);
            prop_assert_eq!(
                v3.unit_or(fallback).to_array().map(f64::to_bits),
                v3.normalize_or(fallback).to_array().map(f64::to_bits)
            );
            prop_assert_eq!(
                v2.try_unit().map(|u| u.to_array().map(f64::to_bits)),
                v2.try_normalize().map(|u| u.to_array().map(f64::to_bits))
            );
            let q = DQuat::from_xyzw(x, y, z, w);
            let (ours, glams) = (unit_quat(q).to_array(), q.normalize().to_array());
            for k in 0..4 {
                prop_assert!(same(ours[k], glams[k]), "{:?} {:?}", ours, glams);
            }
        }
    }
}
