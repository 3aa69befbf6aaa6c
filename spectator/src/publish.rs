//! `RaceSink`: where a `StreamRecorder` writes when its race is watched.
//! It cuts the written bytes into pieces (`StreamSplitter`) and publishes
//! each to the race as soon as it is whole, so a chunk is on offer the
//! moment the recorder seals it.

use std::io::Write;
use std::sync::Arc;

use skidpad_replay::{StreamSink, StreamSplitter};

use crate::race::Race;

/// A stream sink that publishes to a [`Race`].
pub struct RaceSink {
    race: Arc<Race>,
    splitter: StreamSplitter,
}

impl RaceSink {
    /// Publishes into `race`.
    #[must_use]
    pub fn new(race: Arc<Race>) -> Self {
        RaceSink {
            race,
            splitter: StreamSplitter::default(),
        }
    }
}

impl Write for RaceSink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let pieces = self.splitter.push(bytes).map_err(std::io::Error::other)?;
        for (kind, piece) in pieces {
            self.race
                .publish(kind, piece)
                .map_err(std::io::Error::other)?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl StreamSink for RaceSink {
    /// Published pieces live in memory; there is nothing to make durable.
    fn sync(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
