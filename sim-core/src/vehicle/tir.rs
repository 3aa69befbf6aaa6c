//! `.tir` import: read Magic Formula tire data in the TeX-like property
//! file format that tire suppliers publish (PAC2002 parameter names).
//!
//! The format: `[SECTION]` headers, `KEY = VALUE` lines, comments starting
//! with `!` or `$` (whole lines or after a value), quoted strings, and a
//! `[UNITS]` section. This core works in SI units, so the units section must
//! name them (or leave them out); anything else is refused rather than
//! silently misread. Keys this core does not use are reported as warnings,
//! never errors: real files carry far more coefficients than the pure-slip
//! subset used here.

use std::collections::BTreeMap;

use crate::vehicle::tire::{
    DEFAULT_RELAXATION_X, DEFAULT_RELAXATION_Y, DEFAULT_TRAIL, TireParameters,
};
use crate::{CoreError, Result};

/// Where each used coefficient lives: (section, key).
const USED: [(&str, &str); 14] = [
    ("VERTICAL", "FNOMIN"),
    ("LONGITUDINAL_COEFFICIENTS", "PCX1"),
    ("LONGITUDINAL_COEFFICIENTS", "PDX1"),
    ("LONGITUDINAL_COEFFICIENTS", "PDX2"),
    ("LONGITUDINAL_COEFFICIENTS", "PEX1"),
    ("LONGITUDINAL_COEFFICIENTS", "PKX1"),
    ("LONGITUDINAL_COEFFICIENTS", "PKX2"),
    ("LONGITUDINAL_COEFFICIENTS", "PKX3"),
    ("LATERAL_COEFFICIENTS", "PCY1"),
    ("LATERAL_COEFFICIENTS", "PDY1"),
    ("LATERAL_COEFFICIENTS", "PDY2"),
    ("LATERAL_COEFFICIENTS", "PEY1"),
    ("LATERAL_COEFFICIENTS", "PKY1"),
    ("LATERAL_COEFFICIENTS", "PKY2"),
];

/// Units this core accepts in the `[UNITS]` section, by quantity.
const SI_UNITS: [(&str, &[&str]); 5] = [
    ("LENGTH", &["meter", "metre", "m"]),
    ("FORCE", &["newton", "n"]),
    ("ANGLE", &["radian", "radians", "rad"]),
    ("MASS", &["kg", "kilogram"]),
    ("TIME", &["second", "sec", "s"]),
];

/// A parsed `.tir` file.
#[derive(Clone, Debug, PartialEq)]
pub struct TirImport {
    /// The coefficients this core uses, validated.
    pub parameters: TireParameters,
    /// One line per key that was read but is not used, with its line.
    pub warnings: Vec<String>,
}

fn malformed(line: usize, reason: impl Into<String>) -> CoreError {
    CoreError::Parse {
        what: "tir file",
        message: format!("line {line}: {}", reason.into()),
    }
}

/// Cuts a trailing `!` or `$` comment that is not inside quotes.
fn strip_comment(s: &str) -> &str {
    let mut quoted = false;
    for (i, c) in s.char_indices() {
        match c {
            '\'' | '"' => quoted = !quoted,
            '!' | '$' if !quoted => return &s[..i],
            _ => {}
        }
    }
    s
}

/// Parses `.tir` text.
pub fn parse_tir(text: &str) -> Result<TirImport> {
    let mut section = String::new();
    let mut values: BTreeMap<(String, String), (f64, usize)> = BTreeMap::new();
    let mut warnings = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = strip_comment(raw).trim();
        if content.is_empty() {
            continue;
        }
        if let Some(rest) = content.strip_prefix('[') {
            let name = rest
                .strip_suffix(']')
                .ok_or_else(|| malformed(line, "section header without a closing ]"))?
                .trim();
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(malformed(line, format!("bad section name `{name}`")));
            }
            section = name.to_ascii_uppercase();
            continue;
        }
        let (key, value) = content.split_once('=').ok_or_else(|| {
            malformed(
                line,
                format!("expected `KEY = VALUE` or `[SECTION]`, found `{content}`"),
            )
        })?;
        let key = key.trim().to_ascii_uppercase();
        let value = value.trim();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(malformed(line, format!("bad key `{key}`")));
        }
        if value.is_empty() {
            return Err(malformed(line, format!("`{key}` has no value")));
        }
        if section.is_empty() {
            return Err(malformed(
                line,
                format!("`{key}` appears before any [SECTION]"),
            ));
        }
        let quoted = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\''));
        if section == "UNITS" {
            let unit = quoted.unwrap_or(value).trim().to_ascii_lowercase();
            match SI_UNITS.iter().find(|(q, _)| *q == key) {
                Some((_, accepted)) if accepted.contains(&unit.as_str()) => {}
                Some((quantity, accepted)) => {
                    return Err(malformed(
                        line,
                        format!(
                            "{quantity} unit `{unit}` is not supported (this core reads SI: {})",
                            accepted.join(", ")
                        ),
                    ));
                }
                None => warnings.push(format!("line {line}: unit `{key}` is not used")),
            }
            continue;
        }
        let is_used = USED.iter().any(|(s, k)| *s == section && *k == key);
        if quoted.is_some() || !is_used {
            warnings.push(format!("line {line}: [{section}] {key} is not used"));
            continue;
        }
        let number: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| {
                malformed(line, format!("`{key}` = `{value}` is not a finite number"))
            })?;
        if values
            .insert((section.clone(), key.clone()), (number, line))
            .is_some()
        {
            return Err(malformed(line, format!("[{section}] {key} is given twice")));
        }
    }
    let get = |section: &str, key: &str| {
        values
            .get(&(section.to_owned(), key.to_owned()))
            .map(|(v, _)| *v)
            .ok_or_else(|| CoreError::Parse {
                what: "tir file",
                message: format!("[{section}] {key} is missing"),
            })
    };
    let lon = "LONGITUDINAL_COEFFICIENTS";
    let lat = "LATERAL_COEFFICIENTS";
    let parameters = TireParameters {
        nominal_load: get("VERTICAL", "FNOMIN")?,
        pcx1: get(lon, "PCX1")?,
        pdx1: get(lon, "PDX1")?,
        pdx2: get(lon, "PDX2")?,
        pex1: get(lon, "PEX1")?,
        pkx1: get(lon, "PKX1")?,
        pkx2: get(lon, "PKX2")?,
        pkx3: get(lon, "PKX3")?,
        pcy1: get(lat, "PCY1")?,
        pdy1: get(lat, "PDY1")?,
        pdy2: get(lat, "PDY2")?,
        pey1: get(lat, "PEY1")?,
        pky1: get(lat, "PKY1")?,
        pky2: get(lat, "PKY2")?,
        // PAC2002's relaxation (PTX*, PTY*) and aligning-moment (Q*Z*)
        // terms are not read: the definition's defaults apply, and those
        // keys come back as warnings.
        relaxation_x: DEFAULT_RELAXATION_X,
        relaxation_y: DEFAULT_RELAXATION_Y,
        pneumatic_trail: DEFAULT_TRAIL,
    };
    parameters.validate("tir")?;
    Ok(TirImport {
        parameters,
        warnings,
    })
}
