//! The archive of old cores as the commands use it: a replay recorded by an
//! older simulation version is verified and inspected by that version's
//! archived core, run in a sandbox (`skidpad-cores`); the current version
//! stays with the native core.

use std::sync::OnceLock;

use anyhow::{Result, anyhow};
use skidpad_core::SIMULATION_VERSION;
use skidpad_cores::ArchivedCores;
use skidpad_replay::read_replay_header;

/// The archive built into this binary, its sandbox and the cores compiled
/// so far, shared by every file a command handles.
pub fn cores() -> Result<&'static ArchivedCores> {
    static CORES: OnceLock<std::result::Result<ArchivedCores, String>> = OnceLock::new();
    CORES
        .get_or_init(|| ArchivedCores::embedded().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| anyhow!("the archive of old cores: {e}"))
}

/// The simulation version of a replay the native core does not simulate,
/// read from its header (which every version lays out alike); `None` for
/// the current version or a header today's decoder cannot read (the native
/// path then reports the damage).
#[must_use]
pub fn other_version(replay: &[u8]) -> Option<u32> {
    read_replay_header(replay)
        .ok()
        .map(|h| h.simulation_version)
        .filter(|&v| v != SIMULATION_VERSION)
}

/// How a verdict names the core that made it (the archive's words).
pub use skidpad_cores::core_label;
