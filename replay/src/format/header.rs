//! The `header` and `definitions` sections: the header (versions, counts,
//! world settings, metadata) is first so it reads alone; definitions are
//! canonical JSON, one per car.

use skidpad_core::{CarDefinition, CarId, SurfaceTable};

use super::bytes::{Reader, Writer};
use super::sections::HEADER;
use super::{PREAMBLE, SECTION_HEADER, check_preamble};
use crate::replay::ReplayHeader;
use crate::{ReplayError, Result};

/// Longest header section accepted by the header-only reader, bytes.
pub(super) const MAX_HEADER: usize = 1 << 20;

pub(super) fn header_section_length(bytes: &[u8]) -> Result<usize> {
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

pub(super) fn parse_header_only(bytes: &[u8]) -> Result<ReplayHeader> {
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

pub(super) fn check_len(r: &Reader<'_>, got: u64, expected: u64, what: &str) -> Result<()> {
    if got != expected {
        return Err(r.error(format!(
            "{what} covers {got} steps, the header says {expected}"
        )));
    }
    Ok(())
}

pub(super) fn decode_str<'a>(r: &mut Reader<'a>, len: usize) -> Result<&'a str> {
    let at = r.offset();
    let raw = r.take(len)?;
    std::str::from_utf8(raw).map_err(|_| ReplayError::Decode {
        section: r.section,
        offset: at,
        reason: "text is not UTF-8".into(),
    })
}

pub(super) fn encode_header(h: &ReplayHeader) -> Writer {
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

pub(super) fn surfaces_json(table: &SurfaceTable) -> String {
    serde_json::to_string(table).unwrap_or_default()
}

pub(super) fn decode_header(r: &mut Reader<'_>) -> Result<ReplayHeader> {
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

pub(super) fn definition_json(def: &CarDefinition) -> String {
    serde_json::to_string(def).unwrap_or_default()
}

pub(super) fn encode_definitions(defs: &[CarDefinition]) -> Writer {
    let mut w = Writer::default();
    w.len32(defs.len(), "definitions");
    for d in defs {
        w.blob(definition_json(d).as_bytes(), "definition");
    }
    w
}

pub(super) fn decode_definitions(r: &mut Reader<'_>, car_count: u32) -> Result<Vec<CarDefinition>> {
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
