//! Magic Formula tire: pure longitudinal and lateral slip with load
//! sensitivity, after Pacejka's PAC2002 (a subset of its coefficients, with
//! the published names).
//!
//! Conventions: slip ratio κ = (ωR − vx)/|vx|, positive when driving;
//! slip angle α here is signed so that a positive α gives a positive
//! (leftward) lateral force, i.e. α = −atan(vy/|vx|). As in PAC2002, the
//! lateral curve's argument is the lateral slip tan α (α* there), not α:
//! it is what the contact patch's kinematics give directly (−vy/|vx|), so
//! no arc tangent is taken per substep, and for the small angles where the
//! curve rises the two agree to first order.

use serde::{Deserialize, Serialize};

use crate::Result;
use crate::error::check;
use crate::math;

/// Lowest friction coefficient the load-sensitivity terms may produce; keeps
/// forces sane under loads far beyond the nominal one.
const MIN_FRICTION: f64 = 0.1;

/// PAC2002 coefficients used by the pure-slip model (dimensionless unless
/// noted).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TireParameters {
    /// FNOMIN: nominal load, N.
    pub nominal_load: f64,
    /// PCX1: longitudinal shape factor.
    pub pcx1: f64,
    /// PDX1: longitudinal friction at nominal load.
    pub pdx1: f64,
    /// PDX2: change of longitudinal friction with load.
    pub pdx2: f64,
    /// PEX1: longitudinal curvature factor.
    pub pex1: f64,
    /// PKX1: longitudinal slip stiffness / load at nominal load.
    pub pkx1: f64,
    /// PKX2: change of longitudinal slip stiffness with load.
    pub pkx2: f64,
    /// PKX3: exponent of the slip-stiffness change with load.
    pub pkx3: f64,
    /// PCY1: lateral shape factor.
    pub pcy1: f64,
    /// PDY1: lateral friction at nominal load.
    pub pdy1: f64,
    /// PDY2: change of lateral friction with load.
    pub pdy2: f64,
    /// PEY1: lateral curvature factor.
    pub pey1: f64,
    /// PKY1: maximum cornering stiffness / nominal load.
    pub pky1: f64,
    /// PKY2: load at which cornering stiffness peaks / nominal load.
    pub pky2: f64,
    /// Longitudinal relaxation length, m: how far the tire rolls before
    /// its slip (and force) catch up with a change (PAC2002 derives it from
    /// PTX1…; here it is given directly).
    #[serde(default = "default_relaxation_x")]
    pub relaxation_x: f64,
    /// Lateral relaxation length, m.
    #[serde(default = "default_relaxation_y")]
    pub relaxation_y: f64,
    /// Pneumatic trail at zero slip angle, m: how far behind the contact
    /// centre the lateral force acts, which makes the aligning moment
    /// Mz = −t·Fy. It falls linearly to zero at twice the peak slip angle
    /// (a simplification of PAC2002's QBZ/QCZ/QDZ trail curve).
    #[serde(default = "default_trail")]
    pub pneumatic_trail: f64,
}

/// Typical passenger-car relaxation lengths, m, for definitions that do
/// not give them.
pub(crate) const DEFAULT_RELAXATION_X: f64 = 0.15;
pub(crate) const DEFAULT_RELAXATION_Y: f64 = 0.35;

fn default_relaxation_x() -> f64 {
    DEFAULT_RELAXATION_X
}

fn default_relaxation_y() -> f64 {
    DEFAULT_RELAXATION_Y
}

/// Typical passenger-car pneumatic trail, m.
pub(crate) const DEFAULT_TRAIL: f64 = 0.03;

fn default_trail() -> f64 {
    DEFAULT_TRAIL
}

impl TireParameters {
    pub(crate) fn validate(&self, prefix: &str) -> Result<()> {
        let f = |name: &str| format!("{prefix}.{name}");
        let pos = |name: &str, v: f64| check(&f(name), v, v > 0.0, "must be positive and finite");
        let range = |name: &str, v: f64, lo: f64, hi: f64| {
            check(
                &f(name),
                v,
                (lo..=hi).contains(&v),
                &format!("must be in [{lo}, {hi}]"),
            )
        };
        pos("nominal_load", self.nominal_load)?;
        range("pcx1", self.pcx1, 1.0, 2.0)?;
        range("pdx1", self.pdx1, 0.1, 3.0)?;
        range("pdx2", self.pdx2, -1.0, 1.0)?;
        range("pex1", self.pex1, -10.0, 1.0)?;
        range("pkx1", self.pkx1, 1.0, 100.0)?;
        range("pkx2", self.pkx2, -50.0, 50.0)?;
        range("pkx3", self.pkx3, -5.0, 5.0)?;
        range("pcy1", self.pcy1, 1.0, 2.0)?;
        range("pdy1", self.pdy1, 0.1, 3.0)?;
        range("pdy2", self.pdy2, -1.0, 1.0)?;
        range("pey1", self.pey1, -10.0, 1.0)?;
        range("pky1", self.pky1, 1.0, 100.0)?;
        range("pky2", self.pky2, 0.1, 10.0)?;
        range("relaxation_x", self.relaxation_x, 0.01, 2.0)?;
        range("relaxation_y", self.relaxation_y, 0.01, 2.0)?;
        range("pneumatic_trail", self.pneumatic_trail, 0.0, 0.5)?;
        Ok(())
    }

    #[inline(always)]
    fn load_change(&self, fz: f64) -> f64 {
        (fz - self.nominal_load) / self.nominal_load
    }

    #[inline(always)]
    fn friction_x(&self, dfz: f64) -> f64 {
        (self.pdx1 + self.pdx2 * dfz).max(MIN_FRICTION)
    }

    #[inline(always)]
    fn friction_y(&self, dfz: f64) -> f64 {
        (self.pdy1 + self.pdy2 * dfz).max(MIN_FRICTION)
    }

    /// Slip stiffness over load, K/Fz, at load change `dfz`.
    #[inline(always)]
    fn slip_stiffness_per_load(&self, dfz: f64) -> f64 {
        ((self.pkx1 + self.pkx2 * dfz) * math::exp(self.pkx3 * dfz)).max(0.0)
    }

    /// Cornering stiffness over load, K/Fz: PAC2002 writes K as
    /// PKY1·Fz0·sin(2·atan(Fz/(PKY2·Fz0))); with u = Fz/(PKY2·Fz0),
    /// sin(2·atan u) = 2u/(1 + u²) exactly, and K/Fz = 2·PKY1/(PKY2·(1 + u²)).
    #[inline(always)]
    fn cornering_stiffness_per_load(&self, fz: f64) -> f64 {
        let u = fz / (self.pky2 * self.nominal_load);
        2.0 * self.pky1 / (self.pky2 * (1.0 + u * u))
    }

    /// Peak longitudinal force at load `fz` (N).
    #[must_use]
    pub fn peak_fx(&self, fz: f64) -> f64 {
        self.friction_x(self.load_change(fz)) * fz
    }

    /// Peak lateral force at load `fz` (N).
    #[must_use]
    pub fn peak_fy(&self, fz: f64) -> f64 {
        self.friction_y(self.load_change(fz)) * fz
    }

    /// Longitudinal slip stiffness dFx/dκ at κ = 0 (N per unit slip).
    #[must_use]
    pub fn slip_stiffness(&self, fz: f64) -> f64 {
        (fz * self.slip_stiffness_per_load(self.load_change(fz))).max(0.0)
    }

    /// Cornering stiffness dFy/dα at α = 0 (N/rad; at α = 0 the slope in
    /// tan α is the same).
    #[must_use]
    pub fn cornering_stiffness(&self, fz: f64) -> f64 {
        fz * self.cornering_stiffness_per_load(fz)
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
        let dfz = self.load_change(fz);
        let (mu_x, mu_y) = (self.friction_x(dfz), self.friction_y(dfz));
        let (k_x, k_y) = (
            self.slip_stiffness_per_load(dfz),
            self.cornering_stiffness_per_load(fz),
        );
        TireAtLoad {
            peak_x: mu_x * fz,
            stiffness_x: k_x * fz,
            shape_x: self.pcx1,
            curvature_x: self.pex1,
            factor_x: k_x / (self.pcx1 * mu_x),
            peak_y: mu_y * fz,
            stiffness_y: k_y * fz,
            shape_y: self.pcy1,
            curvature_y: self.pey1,
            factor_y: k_y / (self.pcy1 * mu_y),
        }
    }

    /// The slip ratio at which the pure longitudinal force peaks, at load
    /// `fz`.
    #[must_use]
    pub fn peak_slip(&self, fz: f64) -> f64 {
        let t = self.at_load(fz);
        peak_argument(t.shape_x, t.factor_x, t.curvature_x)
    }

    /// The lateral slip tan α at which the pure lateral force peaks, at
    /// load `fz`.
    #[must_use]
    pub fn peak_lateral_slip(&self, fz: f64) -> f64 {
        let t = self.at_load(fz);
        peak_argument(t.shape_y, t.factor_y, t.curvature_y)
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
    curvature_x: f64,
    /// Stiffness factor B = K/(C·D), per unit slip.
    factor_x: f64,
    /// Peak lateral force D, N.
    pub peak_y: f64,
    /// Cornering stiffness K, N/rad.
    pub stiffness_y: f64,
    shape_y: f64,
    curvature_y: f64,
    /// Stiffness factor B = K/(C·D), per rad.
    factor_y: f64,
}

impl TireAtLoad {
    /// Pure longitudinal force and its slope dFx/dκ at slip ratio `kappa`.
    #[must_use]
    #[inline(always)]
    pub fn longitudinal(&self, kappa: f64) -> (f64, f64) {
        if self.peak_x <= 0.0 || self.stiffness_x <= 0.0 {
            return (0.0, 0.0);
        }
        let (c, d, b, e) = (self.shape_x, self.peak_x, self.factor_x, self.curvature_x);
        let bx = b * kappa;
        let phi = curvature_term(bx, e);
        let (sin, cos) = math::sin_cos(c * math::atan(phi));
        // y = D sin(C atan φ): dy/dκ = D cos(C atan φ)·C/(1 + φ²)·dφ/dκ with
        // dφ/dκ = B(1 − E + E/(1 + (Bκ)²)); one division for both fractions.
        let w = 1.0 + bx * bx;
        let slope = d * c * b * cos * ((1.0 - e) * w + e) / ((1.0 + phi * phi) * w);
        (d * sin, slope)
    }

    /// Pure lateral force at lateral slip `tan_alpha` (tan α).
    #[must_use]
    #[inline(always)]
    pub fn lateral(&self, tan_alpha: f64) -> f64 {
        if self.peak_y <= 0.0 || self.stiffness_y <= 0.0 {
            return 0.0;
        }
        let phi = curvature_term(self.factor_y * tan_alpha, self.curvature_y);
        self.peak_y * math::sin(self.shape_y * math::atan(phi))
    }

    /// Combined-slip forces by the resultant-slip (similarity) method:
    /// with the slips normalised by their peak values (σx = κ/κ_peak,
    /// σy = α/α_peak, α here the lateral slip tan α) and σ = |(σx, σy)|,
    /// each force is its pure curve at the combined slip, pointed along the
    /// normalised slip: Fx = Fx0(σ·κ_peak)·σx/σ, Fy = Fy0(σ·α_peak)·σy/σ.
    /// Pure slip gives the pure curves back, and the force never leaves the
    /// ellipse of the two peaks. Returns (Fx, Fy, ∂Fx/∂κ).
    #[must_use]
    pub fn combined(
        &self,
        kappa: f64,
        tan_alpha: f64,
        kappa_peak: f64,
        tan_alpha_peak: f64,
    ) -> (f64, f64, f64) {
        self.combined_at(
            kappa,
            tan_alpha,
            &PeakSlips::new(kappa_peak, tan_alpha_peak),
        )
    }

    /// [`combined`](Self::combined) with the peak slips' reciprocals
    /// computed once per definition instead of per call.
    #[inline(always)]
    pub(crate) fn combined_at(&self, kappa: f64, alpha: f64, peaks: &PeakSlips) -> (f64, f64, f64) {
        let sx = kappa * peaks.inv_kappa;
        let sy = alpha * peaks.inv_alpha;
        let s = (sx * sx + sy * sy).sqrt();
        if s < 1e-9 {
            let (fx, slope) = self.longitudinal(kappa);
            return (fx, self.lateral(alpha), slope);
        }
        let inv_s = 1.0 / s;
        let (fx0, slope0) = self.longitudinal(s * peaks.kappa);
        let fy0 = self.lateral(s * peaks.alpha);
        let (ux, uy) = (sx * inv_s, sy * inv_s);
        // ∂Fx/∂σx = Fx0'·κ_peak·ux² + Fx0·uy²/σ, and ∂σx/∂κ = 1/κ_peak.
        let slope = slope0 * ux * ux + fx0 * uy * uy * inv_s * peaks.inv_kappa;
        (fx0 * ux, fy0 * uy, slope)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tire() -> TireParameters {
        TireParameters {
            nominal_load: 4000.0,
            pcx1: 1.65,
            pdx1: 1.1,
            pdx2: -0.08,
            pex1: 0.3,
            pkx1: 22.0,
            pkx2: 0.0,
            pkx3: 0.2,
            pcy1: 1.3,
            pdy1: 1.05,
            pdy2: -0.1,
            pey1: -0.5,
            pky1: 18.0,
            pky2: 1.8,
            relaxation_x: 0.15,
            relaxation_y: 0.35,
            pneumatic_trail: 0.03,
        }
    }

    #[test]
    fn initial_slopes_equal_the_stiffnesses() {
        let t = tire();
        let (_, slope) = t.longitudinal(4000.0, 0.0);
        assert!((slope - t.slip_stiffness(4000.0)).abs() < 1e-6 * slope);
        let h = 1e-7;
        let fy_slope = (t.lateral(4000.0, h) - t.lateral(4000.0, -h)) / (2.0 * h);
        let k = t.cornering_stiffness(4000.0);
        assert!((fy_slope - k).abs() < 1e-4 * k, "{fy_slope} vs {k}");
    }

    #[test]
    fn analytic_slope_matches_finite_difference_everywhere() {
        let t = tire();
        for i in -40..=40 {
            let kappa = f64::from(i) * 0.025;
            let h = 1e-7;
            let fd = (t.longitudinal(5000.0, kappa + h).0 - t.longitudinal(5000.0, kappa - h).0)
                / (2.0 * h);
            let (_, slope) = t.longitudinal(5000.0, kappa);
            assert!(
                (fd - slope).abs() < 1e-3 * (1.0 + slope.abs()),
                "κ={kappa}: {fd} vs {slope}"
            );
        }
    }

    #[test]
    fn peak_slip_is_where_the_force_peaks() {
        let t = tire();
        let kappa = t.peak_slip(4000.0);
        let at = |k: f64| t.longitudinal(4000.0, k).0;
        assert!(kappa > 0.02 && kappa < 0.3, "{kappa}");
        assert!(at(kappa) >= at(kappa * 0.97) && at(kappa) >= at(kappa * 1.03));
        assert!(t.longitudinal(4000.0, kappa).1.abs() < 1e-6 * t.slip_stiffness(4000.0));
    }

    #[test]
    fn combined_slip_gives_pure_curves_back_and_stays_in_the_ellipse() {
        let t = tire();
        let fz = 4000.0;
        let a = t.at_load(fz);
        let (kp, ap) = (t.peak_slip(fz), t.peak_lateral_slip(fz));
        for k in [-0.3, -0.05, 0.02, 0.1, 0.5] {
            let (fx, fy, slope) = a.combined(k, 0.0, kp, ap);
            let (pure, pure_slope) = a.longitudinal(k);
            assert!((fx - pure).abs() < 1e-9 * a.peak_x && fy == 0.0);
            assert!((slope - pure_slope).abs() < 1e-6 * a.stiffness_x);
        }
        assert!((a.combined(0.0, 0.07, kp, ap).1 - a.lateral(0.07)).abs() < 1e-9 * a.peak_y);
        for (k, al) in [(0.05, 0.05), (0.2, 0.1), (-0.5, -0.3), (1.0, 0.02)] {
            let (fx, fy, _) = a.combined(k, al, kp, ap);
            let (ux, uy) = (fx / a.peak_x, fy / a.peak_y);
            let usage = ux * ux + uy * uy;
            assert!(usage <= 1.0 + 1e-9, "{k} {al}: {usage}");
            // Combined slip takes force from each direction.
            assert!(fx.abs() < a.longitudinal(k).0.abs() || fy.abs() < a.lateral(al).abs());
        }
        // The slope matches a finite difference.
        let h = 1e-7;
        let fd = (a.combined(0.08 + h, 0.04, kp, ap).0 - a.combined(0.08 - h, 0.04, kp, ap).0)
            / (2.0 * h);
        let (_, _, slope) = a.combined(0.08, 0.04, kp, ap);
        assert!((fd - slope).abs() < 1e-4 * a.stiffness_x, "{fd} vs {slope}");
    }

    #[test]
    fn peak_is_mu_times_load_and_falls_with_load() {
        let t = tire();
        let peak = (0..2000)
            .map(|i| t.longitudinal(4000.0, f64::from(i) * 0.0005).0)
            .fold(0.0, f64::max);
        assert!((peak - 1.1 * 4000.0).abs() < 1.0, "{peak}");
        assert!(t.peak_fy(8000.0) / 8000.0 < t.peak_fy(4000.0) / 4000.0);
        assert_eq!(t.longitudinal(0.0, 0.2), (0.0, 0.0));
        assert!(t.lateral(4000.0, 0.05) > 0.0 && t.lateral(4000.0, -0.05) < 0.0);
    }
}
