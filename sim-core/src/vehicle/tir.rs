//! `.tir` import: read Magic Formula tire data in the property-file format
//! that tire suppliers and tools publish (PAC2002 and MF-Tyre 5.x).
//!
//! What import does with a real file:
//! - the coefficients this core's tire uses are read and the file's
//!   scaling factors folded into them (FNOMIN·LFZO is the nominal load,
//!   LMUX and LMUY scale the friction, LKX and LKY the slip stiffnesses,
//!   LCX/LCY the shape and LEX/LEY the curvature factors, LHX/LHY the
//!   horizontal shifts and LVX·LMUX and LVY·LMUY the vertical ones): every
//!   pure-slip term at zero camber, and the combined-slip weighting (R*,
//!   with LXAL, LYKA and LVYKA) where the file gives it complete;
//! - signs are mapped to this core's convention: real files are written in
//!   TYDEX/ISO-W axes, where a positive slip angle gives a negative
//!   lateral force (PKY1 < 0; MF 5.0 files may also give PDY1 < 0). The
//!   friction polynomial is read by magnitude and PKY1's sign tells the
//!   convention: where it is negative, the lateral curve is read at −tan α,
//!   which changes the sign of the horizontal shift and of PEY3;
//! - the side-dependent lateral terms (PHY*, PVY*, PEY3) are for the side
//!   `TYRESIDE` names; the core's definition holds the left-mounted tire
//!   (and mirrors it on the right wheels), so a right-mounted file is
//!   mirrored on import and a file that names no side is read as left;
//! - relaxation lengths and the pneumatic trail are read at nominal load
//!   (PTX1·R0, PTY1·sin(2·atan(1/PTY2))·R0·LFZO, QDZ1·R0·LTR) when the file
//!   gives them, else the definition's defaults apply;
//! - every other key comes back as a warning saying what it does, and the
//!   imported curves are measured against the file's own full curves;
//! - tables (the `[SHAPE]` tread profile) are counted and skipped.
//!
//! Anything else — units that are not SI, a format this importer does not
//! know, a missing coefficient, a value outside the core's validated
//! ranges — is an error naming the line or the key.

mod combined_slip;
mod file_curves;
mod property_file;
mod unmodelled;

use serde::Serialize;

use self::file_curves::{Direction, FileCurves};
use self::property_file::{PropertyFile, Value};
use crate::vehicle::tire::{
    DEFAULT_RELAXATION_X, DEFAULT_RELAXATION_Y, DEFAULT_TRAIL, TireParameters,
};
use crate::{CoreError, Result};

/// Property-file formats whose pure-slip coefficients mean what this
/// importer assumes. MF-Tyre 6.x (FITTYP 61/62) changes the cornering
/// stiffness (PKY4–PKY7) and friction (pressure) formulas and is refused.
const FORMATS: [&str; 3] = ["PAC2002", "MF_05", "MF_052"];

/// The keys the imported tire is built from; every other key is a warning.
const FOLDED: [&str; 42] = [
    "FNOMIN",
    "LFZO",
    "PCX1",
    "LCX",
    "PDX1",
    "PDX2",
    "LMUX",
    "PEX1",
    "PEX2",
    "PEX3",
    "PEX4",
    "LEX",
    "PHX1",
    "PHX2",
    "LHX",
    "PVX1",
    "PVX2",
    "LVX",
    "PKX1",
    "PKX2",
    "PKX3",
    "LKX",
    "PCY1",
    "LCY",
    "PDY1",
    "PDY2",
    "LMUY",
    "PEY1",
    "PEY2",
    "PEY3",
    "LEY",
    "PHY1",
    "PHY2",
    "LHY",
    "PVY1",
    "PVY2",
    "LVY",
    "PKY1",
    "PKY2",
    "LKY",
    "UNLOADED_RADIUS",
    "PROPERTY_FILE_FORMAT",
];

/// Read when present, with their own defaults.
const FOLDED_IF_PRESENT: [&str; 8] = [
    "PTX1", "LSGKP", "PTY1", "PTY2", "LSGAL", "QDZ1", "LTR", "TYRESIDE",
];

/// How close the imported tire's pure-slip curves come to the file's full
/// curves (every pure-slip term the file gives, zero camber) at one load.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CurveGap {
    /// The load, N.
    pub load: f64,
    /// The load over the scaled nominal load FNOMIN·LFZO.
    pub load_ratio: f64,
    /// Largest |Fx difference| over κ in [−1, 1], % of the file's peak.
    pub longitudinal_percent: f64,
    /// Largest |Fy difference| over tan α in [−1, 1], % of the file's peak.
    pub lateral_percent: f64,
}

/// The keys an import builds the tire from (the rest come back as
/// warnings), besides the `[UNITS]` section, which is checked.
pub fn tir_keys_read() -> impl Iterator<Item = &'static str> {
    FOLDED
        .iter()
        .chain(FOLDED_IF_PRESENT.iter())
        .chain(combined_slip::KEYS.iter())
        .copied()
}

/// A parsed `.tir` file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TirImport {
    /// The coefficients this core uses, with the file's scaling folded in,
    /// validated.
    pub parameters: TireParameters,
    /// One line per key that was read but not used, with its line and what
    /// it would change.
    pub warnings: Vec<String>,
    /// The imported curves against the file's full pure-slip curves at
    /// half, once and one and a half times the nominal load.
    pub gaps: Vec<CurveGap>,
}

fn missing(key: &str) -> CoreError {
    CoreError::Parse {
        what: "tir file",
        message: format!("{key} is missing"),
    }
}

fn required(file: &PropertyFile, key: &str) -> Result<f64> {
    match file.get(key) {
        None => Err(missing(key)),
        Some(entry) => match entry.value {
            Value::Number(v) => Ok(v),
            Value::Text(ref t) => Err(property_file::malformed(
                entry.line,
                format!("`{key}` = `{t}` is not a finite number"),
            )),
        },
    }
}

fn scaling(file: &PropertyFile, key: &str) -> f64 {
    file.number(key).unwrap_or(1.0)
}

/// Refuses formats whose coefficients mean something else.
fn check_format(file: &PropertyFile, warnings: &mut Vec<String>) -> Result<()> {
    if let Some(fit) = file.number("FITTYP")
        && fit >= 60.0
    {
        return Err(CoreError::Parse {
            what: "tir file",
            message: format!(
                "FITTYP {fit} is MF-Tyre 6.x, which this importer does not read (PAC2002 and MF-Tyre 5.x only)"
            ),
        });
    }
    match file.text("PROPERTY_FILE_FORMAT") {
        Some(format) if FORMATS.contains(&format.as_str()) => Ok(()),
        Some(format) => Err(CoreError::Parse {
            what: "tir file",
            message: format!(
                "PROPERTY_FILE_FORMAT `{format}` is not read: this importer reads {}",
                FORMATS.join(", ")
            ),
        }),
        None => {
            warnings.push("PROPERTY_FILE_FORMAT is not given: read as PAC2002".to_owned());
            Ok(())
        }
    }
}

/// A friction polynomial (PD?1 + PD?2·dfz)·L read by magnitude: a file in
/// W-axis form may write it negative, and the curve's size is |D|.
fn friction_magnitude(first: f64, second: f64, scale: f64) -> (f64, f64) {
    let sign = if first < 0.0 { -1.0 } else { 1.0 };
    (sign * first * scale, sign * second * scale)
}

/// The relaxation lengths and trail at nominal load, where the file gives
/// them (PAC2002: σκ = Fz·(PTX1 + …)·R0/Fz0'·LSGKP, σα =
/// PTY1·sin(2·atan(Fz/(PTY2·Fz0')))·R0·LFZO·LSGAL, t = Fz·(QDZ1 + …)·R0/Fz0'·LTR).
fn nominal_lengths(file: &PropertyFile, radius: f64) -> (f64, f64, f64) {
    let positive = |key: &str| file.number(key).filter(|v| *v > 0.0);
    let relaxation_x = positive("PTX1").map_or(DEFAULT_RELAXATION_X, |ptx1| {
        ptx1 * radius * scaling(file, "LSGKP")
    });
    let relaxation_y = match (positive("PTY1"), positive("PTY2")) {
        (Some(pty1), Some(pty2)) => {
            pty1 * libm::sin(2.0 * libm::atan(1.0 / pty2))
                * radius
                * scaling(file, "LFZO")
                * scaling(file, "LSGAL")
        }
        _ => DEFAULT_RELAXATION_Y,
    };
    let trail = file.number("QDZ1").map_or(DEFAULT_TRAIL, |qdz1| {
        qdz1.abs() * radius * scaling(file, "LTR")
    });
    (relaxation_x, relaxation_y, trail)
}

/// The side of the car a file's tire is mounted on (`TYRESIDE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Left,
    Right,
}

/// Reads `TYRESIDE`: `LEFT` or `RIGHT`; anything else (the truck file's
/// `UNKNOWN`, or no key) is read as left, with a warning.
fn tire_side(file: &PropertyFile, warnings: &mut Vec<String>) -> Side {
    let side = file.text("TYRESIDE");
    match side.as_deref().map(str::to_ascii_uppercase).as_deref() {
        Some("LEFT") => Side::Left,
        Some("RIGHT") => Side::Right,
        _ => {
            let given = side.map_or_else(|| "not given".to_owned(), |s| format!("'{s}'"));
            warnings.push(format!(
                "TYRESIDE is {given}: the side-dependent lateral terms (PHY*, PVY*, PEY3) are read as a left-mounted tire's"
            ));
            Side::Left
        }
    }
}

/// The file's tire as the core's definition holds it: mounted on the left.
fn fold(file: &PropertyFile, side: Side, warnings: &mut Vec<String>) -> Result<TireParameters> {
    let get = |key: &str| required(file, key);
    // Terms a file may leave out are 0 when it does, as in PAC2002.
    let optional = |key: &str| file.number(key).unwrap_or(0.0);
    // The vertical shifts are Fz·(PVX1 + PVX2·dfz)·LVX·LMUX and
    // Fz·(PVY1 + PVY2·dfz)·LVY·LMUY: the friction's scale applies too.
    let vertical_x = scaling(file, "LVX") * scaling(file, "LMUX");
    let vertical_y = scaling(file, "LVY") * scaling(file, "LMUY");
    // In W axes (PKY1 < 0) the core's lateral slip is the file's negated:
    // the curve is read at −tan α, which turns the horizontal shift and
    // the side of the curvature's asymmetry around; the force's axis is
    // the same.
    let lateral_sign = if get("PKY1")? < 0.0 { -1.0 } else { 1.0 };
    let horizontal_y = lateral_sign * scaling(file, "LHY");
    let radius = file.number("UNLOADED_RADIUS").unwrap_or(0.0);
    let (pdx1, pdx2) = friction_magnitude(get("PDX1")?, get("PDX2")?, scaling(file, "LMUX"));
    let (pdy1, pdy2) = friction_magnitude(get("PDY1")?, get("PDY2")?, scaling(file, "LMUY"));
    let (relaxation_x, relaxation_y, pneumatic_trail) = if radius > 0.0 {
        nominal_lengths(file, radius)
    } else {
        (DEFAULT_RELAXATION_X, DEFAULT_RELAXATION_Y, DEFAULT_TRAIL)
    };
    let parameters = TireParameters {
        nominal_load: get("FNOMIN")? * scaling(file, "LFZO"),
        pcx1: get("PCX1")? * scaling(file, "LCX"),
        pdx1,
        pdx2,
        pex1: get("PEX1")? * scaling(file, "LEX"),
        pex2: optional("PEX2") * scaling(file, "LEX"),
        pex3: optional("PEX3") * scaling(file, "LEX"),
        pex4: optional("PEX4"),
        phx1: optional("PHX1") * scaling(file, "LHX"),
        phx2: optional("PHX2") * scaling(file, "LHX"),
        pvx1: optional("PVX1") * vertical_x,
        pvx2: optional("PVX2") * vertical_x,
        pkx1: get("PKX1")? * scaling(file, "LKX"),
        pkx2: get("PKX2")? * scaling(file, "LKX"),
        pkx3: get("PKX3")?,
        pcy1: get("PCY1")? * scaling(file, "LCY"),
        pdy1,
        pdy2,
        pey1: get("PEY1")? * scaling(file, "LEY"),
        pey2: optional("PEY2") * scaling(file, "LEY"),
        pey3: lateral_sign * optional("PEY3"),
        phy1: optional("PHY1") * horizontal_y,
        phy2: optional("PHY2") * horizontal_y,
        pvy1: optional("PVY1") * vertical_y,
        pvy2: optional("PVY2") * vertical_y,
        pky1: get("PKY1")?.abs() * scaling(file, "LKY"),
        pky2: get("PKY2")?,
        relaxation_x,
        relaxation_y,
        pneumatic_trail,
        combined_slip: combined_slip::read(file, lateral_sign, get("PDY1")?.signum(), warnings),
    };
    parameters.validate("tir")?;
    Ok(match side {
        Side::Left => parameters,
        Side::Right => parameters.mirrored(),
    })
}

/// The load ratios the gaps and effects are measured at.
const LOAD_RATIOS: [f64; 3] = [0.5, 1.0, 1.5];

/// The imported curves against the file's full ones, at each load ratio.
fn measure_gaps(parameters: &TireParameters, curves: &FileCurves) -> Vec<CurveGap> {
    let (sign_x, sign_y) = (
        curves.slope_sign(Direction::Longitudinal),
        curves.slope_sign(Direction::Lateral),
    );
    LOAD_RATIOS
        .iter()
        .map(|&ratio| {
            let fz = ratio * curves.nominal_load();
            let tire = parameters.at_load(fz);
            let gap = |direction: Direction, sign: f64, ours: &dyn Fn(f64) -> f64| {
                let worst = file_curves::slip_samples()
                    .map(|s| (ours(s) - curves.force(direction, fz, sign * s)).abs())
                    .fold(0.0, f64::max);
                100.0 * worst / curves.peak(direction, fz)
            };
            CurveGap {
                load: fz,
                load_ratio: ratio,
                longitudinal_percent: gap(Direction::Longitudinal, sign_x, &|s| {
                    tire.longitudinal(s).0
                }),
                lateral_percent: gap(Direction::Lateral, sign_y, &|s| tire.lateral(s)),
            }
        })
        .collect()
}

fn describe_value(value: &Value) -> String {
    match value {
        Value::Number(v) => format!("{v}"),
        Value::Text(t) => format!("'{t}'"),
    }
}

/// When a length the core uses is given but unusable (zero, or without
/// the radius it is relative to), what applies instead.
fn default_taken(file: &PropertyFile, key: &str) -> Option<String> {
    let given = file.number(key).is_some_and(|v| v > 0.0);
    let radius = file.number("UNLOADED_RADIUS").is_some_and(|v| v > 0.0);
    let default = match key {
        "PTX1" => DEFAULT_RELAXATION_X,
        "PTY1" => DEFAULT_RELAXATION_Y,
        "QDZ1" if !radius => DEFAULT_TRAIL,
        _ => return None,
    };
    if given && radius {
        return None;
    }
    Some(format!(
        "gives no usable length (it needs a positive value and UNLOADED_RADIUS); the default {default} m applies"
    ))
}

/// A warning for every key the import did not fold in; `combined` says
/// whether the combined-slip weighting was.
fn warn_unused(file: &PropertyFile, combined: bool, warnings: &mut Vec<String>) {
    for (key, default) in [
        ("PTX1", DEFAULT_RELAXATION_X),
        ("PTY1", DEFAULT_RELAXATION_Y),
        ("QDZ1", DEFAULT_TRAIL),
    ] {
        if file.get(key).is_none() {
            warnings.push(format!(
                "{key} is not given: the default {default} m applies"
            ));
        }
    }
    if let (Some(ip), Some(nominal)) = (file.number("IP"), file.number("IP_NOM"))
        && ip != nominal
    {
        warnings.push(format!(
            "IP {ip} Pa is not IP_NOM {nominal} Pa: the file's pressure terms (PPX*, PPY*, QPZ*) would change the forces, and this core does not model them"
        ));
    }
    for table in &file.tables {
        let name = if table.columns.is_empty() {
            "table".to_owned()
        } else {
            format!("table {{{}}}", table.columns)
        };
        let why = if table.section == "SHAPE" {
            "the tread profile for 3D contact; this core's tire touches the ground at a point"
        } else {
            "not used"
        };
        warnings.push(format!(
            "line {}: [{}] {name} ({} rows): {why}",
            table.line, table.section, table.rows
        ));
    }
    for entry in &file.entries {
        let key = entry.key.as_str();
        let first = file.get(key).is_some_and(|e| e.line == entry.line);
        let folded = FOLDED.contains(&key)
            || FOLDED_IF_PRESENT.contains(&key)
            || (combined && combined_slip::KEYS.contains(&key));
        if let Some(default) = default_taken(file, key) {
            warnings.push(format!(
                "line {}: [{}] {key} = {}: {default}",
                entry.line,
                entry.section,
                describe_value(&entry.value)
            ));
            continue;
        }
        if entry.section == "UNITS" || (folded && first) {
            continue;
        }
        let what = if !first {
            let line = file.get(key).map_or(0, |e| e.line);
            format!("repeats {key} from line {line}; only the first is read")
        } else if key == "USE_MODE" {
            "this core's tire always gives Fx and Fy combined".to_owned()
        } else {
            unmodelled::explain(&entry.section, key).to_owned()
        };
        warnings.push(format!(
            "line {}: [{}] {key} = {}: {what}",
            entry.line,
            entry.section,
            describe_value(&entry.value)
        ));
    }
}

/// Parses `.tir` text.
pub fn parse_tir(text: &str) -> Result<TirImport> {
    let file = property_file::parse(text)?;
    let mut warnings = Vec::new();
    check_format(&file, &mut warnings)?;
    let side = tire_side(&file, &mut warnings);
    let parameters = fold(&file, side, &mut warnings)?;
    let curves = FileCurves::new(required(&file, "FNOMIN")?, |key| file.number(key));
    warn_unused(&file, parameters.combined_slip.is_some(), &mut warnings);
    // The file's curves are its tire's on its own side.
    let as_in_file = match side {
        Side::Left => parameters.clone(),
        Side::Right => parameters.mirrored(),
    };
    let gaps = measure_gaps(&as_in_file, &curves);
    Ok(TirImport {
        parameters,
        warnings,
        gaps,
    })
}
