//! `RaceSink`: where a `StreamRecorder` writes when its race is watched.
//! It cuts the written bytes into pieces (`StreamSplitter`) and publishes
//! each to the race as soon as it is whole, so a chunk is on offer the
//! moment the recorder seals it; kept in a file ([`RaceSink::kept_in`]),
//! it appends the same bytes there first (see [`crate::archive`]).

use std::io::Write;
use std::sync::Arc;

use skidpad_replay::{StreamSink, StreamSplitter};

use crate::race::Race;

/// A stream sink that publishes to a [`Race`].
pub struct RaceSink {
    race: Arc<Race>,
    splitter: StreamSplitter,
    file: Option<std::fs::File>,
}

impl RaceSink {
    /// Publishes into `race`.
    #[must_use]
    pub fn new(race: Arc<Race>) -> Self {
        RaceSink {
            race,
            splitter: StreamSplitter::default(),
            file: None,
        }
    }

    /// Also appends every written byte to `file`, before publishing: what
    /// spectators were offered is on disk.
    #[must_use]
    pub fn kept_in(mut self, file: std::fs::File) -> Self {
        self.file = Some(file);
        self
    }
}

impl Write for RaceSink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if let Some(file) = self.file.as_mut() {
            file.write_all(bytes)?;
        }
        let pieces = self.splitter.push(bytes).map_err(std::io::Error::other)?;
        for (kind, piece) in pieces {
            self.race
                .publish(kind, piece)
                .map_err(std::io::Error::other)?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.file.as_mut() {
            Some(file) => file.flush(),
            None => Ok(()),
        }
    }
}

impl StreamSink for RaceSink {
    /// Makes the kept file durable (published pieces live in memory).
    fn sync(&mut self) -> std::io::Result<()> {
        match self.file.as_mut() {
            Some(file) => file.sync_data(),
            None => Ok(()),
        }
    }
}
