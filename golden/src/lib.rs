//! skidpad-golden: the golden corpus (SPEC §8).
//!
//! `golden/v<SIMULATION_VERSION>/` holds replays and ghosts recorded by
//! the core from the fixed [`Scenario`]s, and `HASHES`, the world hash at
//! every keyframe and at the end. [`check_all`] plays every file of the
//! current corpus back (the golden tests call it natively, in debug and
//! release, and under wasm) and requires zero desyncs and the pinned
//! hashes; natively, `check_older_refused` reads the older corpora from
//! disk, which this core must refuse with the version error. `cargo xtask golden`
//! writes a new version's files, and only after a `SIMULATION_VERSION` bump
//! (see `golden/README.md`).

// Public items are part of the test contract; each must say what it is.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod check;
#[cfg(not(target_arch = "wasm32"))]
pub mod corpus;
pub mod hashes;
mod jeep;
mod scenarios;
mod tripped;

/// The newest corpus's files, embedded at build time (see `build.rs`).
pub mod files {
    include!(concat!(env!("OUT_DIR"), "/golden_files.rs"));
}

#[cfg(not(target_arch = "wasm32"))]
pub use check::check_older_refused;
pub use check::{FileCheck, check_all, current_dir};
pub use scenarios::{DT, HillGame, LapGhostCutter, Recording, Scenario};
