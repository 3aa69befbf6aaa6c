//! The one error type of skidpad-replay.

use std::fmt;
use std::sync::Arc;

/// Everything that can go wrong with replays. Each variant is a case a
/// caller can match on; the message is for people.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// The world refused a call.
    #[error("world: {0}")]
    World(#[from] skidpad_core::CoreError),
    /// A ghost track could not be built or read.
    #[error("ghost track: {0}")]
    Ghost(#[from] skidpad_ghost::GhostError),
    /// The replay was recorded by a core with other simulation bits
    /// (`SIMULATION_VERSION`, not the file's format version).
    #[error(
        "replay was recorded with simulation version {replay}, this core is simulation version {core}; it cannot be re-simulated here"
    )]
    SimulationVersion {
        /// The replay's `simulation_version`.
        replay: u32,
        /// This core's `SIMULATION_VERSION`.
        core: u32,
    },
    /// The replay file's format version is not one this build reads.
    #[error(
        "replay format version {found} is not supported (this build reads up to version {expected})"
    )]
    FormatVersion {
        /// The newest version this build reads (it reads every one from 1).
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
    /// An embedded ghost track (`ghosts` section) is not a valid ghost.
    #[error("cannot decode replay, embedded ghost {index} at byte {offset}: {source}")]
    EmbeddedGhost {
        /// The ghost's index (its car's).
        index: usize,
        /// Byte offset of the ghost in the (decompressed) file.
        offset: usize,
        /// What the ghost decoder found.
        #[source]
        source: skidpad_ghost::GhostError,
    },
    /// The playing world holds another number of cars than the replay.
    #[error("the world holds {world} cars, the replay {replay}")]
    CarCount {
        /// Cars in the world.
        world: usize,
        /// Cars in the replay.
        replay: usize,
    },
    /// The replay (or stream) does not embed a definition for every car,
    /// so a world cannot be built from it.
    #[error(
        "the replay embeds {definitions} definitions for {cars} cars; build the world yourself"
    )]
    MissingDefinitions {
        /// Definitions embedded.
        definitions: usize,
        /// Cars recorded.
        cars: usize,
    },
    /// The world took steps the recorder did not see (or is behind).
    #[error(
        "the world is at step {world}, the recording expects {expected}: every step must be recorded (use step or after_step)"
    )]
    StepsNotRecorded {
        /// The world's step count.
        world: u64,
        /// The step the recording is at.
        expected: u64,
    },
    /// An observer was handed a timestep the world's last step did not
    /// run (or the world has not stepped since it was placed).
    #[error(
        "a step of {given} s was to be recorded, but {ran}: an observer records the timestep the world ran (after_step reads it from the world)"
    )]
    TimestepMismatch {
        /// The timestep the caller gave, s.
        given: f64,
        /// What the world's last step ran, in words.
        ran: String,
    },
    /// There is nothing recorded yet to cut, extract or encode.
    #[error("nothing recorded yet: {0}")]
    NothingRecorded(&'static str),
    /// A keyframe the operation needs is missing: at `step` (a chunk's
    /// ends, step 0) or, for a seek, at or before it.
    #[error("the replay has no keyframe at or before step {step}")]
    NoKeyframe {
        /// The step.
        step: u64,
    },
    /// A keyframe holds another number of cars than are racing at its
    /// step (removals and keyframes disagree).
    #[error("the keyframe at step {step} holds {held} cars, {racing} are in the race")]
    KeyframeCars {
        /// The keyframe's step.
        step: u64,
        /// Cars it holds.
        held: usize,
        /// Cars racing at that step.
        racing: usize,
    },
    /// One of a replay's per-step streams (`dt`, `inputs`, `lod`,
    /// `surfaces`) ends before its last step: an inconsistent in-memory
    /// replay.
    #[error("the replay's {stream} stream ends before step {step}")]
    StreamTooShort {
        /// Which stream.
        stream: &'static str,
        /// The first step it lacks.
        step: u64,
    },
    /// Consecutive parts (stream chunks, ring parts) do not continue each
    /// other.
    #[error("the parts do not join: {0}")]
    PartsDoNotJoin(String),
    /// A live stream's chunk does not start where the spectator is.
    #[error("a chunk from world step {chunk}, the spectator is at {at}")]
    ChunkOutOfOrder {
        /// The chunk's first world step.
        chunk: u64,
        /// The spectator's world step.
        at: u64,
    },
    /// A live stream's chunk did not re-simulate to its closing keyframe.
    #[error("the chunk from world step {chunk} did not re-simulate to its keyframe")]
    ChunkDesynced {
        /// The chunk's first world step.
        chunk: u64,
    },
    /// A replay's seal is malformed or does not match its contents, or a
    /// sealing key is malformed.
    #[error("seal: {reason}")]
    Seal {
        /// What is wrong.
        reason: String,
    },
    /// A metadata value the SDK reads is malformed.
    #[error("metadata {key}: {reason}")]
    Metadata {
        /// The key.
        key: &'static str,
        /// What is wrong.
        reason: String,
    },
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
    /// Writing a stream to its sink failed; the `io::Error` is the source
    /// (shared, so the error stays `Clone`). Like every variant that
    /// wraps another error, the message repeats the source's, so
    /// `to_string` alone tells the whole story.
    #[error("cannot write the stream: {0}")]
    Io(#[source] SharedIoError),
    /// An argument is out of range.
    #[error("invalid {what}: {reason}")]
    InvalidArgument {
        /// Which argument.
        what: &'static str,
        /// What is wrong with it.
        reason: String,
    },
}

/// An `io::Error` shared so that [`ReplayError`] stays `Clone`, compared
/// by kind and message so that it stays `PartialEq`.
#[derive(Debug, Clone)]
pub struct SharedIoError(pub Arc<std::io::Error>);

impl From<std::io::Error> for SharedIoError {
    fn from(e: std::io::Error) -> Self {
        SharedIoError(Arc::new(e))
    }
}

impl fmt::Display for SharedIoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Transparent: it is the `io::Error` (its message, its source).
impl std::error::Error for SharedIoError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl PartialEq for SharedIoError {
    fn eq(&self, other: &Self) -> bool {
        self.0.kind() == other.0.kind() && self.0.to_string() == other.0.to_string()
    }
}

/// Result alias for the replay crate.
pub type Result<T, E = ReplayError> = std::result::Result<T, E>;
