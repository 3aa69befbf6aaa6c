//! The ground section (id 11, optional): the recording world's ground as
//! the game built it ([`GroundSource`]), written only when the game asked
//! the recorder to carry it. A reader that predates it skips it and then
//! refuses to play the replay on the plane (the header names the ground by
//! fingerprint), so it need not be required. It is not deflated: its bytes
//! are raw f64 coordinates, which deflate barely shrinks; `.skr.gz`
//! compresses the whole file anyway.
//!
//! Payload: u8 kind, then
//! - kind 1, mesh: u32 vertex count, u32 triangle count, the vertices as
//!   f64 x, y, z, the triangles as u32 a, b, c, u8 has-surfaces (0 or 1)
//!   and with it one u8 surface id per triangle;
//! - kind 2, heightfield: f64 x0, y0, spacing, u32 columns, u32 rows, the
//!   heights (columns × rows f64, row-major), u8 has-surfaces and with it
//!   one u8 surface id per cell ((columns − 1) × (rows − 1)).
//!
//! The decoder checks the layout; whether the source builds a ground, and
//! the ground the header names, is checked where it is built
//! (`world.rs`).
//!
//! The same payload is a ground file (`.skgd`) on its own, for a ground
//! many replays share: magic `SKGD`, u16 version 1, u16 flags 0, the
//! payload, and the blake3 of every byte before it.

use skidpad_core::glam::DVec3;
use skidpad_core::{GroundSource, HeightfieldSource, MeshSource, SurfaceId};

use super::bytes::{Reader, Writer};
use super::{CHECKSUM, PREAMBLE, check_preamble_of};
use crate::{ReplayError, Result};

/// The first four bytes of a ground file.
pub const GROUND_MAGIC: &[u8; 4] = b"SKGD";
/// The ground file's format version.
pub const GROUND_FORMAT_VERSION: u16 = 1;

/// A ground file (`.skgd`) holding `source`.
pub fn encode_ground_file(source: &GroundSource) -> Result<Vec<u8>> {
    let mut out = Writer::default();
    out.bytes(GROUND_MAGIC);
    out.u16(GROUND_FORMAT_VERSION);
    out.u16(0);
    let payload = out.absorb(encode_ground(source));
    out.bytes(&payload);
    let checksum = blake3::hash(&out.buf);
    out.bytes(checksum.as_bytes());
    out.done()
}

/// Reads a ground file: its magic, version, checksum and payload, as the
/// replay section's payload is read.
pub fn decode_ground_file(bytes: &[u8]) -> Result<GroundSource> {
    check_preamble_of(
        bytes,
        GROUND_MAGIC,
        1..=GROUND_FORMAT_VERSION,
        "ground file",
    )?;
    let body_end = bytes
        .len()
        .checked_sub(CHECKSUM)
        .filter(|&end| end > PREAMBLE);
    let Some(body_end) = body_end else {
        return Err(ReplayError::Decode {
            section: "ground file",
            offset: bytes.len(),
            reason: "too short for a ground file".into(),
        });
    };
    if blake3::hash(&bytes[..body_end]).as_bytes() != &bytes[body_end..] {
        return Err(ReplayError::Decode {
            section: "ground file",
            offset: body_end,
            reason: "checksum mismatch: the file is cut short or altered".into(),
        });
    }
    decode_ground(Reader::new(&bytes[PREAMBLE..body_end], PREAMBLE, "ground"))
}

const MESH: u8 = 1;
const HEIGHTFIELD: u8 = 2;

pub(super) fn encode_ground(source: &GroundSource) -> Writer {
    let mut w = Writer::default();
    let surfaces = match source {
        GroundSource::Mesh(m) => {
            w.u8(MESH);
            w.len32(m.vertices.len(), "ground vertices");
            w.len32(m.triangles.len(), "ground triangles");
            for v in &m.vertices {
                [v.x, v.y, v.z].into_iter().for_each(|c| w.f64(c));
            }
            for t in &m.triangles {
                t.iter().for_each(|&k| w.u32(k));
            }
            &m.surfaces
        }
        GroundSource::Heightfield(h) => {
            w.u8(HEIGHTFIELD);
            [h.x0, h.y0, h.spacing].into_iter().for_each(|v| w.f64(v));
            w.len32(h.columns, "heightfield columns");
            w.len32(h.rows, "heightfield rows");
            h.heights.iter().for_each(|&v| w.f64(v));
            &h.surfaces
        }
    };
    match surfaces {
        None => w.u8(0),
        Some(ids) => {
            w.u8(1);
            w.bytes(&ids.iter().map(|s| s.0).collect::<Vec<u8>>());
        }
    }
    w
}

pub(super) fn decode_ground(mut r: Reader<'_>) -> Result<GroundSource> {
    let source = match r.u8()? {
        MESH => {
            let vertex_count = r.count(24, "ground vertices")?;
            let triangle_count = r.count(12, "ground triangles")?;
            // Both counts were checked alone; together they must fit too.
            if (vertex_count * 24).saturating_add(triangle_count * 12) > r.remaining() {
                return Err(r.error(format!(
                    "{vertex_count} vertices and {triangle_count} triangles cannot fit in the {} bytes left",
                    r.remaining()
                )));
            }
            let mut vertices = Vec::with_capacity(vertex_count);
            for _ in 0..vertex_count {
                vertices.push(DVec3::new(r.f64()?, r.f64()?, r.f64()?));
            }
            let mut triangles = Vec::with_capacity(triangle_count);
            for _ in 0..triangle_count {
                triangles.push([r.u32()?, r.u32()?, r.u32()?]);
            }
            let surfaces = decode_surfaces(&mut r, triangle_count)?;
            GroundSource::Mesh(MeshSource {
                vertices,
                triangles,
                surfaces,
            })
        }
        HEIGHTFIELD => {
            let (x0, y0, spacing) = (r.f64()?, r.f64()?, r.f64()?);
            let columns = r.u32()? as usize;
            let rows = r.u32()? as usize;
            let samples = columns.saturating_mul(rows);
            if columns < 2 || rows < 2 || samples.saturating_mul(8) > r.remaining() {
                return Err(r.error(format!(
                    "a heightfield of {columns} × {rows} samples does not fit in the {} bytes left",
                    r.remaining()
                )));
            }
            let mut heights = Vec::with_capacity(samples);
            for _ in 0..samples {
                heights.push(r.f64()?);
            }
            let surfaces = decode_surfaces(&mut r, (columns - 1) * (rows - 1))?;
            GroundSource::Heightfield(HeightfieldSource {
                x0,
                y0,
                spacing,
                columns,
                rows,
                heights,
                surfaces,
            })
        }
        other => return Err(r.error(format!("unknown ground kind {other}"))),
    };
    r.finish()?;
    Ok(source)
}

fn decode_surfaces(r: &mut Reader<'_>, n: usize) -> Result<Option<Vec<SurfaceId>>> {
    match r.u8()? {
        0 => Ok(None),
        1 => Ok(Some(r.take(n)?.iter().map(|&s| SurfaceId(s)).collect())),
        other => Err(r.error(format!("has-surfaces is 0 or 1, not {other}"))),
    }
}
