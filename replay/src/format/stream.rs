//! The chunked stream format (`.sks`), version 1: a recording written as
//! the race runs, readable up to any byte it was cut at. `replay/FORMAT.md`
//! ("Stream files") gives every byte; in short:
//!
//! ```text
//! magic "SKST" | version u16 | flags u16
//! records: kind u8 | length u32 | payload | blake3(kind, length, payload)
//!   1 header  (first): the replay header section's bytes (step count 0),
//!             then the definitions section's bytes, then (only when the
//!             recording carries it) the ground's, each length-prefixed
//!   2 chunk:  a complete `.skr` of the steps since the previous chunk,
//!             from the previous chunk's last keyframe to a keyframe at
//!             its end
//!   3 end:    empty; written by `finish`
//!   4 arrival: a car that joined the recording (`stream_arrival.rs`),
//!             before the first chunk that holds it
//! ```
//!
//! Each chunk is a standalone replay that plays bit for bit from its first
//! keyframe, so a reader (recovery, a late-joining spectator) needs no
//! earlier chunk. Reading stops at the first record that is cut short or
//! whose checksum does not match: everything before it is kept.
//! `stream_splitter.rs` cuts the bytes into pieces as a publisher gets them.

use skidpad_core::{CarDefinition, GroundSource, MAX_SUBSTEP_RATE};

use super::bytes::{Reader, Writer};
use super::carried_ground::{decode_ground, encode_ground};
use super::stream_arrival::decode_arrival;
use super::{check_preamble_of, encode_header, encode_replay};
use super::{decode_definitions, decode_header, decode_replay_with, encode_definitions};
use crate::join::Joiner;
use crate::limits::{Limits, Work, definition_rates, keyframe_bytes};
use crate::replay::{Replay, ReplayHeader};
use crate::runs::Runs;
use crate::{ReplayError, Result};

/// The first four bytes of every `.sks` stream.
pub const MAGIC: &[u8; 4] = b"SKST";
/// The stream format version this build writes and reads.
pub const STREAM_FORMAT_VERSION: u16 = 1;
pub(super) const PREAMBLE: usize = 8;
/// kind u8 and length u32 before a record's payload.
pub(super) const RECORD_HEADER: usize = 5;
pub(super) const CHECKSUM: usize = 32;

pub(super) const KIND_HEADER: u8 = 1;
pub(super) const KIND_CHUNK: u8 = 2;
pub(super) const KIND_END: u8 = 3;
pub(super) const KIND_ARRIVAL: u8 = 4;

/// The first bytes of a stream file.
pub(crate) fn preamble() -> Vec<u8> {
    let mut out = Vec::with_capacity(PREAMBLE);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&STREAM_FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// One framed record: kind, length, payload, checksum.
pub(super) fn record(kind: u8, payload: &[u8]) -> Result<Vec<u8>> {
    let len = u32::try_from(payload.len()).map_err(|_| {
        ReplayError::Encode(format!(
            "a stream record of {} bytes exceeds the u32 length",
            payload.len()
        ))
    })?;
    let mut out = Vec::with_capacity(RECORD_HEADER + payload.len() + CHECKSUM);
    out.push(kind);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(payload);
    let hash = blake3::hash(&out);
    out.extend_from_slice(hash.as_bytes());
    Ok(out)
}

/// The header record: the recording's header (with no steps yet), its
/// definitions and, when the recording carries it, its ground.
pub(crate) fn header_record(
    header: &ReplayHeader,
    definitions: &[skidpad_core::CarDefinition],
    ground: Option<&GroundSource>,
) -> Result<Vec<u8>> {
    let header = ReplayHeader {
        step_count: 0,
        ..header.clone()
    };
    let mut w = Writer::default();
    let h = w.absorb(encode_header(&header));
    let d = w.absorb(encode_definitions(definitions));
    w.blob(&h, "stream header");
    w.blob(&d, "stream definitions");
    if let Some(source) = ground {
        let g = w.absorb(encode_ground(source));
        w.blob(&g, "stream ground");
    }
    record(KIND_HEADER, &w.done()?)
}

/// A chunk record: the part as a `.skr`.
pub(crate) fn chunk_record(part: &Replay) -> Result<Vec<u8>> {
    record(KIND_CHUNK, &encode_replay(part)?)
}

/// The end record.
pub(crate) fn end_record() -> Vec<u8> {
    // An empty payload always fits.
    record(KIND_END, &[]).unwrap_or_default()
}

/// What [`read_stream`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamContents {
    /// Every complete chunk joined into one replay (the header's metadata
    /// and definitions, `keyframe_every` = the chunk length).
    pub replay: Replay,
    /// Complete chunks read.
    pub chunks: usize,
    /// True when the end record was read: the recording was finished.
    pub complete: bool,
    /// Bytes after the last complete record that were not used.
    pub dropped_bytes: usize,
    /// Why reading stopped before the end of the bytes, if it did.
    pub stopped: Option<String>,
}

/// Splits the next record off `bytes[at..]`: `Ok(None)` at the end of the
/// bytes, `Err` with a reason when the record is cut short or corrupt.
pub(super) fn next_record(
    bytes: &[u8],
    at: usize,
) -> std::result::Result<Option<(u8, &[u8])>, String> {
    let rest = &bytes[at..];
    if rest.is_empty() {
        return Ok(None);
    }
    if rest.len() < RECORD_HEADER {
        return Err(format!("a record header cut short at byte {at}"));
    }
    let kind = rest[0];
    let len = u32::from_le_bytes([rest[1], rest[2], rest[3], rest[4]]) as usize;
    let total = RECORD_HEADER
        .checked_add(len)
        .and_then(|n| n.checked_add(CHECKSUM))
        .ok_or_else(|| format!("a record length overflows at byte {at}"))?;
    if rest.len() < total {
        return Err(format!(
            "a record of {total} bytes cut short at byte {at} ({} present)",
            rest.len()
        ));
    }
    let body = &rest[..RECORD_HEADER + len];
    if blake3::hash(body).as_bytes() != &rest[RECORD_HEADER + len..total] {
        return Err(format!("the record at byte {at} fails its checksum"));
    }
    Ok(Some((kind, &rest[RECORD_HEADER..RECORD_HEADER + len])))
}

/// What a stream's header record holds.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamStart {
    /// The recording's header (step count 0; metadata and settings).
    pub header: ReplayHeader,
    /// The cars' definitions, in car order.
    pub definitions: Vec<CarDefinition>,
    /// The ground the recording carries (`RecorderOptions::ground`), if
    /// the game had it carried.
    pub ground: Option<GroundSource>,
}

/// The preamble and header record at the start of `bytes`: the
/// recording's header (step count 0), its definitions and carried ground,
/// and where the first record after the header starts.
fn read_header(bytes: &[u8], limits: &Limits) -> Result<(StreamStart, usize)> {
    check_preamble_of(
        bytes,
        MAGIC,
        STREAM_FORMAT_VERSION..=STREAM_FORMAT_VERSION,
        "stream",
    )?;
    let at = PREAMBLE;
    match next_record(bytes, at) {
        Ok(Some((KIND_HEADER, payload))) => {
            let mut p = Reader::new(payload, at + RECORD_HEADER, "stream header");
            let h = p.blob()?;
            let d = p.blob()?;
            // A third blob is the carried ground; a reader that predates
            // it refuses the record here (bytes after the definitions).
            let g = if p.is_empty() { None } else { Some(p.blob()?) };
            p.finish()?;
            let header = decode_header(&mut Reader::new(h, at, "stream header"))?;
            header.check_simulation_version()?;
            limits.check_header(&header)?;
            let definitions = decode_definitions(
                &mut Reader::new(d, at, "stream definitions"),
                header.car_count,
            )?;
            let ground = g
                .map(|g| decode_ground(Reader::new(g, at, "stream ground")))
                .transpose()?;
            Ok((
                StreamStart {
                    header,
                    definitions,
                    ground,
                },
                at + RECORD_HEADER + payload.len() + CHECKSUM,
            ))
        }
        Ok(Some((kind, _))) => Err(ReplayError::Decode {
            section: "stream",
            offset: at,
            reason: format!("the first record is of kind {kind}, not the header"),
        }),
        Ok(None) | Err(_) => Err(ReplayError::Decode {
            section: "stream",
            offset: at,
            reason: "the stream ends before its header record is whole".into(),
        }),
    }
}

/// A stream's start: its preamble and header record, as a spectator
/// fetches it, decoded to the recording's header, definitions and carried
/// ground.
pub fn read_stream_header(bytes: &[u8], limits: &Limits) -> Result<StreamStart> {
    let (start, end) = read_header(bytes, limits)?;
    if end != bytes.len() {
        return Err(ReplayError::Decode {
            section: "stream",
            offset: end,
            reason: "bytes after the header record".into(),
        });
    }
    Ok(start)
}

/// A chunk's replay.
fn decode_chunk(payload: &[u8], limits: &Limits) -> Result<Replay> {
    decode_replay_with(payload, limits)
}

/// One whole chunk record (framing and checksum included), as a spectator
/// fetches it, decoded to the standalone replay it holds.
pub fn read_stream_chunk(record: &[u8], limits: &Limits) -> Result<Replay> {
    match next_record(record, 0) {
        Ok(Some((KIND_CHUNK, payload)))
            if RECORD_HEADER + payload.len() + CHECKSUM == record.len() =>
        {
            decode_chunk(payload, limits).map_err(|e| chunk_error(0, e))
        }
        Ok(_) => Err(ReplayError::Decode {
            section: "stream chunk",
            offset: 0,
            reason: "not exactly one chunk record".into(),
        }),
        Err(reason) => Err(ReplayError::Decode {
            section: "stream chunk",
            offset: 0,
            reason,
        }),
    }
}

/// Reads a stream, complete or cut at any byte: the header record must be
/// whole, then every whole chunk is joined, and reading stops quietly at
/// the first record that is cut short or corrupt (`stopped` says which).
/// A chunk that does not continue the previous one (steps, keyframe,
/// settings) is an error, as is a stream with no whole chunk. Each chunk is
/// decoded within `limits`, and the joined replay's steps, cars and work
/// are checked against them as chunks are added.
///
/// ```
/// use skidpad_replay::{Limits, RecorderOptions, ReplayRecorder, encode_stream, read_stream};
/// # use std::sync::Arc;
/// # use skidpad_core::{InitialPose, Track, World, WorldConfig, preset};
/// # fn race() -> Result<World, Box<dyn std::error::Error>> {
/// #     let track = Arc::new(Track::builtin("brandwood")?);
/// #     let mut world = World::new(WorldConfig::default())?;
/// #     for k in 0..2 {
/// #         let pose = InitialPose { x: 40.0 - 10.0 * k as f64, speed: 10.0, ..InitialPose::default() };
/// #         let car = world.add_car(&preset("fwd_hatchback")?, pose)?;
/// #         world.set_driver(car, Some(track.clone()))?;
/// #     }
/// #     Ok(world)
/// # }
/// let mut world = race()?;
/// let mut recorder = ReplayRecorder::new(&world, RecorderOptions { keyframe_every: 60, ..RecorderOptions::default() })?;
/// for _ in 0..180 {
///     recorder.step(&mut world, 1.0 / 60.0)?;
/// }
/// let bytes = encode_stream(&recorder.finish(&world)?)?;
/// // A crash cut the file two thirds of the way through: every whole
/// // chunk before the cut is still there.
/// let cut = read_stream(&bytes[..bytes.len() * 2 / 3], &Limits::default())?;
/// assert!(!cut.complete && cut.chunks >= 1);
/// assert_eq!(cut.replay.header.step_count % 60, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_stream(bytes: &[u8], limits: &Limits) -> Result<StreamContents> {
    let (
        StreamStart {
            header,
            definitions,
            ground,
        },
        mut at,
    ) = read_header(bytes, limits)?;
    let mut rates = definition_rates(&definitions, header.car_count as usize);
    let start_step = header.start_step;
    let mut joiner = Joiner::new(header, definitions, Some(start_step));
    let mut totals = Totals::default();
    let (mut chunks, mut complete, mut stopped) = (0, false, None);
    loop {
        let (kind, payload) = match next_record(bytes, at) {
            Ok(Some(rec)) => rec,
            Ok(None) => break,
            Err(reason) => {
                stopped = Some(reason);
                break;
            }
        };
        let record_at = at;
        at += RECORD_HEADER + payload.len() + CHECKSUM;
        match kind {
            KIND_CHUNK => {
                let part = decode_chunk(payload, limits).map_err(|e| chunk_error(record_at, e))?;
                totals.add(&part, &rates, limits)?;
                joiner.push(part).map_err(|reason| {
                    chunk_error(record_at, ReplayError::PartsDoNotJoin(reason))
                })?;
                chunks += 1;
            }
            KIND_ARRIVAL => {
                let arrival = decode_arrival(payload, record_at + RECORD_HEADER)?;
                limits.check_cars(u64::from(joiner.car_count()) + 1)?;
                rates.push(
                    arrival
                        .definition
                        .as_ref()
                        .map_or(MAX_SUBSTEP_RATE, |d| d.substep_rate),
                );
                joiner
                    .arrive(arrival)
                    .map_err(|reason| ReplayError::Decode {
                        section: "stream arrival",
                        offset: record_at,
                        reason,
                    })?;
            }
            KIND_END => {
                complete = true;
                if at != bytes.len() {
                    stopped = Some(format!("{} bytes after the end record", bytes.len() - at));
                }
                break;
            }
            other => {
                stopped = Some(format!("unknown record kind {other} at byte {record_at}"));
                at = record_at;
                break;
            }
        }
    }
    let mut replay = joiner.finish().ok_or_else(|| ReplayError::Decode {
        section: "stream",
        offset: at,
        reason: "no whole chunk: nothing to recover".into(),
    })?;
    replay.ground = ground;
    Ok(StreamContents {
        replay,
        chunks,
        complete,
        dropped_bytes: bytes.len() - at,
        stopped,
    })
}

/// What the chunks joined so far add up to, kept as running sums so each
/// chunk costs its own size to check (a stream of many tiny chunks must
/// not cost the square of their number).
#[derive(Default)]
struct Totals {
    chunks: u64,
    steps: u64,
    work: Work,
    decoded: u64,
    game_state: u64,
}

impl Totals {
    /// Adds a chunk and checks the joined replay's budgets: steps, work,
    /// keyframe state and decoded memory (its inputs and the keyframes it
    /// adds; its first keyframe is the previous chunk's last).
    fn add(&mut self, part: &Replay, rates: &[f64], limits: &Limits) -> Result<()> {
        let cars = u64::from(part.header.car_count);
        self.steps = self.steps.saturating_add(part.header.step_count);
        limits.check_steps(self.steps)?;
        let lods: Vec<&Runs<_>> = part.cars.iter().map(|c| &c.lod).collect();
        self.work = self.work.then(Work::of(&part.dt, &lods, rates));
        limits.check_work(&self.work)?;
        let added = part.keyframes.iter().skip(usize::from(self.chunks > 0));
        self.chunks += 1;
        let (frames, state) = added.fold((0u64, 0u64), |(n, bytes), k| {
            (n + 1, bytes.saturating_add(k.game_state.len() as u64))
        });
        self.game_state = self.game_state.saturating_add(state);
        limits.check_keyframe_state(self.game_state)?;
        self.decoded = self
            .decoded
            .saturating_add(
                cars.saturating_mul(part.header.step_count)
                    .saturating_mul(std::mem::size_of::<skidpad_core::CarInput>() as u64),
            )
            .saturating_add(frames.saturating_mul(keyframe_bytes(cars)))
            .saturating_add(state);
        limits.check_memory(self.decoded)
    }
}

fn chunk_error(at: usize, e: ReplayError) -> ReplayError {
    ReplayError::Decode {
        section: "stream chunk",
        offset: at,
        reason: e.to_string(),
    }
}
