//! `skidpad tire`: import a Magic Formula `.tir` file and show what came
//! of it: the tire as a car definition's JSON, how close its curves come
//! to the file's own, and every key left out with what it would change.

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;
use skidpad_core::{TirImport, parse_tir};

/// Real property files are tens of kilobytes; anything past this is not a
/// tire file, and is refused before it is read into memory.
pub const MAX_TIR_BYTES: u64 = 1 << 20;

/// An imported tire file.
#[derive(Clone, Debug, Serialize)]
pub struct TireReport {
    /// The file read.
    pub file: PathBuf,
    /// The import: parameters, gaps and warnings.
    #[serde(flatten)]
    pub import: TirImport,
}

/// Reads and imports `path`.
pub fn import_tire(path: &Path) -> Result<TireReport> {
    let text = crate::files::read_text_capped(path, MAX_TIR_BYTES, "a .tir file")?;
    let import = parse_tir(&text).with_context(|| format!("cannot import {}", path.display()))?;
    Ok(TireReport {
        file: path.to_owned(),
        import,
    })
}

impl fmt::Display for TireReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.import.parameters;
        writeln!(f, "{}", self.file.display())?;
        writeln!(
            f,
            "nominal load {:.0} N; peak μx {:.3}, μy {:.3}; slip stiffness {:.1}/load, cornering stiffness {:.1}/load at nominal load",
            p.nominal_load,
            p.peak_fx(p.nominal_load) / p.nominal_load,
            p.peak_fy(p.nominal_load) / p.nominal_load,
            p.slip_stiffness(p.nominal_load) / p.nominal_load,
            p.cornering_stiffness(p.nominal_load) / p.nominal_load,
        )?;
        writeln!(
            f,
            "against the file's full pure-slip curves (largest difference, % of peak):"
        )?;
        for gap in &self.import.gaps {
            writeln!(
                f,
                "  {:.1}× nominal ({:.0} N): Fx {:.1} %, Fy {:.1} %",
                gap.load_ratio, gap.load, gap.longitudinal_percent, gap.lateral_percent
            )?;
        }
        writeln!(
            f,
            "tire (a car definition's `tires.front` or `tires.rear`):"
        )?;
        let json = serde_json::to_string_pretty(p).map_err(|_| fmt::Error)?;
        writeln!(f, "{json}")?;
        writeln!(f, "{} keys left out:", self.import.warnings.len())?;
        for warning in &self.import.warnings {
            writeln!(f, "  {warning}")?;
        }
        Ok(())
    }
}
