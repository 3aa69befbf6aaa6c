//! `skidpad recover`: a stream (`.sks`) cut at any byte, by a crash or a
//! full disk, turned into a `.skr` of every whole chunk.

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;
use skidpad_replay::{Limits, encode_replay, read_stream};

use crate::{atomic, files};

/// What was recovered.
#[derive(Clone, Debug, Serialize)]
pub struct Recovered {
    /// The stream read.
    pub stream: PathBuf,
    /// The replay written.
    pub output: PathBuf,
    /// Whole chunks joined.
    pub chunks: usize,
    /// Steps recovered.
    pub steps: u64,
    /// Simulated seconds recovered.
    pub duration: f64,
    /// True when the stream had its end record (it was finished).
    pub complete: bool,
    /// Bytes after the last whole record, not used.
    pub dropped_bytes: usize,
    /// Why reading stopped early, if it did.
    pub stopped: Option<String>,
}

/// Reads `stream`, joins its whole chunks and writes them to `output` as a
/// `.skr` (atomically).
pub fn recover(stream: &Path, output: &Path, limits: &Limits) -> Result<Recovered> {
    atomic::check_target(output)?;
    let bytes = files::read(stream)?;
    let read = read_stream(&bytes, limits)
        .with_context(|| format!("cannot recover {}", stream.display()))?;
    let encoded = encode_replay(&read.replay)?;
    atomic::write_atomic(output, &encoded)?;
    Ok(Recovered {
        stream: stream.to_path_buf(),
        output: output.to_path_buf(),
        chunks: read.chunks,
        steps: read.replay.header.step_count,
        duration: read.replay.duration(),
        complete: read.complete,
        dropped_bytes: read.dropped_bytes,
        stopped: read.stopped,
    })
}

impl fmt::Display for Recovered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "recovered {} steps ({:.1} s) in {} chunks from {} -> {}",
            self.steps,
            self.duration,
            self.chunks,
            crate::text::printable(&self.stream.display().to_string()),
            crate::text::printable(&self.output.display().to_string()),
        )?;
        if self.complete {
            writeln!(f, "the stream was complete (finished recording)")
        } else {
            writeln!(
                f,
                "the stream was cut: {} ({} bytes after the last whole chunk dropped)",
                crate::text::printable(self.stopped.as_deref().unwrap_or("it ends there")),
                self.dropped_bytes
            )
        }
    }
}
