//! A `.tir` file's combined-slip coefficients (PAC2002's R* keys) as the
//! core's `CombinedSlipCoefficients`: the scaling factors folded in, the
//! file's axis system mapped to the core's, or `None` (with a warning)
//! where the file's weighting is absent or incomplete.

use super::property_file::PropertyFile;
use crate::vehicle::tire::CombinedSlipCoefficients;

/// The keys a complete weighting is read from.
pub(super) const KEYS: [&str; 22] = [
    "RBX1", "RBX2", "RCX1", "REX1", "REX2", "RHX1", "RBY1", "RBY2", "RBY3", "RCY1", "REY1", "REY2",
    "RHY1", "RHY2", "RVY1", "RVY2", "RVY4", "RVY5", "RVY6", "LXAL", "LYKA", "LVYKA",
];

/// Without a positive stiffness and shape factor in both directions a
/// weighting function is identically 1 (the file would let a tire corner
/// at full grip while braking at full grip), so these must be positive.
const REQUIRED: [&str; 4] = ["RBX1", "RCX1", "RBY1", "RCY1"];

/// The file's weighting, or `None` with a warning saying why the slips
/// combine by the similarity method. `lateral_sign` is −1 for a file in
/// W axes, whose lateral slip is the core's negated: the terms odd in it
/// (RHX1, RBY3) change sign; the forces' axes are the same.
/// `friction_sign` is PDY1's: the induced side force scales with the
/// file's signed μy, where the core's μy is its magnitude.
pub(super) fn read(
    file: &PropertyFile,
    lateral_sign: f64,
    friction_sign: f64,
    warnings: &mut Vec<String>,
) -> Option<CombinedSlipCoefficients> {
    let given = |key: &str| file.number(key).unwrap_or(0.0);
    let missing: Vec<&str> = REQUIRED
        .iter()
        .copied()
        .filter(|key| given(key) <= 0.0)
        .collect();
    if !missing.is_empty() {
        if KEYS.iter().any(|key| file.get(key).is_some()) {
            warnings.push(format!(
                "combined slip: {} not positive, so the file's weighting functions are incomplete; the slips combine by the similarity method",
                missing.join(", ")
            ));
        }
        return None;
    }
    let scale = |key: &str| file.number(key).unwrap_or(1.0);
    let coefficients = CombinedSlipCoefficients {
        rbx1: given("RBX1") * scale("LXAL"),
        rbx2: given("RBX2"),
        rcx1: given("RCX1"),
        rex1: given("REX1"),
        rex2: given("REX2"),
        rhx1: lateral_sign * given("RHX1"),
        rby1: given("RBY1") * scale("LYKA"),
        rby2: given("RBY2"),
        rby3: lateral_sign * given("RBY3"),
        rcy1: given("RCY1"),
        rey1: given("REY1"),
        rey2: given("REY2"),
        rhy1: given("RHY1"),
        rhy2: given("RHY2"),
        rvy1: friction_sign * given("RVY1") * scale("LVYKA"),
        rvy2: friction_sign * given("RVY2") * scale("LVYKA"),
        rvy4: given("RVY4"),
        rvy5: given("RVY5"),
        rvy6: given("RVY6"),
    };
    for (key, value) in [("REX1", coefficients.rex1), ("REY1", coefficients.rey1)] {
        if value > 1.0 {
            warnings.push(format!(
                "{key} = {value}: the weighting's curvature at nominal load is above 1; it is held at 1, as Magic Formula tools hold it"
            ));
        }
    }
    Some(coefficients)
}
