//! A stream's arrival record (kind 4): a car that joined the running
//! recording (`StreamRecorder::add_car`). It is written as the car comes,
//! before the first chunk that holds it, and carries what no chunk does:
//! the car's definition (chunks carry none, the header record holds the
//! first cars') and its id in the game. The snapshot and the step let a
//! reader check the chunk that follows and place the car even when it
//! left again before any chunk held it in a keyframe.
//!
//! Payload: u32 car index (the recording's car count before it came), u64
//! world step it arrived at, u32 source car id, the car's snapshot
//! (`SNAPSHOT_LEN` bytes), then a definitions section's payload of 0 cars
//! (the recording embeds none) or 1.

use skidpad_core::{CarDefinition, CarId, SNAPSHOT_LEN};

use super::bytes::{Reader, Writer};
use super::header::{decode_definitions, encode_definitions};
use super::stream::{CHECKSUM, KIND_ARRIVAL, KIND_CHUNK, RECORD_HEADER, next_record, record};
use crate::{ReplayError, Result};

/// A car that joined a stream's recording after it began, as its arrival
/// record names it.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamArrival {
    /// The car's index in the recording: the number of cars before it.
    pub car: u32,
    /// The world step it arrived at: it is in the world's state of that
    /// step and takes part in the steps after it.
    pub world_step: u64,
    /// The game's id of the car (`ReplayHeader::source_cars` gains it).
    pub source: CarId,
    /// `World::snapshot` of the car as it arrived.
    pub snapshot: Vec<u8>,
    /// Its definition, when the recording embeds definitions.
    pub definition: Option<CarDefinition>,
}

/// The arrival record of `arrival`.
pub(crate) fn arrival_record(arrival: &StreamArrival) -> Result<Vec<u8>> {
    if arrival.snapshot.len() != SNAPSHOT_LEN {
        return Err(ReplayError::Encode(format!(
            "an arrival snapshot of {} bytes, not {SNAPSHOT_LEN}",
            arrival.snapshot.len()
        )));
    }
    let mut w = Writer::default();
    w.u32(arrival.car);
    w.u64(arrival.world_step);
    w.u32(arrival.source.to_raw());
    w.bytes(&arrival.snapshot);
    let definitions = w.absorb(encode_definitions(arrival.definition.as_slice()));
    w.bytes(&definitions);
    record(KIND_ARRIVAL, &w.done()?)
}

/// Decodes an arrival record's payload; `at` is its offset in the stream.
pub(super) fn decode_arrival(payload: &[u8], at: usize) -> Result<StreamArrival> {
    let mut r = Reader::new(payload, at, "stream arrival");
    let car = r.u32()?;
    let world_step = r.u64()?;
    let source = CarId::from_raw(r.u32()?);
    let snapshot = r.take(SNAPSHOT_LEN)?.to_vec();
    let definition = decode_definitions(&mut r, 1)?.pop();
    Ok(StreamArrival {
        car,
        world_step,
        source,
        snapshot,
        definition,
    })
}

/// One whole arrival record (framing and checksum included), as the
/// stream splitter cuts it, decoded.
pub fn read_stream_arrival(piece: &[u8]) -> Result<StreamArrival> {
    let mut arrivals = read_stream_arrivals(piece)?;
    match (arrivals.pop(), arrivals.is_empty()) {
        (Some(arrival), true) => Ok(arrival),
        _ => Err(ReplayError::Decode {
            section: "stream arrival",
            offset: 0,
            reason: "not exactly one arrival record".into(),
        }),
    }
}

/// The arrival records at the start of `bytes`, decoded, and where the
/// first other record (or the end) starts.
fn leading_arrivals(bytes: &[u8]) -> Result<(Vec<StreamArrival>, usize)> {
    let mut arrivals = Vec::new();
    let mut at = 0;
    loop {
        match next_record(bytes, at).map_err(|reason| ReplayError::Decode {
            section: "stream arrival",
            offset: at,
            reason,
        })? {
            Some((KIND_ARRIVAL, payload)) => {
                arrivals.push(decode_arrival(payload, at + RECORD_HEADER)?);
                at += RECORD_HEADER + payload.len() + CHECKSUM;
            }
            _ => return Ok((arrivals, at)),
        }
    }
}

/// Arrival records back to back (none, one or more, as a spectator
/// service serves those before a chunk), decoded.
pub fn read_stream_arrivals(bytes: &[u8]) -> Result<Vec<StreamArrival>> {
    let (arrivals, end) = leading_arrivals(bytes)?;
    if end != bytes.len() {
        return Err(ReplayError::Decode {
            section: "stream arrival",
            offset: end,
            reason: "a record that is not an arrival".into(),
        });
    }
    Ok(arrivals)
}

/// A chunk piece as a spectator service serves it: the arrival records
/// written since the previous chunk, then the chunk record. Gives the
/// arrivals decoded and the chunk record's bytes; a piece that is not
/// that is refused.
pub fn split_chunk_piece(piece: &[u8]) -> Result<(Vec<StreamArrival>, &[u8])> {
    let (arrivals, at) = leading_arrivals(piece)?;
    match next_record(piece, at) {
        Ok(Some((KIND_CHUNK, payload)))
            if at + RECORD_HEADER + payload.len() + CHECKSUM == piece.len() =>
        {
            Ok((arrivals, &piece[at..]))
        }
        _ => Err(ReplayError::Decode {
            section: "stream chunk",
            offset: at,
            reason: "not a chunk piece (arrival records, then one chunk record)".into(),
        }),
    }
}
