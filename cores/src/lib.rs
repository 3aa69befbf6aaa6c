//! Replays that outlive the core: every simulation version's core kept as
//! a wasm module (`cores/archive/`, built by `cargo xtask cores` from the
//! adapter in `cores/adapter/`), and a sandbox that runs the right one.
//!
//! A host reads the replay's simulation version with today's decoder
//! ([`simulation_version_of`]) and asks [`CoreRoute::for_version`] where it
//! goes: the current version to the native core as before, any older one
//! to [`ArchivedCores::verify`] (which keeps
//! each core compiled once it is used), or step by step: [`Archive::core`]
//! → [`Sandbox::load`] → [`LoadedCore::verify`]. A module is checked against
//! the manifest's blake3 before it is compiled, and runs with a CPU budget
//! (fuel) and a memory cap.
//!
//! ```no_run
//! use skidpad_cores::{Archive, Sandbox, SandboxBudget, declared_car_steps};
//!
//! let bytes = std::fs::read("golden/v3/flat_lap.skr")?;
//! let archive = Archive::embedded()?;
//! let header = skidpad_replay::read_replay_header(&bytes)?;
//! let core = Sandbox::new()?.load(archive.core(header.simulation_version)?)?;
//! let verdict = core.verify(&bytes, declared_car_steps(&header), SandboxBudget::default())?;
//! println!("{} desyncs, final hash {}", verdict.desyncs, verdict.final_hash);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod archive;
mod cache;
mod error;
mod route;
mod sandbox;
mod verdict;

pub use archive::{ABI_VERSION, Archive, ArchivedCore, ManifestEntry};
pub use cache::ArchivedCores;
pub use error::{CoresError, Result};
pub use route::{CoreRoute, core_label};
pub use sandbox::{ArchivedPlayback, ArchivedPose, LoadedCore, Sandbox, SandboxBudget};
pub use verdict::{ArchivedDesync, ArchivedFieldDiff, ArchivedHeader, ArchivedVerdict};

/// The work a replay's header declares: steps × cars at the start.
#[must_use]
pub fn declared_car_steps(header: &skidpad_replay::ReplayHeader) -> u64 {
    header
        .step_count
        .saturating_mul(u64::from(header.car_count))
}

/// The simulation version a replay (plain or gzip) was recorded by, read by
/// today's decoder from the header alone, whatever the version.
pub fn simulation_version_of(replay: &[u8]) -> Result<u32> {
    Ok(skidpad_replay::read_replay_header(replay)?.simulation_version)
}
