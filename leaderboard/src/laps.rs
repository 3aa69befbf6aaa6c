//! Laps as the leaderboard stores and serves them: the race layer's laps
//! (`skidpad_core::race`, timed from the re-simulated car's path, never
//! from the replay's claims) in a stable JSON form.

use serde::{Deserialize, Serialize};
use skidpad_core::race::{self, LapStart};

/// One completed lap.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lap {
    /// 1 for the first lap.
    pub lap: u32,
    /// Lap time, s, line to line (lap 1 of a car that started on the
    /// grid: from the start).
    pub time: f64,
    /// True for lap 1 run from a standing start on the grid.
    #[serde(default)]
    pub standing: bool,
    /// True when every checkpoint was passed in order within track limits.
    pub valid: bool,
    /// Why the lap does not count (empty when valid).
    pub invalid_reasons: Vec<String>,
    /// Each sector's time, s, on the track's sectors (empty when the car
    /// missed a boundary, and in verdicts stored before sectors were
    /// timed).
    #[serde(default)]
    pub sectors: Vec<f64>,
}

impl From<&race::Lap> for Lap {
    fn from(lap: &race::Lap) -> Self {
        Lap {
            lap: lap.number,
            time: lap.time(),
            standing: lap.kind == LapStart::Standing,
            valid: lap.is_valid(),
            invalid_reasons: lap.faults.iter().map(ToString::to_string).collect(),
            sectors: lap.sectors.clone(),
        }
    }
}
