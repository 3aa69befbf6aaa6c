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

mod bytes;
mod compress;
mod inputs;
mod kind;
mod stream;

use skidpad_core::{
    CarDefinition, CarId, CarInput, Lod, LodSetting, SNAPSHOT_LEN, SurfaceId, SurfaceTable,
    combine_world_hash,
};
use skidpad_ghost::{decode_ghost, encode_ghost};

pub use compress::{MAX_DECOMPRESSED, gunzip, gzip, is_gzip};
pub use kind::FileKind;
pub use stream::{
    STREAM_FORMAT_VERSION, StreamContents, StreamPieceKind, StreamSplitter, encode_stream,
    read_stream, read_stream_chunk, read_stream_header,
};
pub(crate) use stream::{chunk_record, end_record, header_record, preamble as stream_preamble};

use self::bytes::{Reader, Writer};
use self::compress::{deflate, gunzip_prefix, inflate};
use crate::limits::{Limits, Work, definition_rates, keyframe_bytes};
use crate::replay::{CarKeyframe, CarTrack, Keyframe, Replay, ReplayHeader};
use crate::runs::Runs;
use crate::{ReplayError, Result};

/// The first four bytes of every plain `.skr` replay.
pub const MAGIC: &[u8; 4] = b"SKRP";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u16 = 1;
const PREAMBLE: usize = 8;
const SECTION_HEADER: usize = 8;
const CHECKSUM: usize = 32;
const REQUIRED: u16 = 1;

const END: u16 = 0;
const HEADER: u16 = 1;
const DEFINITIONS: u16 = 2;
const DT: u16 = 3;
const INPUTS: u16 = 4;
const LOD: u16 = 5;
const SURFACES: u16 = 6;
const KEYFRAMES: u16 = 7;
const GHOSTS: u16 = 8;
const REMOVALS: u16 = 9;

/// Longest header section accepted by the header-only reader, bytes.
const MAX_HEADER: usize = 1 << 20;

fn section_name(id: u16) -> &'static str {
    match id {
        HEADER => "header",
        DEFINITIONS => "definitions",
        DT => "dt",
        INPUTS => "inputs",
        LOD => "lod",
        SURFACES => "surfaces",
        KEYFRAMES => "keyframes",
        GHOSTS => "ghosts",
        REMOVALS => "removals",
        _ => "unknown",
    }
}

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
        let mut w = Writer::default();
        w.len32(ghosts.len(), "ghosts");
        for (i, g) in ghosts.iter().enumerate() {
            match encode_ghost(g) {
                Ok(bytes) => w.blob(&bytes, "ghost"),
                Err(e) => w.fail(format!("ghost {i}: {e}")),
            }
        }
        section(&mut out, GHOSTS, 0, w);
    }
    if replay.cars.iter().any(|c| c.removed_at.is_some()) {
        section(&mut out, REMOVALS, REQUIRED, encode_removals(&replay.cars));
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

fn check_preamble(bytes: &[u8]) -> Result<()> {
    check_preamble_of(bytes, MAGIC, FORMAT_VERSION, "replay")
}

/// Magic, format version and zero flags: the first 8 bytes of a replay
/// or a stream (`what`).
fn check_preamble_of(bytes: &[u8], magic: &[u8; 4], version: u16, what: &str) -> Result<()> {
    let mut r = Reader::new(bytes, 0, "preamble");
    if r.take(4)? != magic {
        return Err(r.error(format!("bad magic: not a skidpad {what}")));
    }
    let found = r.u16()?;
    if found != version {
        return Err(ReplayError::FormatVersion {
            expected: version,
            found,
        });
    }
    if r.u16()? != 0 {
        return Err(r.error(format!("unknown {what} flags")));
    }
    Ok(())
}

fn header_section_length(bytes: &[u8]) -> Result<usize> {
    check_preamble(bytes)?;
    let mut r = Reader::new(&bytes[PREAMBLE..], PREAMBLE, "header");
    if r.u16()? != HEADER {
        return Err(r.error("the first section is not the header"));
    }
    r.u16()?;
    let length = r.u32()? as usize;
    if length > MAX_HEADER {
        return Err(r.error(format!("header of {length} bytes exceeds {MAX_HEADER}")));
    }
    Ok(length)
}

fn parse_header_only(bytes: &[u8]) -> Result<ReplayHeader> {
    let length = header_section_length(bytes)?;
    let start = PREAMBLE + SECTION_HEADER;
    let payload = bytes
        .get(start..start + length)
        .ok_or_else(|| ReplayError::Decode {
            section: "header",
            offset: bytes.len(),
            reason: "file ends inside the header".into(),
        })?;
    decode_header(&mut Reader::new(payload, start, "header"))
}

/// What a failed checksum most likely means, from the section lengths
/// (read without trusting them): a file cut short, bytes after the end, or
/// the same length with altered content.
fn checksum_failure(bytes: &[u8]) -> String {
    let len = bytes.len();
    let mut at = PREAMBLE;
    let declared = loop {
        let Some(header) = bytes.get(at..at + SECTION_HEADER) else {
            break None;
        };
        let id = u16::from_le_bytes([header[0], header[1]]);
        let length = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
        at = at
            .saturating_add(SECTION_HEADER)
            .saturating_add(length as usize);
        if id == END {
            break Some(at.saturating_add(CHECKSUM));
        }
    };
    match declared {
        Some(expected) if expected == len => format!(
            "checksum mismatch: the file has the {len} bytes its sections declare, but its content was altered"
        ),
        Some(expected) if expected < len => format!(
            "checksum mismatch: the sections declare {expected} bytes, the file has {len} ({} extra bytes at the end)",
            len - expected
        ),
        Some(expected) => format!(
            "checksum mismatch: the file is truncated ({len} bytes, its sections declare {expected})"
        ),
        // The sections run past the end; an end section and the checksum
        // would follow them.
        None => format!(
            "checksum mismatch: the file is truncated ({len} bytes, its sections declare at least {})",
            at.saturating_add(SECTION_HEADER + CHECKSUM)
        ),
    }
}

/// `held` is what the caller already holds for this decode (the gunzipped
/// file), counted against the memory limit.
fn decode_plain(bytes: &[u8], limits: &Limits, held: u64) -> Result<Replay> {
    check_preamble(bytes)?;
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

    let mut r = Reader::new(&bytes[PREAMBLE..body_end], PREAMBLE, "sections");
    let mut sections: Vec<(u16, Reader<'_>)> = Vec::new();
    loop {
        let id = r.u16()?;
        let flags = r.u16()?;
        if flags & !REQUIRED != 0 {
            return Err(r.error(format!("section {id}: unknown flags {flags:#x}")));
        }
        let length = r.u32()? as usize;
        let base = r.offset();
        let payload = r.take(length)?;
        if id == END {
            if length != 0 || flags != REQUIRED {
                return Err(r.error("malformed end section"));
            }
            break;
        }
        if sections.last().is_some_and(|(last, _)| *last >= id) {
            return Err(r.error(format!("section {id} out of order")));
        }
        let known = id <= REMOVALS;
        let required_flag = flags & REQUIRED != 0;
        if known && required_flag != (id != GHOSTS) {
            return Err(r.error(format!(
                "section {} has the wrong required flag",
                section_name(id)
            )));
        }
        match (known, required_flag) {
            (true, _) => sections.push((id, Reader::new(payload, base, section_name(id)))),
            (false, true) => {
                return Err(r.error(format!(
                    "unknown required section {id}: written by a newer format"
                )));
            }
            (false, false) => {} // an optional section from a newer writer
        }
    }
    r.finish()?;

    let mut take = |id: u16| -> Result<Option<Reader<'_>>> {
        Ok(sections
            .iter()
            .position(|(s, _)| *s == id)
            .map(|i| sections.remove(i).1))
    };
    let missing = |id: u16| ReplayError::Decode {
        section: section_name(id),
        offset: PREAMBLE,
        reason: "required section missing".into(),
    };
    let mut header_r = take(HEADER)?.ok_or_else(|| missing(HEADER))?;
    let header = decode_header(&mut header_r)?;
    // The body's layout (snapshot size, definition schema) is that of the
    // simulation version that recorded it: another version is refused with
    // the version error instead of being misread.
    header.check_simulation_version()?;
    limits.check_header(&header)?;
    let removals = match take(REMOVALS)? {
        Some(r) => decode_removals(r, &header)?,
        None => vec![None; header.car_count as usize],
    };
    let car_steps: Vec<u64> = removals
        .iter()
        .map(|r| r.unwrap_or(header.step_count))
        .collect();
    let mut defs_r = take(DEFINITIONS)?.ok_or_else(|| missing(DEFINITIONS))?;
    let definitions = decode_definitions(&mut defs_r, header.car_count)?;
    let mut dt_r = take(DT)?.ok_or_else(|| missing(DT))?;
    let dt = decode_runs(&mut dt_r, |r| {
        let v = r.f64()?;
        if !(v.is_finite() && v > 0.0 && v <= skidpad_core::MAX_TIMESTEP) {
            return Err(r.error(format!("dt {v} outside (0, 0.25]")));
        }
        Ok(v)
    })?;
    check_len(&dt_r, dt.len(), header.step_count, "dt")?;
    let lod_r = take(LOD)?.ok_or_else(|| missing(LOD))?;
    let lods = decode_lods(lod_r, &car_steps)?;
    // Everything the rest costs follows from what is read so far: check
    // the simulation work and the memory before inflating anything.
    let rates = definition_rates(&definitions, lods.len());
    limits.check_work(&Work::of(&dt, &lods.iter().collect::<Vec<_>>(), &rates))?;
    let mut inputs_r = take(INPUTS)?.ok_or_else(|| missing(INPUTS))?;
    let mut keyframes_r = take(KEYFRAMES)?.ok_or_else(|| missing(KEYFRAMES))?;
    let inputs_raw = inputs_raw_len(&mut inputs_r, &car_steps)?;
    let keyframes_raw = keyframes_raw_len(&mut keyframes_r, &header, &removals, limits)?;
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
            .saturating_add(decoded),
    )?;
    let inputs = decode_inputs(inputs_r, inputs_raw, &car_steps)?;
    let surfaces_r = take(SURFACES)?.ok_or_else(|| missing(SURFACES))?;
    let surfaces = decode_surfaces(surfaces_r, &header, &car_steps)?;
    let keyframes = decode_keyframes(keyframes_r, keyframes_raw, &header, &removals)?;
    let ghosts = match take(GHOSTS)? {
        Some(mut g) => {
            let n = g.count(4, "ghosts")?;
            if n != header.car_count as usize {
                return Err(g.error(format!("{n} ghosts for {} cars", header.car_count)));
            }
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                let at = g.offset();
                let blob = g.blob()?;
                out.push(
                    decode_ghost(blob).map_err(|source| ReplayError::EmbeddedGhost {
                        index: out.len(),
                        offset: at,
                        source,
                    })?,
                );
            }
            g.finish()?;
            Some(out)
        }
        None => None,
    };

    let cars = inputs
        .into_iter()
        .zip(lods)
        .zip(surfaces)
        .zip(removals)
        .map(|(((inputs, lod), surfaces), removed_at)| CarTrack {
            inputs,
            lod,
            surfaces,
            removed_at,
        })
        .collect();
    Ok(Replay {
        header,
        definitions,
        dt,
        cars,
        keyframes,
        ghosts,
    })
}

fn check_len(r: &Reader<'_>, got: u64, expected: u64, what: &str) -> Result<()> {
    if got != expected {
        return Err(r.error(format!(
            "{what} covers {got} steps, the header says {expected}"
        )));
    }
    Ok(())
}

fn decode_str<'a>(r: &mut Reader<'a>, len: usize) -> Result<&'a str> {
    let at = r.offset();
    let raw = r.take(len)?;
    std::str::from_utf8(raw).map_err(|_| ReplayError::Decode {
        section: r.section,
        offset: at,
        reason: "text is not UTF-8".into(),
    })
}

fn encode_header(h: &ReplayHeader) -> Writer {
    let mut w = Writer::default();
    w.str16(&h.core_version, "core version");
    w.u32(h.simulation_version);
    w.u32(h.car_count);
    w.u64(h.step_count);
    w.u32(h.keyframe_every);
    w.u64(h.start_step);
    w.f64(h.gravity);
    w.f64(h.air_density);
    w.blob(surfaces_json(&h.surfaces).as_bytes(), "surface table");
    w.len32(h.metadata.len(), "metadata entries");
    for (k, v) in &h.metadata {
        w.str16(k, "metadata key");
        w.blob(v.as_bytes(), "metadata value");
    }
    for car in &h.source_cars {
        w.u32(car.to_raw());
    }
    if w.buf.len() > MAX_HEADER {
        let len = w.buf.len();
        w.fail(format!(
            "the header is {len} bytes, more than the {MAX_HEADER} a reader accepts"
        ));
    }
    w
}

fn surfaces_json(table: &SurfaceTable) -> String {
    serde_json::to_string(table).unwrap_or_default()
}

fn decode_header(r: &mut Reader<'_>) -> Result<ReplayHeader> {
    let len = usize::from(r.u16()?);
    let core_version = decode_str(r, len)?.to_owned();
    let simulation_version = r.u32()?;
    let car_count = r.u32()?;
    let step_count = r.u64()?;
    let keyframe_every = r.u32()?;
    if keyframe_every == 0 {
        return Err(r.error("keyframe interval 0"));
    }
    let start_step = r.u64()?;
    let gravity = r.f64()?;
    let air_density = r.f64()?;
    let json_len = r.u32()? as usize;
    let json_at = r.offset();
    let json = decode_str(r, json_len)?;
    // Deserialising validates the table as `SurfaceTable::new` does.
    let surfaces: SurfaceTable = serde_json::from_str(json).map_err(|e| ReplayError::Decode {
        section: "header",
        offset: json_at,
        reason: format!("invalid surface table: {e}"),
    })?;
    if surfaces_json(&surfaces) != json {
        return Err(r.error("surface table JSON is not in canonical form"));
    }
    let n = r.count(6, "metadata entries")?;
    let mut metadata = Vec::with_capacity(n);
    for _ in 0..n {
        let klen = usize::from(r.u16()?);
        let key = decode_str(r, klen)?.to_owned();
        let vlen = r.u32()? as usize;
        let value = decode_str(r, vlen)?.to_owned();
        metadata.push((key, value));
    }
    let n = car_count as usize;
    if n.saturating_mul(4) != r.remaining() {
        return Err(r.error(format!("expected {n} source car ids to end the header")));
    }
    let source_cars = (0..n)
        .map(|_| r.u32().map(CarId::from_raw))
        .collect::<Result<Vec<_>>>()?;
    r.finish()?;
    Ok(ReplayHeader {
        core_version,
        simulation_version,
        car_count,
        step_count,
        keyframe_every,
        start_step,
        gravity,
        air_density,
        surfaces,
        metadata,
        source_cars,
    })
}

fn definition_json(def: &CarDefinition) -> String {
    serde_json::to_string(def).unwrap_or_default()
}

fn encode_definitions(defs: &[CarDefinition]) -> Writer {
    let mut w = Writer::default();
    w.len32(defs.len(), "definitions");
    for d in defs {
        w.blob(definition_json(d).as_bytes(), "definition");
    }
    w
}

fn decode_definitions(r: &mut Reader<'_>, car_count: u32) -> Result<Vec<CarDefinition>> {
    let n = r.count(4, "definitions")?;
    if n != 0 && n != car_count as usize {
        return Err(r.error(format!("{n} definitions for {car_count} cars")));
    }
    let mut defs = Vec::with_capacity(n);
    for i in 0..n {
        let len = r.u32()? as usize;
        let at = r.offset();
        let json = decode_str(r, len)?;
        let def = CarDefinition::from_json(json).map_err(|e| ReplayError::Decode {
            section: "definitions",
            offset: at,
            reason: format!("car {i}: {e}"),
        })?;
        if definition_json(&def) != json {
            return Err(r.error(format!("car {i}: definition JSON is not in canonical form")));
        }
        defs.push(def);
    }
    r.finish()?;
    Ok(defs)
}

fn encode_runs<T: Copy + PartialEq>(runs: &Runs<T>, put: impl Fn(&mut Writer, T)) -> Writer {
    let mut w = Writer::default();
    put_runs(&mut w, runs, put);
    w
}

fn put_runs<T: Copy + PartialEq>(w: &mut Writer, runs: &Runs<T>, put: impl Fn(&mut Writer, T)) {
    w.len32(runs.run_count(), "runs");
    for (length, value) in runs.runs() {
        w.varint(length);
        put(w, value);
    }
}

fn decode_runs<T: Copy + PartialEq>(
    r: &mut Reader<'_>,
    get: impl Fn(&mut Reader<'_>) -> Result<T>,
) -> Result<Runs<T>> {
    let n = r.count(2, "runs")?;
    let mut items = Vec::with_capacity(n);
    for _ in 0..n {
        let length = r.varint()?;
        items.push((length, get(r)?));
    }
    Runs::from_runs(items).map_err(|e| r.error(e))
}

fn encode_inputs(cars: &[CarTrack]) -> Writer {
    let mut raw = Writer::default();
    for car in cars {
        inputs::encode_car(&car.inputs, &mut raw);
    }
    deflated_section(raw)
}

/// The inputs section's declared inflated length, checked against what
/// the cars' steps (`car_steps`, per car) can need: each of a car-step's
/// six tokens takes one to ten bytes, so anything outside that range is
/// refused before inflating.
fn inputs_raw_len(r: &mut Reader<'_>, car_steps: &[u64]) -> Result<usize> {
    let raw_len = r.u64()?;
    let tokens = car_steps
        .iter()
        .fold(0_u64, |sum, &n| sum.saturating_add(n))
        .saturating_mul(6);
    if raw_len < tokens || raw_len > tokens.saturating_mul(10) {
        return Err(r.error(format!(
            "declares {raw_len} inflated bytes for {tokens} input tokens"
        )));
    }
    usize::try_from(raw_len).map_err(|_| r.error("inputs too large"))
}

fn decode_inputs(
    mut r: Reader<'_>,
    raw_len: usize,
    car_steps: &[u64],
) -> Result<Vec<Vec<CarInput>>> {
    let at = r.offset();
    let compressed = r.take(r.remaining())?;
    let raw = inflate(compressed, raw_len, "inputs", at)?;
    let mut t = Reader::new(&raw, at, "inputs (inflated)");
    let mut cars = Vec::new();
    for &steps in car_steps {
        let steps = usize::try_from(steps).map_err(|_| t.error("too many steps"))?;
        cars.push(inputs::decode_car(&mut t, steps)?);
    }
    t.finish()?;
    Ok(cars)
}

fn put_lod(w: &mut Writer, lod: LodSetting) {
    w.u8(lod.level.code());
    w.f64(lod.substep_rate.unwrap_or(0.0));
}

fn encode_lods(cars: &[CarTrack]) -> Writer {
    let mut w = Writer::default();
    for car in cars {
        put_runs(&mut w, &car.lod, put_lod);
    }
    w
}

fn decode_lods(mut r: Reader<'_>, car_steps: &[u64]) -> Result<Vec<Runs<LodSetting>>> {
    let mut out = Vec::new();
    for &steps in car_steps {
        let runs = decode_runs(&mut r, |r| {
            let level = Lod::from_code(r.u8()?).map_err(|e| r.error(e.to_string()))?;
            let rate = r.f64()?;
            if rate.to_bits() == (-0.0_f64).to_bits() {
                return Err(r.error("negative zero rate: not canonical"));
            }
            LodSetting {
                level,
                substep_rate: (rate != 0.0).then_some(rate),
            }
            .validated()
            .map_err(|e| r.error(e.to_string()))
        })?;
        check_len(&r, runs.len(), steps, "lod")?;
        out.push(runs);
    }
    r.finish()?;
    Ok(out)
}

fn encode_surfaces(cars: &[CarTrack]) -> Writer {
    let mut w = Writer::default();
    for car in cars {
        for wheel in &car.surfaces {
            put_runs(&mut w, wheel, |w, s| w.u8(s.0));
        }
    }
    w
}

fn decode_surfaces(
    mut r: Reader<'_>,
    header: &ReplayHeader,
    car_steps: &[u64],
) -> Result<Vec<[Runs<SurfaceId>; 4]>> {
    let count = header.surfaces.surfaces().len();
    let mut out = Vec::new();
    for &steps in car_steps {
        let mut wheels: [Runs<SurfaceId>; 4] = Default::default();
        for wheel in &mut wheels {
            *wheel = decode_runs(&mut r, |r| {
                let id = r.u8()?;
                if usize::from(id) >= count {
                    return Err(
                        r.error(format!("surface id {id} not in the {count}-surface table"))
                    );
                }
                Ok(SurfaceId(id))
            })?;
            check_len(&r, wheel.len(), steps, "surfaces")?;
        }
        out.push(wheels);
    }
    r.finish()?;
    Ok(out)
}

fn encode_keyframes(keyframes: &[Keyframe]) -> Writer {
    let mut raw = Writer::default();
    raw.len32(keyframes.len(), "keyframes");
    // Car and world hashes are not stored: they are blake3 of the snapshot
    // bytes and of the step plus those hashes, recomputed on decoding.
    for k in keyframes {
        raw.u64(k.step);
        raw.blob(&k.game_state, "keyframe state");
        for car in &k.cars {
            raw.bytes(&car.snapshot);
        }
    }
    deflated_section(raw)
}

/// A deflated section: the inflated length, then the deflate stream.
fn deflated_section(raw: Writer) -> Writer {
    let mut w = Writer::default();
    let raw = w.absorb(raw);
    w.u64(raw.len() as u64);
    w.bytes(&deflate(&raw));
    w
}

/// The keyframes section's declared inflated length. Its layout is fixed
/// but for the game-state blobs, so the game-state total is known here and
/// checked against the limit before anything is inflated.
fn keyframes_raw_len(
    r: &mut Reader<'_>,
    header: &ReplayHeader,
    removals: &[Option<u64>],
    limits: &Limits,
) -> Result<usize> {
    let raw_len = r.u64()?;
    let fixed = header
        .keyframe_count()
        .saturating_mul(8 + 4)
        .saturating_add(keyframe_snapshots(header, removals).saturating_mul(SNAPSHOT_LEN as u64))
        .saturating_add(4);
    let state = raw_len.checked_sub(fixed).ok_or_else(|| {
        r.error(format!(
            "declares {raw_len} inflated bytes, the keyframes alone need {fixed}"
        ))
    })?;
    limits.check_keyframe_state(state)?;
    usize::try_from(raw_len).map_err(|_| r.error("keyframes too large"))
}

/// How many car snapshots the keyframes hold in all: each car's at every
/// keyframe before its removal. Keyframe `i` is at `min(i·k, s)`, so a
/// car removed at `r ≤ s` is missing from the last `K − ⌈r/k⌉`.
fn keyframe_snapshots(header: &ReplayHeader, removals: &[Option<u64>]) -> u64 {
    let count = header.keyframe_count();
    let every = u64::from(header.keyframe_every.max(1));
    let missing = removals
        .iter()
        .flatten()
        .map(|&r| count.saturating_sub(r.div_ceil(every)))
        .fold(0_u64, u64::saturating_add);
    count
        .saturating_mul(u64::from(header.car_count))
        .saturating_sub(missing)
}

fn decode_keyframes(
    mut r: Reader<'_>,
    raw_len: usize,
    header: &ReplayHeader,
    removals: &[Option<u64>],
) -> Result<Vec<Keyframe>> {
    let at = r.offset();
    let compressed = r.take(r.remaining())?;
    let raw = inflate(compressed, raw_len, "keyframes", at)?;
    let mut k = Reader::new(&raw, at, "keyframes (inflated)");
    // Removal steps in rising order: keyframe steps rise, so the cars
    // present at each are the count minus the removals passed so far.
    let mut removal_steps: Vec<u64> = removals.iter().flatten().copied().collect();
    removal_steps.sort_unstable();
    let mut removed = 0;
    let n = k.count(8 + 4, "keyframes")?;
    let expected = header.keyframe_count();
    if n as u64 != expected {
        return Err(k.error(format!("{n} keyframes, the header implies {expected}")));
    }
    let every = u64::from(header.keyframe_every);
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let step = k.u64()?;
        let want = (i as u64 * every).min(header.step_count);
        if step != want {
            return Err(k.error(format!("keyframe {i} is at step {step}, expected {want}")));
        }
        let game_state = k.blob()?.to_vec();
        while removal_steps.get(removed).is_some_and(|&r| r <= step) {
            removed += 1;
        }
        let cars = header.car_count as usize - removed;
        let mut car_frames = Vec::with_capacity(cars);
        for _ in 0..cars {
            let snapshot = k.take(SNAPSHOT_LEN)?.to_vec();
            let hash = *blake3::hash(&snapshot).as_bytes();
            car_frames.push(CarKeyframe { snapshot, hash });
        }
        let world_hash = combine_world_hash(
            header.start_step.saturating_add(step),
            car_frames.iter().map(|c| c.hash),
        );
        out.push(Keyframe {
            step,
            world_hash,
            cars: car_frames,
            game_state,
        });
    }
    k.finish()?;
    Ok(out)
}

/// Section 9: the cars removed during the recording, by rising playback
/// index, each with the step it was removed at.
fn encode_removals(cars: &[CarTrack]) -> Writer {
    let mut w = Writer::default();
    let removed: Vec<(usize, u64)> = cars
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.removed_at.map(|r| (i, r)))
        .collect();
    w.len32(removed.len(), "removals");
    for (car, step) in removed {
        w.len32(car, "removed car");
        w.u64(step);
    }
    w
}

/// Per car, the step it was removed at: at least one removal, cars in
/// rising order, each within the replay's cars and steps.
fn decode_removals(mut r: Reader<'_>, header: &ReplayHeader) -> Result<Vec<Option<u64>>> {
    let n = r.count(12, "removals")?;
    if n == 0 {
        return Err(r.error("a removals section with no removal: not canonical"));
    }
    let mut out = vec![None; header.car_count as usize];
    let mut last = None;
    for _ in 0..n {
        let car = r.u32()? as usize;
        let step = r.u64()?;
        if last.is_some_and(|l| car <= l) {
            return Err(r.error(format!("removed car {car} out of order")));
        }
        if step > header.step_count {
            return Err(r.error(format!(
                "car {car} removed at step {step}, after the last step {}",
                header.step_count
            )));
        }
        *out.get_mut(car)
            .ok_or_else(|| r.error(format!("removed car {car} of {}", header.car_count)))? =
            Some(step);
        last = Some(car);
    }
    r.finish()?;
    Ok(out)
}
