//! A tire at one normal load: the Magic Formula coefficients worked out
//! once per wheel and substep, and the pure and combined forces evaluated
//! on them.

use super::TireParameters;
use super::weighting::WeightsAtLoad;
use crate::math;

impl TireParameters {
    /// The load change and the friction and slip stiffnesses over load at
    /// load `fz`, which both curves' evaluations start from.
    #[inline(always)]
    fn load_terms(&self, fz: f64) -> LoadTerms {
        let dfz = self.load_change(fz);
        LoadTerms {
            dfz,
            mu_x: self.friction_x(dfz),
            mu_y: self.friction_y(dfz),
            k_x: self.slip_stiffness_per_load(dfz),
            k_y: self.cornering_stiffness_per_load(fz),
        }
    }

    /// The load-dependent coefficients at normal load `fz`; evaluate forces
    /// on the result. Computed once per wheel and substep: the load change
    /// is divided out once, and each curve's B = K/(C·D) once (the load
    /// cancels in it), so the force evaluations only multiply.
    #[must_use]
    #[inline(always)]
    pub fn at_load(&self, fz: f64) -> TireAtLoad {
        if fz <= 0.0 {
            return TireAtLoad::default();
        }
        let LoadTerms {
            dfz,
            mu_x,
            mu_y,
            k_x,
            k_y,
        } = self.load_terms(fz);
        // E is at most 1 (the curve must keep rising to its peak); the
        // validated PEX1 and PEY1 are, so without the load terms E is
        // exactly PEX1 and PEY1.
        let curvature_x = self.pex1 + self.pex2 * dfz + self.pex3 * dfz * dfz;
        let curvature_y = self.pey1 + self.pey2 * dfz;
        let asymmetry = self.is_asymmetric().then(|| Asymmetry {
            curvature_x_braking: (curvature_x * (1.0 + self.pex4)).min(1.0),
            curvature_y_negative: (curvature_y * (1.0 + self.pey3)).min(1.0),
            shifts_x: CurveShifts {
                horizontal: self.phx1 + self.phx2 * dfz,
                vertical: fz * (self.pvx1 + self.pvx2 * dfz),
            },
            shifts_y: CurveShifts {
                horizontal: self.phy1 + self.phy2 * dfz,
                vertical: fz * (self.pvy1 + self.pvy2 * dfz),
            },
        });
        TireAtLoad {
            peak_x: mu_x * fz,
            stiffness_x: k_x * fz,
            shape_x: self.pcx1,
            curvature_x: (curvature_x * (1.0 - self.pex4)).min(1.0),
            factor_x: k_x / (self.pcx1 * mu_x),
            peak_y: mu_y * fz,
            stiffness_y: k_y * fz,
            shape_y: self.pcy1,
            curvature_y: (curvature_y * (1.0 - self.pey3)).min(1.0),
            factor_y: k_y / (self.pcy1 * mu_y),
            asymmetry,
            weighting: self.combined_slip.map(|c| c.at_load(dfz, mu_y * fz)),
        }
    }

    /// [`at_load`](Self::at_load) for a tire without the full curves' terms
    /// ([`has_full_curves`](Self::has_full_curves) false), with the same
    /// forces to the bit: the substep's common case, kept to the work it
    /// needs (a test holds the two equal).
    #[inline(always)]
    pub(crate) fn symmetric_at_load(&self, fz: f64) -> SymmetricAtLoad {
        if fz <= 0.0 {
            return SymmetricAtLoad::default();
        }
        let LoadTerms {
            dfz: _,
            mu_x,
            mu_y,
            k_x,
            k_y,
        } = self.load_terms(fz);
        SymmetricAtLoad {
            peak_x: mu_x * fz,
            shape_x: self.pcx1,
            curvature_x: self.pex1,
            factor_x: k_x / (self.pcx1 * mu_x),
            stiffness_x: k_x * fz,
            peak_y: mu_y * fz,
            stiffness_y: k_y * fz,
            shape_y: self.pcy1,
            curvature_y: self.pey1,
            factor_y: k_y / (self.pcy1 * mu_y),
        }
    }

    /// The slip ratio at which the pure longitudinal force peaks when
    /// driving, at load `fz`.
    #[must_use]
    pub fn peak_slip(&self, fz: f64) -> f64 {
        let t = self.at_load(fz);
        let peak = peak_argument(t.shape_x, t.factor_x, t.curvature_x);
        match t.asymmetry {
            // Real files shift by a thousandth of slip against peaks near
            // a tenth; the floor keeps combined slip's scale positive for
            // any definition the validation lets through.
            Some(a) => (peak - a.shifts_x.horizontal).max(0.25 * peak),
            None => peak,
        }
    }

    /// The lateral slip tan α at which the pure lateral force peaks, at
    /// load `fz`, on the curve without its side-dependent terms (so that a
    /// tire and its mirror image share it; it is combined slip's scale).
    #[must_use]
    pub fn peak_lateral_slip(&self, fz: f64) -> f64 {
        let t = self.at_load(fz);
        let curvature = (self.pey1 + self.pey2 * self.load_change(fz)).min(1.0);
        peak_argument(t.shape_y, t.factor_y, curvature)
    }

    /// Pure longitudinal force and its slope dFx/dκ at slip ratio `kappa`.
    #[must_use]
    pub fn longitudinal(&self, fz: f64, kappa: f64) -> (f64, f64) {
        self.at_load(fz).longitudinal(kappa)
    }

    /// Pure lateral force at lateral slip `tan_alpha` (tan α; sign
    /// convention in the module docs).
    #[must_use]
    pub fn lateral(&self, fz: f64, tan_alpha: f64) -> f64 {
        self.at_load(fz).lateral(tan_alpha)
    }
}

/// A tire's Magic Formula coefficients at one normal load (all zero when
/// the tire is unloaded, which gives zero force).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TireAtLoad {
    /// Peak longitudinal force D, N.
    pub peak_x: f64,
    /// Longitudinal slip stiffness K, N per unit slip.
    pub stiffness_x: f64,
    shape_x: f64,
    /// Curvature E where the (shifted) slip is positive: driving.
    curvature_x: f64,
    /// Stiffness factor B = K/(C·D), per unit slip.
    factor_x: f64,
    /// Peak lateral force D, N.
    pub peak_y: f64,
    /// Cornering stiffness K, N/rad.
    pub stiffness_y: f64,
    shape_y: f64,
    /// Curvature E where the (shifted) lateral slip is positive.
    curvature_y: f64,
    /// Stiffness factor B = K/(C·D), per rad.
    factor_y: f64,
    /// The curves' shifts and the curvatures of negative slips; `None` for
    /// a tire without them, whose curves are odd and pass through the
    /// origin.
    asymmetry: Option<Asymmetry>,
    /// The Magic Formula's combined-slip weighting; `None` combines by
    /// the similarity method.
    weighting: Option<WeightsAtLoad>,
}

/// [`TireParameters::load_terms`]: dfz, μ and K/Fz of both directions.
struct LoadTerms {
    dfz: f64,
    mu_x: f64,
    mu_y: f64,
    k_x: f64,
    k_y: f64,
}

/// What makes a tire's curves asymmetric at one load.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Asymmetry {
    /// Curvature E where the shifted slip ratio is negative (braking).
    curvature_x_braking: f64,
    /// Curvature E where the shifted lateral slip is negative.
    curvature_y_negative: f64,
    shifts_x: CurveShifts,
    shifts_y: CurveShifts,
}

/// A Magic Formula curve's shifts at one load: y(x) = y0(x + horizontal)
/// + vertical.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct CurveShifts {
    /// SH, in the curve's slip.
    horizontal: f64,
    /// SV, N.
    vertical: f64,
}

impl TireAtLoad {
    /// The longitudinal curve without its vertical shift, and its slope,
    /// at shifted slip `x` with curvature `e`.
    #[inline(always)]
    fn longitudinal_curve(&self, e: f64, x: f64) -> (f64, f64) {
        if self.peak_x <= 0.0 || self.stiffness_x <= 0.0 {
            return (0.0, 0.0);
        }
        curve_and_slope(self.shape_x, self.peak_x, self.factor_x, e, x)
    }

    /// The lateral curve without its vertical shift at shifted lateral
    /// slip `y` with curvature `e`.
    #[inline(always)]
    fn lateral_curve(&self, e: f64, y: f64) -> f64 {
        lateral_curve(
            self.peak_y,
            self.stiffness_y,
            self.shape_y,
            self.factor_y,
            e,
            y,
        )
    }

    /// Pure longitudinal force and its slope dFx/dκ at slip ratio `kappa`.
    #[must_use]
    #[inline(always)]
    pub fn longitudinal(&self, kappa: f64) -> (f64, f64) {
        // A tire without shifts takes the slip and gives the force as they
        // are, so that the sign of a zero (slip or force) is kept.
        let Some(a) = self.asymmetry else {
            return self.longitudinal_curve(self.curvature_x, kappa);
        };
        let x = kappa + a.shifts_x.horizontal;
        let e = if x < 0.0 {
            a.curvature_x_braking
        } else {
            self.curvature_x
        };
        let (force, slope) = self.longitudinal_curve(e, x);
        (force + a.shifts_x.vertical, slope)
    }

    /// Pure lateral force at lateral slip `tan_alpha` (tan α).
    #[must_use]
    #[inline(always)]
    pub fn lateral(&self, tan_alpha: f64) -> f64 {
        let Some(a) = self.asymmetry else {
            return self.lateral_curve(self.curvature_y, tan_alpha);
        };
        let y = tan_alpha + a.shifts_y.horizontal;
        let e = if y < 0.0 {
            a.curvature_y_negative
        } else {
            self.curvature_y
        };
        self.lateral_curve(e, y) + a.shifts_y.vertical
    }

    /// Combined-slip forces: by the Magic Formula's weighting functions
    /// when the tire has them (`weighting`; the peak slips are then not
    /// used), else by the resultant-slip (similarity) method:
    /// with the slips normalised by their peak values (σx = κ/κ_peak,
    /// σy = α/α_peak, α here the lateral slip tan α) and σ = |(σx, σy)|,
    /// each force is its pure curve at the combined slip, pointed along the
    /// normalised slip: Fx = Fx0(σ·κ_peak)·σx/σ, Fy = Fy0(σ·α_peak)·σy/σ.
    /// Pure slip gives the pure curves back, and the force never leaves the
    /// ellipse of the two peaks. Returns (Fx, Fy, ∂Fx/∂κ).
    ///
    /// A tire with shifts works in the shifted slips (κ + SHx, tan α +
    /// SHy), each curve with the curvature of its slip's side; each
    /// vertical shift is added after, fading with the other direction's
    /// normalised slip as 1/(1 + σ²): a tire sliding along its heading
    /// loses its conicity and ply-steer force as MF's combined-slip
    /// weighting (Gyκ) takes it, and pure slip keeps the file's curve.
    #[must_use]
    pub fn combined(
        &self,
        kappa: f64,
        tan_alpha: f64,
        kappa_peak: f64,
        tan_alpha_peak: f64,
    ) -> (f64, f64, f64) {
        let peaks = PeakSlips::new(kappa_peak, tan_alpha_peak);
        self.combined_at(kappa, tan_alpha, &peaks)
    }

    /// [`combined`](Self::combined) with the peak slips' reciprocals taken
    /// once per definition.
    #[inline(always)]
    pub(crate) fn combined_at(&self, kappa: f64, alpha: f64, peaks: &PeakSlips) -> (f64, f64, f64) {
        if let Some(w) = self.weighting {
            let (fx0, slope0) = self.longitudinal(kappa);
            return w.apply(kappa, alpha, fx0, slope0, self.lateral(alpha));
        }
        match self.asymmetry {
            None => similarity(self, kappa, alpha, peaks),
            Some(a) => self.asymmetric_combined(&a, kappa, alpha, peaks),
        }
    }

    /// [`combined`](Self::combined) for a tire with shifts or a
    /// sign-dependent curvature.
    #[inline(always)]
    fn asymmetric_combined(
        &self,
        a: &Asymmetry,
        kappa: f64,
        alpha: f64,
        peaks: &PeakSlips,
    ) -> (f64, f64, f64) {
        let x = kappa + a.shifts_x.horizontal;
        let y = alpha + a.shifts_y.horizontal;
        let sx = x * peaks.inv_kappa;
        let sy = y * peaks.inv_alpha;
        let vertical_x = a.shifts_x.vertical / (1.0 + sy * sy);
        let vertical_y = a.shifts_y.vertical / (1.0 + sx * sx);
        let e_x = if sx < 0.0 {
            a.curvature_x_braking
        } else {
            self.curvature_x
        };
        let e_y = if sy < 0.0 {
            a.curvature_y_negative
        } else {
            self.curvature_y
        };
        let s = (sx * sx + sy * sy).sqrt();
        if s < 1e-9 {
            let (fx, slope) = self.longitudinal_curve(e_x, x);
            return (
                fx + vertical_x,
                self.lateral_curve(e_y, y) + vertical_y,
                slope,
            );
        }
        let inv_s = 1.0 / s;
        // Each curve at fixed curvature is odd, so its value at the
        // magnitude σ·peak times the signed direction is the curve at the
        // signed combined slip.
        let (fx0, slope0) = self.longitudinal_curve(e_x, s * peaks.kappa);
        let fy0 = self.lateral_curve(e_y, s * peaks.alpha);
        let (ux, uy) = (sx * inv_s, sy * inv_s);
        let slope = slope0 * ux * ux + fx0 * uy * uy * inv_s * peaks.inv_kappa;
        (fx0 * ux + vertical_x, fy0 * uy + vertical_y, slope)
    }
}

/// A tire without the full curves' terms at one load: [`TireAtLoad`]'s
/// forces with the work of a symmetric curve through the origin only
/// ([`TireParameters::symmetric_at_load`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct SymmetricAtLoad {
    pub peak_x: f64,
    stiffness_x: f64,
    shape_x: f64,
    curvature_x: f64,
    factor_x: f64,
    pub peak_y: f64,
    stiffness_y: f64,
    shape_y: f64,
    curvature_y: f64,
    factor_y: f64,
}

impl SymmetricAtLoad {
    /// [`TireAtLoad::combined`], to the same bits for a tire without the
    /// full curves' terms.
    #[inline(always)]
    pub(crate) fn combined_at(&self, kappa: f64, alpha: f64, peaks: &PeakSlips) -> (f64, f64, f64) {
        similarity(self, kappa, alpha, peaks)
    }
}

/// A tire's odd pure-slip curves at one load, which the similarity method
/// combines.
pub(super) trait OddCurves {
    /// Pure longitudinal force and its slope at slip ratio `kappa`.
    fn longitudinal_at(&self, kappa: f64) -> (f64, f64);
    /// Pure lateral force at lateral slip `tan_alpha`.
    fn lateral_at(&self, tan_alpha: f64) -> f64;
}

impl OddCurves for TireAtLoad {
    #[inline(always)]
    fn longitudinal_at(&self, kappa: f64) -> (f64, f64) {
        self.longitudinal_curve(self.curvature_x, kappa)
    }

    #[inline(always)]
    fn lateral_at(&self, tan_alpha: f64) -> f64 {
        self.lateral_curve(self.curvature_y, tan_alpha)
    }
}

impl OddCurves for SymmetricAtLoad {
    #[inline(always)]
    fn longitudinal_at(&self, kappa: f64) -> (f64, f64) {
        if self.peak_x <= 0.0 || self.stiffness_x <= 0.0 {
            return (0.0, 0.0);
        }
        curve_and_slope(
            self.shape_x,
            self.peak_x,
            self.factor_x,
            self.curvature_x,
            kappa,
        )
    }

    #[inline(always)]
    fn lateral_at(&self, tan_alpha: f64) -> f64 {
        lateral_curve(
            self.peak_y,
            self.stiffness_y,
            self.shape_y,
            self.factor_y,
            self.curvature_y,
            tan_alpha,
        )
    }
}

/// D·sin(C·atan φ) and its slope at `x`, with B the stiffness factor and E
/// the curvature.
#[inline(always)]
fn curve_and_slope(c: f64, d: f64, b: f64, e: f64, x: f64) -> (f64, f64) {
    let bx = b * x;
    let phi = curvature_term(bx, e);
    let (sin, cos) = math::sin_cos(c * math::atan(phi));
    // y = D sin(C atan φ): dy/dx = D cos(C atan φ)·C/(1 + φ²)·dφ/dx with
    // dφ/dx = B(1 − E + E/(1 + (Bx)²)); one division for both fractions.
    let w = 1.0 + bx * bx;
    let slope = d * c * b * cos * ((1.0 - e) * w + e) / ((1.0 + phi * phi) * w);
    (d * sin, slope)
}

/// The lateral curve D·sin(C·atan φ) at lateral slip `tan_alpha` (zero for
/// an unloaded tire).
#[inline(always)]
fn lateral_curve(d: f64, k: f64, c: f64, b: f64, e: f64, tan_alpha: f64) -> f64 {
    if d <= 0.0 || k <= 0.0 {
        return 0.0;
    }
    let phi = curvature_term(b * tan_alpha, e);
    d * math::sin(c * math::atan(phi))
}

/// [`TireAtLoad::combined`] on odd curves through the origin.
#[inline(always)]
fn similarity<T: OddCurves>(
    tire: &T,
    kappa: f64,
    alpha: f64,
    peaks: &PeakSlips,
) -> (f64, f64, f64) {
    let sx = kappa * peaks.inv_kappa;
    let sy = alpha * peaks.inv_alpha;
    let s = (sx * sx + sy * sy).sqrt();
    if s < 1e-9 {
        let (fx, slope) = tire.longitudinal_at(kappa);
        return (fx, tire.lateral_at(alpha), slope);
    }
    let inv_s = 1.0 / s;
    let (fx0, slope0) = tire.longitudinal_at(s * peaks.kappa);
    let fy0 = tire.lateral_at(s * peaks.alpha);
    let (ux, uy) = (sx * inv_s, sy * inv_s);
    // ∂Fx/∂σx = Fx0'·κ_peak·ux² + Fx0·uy²/σ, and ∂σx/∂κ = 1/κ_peak.
    let slope = slope0 * ux * ux + fx0 * uy * uy * inv_s * peaks.inv_kappa;
    (fx0 * ux, fy0 * uy, slope)
}

/// The slip ratio and lateral slip (tan α) of peak force, combined slip's
/// scales, with their reciprocals.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct PeakSlips {
    pub kappa: f64,
    pub alpha: f64,
    pub inv_kappa: f64,
    pub inv_alpha: f64,
}

impl PeakSlips {
    pub(crate) fn new(kappa: f64, alpha: f64) -> Self {
        PeakSlips {
            kappa,
            alpha,
            inv_kappa: 1.0 / kappa,
            inv_alpha: 1.0 / alpha,
        }
    }
}

/// The Magic Formula's inner argument φ = Bx − E(Bx − atan Bx). With E = 0
/// it is Bx exactly, so the atan is skipped.
#[inline(always)]
fn curvature_term(bx: f64, e: f64) -> f64 {
    if e == 0.0 {
        bx
    } else {
        bx - e * (bx - math::atan(bx))
    }
}

/// Where y = D sin(C atan φ) peaks: C·atan(φ) = π/2, solved for x by
/// bisection (φ grows monotonically with x for E ≤ 1), with B = K/(C·D)
/// the curve's stiffness factor. A shape factor at or below 1 never reaches
/// π/2 (a curve without a peak): 1 is returned. Run once per definition,
/// so libm's tan is fine here.
fn peak_argument(c: f64, b: f64, e: f64) -> f64 {
    if b <= 0.0 {
        return 0.0;
    }
    if c <= 1.0 {
        return 1.0;
    }
    let target = libm::tan(core::f64::consts::FRAC_PI_2 / c);
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..50 {
        let mid = 0.5 * (lo + hi);
        if curvature_term(b * mid, e) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}
