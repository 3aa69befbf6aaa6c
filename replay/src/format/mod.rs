//! The replay file format (`.skr`), version 1. `replay/FORMAT.md` gives
//! every byte; in short, little-endian throughout:
//!
//! ```text
//! magic "SKRP" | version u16 | flags u16
//! sections: id u16 | flags u16 (bit 0 = required) | length u32 | payload
//!   1 header (first, required)   5 lod runs (required)
//!   2 definitions (required)     6 surface runs (required)
//!   3 dt runs (required)         7 keyframes (required, deflated)
//!   4 inputs (required, deflated) 8 ghosts (optional)
//!   9 removals (required; only when a car was removed)
//!  10 resets (required; only when a car was reset)
//!  11 ground (optional; only when the game had it carried)
//!  12 arrivals (required; only when a car joined late)
//! end section: id 0, flags 1, length 0
//! blake3 of everything before, 32 bytes
//! ```
//!
//! Sections appear in rising id order. A reader skips optional sections it
//! does not know and refuses unknown required ones. The header comes first
//! so it can be read without the body (`read_replay_header`). Encoding is
//! deterministic and the decoder refuses non-canonical fields (overlong
//! varints, split runs, re-formatted JSON, trailing bytes); see FORMAT.md
//! for the one exception, the deflate streams.
//!
//! Decoding never panics, checks every count against the bytes that remain
//! before allocating, and bounds every decompression.

mod any_version;
mod arrival_section;
mod bytes;
mod carried_ground;
mod compress;
mod ghosts;
mod header;
mod inputs;
mod keyframes;
mod kind;
mod per_step;
mod resets;
mod rewinds;
mod sections;
mod stream;
mod stream_arrival;
mod stream_encode;
mod stream_splitter;

use std::ops::RangeInclusive;

use skidpad_core::CarInput;

pub use any_version::read_resets_any_version;
pub use compress::{MAX_DECOMPRESSED, gunzip, gzip, is_gzip};
pub use kind::FileKind;
pub use stream::{
    STREAM_FORMAT_VERSION, StreamContents, StreamStart, read_stream, read_stream_chunk,
    read_stream_header,
};
pub(crate) use stream::{chunk_record, end_record, header_record, preamble as stream_preamble};
pub(crate) use stream_arrival::arrival_record;
pub use stream_arrival::{
    StreamArrival, read_stream_arrival, read_stream_arrivals, split_chunk_piece,
};
pub use stream_encode::encode_stream;
pub use stream_splitter::{StreamPieceKind, StreamSplitter};

use self::arrival_section::{decode_arrivals, encode_arrivals, has_arrivals};
use self::bytes::{Reader, Writer};
pub use self::carried_ground::{
    GROUND_FORMAT_VERSION, GROUND_MAGIC, decode_ground_file, encode_ground_file,
};
use self::carried_ground::{decode_ground, encode_ground};
use self::compress::{CanonicalLevel, gunzip_prefix};
use self::ghosts::{decode_ghosts, encode_ghosts};
use self::header::{
    check_len, decode_definitions, decode_header, encode_definitions, encode_header,
    header_section_length, parse_header_only,
};
use self::inputs::{decode_inputs, encode_inputs, inputs_raw_len};
use self::keyframes::{
    decode_keyframes, decode_removals, encode_keyframes, encode_removals, keyframes_raw_len,
};
use self::per_step::{
    decode_lods, decode_runs, decode_surfaces, encode_lods, encode_runs, encode_surfaces,
};
use self::resets::{decode_resets, encode_resets, has_resets};
use self::rewinds::{decode_rewinds, encode_rewinds};
use self::sections::{
    ARRIVALS, DEFINITIONS, DT, END, GHOSTS, GROUND, HEADER, INPUTS, KEYFRAMES, LOD, REMOVALS,
    RESETS, REWINDS, SURFACES, Sections, checksum_failure, section_name,
};
use crate::limits::{Limits, Work, definition_rates, keyframe_bytes};
use crate::replay::{CarArrival, CarTrack, Replay, ReplayHeader};
use crate::{ReplayError, Result};

/// The first four bytes of every plain `.skr` replay.
pub const MAGIC: &[u8; 4] = b"SKRP";
/// The format version this build writes; it reads every version from 1 to
/// this one (version 2 changed only the canonical deflate level, see
/// `compress::CanonicalLevel`).
pub const FORMAT_VERSION: u16 = 2;
const PREAMBLE: usize = 8;
const SECTION_HEADER: usize = 8;
const CHECKSUM: usize = 32;
const REQUIRED: u16 = 1;

/// Encodes a replay (uncompressed; see [`encode_replay_gzip`]). Fails,
/// rather than cutting or wrapping, when a string or count does not fit
/// its field (a metadata key over 65 535 bytes, a header over 1 MiB, …).
pub fn encode_replay(replay: &Replay) -> Result<Vec<u8>> {
    let mut out = Writer::default();
    out.bytes(MAGIC);
    out.u16(FORMAT_VERSION);
    out.u16(0);
    let section = |out: &mut Writer, id: u16, flags: u16, payload: Writer| {
        let payload = out.absorb(payload);
        out.u16(id);
        out.u16(flags);
        out.len32(payload.len(), section_name(id));
        out.bytes(&payload);
    };
    section(&mut out, HEADER, REQUIRED, encode_header(&replay.header));
    let definitions = encode_definitions(&replay.definitions);
    section(&mut out, DEFINITIONS, REQUIRED, definitions);
    let dt = encode_runs(&replay.dt, |w, v| w.f64(v));
    section(&mut out, DT, REQUIRED, dt);
    section(&mut out, INPUTS, REQUIRED, encode_inputs(&replay.cars));
    section(&mut out, LOD, REQUIRED, encode_lods(&replay.cars));
    section(&mut out, SURFACES, REQUIRED, encode_surfaces(&replay.cars));
    let keyframes = encode_keyframes(&replay.keyframes);
    section(&mut out, KEYFRAMES, REQUIRED, keyframes);
    if let Some(ghosts) = &replay.ghosts {
        section(&mut out, GHOSTS, 0, encode_ghosts(ghosts));
    }
    if replay.cars.iter().any(|c| c.removed_at.is_some()) {
        section(&mut out, REMOVALS, REQUIRED, encode_removals(&replay.cars));
    }
    if has_resets(&replay.cars) {
        section(&mut out, RESETS, REQUIRED, encode_resets(&replay.cars));
    }
    if let Some(ground) = &replay.ground {
        section(&mut out, GROUND, 0, encode_ground(ground));
    }
    if has_arrivals(&replay.cars) {
        section(&mut out, ARRIVALS, REQUIRED, encode_arrivals(&replay.cars));
    }
    if !replay.rewinds.is_empty() {
        section(&mut out, REWINDS, REQUIRED, encode_rewinds(&replay.rewinds));
    }
    section(&mut out, END, REQUIRED, Writer::default());
    let checksum = blake3::hash(&out.buf);
    out.bytes(checksum.as_bytes());
    out.done()
}

/// Encodes a replay and gzips it (`.skr.gz`).
pub fn encode_replay_gzip(replay: &Replay) -> Result<Vec<u8>> {
    Ok(gzip(&encode_replay(replay)?))
}

/// Decodes replay bytes, plain or gzip (detected by its magic), within the
/// default [`Limits`].
pub fn decode_replay(bytes: &[u8]) -> Result<Replay> {
    decode_replay_with(bytes, &Limits::default())
}

/// Decodes replay bytes within `limits`: every declared size (cars, steps,
/// substeps, metadata, keyframe state, decoded memory) is checked as soon
/// as it is read, before anything proportional to it is allocated. Peak
/// memory is the input plus at most `limits.max_decoded_bytes` plus a small
/// multiple of the input's uncompressed sections.
pub fn decode_replay_with(bytes: &[u8], limits: &Limits) -> Result<Replay> {
    if is_gzip(bytes) {
        let max = usize::try_from(limits.max_decoded_bytes).unwrap_or(usize::MAX);
        let plain = gunzip(bytes, max)?;
        return decode_plain(&plain, limits, plain.len() as u64);
    }
    decode_plain(bytes, limits, 0)
}

/// When each car was in the recording: from its arrival (section 12; 0
/// for a car there from the start) to its removal (section 9; the last
/// step for a car never removed).
struct Presence {
    arrivals: Vec<Option<CarArrival>>,
    removals: Vec<Option<u64>>,
    /// Per car, the steps `start..end` it took part in.
    spans: Vec<(u64, u64)>,
}

impl Presence {
    /// How many steps each car took part in.
    fn car_steps(&self) -> Vec<u64> {
        self.spans.iter().map(|&(start, end)| end - start).collect()
    }

    /// Whether car `car` is in the world at `step` (at a keyframe there),
    /// as [`CarTrack::present_at`] says.
    fn present_at(&self, car: usize, step: u64) -> bool {
        self.spans[car].0 <= step && self.removals[car].is_none_or(|r| step < r)
    }
}

/// Each car's arrival and removal (sections 12 and 9) and the steps it
/// took part in; a car removed before it arrived is refused. The header's
/// car count must have passed [`Limits::check_header`].
fn presence(sections: &mut Sections<'_>, header: &ReplayHeader) -> Result<Presence> {
    let removals = match sections.take(REMOVALS) {
        Some(r) => decode_removals(r, header)?,
        None => vec![None; header.car_count as usize],
    };
    let arrivals = match sections.take(ARRIVALS) {
        Some(r) => decode_arrivals(r, header)?,
        None => vec![None; header.car_count as usize],
    };
    let mut spans = Vec::with_capacity(removals.len());
    for (car, (removal, arrival)) in removals.iter().zip(&arrivals).enumerate() {
        let start = arrival.as_ref().map_or(0, |a| a.step);
        let end = removal.unwrap_or(header.step_count);
        if end < start {
            return Err(ReplayError::Decode {
                section: "removals",
                offset: 0,
                reason: format!("car {car} is removed at step {end}, before it arrives at {start}"),
            });
        }
        spans.push((start, end));
    }
    Ok(Presence {
        arrivals,
        removals,
        spans,
    })
}

/// A plain replay's format version and its sections' bytes (between the
/// preamble and the checksum), once the preamble, the length and the
/// checksum hold.
fn checked_body(bytes: &[u8]) -> Result<(u16, &[u8])> {
    let format = check_preamble(bytes)?;
    if bytes.len() < PREAMBLE + SECTION_HEADER + CHECKSUM {
        return Err(ReplayError::Decode {
            section: "file",
            offset: bytes.len(),
            reason: "too short for a replay".into(),
        });
    }
    let body_end = bytes.len() - CHECKSUM;
    if blake3::hash(&bytes[..body_end]).as_bytes() != &bytes[body_end..] {
        return Err(ReplayError::Decode {
            section: "file",
            offset: body_end,
            reason: checksum_failure(bytes),
        });
    }
    Ok((format, &bytes[PREAMBLE..body_end]))
}

/// Reads only the header: versions, counts, world settings and metadata,
/// without decoding (or checksumming) the body. Works on gzip too, inflating
/// only the first bytes.
pub fn read_replay_header(bytes: &[u8]) -> Result<ReplayHeader> {
    if is_gzip(bytes) {
        let prefix = gunzip_prefix(bytes, PREAMBLE + SECTION_HEADER)?;
        let length = header_section_length(&prefix)?;
        let all = gunzip_prefix(bytes, PREAMBLE + SECTION_HEADER + length)?;
        return parse_header_only(&all);
    }
    parse_header_only(bytes)
}

/// The replay's preamble; its format version.
fn check_preamble(bytes: &[u8]) -> Result<u16> {
    check_preamble_of(bytes, MAGIC, 1..=FORMAT_VERSION, "replay")
}

/// Magic, format version and zero flags: the first 8 bytes of a replay
/// or a stream (`what`). Returns the version, one of `versions`.
fn check_preamble_of(
    bytes: &[u8],
    magic: &[u8; 4],
    versions: RangeInclusive<u16>,
    what: &str,
) -> Result<u16> {
    let mut r = Reader::new(bytes, 0, "preamble");
    if r.take(4)? != magic {
        return Err(r.error(format!("bad magic: not a skidpad {what}")));
    }
    let found = r.u16()?;
    if !versions.contains(&found) {
        return Err(ReplayError::FormatVersion {
            expected: *versions.end(),
            found,
        });
    }
    if r.u16()? != 0 {
        return Err(r.error(format!("unknown {what} flags")));
    }
    Ok(found)
}

/// `held` is what the caller already holds for this decode (the gunzipped
/// file), counted against the memory limit.
fn decode_plain(bytes: &[u8], limits: &Limits, held: u64) -> Result<Replay> {
    let (format, body) = checked_body(bytes)?;
    let level = CanonicalLevel::of_format(format);
    let mut sections = Sections::read(body)?;
    let mut header_r = sections.require(HEADER)?;
    let header = decode_header(&mut header_r)?;
    // The body's layout (snapshot size, definition schema) is that of the
    // simulation version that recorded it: another version is refused with
    // the version error instead of being misread.
    header.check_simulation_version()?;
    limits.check_header(&header)?;
    let presence = presence(&mut sections, &header)?;
    let car_steps = presence.car_steps();
    let mut defs_r = sections.require(DEFINITIONS)?;
    let definitions = decode_definitions(&mut defs_r, header.car_count)?;
    let mut dt_r = sections.require(DT)?;
    let dt = decode_runs(&mut dt_r, |r| {
        let v = r.f64()?;
        if !(v.is_finite() && v > 0.0 && v <= skidpad_core::MAX_TIMESTEP) {
            return Err(r.error(format!("dt {v} outside (0, 0.25]")));
        }
        Ok(v)
    })?;
    check_len(&dt_r, dt.len(), header.step_count, "dt")?;
    let lod_r = sections.require(LOD)?;
    let lods = decode_lods(lod_r, &car_steps)?;
    // Everything the rest costs follows from what is read so far: check
    // the simulation work and the memory before inflating anything.
    let rates = definition_rates(&definitions, lods.len());
    limits.check_work(&Work::of(&dt, &lods.iter().collect::<Vec<_>>(), &rates))?;
    let mut inputs_r = sections.require(INPUTS)?;
    let mut keyframes_r = sections.require(KEYFRAMES)?;
    // A carried ground decodes to about its own size (f64s and u32s as
    // they are; surfaces one byte each).
    let ground_r = sections.take(GROUND);
    let ground_decoded = ground_r.as_ref().map_or(0, |g| g.remaining() as u64);
    let inputs_raw = inputs_raw_len(&mut inputs_r, &car_steps)?;
    let keyframes_raw = keyframes_raw_len(&mut keyframes_r, &header, &presence, limits)?;
    let decoded = car_steps
        .iter()
        .fold(0_u64, |sum, &n| sum.saturating_add(n))
        .saturating_mul(std::mem::size_of::<CarInput>() as u64)
        .saturating_add(
            header
                .keyframe_count()
                .saturating_mul(keyframe_bytes(u64::from(header.car_count))),
        )
        .saturating_add(keyframes_raw as u64);
    limits.check_memory(
        held.saturating_add(inputs_raw as u64)
            .saturating_add(keyframes_raw as u64)
            .saturating_add(decoded)
            .saturating_add(ground_decoded),
    )?;
    let inputs = decode_inputs(inputs_r, inputs_raw, level, &car_steps)?;
    let surfaces_r = sections.require(SURFACES)?;
    let surfaces = decode_surfaces(surfaces_r, &header, &car_steps)?;
    let keyframes = decode_keyframes(keyframes_r, keyframes_raw, level, &header, &presence)?;
    let ghosts = sections
        .take(GHOSTS)
        .map(|g| decode_ghosts(g, header.car_count))
        .transpose()?;

    let resets = match sections.take(RESETS) {
        Some(r) => decode_resets(r, &presence.spans)?,
        None => vec![Vec::new(); car_steps.len()],
    };
    let ground = ground_r.map(decode_ground).transpose()?;
    let rewinds = sections
        .take(REWINDS)
        .map(|r| decode_rewinds(r, header.step_count))
        .transpose()?
        .unwrap_or_default();

    let cars = inputs
        .into_iter()
        .zip(lods)
        .zip(surfaces)
        .zip(presence.removals)
        .zip(presence.arrivals)
        .zip(resets)
        .map(
            |(((((inputs, lod), surfaces), removed_at), arrival), resets)| CarTrack {
                inputs,
                lod,
                surfaces,
                removed_at,
                arrival,
                resets,
            },
        )
        .collect();
    Ok(Replay {
        header,
        definitions,
        dt,
        cars,
        keyframes,
        ghosts,
        ground,
        rewinds,
    })
}
