//! Magic Formula tire: pure longitudinal and lateral slip with load
//! sensitivity, after Pacejka's PAC2002 (a subset of its coefficients, with
//! the published names): both curves with every pure-slip term at zero
//! camber (load- and sign-dependent curvature, horizontal and vertical
//! shifts).
//!
//! **Sides.** The lateral shifts (PHY*, PVY*) and the lateral curvature's
//! asymmetry (PEY3) describe a tire mounted on the car's left side, as
//! property files do (`TYRESIDE`). The right wheels carry its mirror image
//! ([`TireParameters::mirrored`]): F_right(tan α) = −F_left(−tan α), so the
//! terms change sign and a pair's conicity and ply steer act as they do on
//! a real axle instead of pulling the car to one side.
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
    /// PEX2: change of the longitudinal curvature with load.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pex2: f64,
    /// PEX3: change of the longitudinal curvature with the load change's
    /// square.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pex3: f64,
    /// PEX4: the curvature's asymmetry, E·(1 − PEX4) driving and
    /// E·(1 + PEX4) braking.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pex4: f64,
    /// PHX1: horizontal shift of the longitudinal curve at nominal load
    /// (slip ratio).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub phx1: f64,
    /// PHX2: change of the horizontal shift with load.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub phx2: f64,
    /// PVX1: vertical shift of the longitudinal force over load at
    /// nominal load.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pvx1: f64,
    /// PVX2: change of the vertical shift with load.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pvx2: f64,
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
    /// PEY2: change of the lateral curvature with load.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pey2: f64,
    /// PEY3: the lateral curvature's asymmetry, E·(1 − PEY3) where the
    /// shifted lateral slip is positive and E·(1 + PEY3) where it is
    /// negative (left-mounted tire).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pey3: f64,
    /// PHY1: horizontal shift of the lateral curve at nominal load (tan α;
    /// left-mounted tire).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub phy1: f64,
    /// PHY2: change of the lateral horizontal shift with load.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub phy2: f64,
    /// PVY1: vertical shift of the lateral force over load at nominal load
    /// (left-mounted tire).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pvy1: f64,
    /// PVY2: change of the lateral vertical shift with load.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pvy2: f64,
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

/// Terms a definition may leave out are written only when set, so a
/// definition without them reads and writes as it did before they existed.
#[allow(clippy::trivially_copy_pass_by_ref)] // serde's signature
fn is_zero(value: &f64) -> bool {
    *value == 0.0
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
        range("pex2", self.pex2, -10.0, 10.0)?;
        range("pex3", self.pex3, -10.0, 10.0)?;
        range("pex4", self.pex4, -10.0, 10.0)?;
        range("phx1", self.phx1, -0.05, 0.05)?;
        range("phx2", self.phx2, -0.05, 0.05)?;
        range("pvx1", self.pvx1, -0.5, 0.5)?;
        range("pvx2", self.pvx2, -0.5, 0.5)?;
        range("pkx1", self.pkx1, 1.0, 100.0)?;
        range("pkx2", self.pkx2, -50.0, 50.0)?;
        range("pkx3", self.pkx3, -5.0, 5.0)?;
        range("pcy1", self.pcy1, 1.0, 2.0)?;
        range("pdy1", self.pdy1, 0.1, 3.0)?;
        range("pdy2", self.pdy2, -1.0, 1.0)?;
        range("pey1", self.pey1, -10.0, 1.0)?;
        range("pey2", self.pey2, -10.0, 10.0)?;
        range("pey3", self.pey3, -50.0, 50.0)?;
        range("phy1", self.phy1, -0.05, 0.05)?;
        range("phy2", self.phy2, -0.05, 0.05)?;
        range("pvy1", self.pvy1, -0.5, 0.5)?;
        range("pvy2", self.pvy2, -0.5, 0.5)?;
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
        }
    }

    /// Whether either curve has a shift or a sign-dependent curvature:
    /// its forces are then evaluated in shifted slips, with the curvature
    /// of the slip's side.
    fn is_asymmetric(&self) -> bool {
        [
            self.pex4, self.phx1, self.phx2, self.pvx1, self.pvx2, self.pey3, self.phy1, self.phy2,
            self.pvy1, self.pvy2,
        ]
        .iter()
        .any(|&term| term != 0.0)
    }

    /// Whether the tire has any term of the full curves (shifts, load- and
    /// sign-dependent curvature): a definition without them is evaluated
    /// by [`symmetric_at_load`](Self::symmetric_at_load).
    pub(crate) fn has_full_curves(&self) -> bool {
        self.is_asymmetric() || [self.pex2, self.pex3, self.pey2].iter().any(|&t| t != 0.0)
    }

    /// Whether the tire has terms that depend on the side it is mounted on
    /// (PHY*, PVY*, PEY3): its left and right wheels then differ.
    #[must_use]
    pub fn has_sided_terms(&self) -> bool {
        [self.pey3, self.phy1, self.phy2, self.pvy1, self.pvy2]
            .iter()
            .any(|&term| term != 0.0)
    }

    /// The same tire mounted on the other side of the car: the lateral
    /// curve mirrored, F(tan α) → −F(−tan α), which changes the sign of
    /// the lateral shifts and of the curvature's asymmetry. A definition
    /// gives the left-mounted tire; the right wheels carry this.
    #[must_use]
    pub fn mirrored(&self) -> TireParameters {
        TireParameters {
            pey3: -self.pey3,
            phy1: -self.phy1,
            phy2: -self.phy2,
            pvy1: -self.pvy1,
            pvy2: -self.pvy2,
            ..self.clone()
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

    /// Combined-slip forces by the resultant-slip (similarity) method:
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
trait OddCurves {
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
            pex2: 0.0,
            pex3: 0.0,
            pex4: 0.0,
            phx1: 0.0,
            phx2: 0.0,
            pvx1: 0.0,
            pvx2: 0.0,
            pkx1: 22.0,
            pkx2: 0.0,
            pkx3: 0.2,
            pcy1: 1.3,
            pdy1: 1.05,
            pdy2: -0.1,
            pey1: -0.5,
            pey2: 0.0,
            pey3: 0.0,
            phy1: 0.0,
            phy2: 0.0,
            pvy1: 0.0,
            pvy2: 0.0,
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

    /// A tire with every longitudinal term: load- and sign-dependent
    /// curvature and both shifts.
    fn shifted_tire() -> TireParameters {
        TireParameters {
            pex2: 0.25,
            pex3: 0.07,
            pex4: -0.2,
            phx1: 0.0012,
            phx2: 0.0004,
            pvx1: -0.01,
            pvx2: 0.02,
            ..tire()
        }
    }

    #[test]
    fn shifts_and_asymmetric_curvature_keep_the_slope_exact() {
        let t = shifted_tire();
        t.validate("tire").unwrap();
        for fz in [2500.0, 4000.0, 6500.0] {
            for i in -40..=40 {
                let kappa = f64::from(i) * 0.025 + 0.001;
                let h = 1e-7;
                let fd =
                    (t.longitudinal(fz, kappa + h).0 - t.longitudinal(fz, kappa - h).0) / (2.0 * h);
                let (_, slope) = t.longitudinal(fz, kappa);
                assert!(
                    (fd - slope).abs() < 1e-3 * (1.0 + slope.abs()),
                    "{fz} N, κ={kappa}: {fd} vs {slope}"
                );
            }
            // At zero slip the force is the shifted curve's: SV plus the
            // curve at SH.
            let dfz = (fz - 4000.0) / 4000.0;
            let (sh, sv) = (0.0012 + 0.0004 * dfz, fz * (-0.01 + 0.02 * dfz));
            let unshifted = TireParameters {
                phx1: 0.0,
                phx2: 0.0,
                pvx1: 0.0,
                pvx2: 0.0,
                ..t.clone()
            };
            let want = unshifted.longitudinal(fz, sh).0 + sv;
            assert!((t.longitudinal(fz, 0.0).0 - want).abs() < 1e-9 * fz);
            // The driving peak sits SH before the unshifted curve's.
            assert!((t.peak_slip(fz) - (unshifted.peak_slip(fz) - sh)).abs() < 1e-12);
        }
        // Braking and driving differ by the curvature's asymmetry.
        let drive = t.longitudinal(4000.0, 0.3 - 0.0012).0 + 40.0;
        let brake = -(t.longitudinal(4000.0, -0.3 - 0.0012).0 + 40.0);
        assert!((drive - brake).abs() > 1.0, "{drive} vs {brake}");
    }

    /// `shifted_tire` with the lateral curve's side-dependent terms too.
    fn sided_tire() -> TireParameters {
        TireParameters {
            pey2: -0.05,
            pey3: 0.3,
            phy1: 0.004,
            phy2: -0.002,
            pvy1: 0.03,
            pvy2: -0.01,
            ..shifted_tire()
        }
    }

    #[test]
    fn the_lateral_curve_takes_its_shifts_and_the_right_wheel_its_mirror() {
        let t = sided_tire();
        t.validate("tire").unwrap();
        assert!(t.has_sided_terms() && !shifted_tire().has_sided_terms());
        let right = t.mirrored();
        for fz in [2500.0, 4000.0, 6500.0] {
            let dfz = (fz - 4000.0) / 4000.0;
            // F(tan α) = D·sin(C·atan(B·Y − E·(B·Y − atan(B·Y)))) + SV with
            // Y = tan α + SH, E = (PEY1 + PEY2·dfz)·(1 − PEY3·sgn Y):
            // the symmetric tire's curve (E fixed) moved by the shifts.
            let (sh, sv) = (0.004 - 0.002 * dfz, fz * (0.03 - 0.01 * dfz));
            let e0 = -0.5 - 0.05 * dfz;
            for i in -40..=40 {
                let slip = f64::from(i) * 0.02 + 0.0007;
                let y = slip + sh;
                let e = e0 * (1.0 - 0.3 * y.signum());
                let plain = TireParameters {
                    pey1: e,
                    pey2: 0.0,
                    ..tire()
                };
                let want = plain.lateral(fz, y) + sv;
                let got = t.lateral(fz, slip);
                assert!(
                    (got - want).abs() < 1e-9 * fz,
                    "{fz} N, {slip}: {got} vs {want}"
                );
                // The mirror image, exactly.
                assert_eq!(right.lateral(fz, -slip), -got);
            }
            // Combined slip: the longitudinal force is the same on both
            // sides and the lateral one mirrored, to the bit.
            let peaks = PeakSlips::new(t.peak_slip(fz), t.peak_lateral_slip(fz));
            assert_eq!(
                t.peak_lateral_slip(fz).to_bits(),
                right.peak_lateral_slip(fz).to_bits()
            );
            let (left_at, right_at) = (t.at_load(fz), right.at_load(fz));
            for kappa in [-0.4, -0.03, 0.0, 0.02, 0.15] {
                for alpha in [-0.2, -0.01, 0.003, 0.08] {
                    let a = left_at.combined_at(kappa, alpha, &peaks);
                    let b = right_at.combined_at(kappa, -alpha, &peaks);
                    assert_eq!((a.0, a.2), (b.0, b.2), "κ {kappa}, tan α {alpha}");
                    assert_eq!(a.1, -b.1, "κ {kappa}, tan α {alpha}");
                }
            }
        }
    }

    #[test]
    fn combined_slip_keeps_each_sides_curve_and_the_shifts() {
        let t = sided_tire();
        let fz = 4000.0;
        let at = t.at_load(fz);
        let peaks = PeakSlips::new(t.peak_slip(fz), t.peak_lateral_slip(fz));
        let (sh_x, sh_y) = (0.0012, 0.004);
        // Along each axis of the shifted slips the combined forces are the
        // pure curves: braking takes the braking curvature (PEX4).
        for kappa in [-0.6, -0.1, -0.02, 0.03, 0.2] {
            let (fx, fy, slope) = at.combined_at(kappa, -sh_y, &peaks);
            let (pure, pure_slope) = at.longitudinal(kappa);
            assert!((fx - pure).abs() < 1e-9 * fz, "κ {kappa}: {fx} vs {pure}");
            assert!((slope - pure_slope).abs() < 1e-6 * at.stiffness_x);
            // The lateral curve's own shift alone, fading with σx.
            let sx = (kappa + sh_x) / peaks.kappa;
            assert!((fy - fz * 0.03 / (1.0 + sx * sx)).abs() < 1e-9 * fz);
        }
        for alpha in [-0.3, -0.05, 0.01, 0.1] {
            let (_, fy, _) = at.combined_at(-sh_x, alpha, &peaks);
            assert!((fy - at.lateral(alpha)).abs() < 1e-9 * fz, "tan α {alpha}");
        }
        // The slope stays the derivative off the axes.
        for (kappa, alpha) in [(0.05, 0.04), (-0.2, 0.1), (0.3, -0.07)] {
            let h = 1e-7;
            let fd = (at.combined_at(kappa + h, alpha, &peaks).0
                - at.combined_at(kappa - h, alpha, &peaks).0)
                / (2.0 * h);
            let (_, _, slope) = at.combined_at(kappa, alpha, &peaks);
            assert!(
                (fd - slope).abs() < 1e-4 * at.stiffness_x,
                "{fd} vs {slope}"
            );
        }
    }

    #[test]
    fn the_symmetric_curves_give_the_full_ones_bits_for_a_tire_without_terms() {
        let mut tires = vec![tire()];
        for name in crate::preset_names() {
            let car = crate::preset(name).unwrap();
            tires.push(car.tires.front.clone());
            tires.push(car.tires.rear.clone());
        }
        for t in tires {
            assert!(!t.has_full_curves());
            let peaks = PeakSlips::new(t.peak_slip(4000.0), t.peak_lateral_slip(4000.0));
            for fz in [0.0, 900.0, 3000.0, 4000.0, 7500.0] {
                let (full, symmetric) = (t.at_load(fz), t.symmetric_at_load(fz));
                assert_eq!(
                    (full.peak_x.to_bits(), full.peak_y.to_bits()),
                    (symmetric.peak_x.to_bits(), symmetric.peak_y.to_bits())
                );
                for i in -30..=30 {
                    for j in -12..=12 {
                        let (kappa, alpha) = (f64::from(i) * 0.02, f64::from(j) * 0.03);
                        let a = full.combined_at(kappa, alpha, &peaks);
                        let b = symmetric.combined_at(kappa, alpha, &peaks);
                        assert_eq!(
                            [a.0.to_bits(), a.1.to_bits(), a.2.to_bits()],
                            [b.0.to_bits(), b.1.to_bits(), b.2.to_bits()],
                            "{fz} N, κ {kappa}, tan α {alpha}"
                        );
                    }
                }
                // The sign of a zero slip's zero force is kept too.
                let negative_zero = (full.longitudinal(-0.0).0, symmetric.longitudinal_at(-0.0).0);
                assert_eq!(negative_zero.0.to_bits(), negative_zero.1.to_bits());
            }
        }
        assert!(shifted_tire().has_full_curves());
    }

    #[test]
    fn terms_left_at_zero_leave_the_definition_as_it_was() {
        let json = serde_json::to_string(&tire()).unwrap();
        for key in [
            "pex2", "pex3", "pex4", "phx1", "phx2", "pvx1", "pvx2", "pey2", "pey3", "phy1", "phy2",
            "pvy1", "pvy2",
        ] {
            assert!(!json.contains(key), "{key} written: {json}");
        }
        let with_terms = serde_json::to_string(&shifted_tire()).unwrap();
        let back: TireParameters = serde_json::from_str(&with_terms).unwrap();
        assert_eq!(back, shifted_tire());
        let mut wild = shifted_tire();
        wild.phx1 = 0.2;
        assert!(wild.validate("tire").is_err());
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
