//! `ReplaySource`: the replay a player reads, borrowed or shared.
//!
//! A Rust game usually lends the player its replay (`&replay`); the wasm
//! bindings cannot lend across calls from JavaScript, so the player can also
//! hold an `Arc<Replay>` it shares with its owner.

use std::ops::Deref;
use std::sync::Arc;

use crate::replay::Replay;

/// A replay lent to a player, or shared with it.
#[derive(Clone, Debug)]
pub enum ReplaySource<'r> {
    /// Borrowed for the player's lifetime.
    Borrowed(&'r Replay),
    /// Shared ownership: the player keeps it alive.
    Shared(Arc<Replay>),
}

impl Deref for ReplaySource<'_> {
    type Target = Replay;

    fn deref(&self) -> &Replay {
        match self {
            ReplaySource::Borrowed(replay) => replay,
            ReplaySource::Shared(replay) => replay,
        }
    }
}

impl<'r> From<&'r Replay> for ReplaySource<'r> {
    fn from(replay: &'r Replay) -> Self {
        ReplaySource::Borrowed(replay)
    }
}

impl From<Arc<Replay>> for ReplaySource<'_> {
    fn from(replay: Arc<Replay>) -> Self {
        ReplaySource::Shared(replay)
    }
}

impl From<Replay> for ReplaySource<'_> {
    fn from(replay: Replay) -> Self {
        ReplaySource::Shared(Arc::new(replay))
    }
}
