//! The Magic Formula's combined-slip weighting (PAC2002's R* coefficients,
//! MF-Tyre 5.2): each pure-slip force is scaled by a weighting function of
//! the other direction's slip, and a slip-ratio-induced side force is
//! added. A tire whose definition carries these coefficients combines its
//! slips this way; one without them keeps the similarity method
//! (`TireAtLoad::combined`).
//!
//! With α* the lateral slip tan α and κ the slip ratio (the core's signs,
//! module docs of `tire`):
//! - Fx = Gxα·Fx0(κ), Gxα = cos(Cxα·atan(Bxα·αs − Exα·(Bxα·αs −
//!   atan(Bxα·αs)))) / (the same at αs = SHxα), with αs = α* + SHxα,
//!   Bxα = RBX1·cos(atan(RBX2·κ)), Cxα = RCX1, Exα = REX1 + REX2·dfz,
//!   SHxα = RHX1;
//! - Fy = Gyκ·Fy0(α*) + SVyκ, Gyκ the same form in κs = κ + SHyκ with
//!   Byκ = RBY1·cos(atan(RBY2·(α* − RBY3))), Cyκ = RCY1,
//!   Eyκ = REY1 + REY2·dfz, SHyκ = RHY1 + RHY2·dfz, and
//!   SVyκ = μy·Fz·(RVY1 + RVY2·dfz)·cos(atan(RVY4·α*))·sin(RVY5·atan(RVY6·κ)).
//!
//! The camber term RVY3 is left out (the core's tire has no camber input).
//! cos(atan(x)) is taken as 1/√(1 + x²), which it equals.

use serde::{Deserialize, Serialize};

use crate::Result;
use crate::error::check;
use crate::math;

/// PAC2002's combined-slip coefficients, with the file's scaling factors
/// (LXAL, LYKA, LVYKA) folded in, in the core's sign convention, for a
/// left-mounted tire.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CombinedSlipCoefficients {
    /// RBX1: stiffness factor of Gxα (× LXAL).
    pub rbx1: f64,
    /// RBX2: how that stiffness falls with the slip ratio.
    pub rbx2: f64,
    /// RCX1: shape factor of Gxα.
    pub rcx1: f64,
    /// REX1: curvature of Gxα at nominal load (real files exceed 1; the
    /// curvature is held at 1, as Magic Formula tools do).
    pub rex1: f64,
    /// REX2: change of that curvature with load.
    pub rex2: f64,
    /// RHX1: shift of Gxα in the lateral slip.
    pub rhx1: f64,
    /// RBY1: stiffness factor of Gyκ (× LYKA).
    pub rby1: f64,
    /// RBY2: how that stiffness falls with the lateral slip.
    pub rby2: f64,
    /// RBY3: shift of that fall in the lateral slip.
    pub rby3: f64,
    /// RCY1: shape factor of Gyκ.
    pub rcy1: f64,
    /// REY1: curvature of Gyκ at nominal load.
    pub rey1: f64,
    /// REY2: change of that curvature with load.
    pub rey2: f64,
    /// RHY1: shift of Gyκ in the slip ratio at nominal load.
    pub rhy1: f64,
    /// RHY2: change of that shift with load.
    pub rhy2: f64,
    /// RVY1: slip-ratio-induced side force over μy·Fz at nominal load
    /// (× LVYKA).
    pub rvy1: f64,
    /// RVY2: change of that side force with load (× LVYKA).
    pub rvy2: f64,
    /// RVY4: how that side force falls with the lateral slip.
    pub rvy4: f64,
    /// RVY5: shape of its rise with the slip ratio.
    pub rvy5: f64,
    /// RVY6: stiffness of its rise with the slip ratio.
    pub rvy6: f64,
}

impl CombinedSlipCoefficients {
    /// Refuses values outside the ranges real files use, naming the field.
    pub(crate) fn validate(&self, prefix: &str) -> Result<()> {
        let range = |name: &str, v: f64, lo: f64, hi: f64| {
            check(
                &format!("{prefix}.combined_slip.{name}"),
                v,
                (lo..=hi).contains(&v),
                &format!("must be in [{lo}, {hi}]"),
            )
        };
        range("rbx1", self.rbx1, 0.1, 100.0)?;
        range("rbx2", self.rbx2, -100.0, 100.0)?;
        range("rcx1", self.rcx1, 0.1, 2.0)?;
        range("rex1", self.rex1, -10.0, 10.0)?;
        range("rex2", self.rex2, -10.0, 10.0)?;
        range("rhx1", self.rhx1, -0.2, 0.2)?;
        range("rby1", self.rby1, 0.1, 100.0)?;
        range("rby2", self.rby2, -100.0, 100.0)?;
        range("rby3", self.rby3, -0.5, 0.5)?;
        range("rcy1", self.rcy1, 0.1, 2.0)?;
        range("rey1", self.rey1, -10.0, 10.0)?;
        range("rey2", self.rey2, -10.0, 10.0)?;
        range("rhy1", self.rhy1, -0.2, 0.2)?;
        range("rhy2", self.rhy2, -0.2, 0.2)?;
        range("rvy1", self.rvy1, -1.0, 1.0)?;
        range("rvy2", self.rvy2, -1.0, 1.0)?;
        range("rvy4", self.rvy4, -1000.0, 1000.0)?;
        range("rvy5", self.rvy5, -10.0, 10.0)?;
        range("rvy6", self.rvy6, -1000.0, 1000.0)?;
        // At nominal load and zero slip of the other direction.
        let ra = self.rby2 * self.rby3;
        for (name, value) in [
            (
                "rhx1",
                normaliser(self.rcx1, self.rbx1, self.rex1, self.rhx1),
            ),
            (
                "rhy1",
                normaliser(
                    self.rcy1,
                    self.rby1 / (1.0 + ra * ra).sqrt(),
                    self.rey1,
                    self.rhy1,
                ),
            ),
        ] {
            check(
                &format!("{prefix}.combined_slip.{name}"),
                value,
                value >= MIN_NORMALISER,
                &format!(
                    "shifts the weighting so far that its normaliser is {value:.3} at nominal load (at least {MIN_NORMALISER})"
                ),
            )?;
        }
        Ok(())
    }

    /// The same tire on the other side of the car: F(κ, α*) → −F(κ, −α*)
    /// laterally and Fx(κ, α*) → Fx(κ, −α*), so the terms odd in α* (the
    /// shifts RHX1 and RBY3) and the induced side force (RVY1, RVY2)
    /// change sign.
    #[must_use]
    pub(crate) fn mirrored(&self) -> CombinedSlipCoefficients {
        CombinedSlipCoefficients {
            rhx1: -self.rhx1,
            rby3: -self.rby3,
            rvy1: -self.rvy1,
            rvy2: -self.rvy2,
            ..*self
        }
    }

    /// The load-dependent terms at load change `dfz`, with the peak
    /// lateral force μy·Fz the induced side force scales with.
    #[inline(always)]
    pub(crate) fn at_load(&self, dfz: f64, peak_y: f64) -> WeightsAtLoad {
        WeightsAtLoad {
            rbx1: self.rbx1,
            rbx2: self.rbx2,
            shape_x: self.rcx1,
            curvature_x: (self.rex1 + self.rex2 * dfz).min(1.0),
            shift_x: self.rhx1,
            rby1: self.rby1,
            rby2: self.rby2,
            rby3: self.rby3,
            shape_y: self.rcy1,
            curvature_y: (self.rey1 + self.rey2 * dfz).min(1.0),
            shift_y: self.rhy1 + self.rhy2 * dfz,
            // sin(RVY5·atan(RVY6·κ)) is 0 at every slip when either is 0
            // (real files write RVY6 = 0): the term is skipped then.
            induced_peak: if self.rvy5 == 0.0 || self.rvy6 == 0.0 {
                0.0
            } else {
                peak_y * (self.rvy1 + self.rvy2 * dfz)
            },
            rvy4: self.rvy4,
            rvy5: self.rvy5,
            rvy6: self.rvy6,
        }
    }
}

/// [`CombinedSlipCoefficients`] at one load.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct WeightsAtLoad {
    rbx1: f64,
    rbx2: f64,
    shape_x: f64,
    curvature_x: f64,
    shift_x: f64,
    rby1: f64,
    rby2: f64,
    rby3: f64,
    shape_y: f64,
    curvature_y: f64,
    shift_y: f64,
    /// μy·Fz·(RVY1 + RVY2·dfz), N.
    induced_peak: f64,
    rvy4: f64,
    rvy5: f64,
    rvy6: f64,
}

impl WeightsAtLoad {
    /// The combined forces from the pure ones at slip ratio `kappa` and
    /// lateral slip `alpha`: `fx0` and its slope `slope0` (∂Fx0/∂κ), and
    /// `fy0`. Returns (Fx, Fy, ∂Fx/∂κ).
    #[inline(always)]
    pub(crate) fn apply(
        &self,
        kappa: f64,
        alpha: f64,
        fx0: f64,
        slope0: f64,
        fy0: f64,
    ) -> (f64, f64, f64) {
        // Gxα, and its change with κ through Bxα (∂G/∂B · ∂B/∂κ).
        let rk = self.rbx2 * kappa;
        let fall = 1.0 / (1.0 + rk * rk).sqrt();
        let b_x = self.rbx1 * fall;
        let (g_x, dg_db) = weight(
            self.shape_x,
            b_x,
            self.curvature_x,
            alpha + self.shift_x,
            self.shift_x,
        );
        // d/dκ cos(atan(RBX2·κ)) = −RBX2²·κ·cos³(atan(RBX2·κ)).
        let db_dkappa = -self.rbx1 * self.rbx2 * rk * fall * fall * fall;
        let slope = slope0 * g_x + fx0 * dg_db * db_dkappa;

        let ra = self.rby2 * (alpha - self.rby3);
        let b_y = self.rby1 / (1.0 + ra * ra).sqrt();
        let (g_y, _) = weight(
            self.shape_y,
            b_y,
            self.curvature_y,
            kappa + self.shift_y,
            self.shift_y,
        );
        let induced = if self.induced_peak == 0.0 {
            0.0
        } else {
            let ry = self.rvy4 * alpha;
            self.induced_peak * math::sin(self.rvy5 * math::atan(self.rvy6 * kappa))
                / (1.0 + ry * ry).sqrt()
        };
        (g_x * fx0, g_y * fy0 + induced, slope)
    }
}

/// The weighting function G = cos(C·atan(φ(B·s))) / cos(C·atan(φ(B·shift)))
/// with φ(u) = u − E·(u − atan u), and ∂G/∂B. The Magic Formula requires
/// G > 0; with C above 1 the cosine turns negative at very large slips
/// (a tire sliding sideways at walking pace has tan α in the tens), which
/// would reverse the force and the wheel's slope, so G is held at 0
/// there, flat. The normaliser is held at [`MIN_NORMALISER`] at least:
/// validation refuses shifts that bring it below that at nominal load,
/// and the hold keeps any other load finite.
#[inline(always)]
fn weight(c: f64, b: f64, e: f64, s: f64, shift: f64) -> (f64, f64) {
    let (g1, dg1) = unnormalised(c, b, e, s);
    let (g, dg) = if shift == 0.0 {
        (g1, dg1)
    } else {
        let (g0, dg0) = unnormalised(c, b, e, shift);
        if g0 < MIN_NORMALISER {
            (g1 / MIN_NORMALISER, dg1 / MIN_NORMALISER)
        } else {
            let g = g1 / g0;
            (g, (dg1 - g * dg0) / g0)
        }
    };
    if g > 0.0 { (g, dg) } else { (0.0, 0.0) }
}

/// The least normaliser cos(C·atan(φ(B·shift))) a weighting may have;
/// real files' shifts are thousandths, which keep it within 1e-3 of 1.
pub(crate) const MIN_NORMALISER: f64 = 0.5;

/// The normaliser of a weighting with the given factors (its value at
/// zero slip of the other direction).
pub(crate) fn normaliser(c: f64, b: f64, e: f64, shift: f64) -> f64 {
    unnormalised(c, b, e.min(1.0), shift).0
}

/// cos(C·atan(φ(B·x))) and its derivative in B.
#[inline(always)]
fn unnormalised(c: f64, b: f64, e: f64, x: f64) -> (f64, f64) {
    let bx = b * x;
    let w = 1.0 + bx * bx;
    let phi = if e == 0.0 {
        bx
    } else {
        bx - e * (bx - math::atan(bx))
    };
    let (sin, cos) = math::sin_cos(c * math::atan(phi));
    // ∂φ/∂B = x·(1 − E + E/(1 + (Bx)²)).
    let dphi_db = x * ((1.0 - e) * w + e) / w;
    (cos, -sin * c * dphi_db / (1.0 + phi * phi))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SUV file's coefficients (Project Chrono's PAC2002 file, W axes,
    /// left-mounted), as the import maps them: RHX1 and RBY3 negated.
    fn suv() -> CombinedSlipCoefficients {
        CombinedSlipCoefficients {
            rbx1: 5.9945,
            rbx2: -8.2609,
            rcx1: 1.07816,
            rex1: 1.644,
            rex2: -0.0064359,
            rhx1: -0.008847,
            rby1: 6.2238,
            rby2: 3.0734,
            rby3: -0.016076,
            rcy1: 1.0051,
            rey1: 0.019749,
            rey2: -0.0020691,
            rhy1: -0.0010319,
            rhy2: 7.4123e-6,
            rvy1: 0.02962,
            rvy2: -0.011053,
            rvy4: 11.842,
            rvy5: 1.9,
            // The file's RVY6 is 0 (no induced side force); a value here
            // exercises the term.
            rvy6: 10.0,
        }
    }

    #[test]
    fn pure_slip_keeps_the_pure_curves() {
        let w = suv().at_load(0.1, 5000.0);
        // κ = 0: Gyκ is 1 (normalised at its shift) and the induced force
        // is sin(0) = 0; α* = 0: Gxα is 1.
        let (fx, fy, _) = w.apply(0.0, 0.08, 0.0, 1e5, 4000.0);
        assert_eq!(fx, 0.0);
        assert!((fy - 4000.0).abs() < 1e-9, "{fy}");
        let (fx, _, s) = w.apply(0.05, 0.0, 3000.0, 2e4, 0.0);
        assert!((fx - 3000.0).abs() < 1e-9 && (s - 2e4).abs() < 1e-6);
    }

    #[test]
    fn each_force_falls_with_the_other_slip() {
        let w = suv().at_load(0.0, 5000.0);
        let fx = |alpha: f64| w.apply(0.1, alpha, 4000.0, 0.0, 0.0).0;
        assert!(fx(0.05) < fx(0.0) && fx(0.15) < fx(0.05), "{}", fx(0.15));
        let fy = |kappa: f64| w.apply(kappa, 0.1, 0.0, 0.0, 4000.0).1;
        assert!(
            fy(0.1) < fy(0.0) - 300.0 && fy(0.3) < fy(0.1),
            "{}",
            fy(0.3)
        );
    }

    #[test]
    fn the_slope_is_the_derivative_in_kappa() {
        let w = suv().at_load(0.2, 5500.0);
        // Fx0 = 20000·κ near the origin; Fy0 fixed.
        for (kappa, alpha) in [(0.02, 0.05), (-0.04, 0.1), (0.1, -0.07), (0.3, 0.2)] {
            let f = |k: f64| w.apply(k, alpha, 2e4 * k, 2e4, 3000.0).0;
            let h = 1e-6;
            let numeric = (f(kappa + h) - f(kappa - h)) / (2.0 * h);
            let (_, _, slope) = w.apply(kappa, alpha, 2e4 * kappa, 2e4, 3000.0);
            assert!(
                (slope - numeric).abs() < 1e-5 * numeric.abs().max(1.0),
                "{slope} against {numeric} at ({kappa}, {alpha})"
            );
        }
    }

    #[test]
    fn a_weighting_is_never_negative() {
        // A shape factor of 1.5 with no curvature: the cosine's argument
        // passes π/2 as tan α grows (a wheel sliding sideways at walking
        // pace), where the bare formula would reverse the force.
        let steep = CombinedSlipCoefficients {
            rcx1: 1.5,
            rex1: 0.0,
            rex2: 0.0,
            ..suv()
        };
        let w = steep.at_load(0.0, 5000.0);
        let bare = unnormalised(1.5, steep.rbx1, 0.0, 20.0).0;
        assert!(bare < 0.0, "{bare}");
        let (fx, _, slope) = w.apply(0.0, 20.0, 4000.0, 3e4, 0.0);
        assert_eq!((fx, slope), (0.0, 0.0));
        // Moderate slips keep the weighting.
        assert!(w.apply(0.0, 0.1, 4000.0, 3e4, 0.0).0 > 0.0);
    }

    #[test]
    fn a_shift_that_would_upend_the_normaliser_is_refused() {
        suv().validate("tire").unwrap();
        let shifted = CombinedSlipCoefficients {
            rcx1: 1.9,
            rbx1: 60.0,
            rhx1: 0.15,
            ..suv()
        };
        let err = shifted.validate("tire").unwrap_err().to_string();
        assert!(
            err.contains("combined_slip.rhx1") && err.contains("normaliser"),
            "{err}"
        );
    }

    #[test]
    fn the_mirror_image_is_the_same_tire_on_the_other_side() {
        let (left, right) = (
            suv().at_load(0.1, 5000.0),
            suv().mirrored().at_load(0.1, 5000.0),
        );
        for (kappa, alpha) in [(0.05, 0.04), (-0.1, -0.08), (0.2, 0.1)] {
            let l = left.apply(kappa, -alpha, 3000.0, 1e4, -2500.0);
            let r = right.apply(kappa, alpha, 3000.0, 1e4, 2500.0);
            assert!(
                (l.0 - r.0).abs() < 1e-9 && (l.1 + r.1).abs() < 1e-9,
                "{l:?} {r:?}"
            );
        }
    }
}
