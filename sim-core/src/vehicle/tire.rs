//! Magic Formula tire: pure longitudinal and lateral slip with load
//! sensitivity, after Pacejka's PAC2002 (a subset of its coefficients, with
//! the published names): both curves with every pure-slip term at zero
//! camber (load- and sign-dependent curvature, horizontal and vertical
//! shifts). Slips combine by PAC2002's weighting functions where the
//! definition gives them (`weighting`), else by the similarity method
//! (`at_load`).
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
    /// The Magic Formula's combined-slip weighting (PAC2002's R*
    /// coefficients); absent, the slips combine by the similarity method.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub combined_slip: Option<CombinedSlipCoefficients>,
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
        if let Some(combined) = &self.combined_slip {
            combined.validate(prefix)?;
        }
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
    /// sign-dependent curvature, the combined-slip weighting): a definition without them is evaluated
    /// by [`symmetric_at_load`](Self::symmetric_at_load).
    pub(crate) fn has_full_curves(&self) -> bool {
        self.is_asymmetric()
            || self.combined_slip.is_some()
            || [self.pex2, self.pex3, self.pey2].iter().any(|&t| t != 0.0)
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
            combined_slip: self.combined_slip.map(|c| c.mirrored()),
            ..self.clone()
        }
    }
}

mod at_load;
#[cfg(test)]
mod tests;
mod weighting;

pub(crate) use at_load::PeakSlips;
pub use at_load::TireAtLoad;
pub use weighting::CombinedSlipCoefficients;
