//! One published race: its header piece and sealed chunks (immutable once
//! stored, shared by every response), whether it ended, and a watch
//! channel that tells live tails when either changes. A car that joins the
//! race comes as an arrival record: it is served in front of the next
//! chunk (that chunk's piece), and a late joiner fetches every arrival
//! before the chunk it starts from.

use std::sync::{Arc, RwLock};

use axum::body::Bytes;
use skidpad_replay::{Limits, StreamPieceKind, read_stream_header};
use tokio::sync::watch;

use crate::error::{Result, SpectatorError};

/// What a live tail is told: chunks sealed so far, and whether the race
/// ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Sealed chunks (their numbers run from 1).
    pub chunks: u64,
    /// True once the end record arrived.
    pub ended: bool,
}

/// What the service knows of the race from its header piece.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RaceInfo {
    /// `SIMULATION_VERSION` the race runs.
    pub simulation_version: u32,
    /// Cars recorded.
    pub car_count: u32,
    /// Steps per chunk.
    pub chunk_steps: u32,
    /// The world step the recording began at.
    pub start_step: u64,
    /// The recording's metadata.
    pub metadata: Vec<(String, String)>,
}

#[derive(Debug, Default)]
struct Stored {
    header: Option<(Bytes, RaceInfo)>,
    /// Each chunk's piece: the arrival records written since the chunk
    /// before, then its record.
    chunks: Vec<Bytes>,
    /// Every arrival record so far, in order.
    arrivals: Vec<u8>,
    /// How many bytes of `arrivals` come before each chunk's piece.
    arrivals_before: Vec<usize>,
    /// Where the arrivals of the next chunk's piece start in `arrivals`.
    next_piece_arrivals: usize,
}

/// A race, shared between its publisher and the HTTP handlers.
#[derive(Debug)]
pub struct Race {
    stored: RwLock<Stored>,
    progress: watch::Sender<Progress>,
}

impl Default for Race {
    fn default() -> Self {
        Race {
            stored: RwLock::new(Stored::default()),
            progress: watch::Sender::new(Progress::default()),
        }
    }
}

impl Race {
    /// A race with nothing published yet.
    #[must_use]
    pub fn new() -> Arc<Race> {
        Arc::new(Race::default())
    }

    /// Stores a piece of the stream, in the order the recorder wrote it.
    pub fn publish(&self, kind: StreamPieceKind, bytes: Vec<u8>) -> Result<()> {
        let mut stored = self.stored.write().map_err(|_| SpectatorError::Poisoned)?;
        let mut progress = *self.progress.borrow();
        match kind {
            StreamPieceKind::Header => {
                // The recorder wrote it, but it is checked like any input.
                let header = read_stream_header(&bytes, &Limits::UNLIMITED)?.header;
                let info = RaceInfo {
                    simulation_version: header.simulation_version,
                    car_count: header.car_count,
                    chunk_steps: header.keyframe_every,
                    start_step: header.start_step,
                    metadata: header.metadata,
                };
                stored.header = Some((Bytes::from(bytes), info));
            }
            StreamPieceKind::Arrival => stored.arrivals.extend_from_slice(&bytes),
            StreamPieceKind::Chunk => {
                let own = stored.next_piece_arrivals;
                let mut piece = stored.arrivals[own..].to_vec();
                piece.extend_from_slice(&bytes);
                stored.arrivals_before.push(own);
                stored.next_piece_arrivals = stored.arrivals.len();
                stored.chunks.push(Bytes::from(piece));
                progress.chunks = stored.chunks.len() as u64;
            }
            StreamPieceKind::End => progress.ended = true,
        }
        drop(stored);
        self.progress.send_replace(progress);
        Ok(())
    }

    /// The header piece and what it says, once published.
    #[must_use]
    pub fn header(&self) -> Option<(Bytes, RaceInfo)> {
        self.stored.read().ok()?.header.clone()
    }

    /// Chunk `n`'s piece (from 1), once sealed.
    #[must_use]
    pub fn chunk(&self, n: u64) -> Option<Bytes> {
        let index = usize::try_from(n.checked_sub(1)?).ok()?;
        self.stored.read().ok()?.chunks.get(index).cloned()
    }

    /// Every arrival record before chunk `n`'s piece (from 1; empty when
    /// no car joined before it), once chunk `n` is sealed: what a
    /// spectator starting at chunk `n` gives its follower first.
    #[must_use]
    pub fn arrivals_before(&self, n: u64) -> Option<Bytes> {
        let index = usize::try_from(n.checked_sub(1)?).ok()?;
        let stored = self.stored.read().ok()?;
        let end = *stored.arrivals_before.get(index)?;
        Some(Bytes::copy_from_slice(&stored.arrivals[..end]))
    }

    /// Chunks sealed so far and whether the race ended.
    #[must_use]
    pub fn progress(&self) -> Progress {
        *self.progress.borrow()
    }

    /// A receiver that wakes on every change of [`progress`](Self::progress).
    #[must_use]
    pub fn subscribe(&self) -> watch::Receiver<Progress> {
        self.progress.subscribe()
    }
}
