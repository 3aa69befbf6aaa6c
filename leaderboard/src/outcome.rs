//! What verifying a run decided, as stored (JSON) and served by
//! `GET /runs/{id}`.

use serde::{Deserialize, Serialize};
use skidpad_replay::ReplayError;

use crate::laps::Lap;
use crate::plausibility::Flag;

/// The verdict on one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// The replay re-simulated bit for bit; its laps are ranked.
    Verified(Box<Verified>),
    /// The run does not count, and why.
    Rejected {
        /// Why.
        reason: Rejection,
    },
}

/// A run that re-simulated bit for bit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verified {
    /// Built-in track key (`brandwood`), as in the leaderboard URL.
    pub track: String,
    /// The car's class: the preset its definition equals.
    pub class: String,
    /// Who submitted it (the replay's `player` metadata).
    pub player: String,
    /// The ranked car's index in the replay.
    pub car: u32,
    /// Steps re-simulated.
    pub steps: u64,
    /// Simulated seconds.
    pub duration: f64,
    /// World hash after the last step, hex.
    pub final_hash: String,
    /// Every lap the re-simulated car completed, line to line.
    pub laps: Vec<Lap>,
    /// The fastest valid lap, s; what the leaderboard ranks.
    pub best_lap: Option<f64>,
    /// Patterns a moderator should look at; they do not reject the run.
    pub flags: Vec<Flag>,
    /// The public key of the race server that sealed the run, when one
    /// did (an online race's entry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed_by: Option<String>,
    /// Where the run began when it was taken over from another (ranked
    /// only on a practice board, `--boards`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taken_over: Option<skidpad_replay::TakeOverOrigin>,
    /// What the player's rewinds took back, when the run used any: such a
    /// run is verified and shown, never ranked (a board whose rules allow
    /// it keeps it unranked; the others refuse it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewinds: Option<skidpad_replay::RewindTotals>,
    /// The fastest valid lap as a ghost (`.skg` bytes), cut by the race
    /// layer from the re-simulation: stored beside the verdict, not in it.
    #[serde(skip)]
    pub best_lap_ghost: Option<Vec<u8>>,
}

impl Verified {
    /// The lap the board ranks: the best lap, unless the run is kept
    /// unranked (it used rewinds).
    #[must_use]
    pub fn ranked_lap(&self) -> Option<f64> {
        self.best_lap.filter(|_| self.rewinds.is_none())
    }
}

/// One differing snapshot field at the first desync.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DesyncField {
    /// Car index.
    pub car: u32,
    /// Snapshot field name.
    pub field: String,
    /// The value the replay recorded.
    pub recorded: f64,
    /// The value re-simulation produced.
    pub simulated: f64,
}

/// Why a run was rejected. Every variant carries a sentence for people.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Rejection {
    /// Recorded by a core with other simulation bits. (Stored and served
    /// as `version_mismatch`, the name it had when runs were first stored.)
    #[serde(rename = "version_mismatch")]
    SimulationVersion {
        /// The replay's simulation version.
        replay: u32,
        /// This server's simulation version.
        server: u32,
        /// In words.
        message: String,
    },
    /// Re-simulation did not reproduce the recorded states.
    Desync {
        /// Step of the first mismatching keyframe.
        step: u64,
        /// Mismatching keyframes in all.
        desyncs: u64,
        /// Cars that differed at the first one.
        cars: Vec<u32>,
        /// Their differing fields.
        fields: Vec<DesyncField>,
        /// In words.
        message: String,
    },
    /// The replay declares more work than the server's budgets allow.
    BudgetExceeded {
        /// Which budget (`steps`, `cars`, `car-substeps`, …).
        limit: String,
        /// What the replay declares.
        value: u64,
        /// The budget.
        max: u64,
        /// In words.
        message: String,
    },
    /// The bytes are not a readable replay.
    Malformed {
        /// In words.
        message: String,
    },
    /// The run breaks the leaderboard's rules (unknown track or class,
    /// world settings other than the defaults, a flying start).
    Rules {
        /// In words.
        message: String,
    },
    /// Workers died on this job again and again (a crash or a kill each
    /// time); it is not tried forever.
    WorkerFailures {
        /// Claims made.
        attempts: u64,
        /// In words.
        message: String,
    },
}

impl Rejection {
    /// A broken rule.
    pub(crate) fn rules(message: impl Into<String>) -> Self {
        Rejection::Rules {
            message: message.into(),
        }
    }
}

impl From<ReplayError> for Rejection {
    fn from(e: ReplayError) -> Self {
        let message = e.to_string();
        match e {
            ReplayError::SimulationVersion { replay, core } => Rejection::SimulationVersion {
                replay,
                server: core,
                message,
            },
            ReplayError::LimitExceeded { limit, value, max } => Rejection::BudgetExceeded {
                limit: limit.to_string(),
                value,
                max,
                message,
            },
            _ => Rejection::Malformed { message },
        }
    }
}

impl Outcome {
    /// `verified`, or the rejection's `kind` as the API shows it: the
    /// verdict label of the metrics.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Verified(_) => "verified",
            Outcome::Rejected { reason } => match reason {
                Rejection::SimulationVersion { .. } => "version_mismatch",
                Rejection::Desync { .. } => "desync",
                Rejection::BudgetExceeded { .. } => "budget_exceeded",
                Rejection::Malformed { .. } => "malformed",
                Rejection::Rules { .. } => "rules",
                Rejection::WorkerFailures { .. } => "worker_failures",
            },
        }
    }

    /// `verified` or `rejected`.
    #[must_use]
    pub fn status(&self) -> &'static str {
        match self {
            Outcome::Verified(_) => "verified",
            Outcome::Rejected { .. } => "rejected",
        }
    }
}
