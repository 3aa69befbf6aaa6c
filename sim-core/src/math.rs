//! Elementary functions for the hot path (the tire's Magic Formula, the
//! slip angle, the single-track body's heading), built from `+ − × ÷`
//! alone, so their bits are the same on every target without a call into
//! libm's general-purpose code.
//!
//! Each reduces its argument to a short interval exactly (or to well below
//! an ulp) and evaluates there an approximation whose truncation error is
//! under f64's rounding:
//! - `atan`: to |t| ≤ 2 − √3 with atan(a) = π/2 − atan(1/a) and
//!   atan(a) = π/6 + atan((√3a − 1)/(a + √3)), then the [4/4] Padé
//!   approximant of atan(t)/t in t² (relative error 2·10⁻¹⁶ there), one
//!   division in all;
//! - `sin_cos`: k = the nearest integer to x/(π/2), r = x − k·π/2 with π/2
//!   split in two (Cody–Waite, exact products for |k| < 2²⁸), polynomial
//!   fits of sin and cos on |r| ≤ π/4, quadrant by k mod 4;
//! - `exp`: k = the nearest integer to x/ln 2, r = x − k·ln 2 (split the
//!   same way), the [6/6] Padé approximant of eʳ on |r| ≤ ln 2/2 (relative
//!   error 2·10⁻¹⁹), scaled by 2ᵏ built from its bits.
//!
//! Outside the ranges where those reductions are exact (huge arguments,
//! results near overflow, NaN) they hand over to libm, which is also
//! deterministic. The tests hold every function to a few ulp of libm.

/// Adding and subtracting 1.5·2⁵² rounds a double of magnitude below 2⁵¹
/// to the nearest integer (ties to even) with two exact-by-definition IEEE
/// additions; no rounding function is called.
const ROUNDER: f64 = 6_755_399_441_055_744.0;

#[inline(always)]
fn round_to_integer(x: f64) -> f64 {
    (x + ROUNDER) - ROUNDER
}

const SQRT_3: f64 = 1.732_050_807_568_877_2;
const FRAC_PI_6: f64 = core::f64::consts::FRAC_PI_6;
const FRAC_PI_3: f64 = core::f64::consts::FRAC_PI_3;
const FRAC_PI_2: f64 = core::f64::consts::FRAC_PI_2;
/// tan(π/12) and tan(5π/12): where the atan reduction switches branch.
const TAN_PI_12: f64 = 0.267_949_192_431_122_7;
const TAN_5PI_12: f64 = 3.732_050_807_568_877;

/// atan(n/d) for |n/d| ≤ 2 − √3 and d > 0 by the [4/4] Padé approximant
/// of atan(t)/t in t² (exact rationals), written homogeneously in n² and
/// d² so that the reduction's quotient and the approximant's share one
/// division: t·P(t²)/Q(t²) = n·D⁴P(N/D)/(d·D⁴Q(N/D)) with N = n², D = d².
/// Callers keep d below 10⁸, so D⁴ cannot overflow.
#[inline(always)]
fn atan_kernel(n: f64, d: f64) -> f64 {
    let (nn, dd) = (n * n, d * d);
    let (dd2, dd3) = (dd * dd, dd * dd * dd);
    let dd4 = dd2 * dd2;
    let p = dd4
        + nn * ((91.0 / 51.0) * dd3
            + nn * ((83.0 / 85.0) * dd2
                + nn * ((1289.0 / 7735.0) * dd + nn * (16384.0 / 3_828_825.0))));
    let q = dd4
        + nn * ((36.0 / 17.0) * dd3
            + nn * ((126.0 / 85.0) * dd2 + nn * ((84.0 / 221.0) * dd + nn * (63.0 / 2431.0))));
    n * p / (d * q)
}

/// Beyond this, atan(1/a) = 1/a − 1/(3a³) + … equals 1/a to far below an
/// ulp of π/2, and the kernel's d⁸ would head for overflow.
const ATAN_FAR: f64 = 1e8;

/// Arc tangent, rad, in [−π/2, π/2].
#[inline(always)]
pub(crate) fn atan(x: f64) -> f64 {
    let a = x.abs();
    // NaN fails every comparison below and falls through to libm.
    let magnitude = if a <= TAN_PI_12 {
        atan_kernel(a, 1.0)
    } else if a <= 1.0 {
        // atan a = π/6 + atan((√3a − 1)/(a + √3)).
        FRAC_PI_6 + atan_kernel(SQRT_3 * a - 1.0, a + SQRT_3)
    } else if a <= TAN_5PI_12 {
        // π/2 − atan(1/a), with 1/a then reduced by π/6 as above.
        FRAC_PI_3 + atan_kernel(a - SQRT_3, 1.0 + SQRT_3 * a)
    } else if a <= ATAN_FAR {
        FRAC_PI_2 - atan_kernel(1.0, a)
    } else if a <= f64::MAX {
        FRAC_PI_2 - 1.0 / a
    } else {
        return libm::atan(x);
    };
    if x.is_sign_negative() {
        -magnitude
    } else {
        magnitude
    }
}

/// π/2 in two parts: the high part has 25 significant bits, so k·high is
/// exact for |k| < 2²⁸; together they hold π/2 to 6·10⁻²⁵.
const PIO2_HIGH: f64 = f64::from_bits(0x3ff9_21fb_5000_0000);
const PIO2_LOW: f64 = f64::from_bits(0x3e51_10b4_611a_6263);
/// Beyond this the split above stops being exact; libm takes over.
const SIN_COS_FAST_LIMIT: f64 = 1e6;

/// sin r / r and cos r as polynomials in z = r², |r| ≤ π/4: Chebyshev
/// fits (mpmath `chebyfit`, 7 coefficients each) whose errors, 3·10⁻¹⁸ and
/// 5·10⁻¹⁷, are below half an ulp of the results.
#[inline(always)]
fn sin_kernel(r: f64) -> f64 {
    let z = r * r;
    r * (1.0
        + z * (-0.166_666_666_666_666_16
            + z * (0.008_333_333_333_320_363
                + z * (-0.000_198_412_698_286_503
                    + z * (2.755_731_337_640_013e-6
                        + z * (-2.505_071_697_410_274_5e-8 + z * 1.589_473_665_184_909_4e-10))))))
}

#[inline(always)]
fn cos_kernel(r: f64) -> f64 {
    let z = r * r;
    1.0 + z
        * (-0.499_999_999_999_992_5
            + z * (0.041_666_666_666_472_306
                + z * (-0.001_388_888_886_997_865_8
                    + z * (2.480_157_853_856_298_5e-5
                        + z * (-2.755_523_388_484_742e-7 + z * 2.063_045_437_966_229_4e-9)))))
}

/// x − k·π/2 for the nearest integer k, and k mod 4; `None` beyond the
/// range where the reduction is exact (and for NaN).
#[inline(always)]
fn reduce_quarter_turns(x: f64) -> Option<(f64, i64)> {
    if x.abs() <= core::f64::consts::FRAC_PI_4 {
        // Already in the kernels' range: no reduction, no rounding.
        return Some((x, 0));
    }
    // NaN fails this comparison too.
    if x.abs() <= SIN_COS_FAST_LIMIT {
        let k = round_to_integer(x * core::f64::consts::FRAC_2_PI);
        // k is an integer below 2²⁰ in magnitude: the cast is exact.
        Some(((x - k * PIO2_HIGH) - k * PIO2_LOW, (k as i64) & 3))
    } else {
        None
    }
}

/// (sin x, cos x).
#[inline(always)]
pub(crate) fn sin_cos(x: f64) -> (f64, f64) {
    let Some((r, quadrant)) = reduce_quarter_turns(x) else {
        return libm::sincos(x);
    };
    let (s, c) = (sin_kernel(r), cos_kernel(r));
    match quadrant {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

/// sin x (one kernel, not two).
#[inline(always)]
pub(crate) fn sin(x: f64) -> f64 {
    let Some((r, quadrant)) = reduce_quarter_turns(x) else {
        return libm::sin(x);
    };
    match quadrant {
        0 => sin_kernel(r),
        1 => cos_kernel(r),
        2 => -sin_kernel(r),
        _ => -cos_kernel(r),
    }
}

/// ln 2 in two parts, as `PIO2_HIGH`/`PIO2_LOW`.
const LN2_HIGH: f64 = f64::from_bits(0x3fe6_2e42_f000_0000);
const LN2_LOW: f64 = f64::from_bits(0x3e5d_f473_de6a_f279);
/// Within ±700 the result and 2ᵏ are normal doubles; beyond, libm.
const EXP_FAST_LIMIT: f64 = 700.0;

/// eˣ.
#[inline(always)]
pub(crate) fn exp(x: f64) -> f64 {
    // NaN fails this comparison and goes to libm with the huge arguments.
    if x.abs() > EXP_FAST_LIMIT || x.is_nan() {
        return libm::exp(x);
    }
    let k = round_to_integer(x * core::f64::consts::LOG2_E);
    let r = (x - k * LN2_HIGH) - k * LN2_LOW;
    // [6/6] Padé: eʳ ≈ P(r)/P(−r), P(r) = Σ cₙ rⁿ; even and odd halves.
    let z = r * r;
    let even = 1.0 + z * (5.0 / 44.0 + z * (1.0 / 792.0 + z * (1.0 / 665_280.0)));
    let odd = r * (1.0 / 2.0 + z * (1.0 / 66.0 + z * (1.0 / 15_840.0)));
    let e_r = (even + odd) / (even - odd);
    // |k| ≤ 1010: 2ᵏ is a normal double, built from its exponent bits.
    let scale = f64::from_bits(((k as i64 + 1023) as u64) << 52);
    e_r * scale
}

/// 2⁵²: from here on every double is an integer.
const TWO_POW_52: f64 = 4_503_599_627_370_496.0;

/// `x.round()` (half away from zero), bit for bit, without the call: the
/// x86-64 baseline has no rounding instruction, so `f64::round` is a call
/// into compiler-builtins, and the input sanitiser makes six of them per
/// car and step. Below 2⁵² the truncation through i64 is exact, and so is
/// x minus it (Sterbenz's lemma for |x| ≥ 1; x itself below).
#[inline(always)]
pub(crate) fn round(x: f64) -> f64 {
    // Integers already (and infinities); NaN goes through as it came.
    if x.abs() >= TWO_POW_52 || x.is_nan() {
        return x;
    }
    let truncated = (x as i64) as f64;
    let fraction = x - truncated;
    let rounded = if fraction >= 0.5 {
        truncated + 1.0
    } else if fraction <= -0.5 {
        truncated - 1.0
    } else {
        truncated
    };
    // −0.3 rounds to −0 (the truncation gave +0); a nonzero result already
    // has x's sign.
    rounded.copysign(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_matches_the_standard_library_bit_for_bit() {
        let edges = [
            0.0,
            -0.0,
            0.3,
            -0.3,
            0.5,
            -0.5,
            0.499_999_999_999_999_94,
            -0.499_999_999_999_999_94,
            1.5,
            -1.5,
            2.5,
            -2.5,
            65_535.5,
            -65_536.0,
            TWO_POW_52 - 0.5,
            -(TWO_POW_52 - 0.5),
            TWO_POW_52,
            1e300,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for x in edges {
            assert_eq!(round(x).to_bits(), x.round().to_bits(), "{x}");
        }
        assert!(round(f64::NAN).is_nan());
        // Every double between two integers by the bits, near the inputs'
        // scale and far from it.
        let mut bits = 0x3f00_0000_0000_0000_u64;
        while bits < 0x4340_0000_0000_0000 {
            for x in [f64::from_bits(bits), -f64::from_bits(bits)] {
                assert_eq!(round(x).to_bits(), x.round().to_bits(), "{x}");
            }
            bits += 0x0000_0123_4567_89ab;
        }
    }

    /// Distance in units in the last place between two finite doubles of
    /// the same sign (or both zero).
    fn ulps(a: f64, b: f64) -> u64 {
        if a == b {
            return 0;
        }
        assert_eq!(a.is_sign_negative(), b.is_sign_negative(), "{a} vs {b}");
        a.to_bits().abs_diff(b.to_bits())
    }

    /// Points spread over [lo, hi] plus a deterministic scatter between
    /// them, so every branch and its edges are hit.
    fn points(lo: f64, hi: f64, n: u32) -> impl Iterator<Item = f64> {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        (0..=n).flat_map(move |i| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let jitter = (seed >> 11) as f64 / (1u64 << 53) as f64;
            let step = (hi - lo) / f64::from(n);
            [
                lo + step * f64::from(i),
                lo + step * (f64::from(i) + jitter),
            ]
        })
    }

    #[test]
    fn atan_is_within_four_ulp_of_libm() {
        let mut worst = 0;
        for x in points(-8.0, 8.0, 200_000).chain(points(-1e6, 1e6, 20_000)) {
            worst = worst.max(ulps(atan(x), libm::atan(x)));
        }
        for x in [
            0.0,
            -0.0,
            TAN_PI_12,
            1.0,
            TAN_5PI_12,
            1e300,
            -1e-300,
            f64::MAX,
        ] {
            worst = worst.max(ulps(atan(x), libm::atan(x)));
        }
        assert!(worst <= 4, "{worst} ulp");
        eprintln!("worst {worst} ulp");
        assert_eq!(atan(f64::INFINITY), FRAC_PI_2);
        assert!(atan(f64::NAN).is_nan());
        assert_eq!(atan(-0.0).to_bits(), (-0.0f64).to_bits());
    }

    #[test]
    fn sin_cos_are_within_a_few_ulp_of_libm_or_1e_16() {
        // Near a zero of sin or cos an ulp of the result is tiny, so the
        // test allows an absolute 2·10⁻¹⁶ as well.
        let close = |a: f64, b: f64| (a - b).abs() <= 2e-16 || ulps(a, b) <= 2;
        for x in points(-7.0, 7.0, 200_000).chain(points(-1e6, 1e6, 20_000)) {
            let (s, c) = sin_cos(x);
            let (ls, lc) = libm::sincos(x);
            assert!(close(s, ls), "sin {x}: {s} vs {ls}");
            assert!(close(c, lc), "cos {x}: {c} vs {lc}");
            assert_eq!(sin(x), s);
        }
        assert_eq!(sin_cos(0.0), (0.0, 1.0));
        assert!(sin_cos(f64::NAN).0.is_nan());
        assert_eq!(sin_cos(1e7), libm::sincos(1e7));
    }

    #[test]
    fn exp_is_within_four_ulp_of_libm() {
        let mut worst = 0;
        for x in points(-3.0, 3.0, 200_000).chain(points(-700.0, 700.0, 20_000)) {
            worst = worst.max(ulps(exp(x), libm::exp(x)));
        }
        assert!(worst <= 4, "{worst} ulp");
        eprintln!("worst {worst} ulp");
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(800.0), f64::INFINITY);
        assert_eq!(exp(-800.0), 0.0);
        assert!(exp(f64::NAN).is_nan());
    }
}
