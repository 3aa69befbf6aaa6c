//! What each key of a `.tir` file that the core does not use would have
//! done: the text of its warning, by family. Pure-slip terms get a measured
//! effect on top (see `file_curves`); the families here say why the rest
//! cannot be measured against this core's model.

/// Camber terms of the force and trail curves (PAC2002 names). This core's
/// tire has no camber input, so at the zero camber it assumes they change
/// nothing; a cambered wheel would feel them.
const CAMBER_TERMS: [&str; 18] = [
    "PDX3", "PDY3", "PEY4", "PKY3", "PHY3", "PVY3", "PVY4", "QBZ4", "QBZ5", "QDZ3", "QDZ4", "QDZ8",
    "QDZ9", "QEZ5", "QHZ3", "QHZ4", "LGAX", "RVY3",
];

/// Keys that are scaling factors of terms this core leaves out.
const UNMODELLED_SCALING: [&str; 18] = [
    "LGAY", "LGAZ", "LRES", "LXAL", "LYKA", "LVYKA", "LS", "LGYR", "LMX", "LVMX", "LMY", "LIP",
    "LKG", "LCZ", "LKZC", "LKYC", "LMUV", "LMP",
];

/// The explanation for a key this core does not model, by its family.
pub(crate) fn explain(section: &str, key: &str) -> &'static str {
    if CAMBER_TERMS.contains(&key) {
        return "a camber term; this core's tire has no camber input, so at zero camber it changes nothing";
    }
    if UNMODELLED_SCALING.contains(&key) {
        return "scales a term this core does not model";
    }
    let family = |prefix: &str| {
        key.starts_with(prefix) && key[prefix.len()..].chars().all(|c| c.is_ascii_digit())
    };
    if family("PTX") || family("PTY") {
        return "relaxation length's load dependence or low-speed damping; the core reads the relaxation lengths at nominal load only";
    }
    if family("QBZ") || family("QCZ") || family("QDZ") || family("QEZ") || family("QHZ") {
        return "aligning moment: the core's trail is QDZ1·R0 at nominal load, falling linearly to zero at twice the peak slip angle; the trail's curve and the residual torque are not modelled";
    }
    if family("SSZ") {
        return "the lateral offset of Fx in the aligning moment, not modelled";
    }
    if family("QTZ") || key == "MBELT" {
        return "gyroscopic moment of the belt, not modelled";
    }
    if family("QSX") {
        return "overturning moment Mx, not modelled";
    }
    if family("QSY") {
        return "rolling resistance moment My, not modelled (the surface's rolling resistance applies)";
    }
    if key.starts_with('R') && key.len() == 4 && family(&key[..3]) {
        return "combined slip: read only with a complete weighting (see the combined-slip warning); this file's slips combine by the similarity method";
    }
    if family("PPX") || family("PPY") || family("QPX") || family("QPZ") || family("PPZ") {
        return "inflation-pressure term, not modelled (it changes nothing while IP equals IP_NOM)";
    }
    match section {
        "MDI_HEADER" | "MODEL" | "TIRE_CONDITIONS" => "file information, not used",
        "DIMENSION" => {
            "a dimension the core takes from the car definition instead (wheel radius and width)"
        }
        "VERTICAL" => {
            "vertical tire property, not modelled (the car's suspension carries the wheel)"
        }
        "LONG_SLIP_RANGE"
        | "SLIP_ANGLE_RANGE"
        | "INCLINATION_ANGLE_RANGE"
        | "VERTICAL_FORCE_RANGE" => {
            "the file's range of validity; the core evaluates the curves beyond it"
        }
        _ => "not used",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_are_recognised_by_name() {
        assert!(explain("LATERAL_COEFFICIENTS", "RBY1").contains("combined"));
        assert!(explain("ALIGNING_COEFFICIENTS", "QDZ6").contains("aligning"));
        assert!(explain("ALIGNING_COEFFICIENTS", "QDZ3").contains("camber"));
        assert!(explain("LONGITUDINAL_COEFFICIENTS", "PTX2").contains("relaxation"));
        assert!(explain("VERTICAL_FORCE_RANGE", "FZMAX").contains("validity"));
        assert_eq!(explain("X", "RXYZ1"), "not used");
    }
}
