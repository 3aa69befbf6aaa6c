//! Why the spectator service could not keep, read or publish a race, as a
//! type its callers match (the binary reports it; a publisher's stream
//! write turns it into an I/O error).

use std::path::PathBuf;

use skidpad_replay::ReplayError;

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum SpectatorError {
    /// A file or directory could not be used: what was being done, to
    /// which path.
    #[error("cannot {doing} {}: {source}", path.display())]
    File {
        /// What was being done ("read", "create", "set aside", …).
        doing: &'static str,
        /// The path.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// Every `ID-N` name is taken.
    #[error("no free race id for {0}")]
    NoFreeId(String),
    /// A followed stream file got shorter: it is not being appended to.
    #[error("the file shrank: it is not a stream being appended to")]
    Shrank,
    /// A followed stream file is past the size the service follows.
    #[error("larger than {0} bytes")]
    TooLarge(u64),
    /// A stream's bytes are not a race (a header or chunk refused).
    #[error("{}: not a readable race: {source}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        source: ReplayError,
    },
    /// A piece published into a race was refused.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// A thread panicked while holding the race: its state cannot be
    /// trusted.
    #[error("race state poisoned")]
    Poisoned,
    /// Reading a followed file failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// A spectator result.
pub type Result<T, E = SpectatorError> = std::result::Result<T, E>;

/// A `map_err` for an I/O error on `path` while `doing` something.
pub(crate) fn file(
    doing: &'static str,
    path: &std::path::Path,
) -> impl FnOnce(std::io::Error) -> SpectatorError {
    let path = path.to_owned();
    move |source| SpectatorError::File {
        doing,
        path,
        source,
    }
}
