//! The one error type of skidpad-replay.

/// Everything that can go wrong with replays.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// The world refused a call.
    #[error("world: {0}")]
    World(#[from] skidpad_core::CoreError),
    /// A ghost track could not be built or read.
    #[error("ghost track: {0}")]
    Ghost(#[from] skidpad_ghost::GhostError),
    /// The replay was recorded by a core with other simulation bits.
    #[error(
        "replay was recorded with simulation version {replay}, this core is simulation version {core}; it cannot be re-simulated here"
    )]
    VersionMismatch {
        /// The replay's `simulation_version`.
        replay: u32,
        /// This core's `SIMULATION_VERSION`.
        core: u32,
    },
    /// The replay file's format version is not one this build reads.
    #[error("replay format version {found} is not supported (this build reads version {expected})")]
    FormatVersion {
        /// The version this build reads.
        expected: u16,
        /// The version in the file.
        found: u16,
    },
    /// The bytes are not a valid replay.
    #[error("cannot decode replay, section {section} at byte {offset}: {reason}")]
    Decode {
        /// Section being read (`header`, `inputs`, …).
        section: &'static str,
        /// Byte offset in the (decompressed) file.
        offset: usize,
        /// What is wrong.
        reason: String,
    },
    /// The replay declares more work than the [`Limits`](crate::Limits)
    /// allow; nothing was simulated.
    #[error("replay exceeds the {limit} limit: {value} > {max}")]
    LimitExceeded {
        /// Which limit (`cars`, `steps`, `car-substeps`, …).
        limit: &'static str,
        /// What the replay declares.
        value: u64,
        /// The limit.
        max: u64,
    },
    /// The replay records no car: there is nothing to verify.
    #[error("replay records no car")]
    NoCars,
    /// A replay cannot be written: a string or count does not fit its
    /// field in the format.
    #[error("cannot encode replay: {0}")]
    Encode(String),
    /// The recording and the world disagree (wrong car count, skipped
    /// steps, a replay without definitions, …).
    #[error("{0}")]
    Mismatch(String),
    /// The replay was recorded on another ground than the playing world's
    /// (each named by its description and fingerprint's first bytes).
    #[error(
        "the replay was recorded on {recorded}, but the world stands on {world}: play it in a world on the recording's ground"
    )]
    GroundMismatch {
        /// The recording's ground.
        recorded: String,
        /// The playing world's ground.
        world: String,
    },
    /// Writing a stream to its sink failed.
    #[error("cannot write the stream: {0}")]
    Io(String),
    /// An argument is out of range.
    #[error("invalid {what}: {reason}")]
    InvalidArgument {
        /// Which argument.
        what: &'static str,
        /// What is wrong with it.
        reason: String,
    },
}

/// Result alias for the replay crate.
pub type Result<T, E = ReplayError> = std::result::Result<T, E>;
