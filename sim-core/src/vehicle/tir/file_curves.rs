//! The file's own pure-slip Magic Formula at zero camber, with every term
//! the file gives (shifts, load- and sign-dependent curvature, scaling
//! factors), as PAC2002 and MF-Tyre 5.x write it, in libm's full
//! precision: the yardstick the imported tire's curves are measured
//! against (the import's gaps). It runs at import time only, never in the
//! substep.
//!
//! With dfz = (Fz − Fz0')/Fz0', Fz0' = FNOMIN·LFZO, and x the slip plus
//! the horizontal shift SH:
//!   F = D·sin(C·atan(B·x − E·(B·x − atan(B·x)))) + SV,   B = K/(C·D)
//! longitudinal (x = κ + SHx):
//!   C = PCX1·LCX, D = (PDX1 + PDX2·dfz)·LMUX·Fz,
//!   E = (PEX1 + PEX2·dfz + PEX3·dfz²)·(1 − PEX4·sgn x)·LEX,
//!   K = Fz·(PKX1 + PKX2·dfz)·exp(PKX3·dfz)·LKX,
//!   SHx = (PHX1 + PHX2·dfz)·LHX, SVx = Fz·(PVX1 + PVX2·dfz)·LVX·LMUX;
//! lateral (x = tan α + SHy):
//!   C = PCY1·LCY, D = (PDY1 + PDY2·dfz)·LMUY·Fz,
//!   E = (PEY1 + PEY2·dfz)·(1 − PEY3·sgn x)·LEY,
//!   K = PKY1·Fz0'·sin(2·atan(Fz/(PKY2·Fz0')))·LKY,
//!   SHy = (PHY1 + PHY2·dfz)·LHY, SVy = Fz·(PVY1 + PVY2·dfz)·LVY·LMUY;
//! E is capped at 1, as the formula requires.

use std::collections::BTreeMap;

use libm::{atan, exp, sin};

/// The pure-slip coefficients the evaluator reads.
const PURE_SLIP_KEYS: [&str; 33] = [
    "PCX1", "PDX1", "PDX2", "PEX1", "PEX2", "PEX3", "PEX4", "PKX1", "PKX2", "PKX3", "PHX1", "PHX2",
    "PVX1", "PVX2", "PCY1", "PDY1", "PDY2", "PEY1", "PEY2", "PEY3", "PKY1", "PKY2", "PHY1", "PHY2",
    "PVY1", "PVY2", "LCX", "LMUX", "LEX", "LKX", "LCY", "LMUY", "LEY",
];

/// Scaling factors: a missing one is 1, not 0.
const SCALING_KEYS: [&str; 14] = [
    "LFZO", "LCX", "LMUX", "LEX", "LKX", "LHX", "LVX", "LCY", "LMUY", "LEY", "LKY", "LHY", "LVY",
    "LTR",
];

/// Which force a coefficient shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    Longitudinal,
    Lateral,
}

/// The curve of one direction at one load.
#[derive(Clone, Copy, Debug)]
struct Curve {
    b: f64,
    c: f64,
    d: f64,
    /// E for x ≥ 0 and for x < 0 (PEX4/PEY3 make it sign-dependent).
    e_positive: f64,
    e_negative: f64,
    shift_h: f64,
    shift_v: f64,
}

impl Curve {
    fn force(&self, slip: f64) -> f64 {
        let x = slip + self.shift_h;
        let e = if x >= 0.0 {
            self.e_positive
        } else {
            self.e_negative
        };
        let bx = self.b * x;
        self.d * sin(self.c * atan(bx - e * (bx - atan(bx)))) + self.shift_v
    }
}

/// A file's pure-slip coefficients, by name.
#[derive(Clone, Debug)]
pub(crate) struct FileCurves {
    coefficients: BTreeMap<&'static str, f64>,
    fnomin: f64,
}

/// The slips the curves are sampled at: κ and tan α from −1 to 1.
pub(crate) fn slip_samples() -> impl Iterator<Item = f64> {
    (-400..=400).map(|i| f64::from(i) * 0.0025)
}

impl FileCurves {
    /// Reads the coefficients with `lookup` (missing coefficients are 0,
    /// missing scaling factors 1).
    pub(crate) fn new(fnomin: f64, lookup: impl Fn(&str) -> Option<f64>) -> FileCurves {
        let mut coefficients = BTreeMap::new();
        for key in PURE_SLIP_KEYS.iter().chain(SCALING_KEYS.iter()) {
            let default = if SCALING_KEYS.contains(key) { 1.0 } else { 0.0 };
            coefficients.insert(*key, lookup(key).unwrap_or(default));
        }
        FileCurves {
            coefficients,
            fnomin,
        }
    }

    fn get(&self, key: &str) -> f64 {
        self.coefficients.get(key).copied().unwrap_or(0.0)
    }

    /// The scaled nominal load Fz0' = FNOMIN·LFZO.
    pub(crate) fn nominal_load(&self) -> f64 {
        self.fnomin * self.get("LFZO")
    }

    fn curve(&self, direction: Direction, fz: f64) -> Curve {
        let g = |k: &str| self.get(k);
        let fz0 = self.nominal_load();
        let dfz = (fz - fz0) / fz0;
        let cap = |e: f64| e.min(1.0);
        match direction {
            Direction::Longitudinal => {
                let c = g("PCX1") * g("LCX");
                let d = (g("PDX1") + g("PDX2") * dfz) * g("LMUX") * fz;
                let e = (g("PEX1") + g("PEX2") * dfz + g("PEX3") * dfz * dfz) * g("LEX");
                let k = fz * (g("PKX1") + g("PKX2") * dfz) * exp(g("PKX3") * dfz) * g("LKX");
                Curve {
                    b: k / (c * d),
                    c,
                    d,
                    e_positive: cap(e * (1.0 - g("PEX4"))),
                    e_negative: cap(e * (1.0 + g("PEX4"))),
                    shift_h: (g("PHX1") + g("PHX2") * dfz) * g("LHX"),
                    shift_v: fz * (g("PVX1") + g("PVX2") * dfz) * g("LVX") * g("LMUX"),
                }
            }
            Direction::Lateral => {
                let c = g("PCY1") * g("LCY");
                let d = (g("PDY1") + g("PDY2") * dfz) * g("LMUY") * fz;
                let e = (g("PEY1") + g("PEY2") * dfz) * g("LEY");
                let k = g("PKY1") * fz0 * sin(2.0 * atan(fz / (g("PKY2") * fz0))) * g("LKY");
                Curve {
                    b: k / (c * d),
                    c,
                    d,
                    e_positive: cap(e * (1.0 - g("PEY3"))),
                    e_negative: cap(e * (1.0 + g("PEY3"))),
                    shift_h: (g("PHY1") + g("PHY2") * dfz) * g("LHY"),
                    shift_v: fz * (g("PVY1") + g("PVY2") * dfz) * g("LVY") * g("LMUY"),
                }
            }
        }
    }

    /// The force at `slip` (κ, or tan α in the file's own sign
    /// convention) and load `fz`.
    pub(crate) fn force(&self, direction: Direction, fz: f64, slip: f64) -> f64 {
        self.curve(direction, fz).force(slip)
    }

    /// The curve's peak |D|, N.
    pub(crate) fn peak(&self, direction: Direction, fz: f64) -> f64 {
        self.curve(direction, fz).d.abs()
    }

    /// The sign of the curve's slope at zero slip (the file's axis
    /// convention: negative for lateral curves in ISO-W).
    pub(crate) fn slope_sign(&self, direction: Direction) -> f64 {
        let key = match direction {
            Direction::Longitudinal => "PKX1",
            Direction::Lateral => "PKY1",
        };
        if self.get(key) < 0.0 { -1.0 } else { 1.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_rises_with_its_stiffness_and_a_shift_moves_it() {
        let values = [
            ("PCX1", 1.6),
            ("PDX1", 1.1),
            ("PKX1", 20.0),
            ("PCY1", 1.3),
            ("PDY1", 1.0),
            ("PKY1", -18.0),
            ("PKY2", 2.0),
        ];
        let lookup = |k: &str| values.iter().find(|(n, _)| *n == k).map(|(_, v)| *v);
        let curves = FileCurves::new(4000.0, lookup);
        let h = 1e-6;
        let slope = curves.force(Direction::Longitudinal, 4000.0, h) / h;
        assert!((slope - 20.0 * 4000.0).abs() < 1e-3 * slope, "{slope}");
        let k_y = -18.0 * 4000.0 * sin(2.0 * atan(0.5));
        let slope_y = curves.force(Direction::Lateral, 4000.0, h) / h;
        assert!(
            (slope_y - k_y).abs() < 1e-3 * k_y.abs(),
            "{slope_y} vs {k_y}"
        );
        assert_eq!(curves.slope_sign(Direction::Lateral), -1.0);
        let lookup_shifted = |k: &str| if k == "PVY1" { Some(0.02) } else { lookup(k) };
        let shifted = FileCurves::new(4000.0, lookup_shifted);
        // PVY1 lifts the whole lateral curve by Fz·PVY1.
        for slip in [-0.3, 0.0, 0.05] {
            let lift = shifted.force(Direction::Lateral, 4000.0, slip)
                - curves.force(Direction::Lateral, 4000.0, slip);
            assert!((lift - 80.0).abs() < 1e-9, "{lift}");
        }
    }
}
