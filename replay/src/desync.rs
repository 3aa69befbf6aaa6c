//! Desync reports: which keyframe first diverged, and which named state
//! fields of which cars differ (recorded against re-simulated).

use skidpad_core::{CarId, snapshot_fields};

/// One state field that differs.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldDiff {
    /// Playback id of the car.
    pub car: CarId,
    /// Snapshot field name (`position.x`, `wheel_omega.rl`, `gear`, …).
    pub field: &'static str,
    /// The value in the recording.
    pub recorded: f64,
    /// The value the playback produced.
    pub simulated: f64,
}

/// A keyframe whose re-simulated state did not match the recording.
#[derive(Clone, Debug, PartialEq)]
pub struct DesyncReport {
    /// The keyframe's step.
    pub step: u64,
    /// Cars whose hash differed.
    pub cars: Vec<CarId>,
    /// Every differing field of those cars.
    pub fields: Vec<FieldDiff>,
}

/// Compares two snapshots of one car field by field: `recorded` is the
/// reference (a replay's keyframe, a server's state), `simulated` what was
/// computed here. Every field whose bits differ, in snapshot order; empty
/// when either is not a snapshot.
#[must_use]
pub fn diff_car(car: CarId, recorded: &[u8], simulated: &[u8]) -> Vec<FieldDiff> {
    let (Ok(a), Ok(b)) = (snapshot_fields(recorded), snapshot_fields(simulated)) else {
        return Vec::new();
    };
    a.into_iter()
        .zip(b)
        .filter(|((_, x), (_, y))| x.to_bits() != y.to_bits())
        .map(|((field, recorded), (_, simulated))| FieldDiff {
            car,
            field,
            recorded,
            simulated,
        })
        .collect()
}

impl std::fmt::Display for DesyncReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cars: Vec<String> = self.cars.iter().map(|c| c.to_string()).collect();
        writeln!(
            f,
            "desync at keyframe step {}: car{} {}",
            self.step,
            if cars.len() == 1 { "" } else { "s" },
            cars.join(", ")
        )?;
        for d in &self.fields {
            writeln!(
                f,
                "  car {} {}: recorded {} simulated {}",
                d.car, d.field, d.recorded, d.simulated
            )?;
        }
        Ok(())
    }
}
