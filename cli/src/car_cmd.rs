//! `skidpad car`: a game's own car from its file, a definition's JSON or a
//! car package whose tires name `.tir` files beside it: its fingerprint
//! (what replays and leaderboard classes compare), what its tires came
//! from, and the car written out in full.

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use serde::Serialize;
use skidpad_core::{CarDefinition, CoreError, MAX_TRACK_FILE_BYTES, hex};

use crate::tire_import::MAX_TIR_BYTES;

/// A car file read.
#[derive(Clone, Debug, Serialize)]
pub struct CarReport {
    /// The file read.
    pub file: PathBuf,
    /// The car's name.
    pub name: String,
    /// blake3 of the written-out definition, hex.
    pub fingerprint: String,
    /// Mass, kg.
    pub mass: f64,
    /// Where each axle's tire came from: a `.tir` file's name, or `None`
    /// when the definition writes it out.
    pub tire_files: [Option<String>; 2],
    /// Peak lateral friction of each axle's tire at its nominal load.
    pub peak_mu_y: [f64; 2],
}

/// Reads a car file (a definition's JSON or a car package), its `.tir`
/// files from its folder, each bounded in size; returns the car and the
/// files read, in the order the axles named them.
pub fn read_car(path: &Path) -> Result<(CarDefinition, Vec<String>)> {
    let text = crate::files::read_text_capped(path, MAX_TRACK_FILE_BYTES as u64, "a car file")?;
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut files = Vec::new();
    let mut read_tir = |name: &str| {
        files.push(name.to_owned());
        crate::files::read_text_capped(&folder.join(name), MAX_TIR_BYTES, "a .tir file").map_err(
            |e| CoreError::InvalidArgument {
                what: "tir file",
                reason: format!("{e:#}"),
            },
        )
    };
    let car = CarDefinition::from_package_json(&text, &mut read_tir)
        .with_context(|| format!("cannot read {} as a car", path.display()))?;
    Ok((car, files))
}

/// `skidpad car FILE [-o OUT]`: the report, and the car written out in
/// full to `output` (atomically) when given.
pub fn check(path: &Path, output: Option<&Path>) -> Result<CarReport> {
    let text = crate::files::read_text_capped(path, MAX_TRACK_FILE_BYTES as u64, "a car file")?;
    let named: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let (car, _) = read_car(path)?;
    let tire_file = |axle: &str| named["tires"][axle]["tir"].as_str().map(str::to_owned);
    if let Some(output) = output {
        crate::atomic::write_atomic(output, (car.to_json() + "\n").as_bytes())?;
    }
    let peak = |t: &skidpad_core::TireParameters| t.peak_fy(t.nominal_load) / t.nominal_load;
    Ok(CarReport {
        file: path.to_owned(),
        name: car.name.clone(),
        fingerprint: hex(&car.fingerprint()),
        mass: car.chassis.mass,
        tire_files: [tire_file("front"), tire_file("rear")],
        peak_mu_y: [peak(&car.tires.front), peak(&car.tires.rear)],
    })
}

impl fmt::Display for CarReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "car          {}", self.name)?;
        writeln!(f, "fingerprint  {}", self.fingerprint)?;
        writeln!(f, "mass         {:.0} kg", self.mass)?;
        for (axle, (file, mu)) in ["front", "rear"]
            .iter()
            .zip(self.tire_files.iter().zip(self.peak_mu_y))
        {
            let from = file
                .as_deref()
                .map_or_else(|| "written out".to_owned(), |f| format!("from {f}"));
            writeln!(f, "tires {axle:<6} {from}, peak μy {mu:.3} at nominal load")?;
        }
        Ok(())
    }
}
