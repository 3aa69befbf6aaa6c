//! `StreamSplitter`: cuts the bytes a stream recorder writes into whole
//! pieces as they arrive (header, arrivals, chunks, end), for a publisher that
//! serves them one by one (the spectator service). The record layout is
//! `stream.rs`'s.

use super::check_preamble_of;
use super::stream::{
    CHECKSUM, KIND_ARRIVAL, KIND_CHUNK, KIND_END, KIND_HEADER, MAGIC, PREAMBLE, RECORD_HEADER,
    STREAM_FORMAT_VERSION, next_record,
};
use crate::{ReplayError, Result};

/// What a piece of a stream is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamPieceKind {
    /// The preamble and the header record.
    Header,
    /// A chunk record.
    Chunk,
    /// An arrival record: a car that joined the recording, before the
    /// first chunk that holds it. A spectator needs every one before the
    /// chunk it starts from.
    Arrival,
    /// The end record.
    End,
}

/// Cuts the bytes a `StreamRecorder` writes into whole pieces as they
/// arrive: the header (preamble included), then each chunk, arrival and
/// end record, each exactly as written (checksum included). A publisher
/// feeds it what the recorder writes and serves the pieces.
#[derive(Debug, Default)]
pub struct StreamSplitter {
    buf: Vec<u8>,
    header_seen: bool,
}

impl StreamSplitter {
    /// Adds written bytes; returns the pieces they complete. A record that
    /// fails its checksum or is of an unknown kind is an error.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<(StreamPieceKind, Vec<u8>)>> {
        self.buf.extend_from_slice(bytes);
        let mut pieces = Vec::new();
        loop {
            let start = if self.header_seen { 0 } else { PREAMBLE };
            if self.buf.len() < start {
                break;
            }
            if !self.header_seen {
                check_preamble_of(
                    &self.buf,
                    MAGIC,
                    STREAM_FORMAT_VERSION..=STREAM_FORMAT_VERSION,
                    "stream",
                )?;
            }
            if self.buf.len() < start + RECORD_HEADER {
                break;
            }
            let len = u32::from_le_bytes([
                self.buf[start + 1],
                self.buf[start + 2],
                self.buf[start + 3],
                self.buf[start + 4],
            ]) as usize;
            let end = start + RECORD_HEADER + len + CHECKSUM;
            if self.buf.len() < end {
                break;
            }
            let (kind, _) = next_record(&self.buf[..end], start)
                .map_err(|reason| ReplayError::Decode {
                    section: "stream",
                    offset: start,
                    reason,
                })?
                .ok_or_else(|| ReplayError::Decode {
                    section: "stream",
                    offset: start,
                    reason: "empty stream record".into(),
                })?;
            let kind = match (kind, self.header_seen) {
                (KIND_HEADER, false) => StreamPieceKind::Header,
                (KIND_CHUNK, true) => StreamPieceKind::Chunk,
                (KIND_ARRIVAL, true) => StreamPieceKind::Arrival,
                (KIND_END, true) => StreamPieceKind::End,
                (other, _) => {
                    return Err(ReplayError::Decode {
                        section: "stream",
                        offset: start,
                        reason: format!("unexpected stream record of kind {other}"),
                    });
                }
            };
            self.header_seen = true;
            let rest = self.buf.split_off(end);
            pieces.push((kind, std::mem::replace(&mut self.buf, rest)));
        }
        Ok(pieces)
    }
}
