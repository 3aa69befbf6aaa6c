//! Re-verifying a stored run on demand (`POST /runs/{id}/reverify`): the
//! replay is re-simulated again, by the native core when it was recorded
//! with the current simulation version and by that version's archived core
//! (`skidpad-cores`) when it is older, and the result is compared with the
//! verdict stored when the run was first judged. A run verified under an
//! old core keeps its rank; this is how an operator shows it still holds.

use serde::Serialize;
use skidpad_core::{SIMULATION_VERSION, hex};
use skidpad_cores::{ArchivedCores, SandboxBudget, core_label};
use skidpad_replay::{
    Limits, NoHooks, decode_replay_with, read_replay_header, verify_replay, verify_replay_on,
};

use crate::boards::{Boards, registered_ground};
use crate::outcome::{Outcome, Rejection};

/// What a re-verification found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reverification {
    /// The replay's simulation version.
    pub simulation_version: u32,
    /// The core that re-simulated it: `simulation version 9 (native)` or
    /// `simulation version 3 (archived)`.
    pub core: String,
    /// Steps re-simulated.
    pub steps: u64,
    /// Keyframes that did not match.
    pub desyncs: u64,
    /// World hash after the last step, hex.
    pub final_hash: String,
    /// The final hash the stored verdict holds, for a verified run.
    pub stored_final_hash: Option<String>,
    /// Whether this re-simulation agrees with the stored verdict: a
    /// verified run again has no desync and the same final hash; a run
    /// rejected for a desync desyncs again. `None` when the stored verdict
    /// says nothing to compare (pending, or rejected by a rule).
    pub agrees: Option<bool>,
}

/// Re-simulates `bytes` within `limits` and compares with `stored`.
pub fn reverify(
    bytes: &[u8],
    stored: Option<&Outcome>,
    limits: &Limits,
    cores: &ArchivedCores,
    boards: Option<&Boards>,
) -> Result<Reverification, String> {
    let header = read_replay_header(bytes).map_err(|e| e.to_string())?;
    let version = header.simulation_version;
    let (core, steps, desyncs, final_hash) = if version == SIMULATION_VERSION {
        let replay = decode_replay_with(bytes, limits).map_err(|e| e.to_string())?;
        // The judge's hooks only observe; without them the bits are the same.
        let report = match registered_ground(boards, &replay.header) {
            Some(ground) => verify_replay_on(&replay, ground, NoHooks, limits),
            None => verify_replay(&replay, NoHooks, limits),
        }
        .map_err(|e| e.to_string())?;
        (
            core_label(version),
            report.steps,
            report.desyncs,
            hex(&report.final_hash),
        )
    } else {
        let verdict = cores
            .verify(bytes, SandboxBudget::from_limits(limits))
            .map_err(|e| e.to_string())?;
        (
            core_label(version),
            verdict.steps_simulated,
            verdict.desyncs,
            verdict.final_hash,
        )
    };
    let stored_final_hash = match stored {
        Some(Outcome::Verified(v)) => Some(v.final_hash.clone()),
        _ => None,
    };
    let agrees = match stored {
        Some(Outcome::Verified(v)) => Some(desyncs == 0 && v.final_hash == final_hash),
        Some(Outcome::Rejected {
            reason: Rejection::Desync { .. },
        }) => Some(desyncs > 0),
        _ => None,
    };
    Ok(Reverification {
        simulation_version: version,
        core,
        steps,
        desyncs,
        final_hash,
        stored_final_hash,
        agrees,
    })
}
