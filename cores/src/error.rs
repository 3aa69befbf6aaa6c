//! What can go wrong between a replay and an archived core's verdict.

/// An error of the archive or of its sandbox.
#[derive(Debug, thiserror::Error)]
pub enum CoresError {
    /// The archive keeps no module for the replay's simulation version.
    #[error(
        "simulation version {version} has no archived core (the archive holds versions {available}); this build cannot verify it"
    )]
    NoArchivedCore { version: u32, available: String },
    /// A module's bytes are not the ones the manifest pins: it is refused
    /// before it is compiled or run.
    #[error(
        "the archived core of simulation version {version} does not match the manifest (blake3 {found}, the manifest pins {pinned}); it was not run"
    )]
    ModuleMismatch {
        version: u32,
        found: String,
        pinned: String,
    },
    /// The manifest cannot be read or names a file the archive lacks.
    #[error("the archive's manifest: {0}")]
    Manifest(String),
    /// The runtime could not compile or instantiate a module.
    #[error("the archived core of simulation version {version} could not be loaded: {reason}")]
    Load { version: u32, reason: String },
    /// The module does not export the ABI this host speaks.
    #[error("the archived core of simulation version {version} does not speak ABI 1: {reason}")]
    Abi { version: u32, reason: String },
    /// The replay declares more work than the budget allows: refused
    /// before anything ran.
    #[error(
        "the replay declares {declared} {what}, over the budget of {budget}; nothing was simulated"
    )]
    DeclaredWork {
        /// `steps`, `cars` or `car-steps`.
        what: &'static str,
        declared: u64,
        budget: u64,
    },
    /// The sandbox stopped the core: it used all its fuel.
    #[error(
        "the archived core of simulation version {version} was stopped after {fuel} units of fuel (its CPU budget)"
    )]
    OutOfFuel { version: u32, fuel: u64 },
    /// The core trapped or tried to grow its memory past the cap.
    #[error("the archived core of simulation version {version} was stopped: {reason}")]
    Trapped { version: u32, reason: String },
    /// The archived core read the replay and refused it, in its own words.
    #[error("simulation version {version} (archived) refused the replay: {reason}")]
    Refused { version: u32, reason: String },
    /// Today's decoder cannot read even the replay's header.
    #[error(transparent)]
    Header(#[from] skidpad_replay::ReplayError),
}

/// Shorthand for results of this crate.
pub type Result<T> = std::result::Result<T, CoresError>;
