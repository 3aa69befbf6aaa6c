//! The one error type of skidpad-ghost.

/// Everything that can go wrong with ghosts.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GhostError {
    /// A ghost needs at least one frame.
    #[error("a ghost needs at least one frame")]
    Empty,
    /// A frame holds NaN or an infinity.
    #[error("frame {index}: field `{field}` is not finite")]
    NonFiniteFrame {
        /// Index of the frame.
        index: usize,
        /// The field's name.
        field: &'static str,
    },
    /// Frame times must rise strictly.
    #[error("frame {index}: time {time} does not come after the previous frame's {previous}")]
    TimeNotIncreasing {
        /// Index of the frame.
        index: usize,
        /// Its time.
        time: f32,
        /// The previous frame's time.
        previous: f32,
    },
    /// A slice selected no frame.
    #[error("the slice {what} selects no frame of a ghost spanning {start} to {end} s")]
    EmptySlice {
        /// The requested range, as written by the caller.
        what: String,
        /// First frame time.
        start: f32,
        /// Last frame time.
        end: f32,
    },
    /// An argument (time, interval, index) is out of range.
    #[error("invalid {what}: {reason}")]
    InvalidArgument {
        /// Which argument.
        what: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The world refused a read (for example an unknown car).
    #[error("cannot sample the world: {0}")]
    World(#[from] skidpad_core::CoreError),
    /// A ghost too long for the format (more than `MAX_FRAMES` frames).
    #[error("cannot encode ghost: {0}")]
    Encode(String),
    /// The bytes are not a ghost this version can read.
    #[error("cannot decode ghost at byte {offset}: {reason}")]
    Decode {
        /// Byte offset where the problem was found.
        offset: usize,
        /// What is wrong.
        reason: String,
    },
    /// The file's format version is not the one this crate reads.
    #[error("ghost format version {found} is not supported (this build reads version {expected})")]
    FormatVersion {
        /// The version this build reads.
        expected: u16,
        /// The version in the file.
        found: u16,
    },
}

/// Result alias for the ghost crate.
pub type Result<T, E = GhostError> = std::result::Result<T, E>;
