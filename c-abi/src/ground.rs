//! Tracks (a built-in one, or a game's own definition as JSON) and grounds
//! (a track's generated surface, or a game's own triangles) for worlds.

use std::ffi::c_char;
use std::sync::Arc;

use skidpad_core::glam::DVec3;
use skidpad_core::{Ground, GroundSource, MeshSource, SurfaceId, Track};

use crate::args::{borrow, c_text, check_out, drop_handle, hand_out, slice, text_bytes, write};
use crate::status::{Failure, SkidpadStatus, guard};

/// A track: its centre line, road edges, start line and sectors; what AI
/// drivers follow and laps are timed on. Shared: a world that drives on it
/// keeps its own share, so the handle may be freed at any time.
pub struct SkidpadTrack {
    pub(crate) track: Arc<Track>,
}

/// What the wheels stand on, shared by the worlds put on it.
pub struct SkidpadGround {
    pub(crate) ground: Arc<dyn Ground>,
    origin: GroundOrigin,
}

/// Where a ground came from, so that a replay can carry it.
enum GroundOrigin {
    /// A track's generated surface (its source is made when carried).
    Track(Arc<Track>),
    /// A game's own triangles.
    Source(GroundSource),
}

impl SkidpadGround {
    /// What a replay stores to rebuild this ground on a machine without
    /// the game.
    pub(crate) fn source(&self) -> GroundSource {
        match &self.origin {
            GroundOrigin::Track(track) => GroundSource::Mesh(track.ground_source()),
            GroundOrigin::Source(source) => source.clone(),
        }
    }
}

/// A built-in track by name (`"brandwood"`, `"hillcrest"`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_track_builtin(
    name: *const c_char,
    out: *mut *mut SkidpadTrack,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's string.
        let name = unsafe { c_text(name, "name") }?;
        check_out(out, "out")?;
        let track = Arc::new(Track::builtin(name)?);
        // SAFETY: checked above.
        unsafe { hand_out(out, SkidpadTrack { track }, "out") }
    })
}

/// A game's own track from its definition as JSON (`json_len` bytes of
/// UTF-8, the format `skidpad track import` writes), checked as it is read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_track_from_json(
    json: *const u8,
    json_len: usize,
    out: *mut *mut SkidpadTrack,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's bytes.
        let json = unsafe { text_bytes(json, json_len, "json") }?;
        check_out(out, "out")?;
        if json.len() > skidpad_core::MAX_TRACK_FILE_BYTES {
            return Err(Failure::invalid(format!(
                "a track definition of {} bytes is over the {} allowed",
                json.len(),
                skidpad_core::MAX_TRACK_FILE_BYTES
            )));
        }
        let track = Arc::new(Track::from_json(json)?);
        // SAFETY: checked above.
        unsafe { hand_out(out, SkidpadTrack { track }, "out") }
    })
}

/// The length of a track's centre line, m.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_track_length(
    track: *const SkidpadTrack,
    out: *mut f64,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        unsafe { write(out, borrow(track, "track")?.track.length(), "out") }
    })
}

/// Frees a track handle; NULL is ignored. Worlds driving on it keep theirs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_track_free(track: *mut SkidpadTrack) {
    // SAFETY: NULL or a track from this library, not used again.
    unsafe { drop_handle(track) }
}

/// The generated surface of a track: road, kerbs, run-off and barriers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_ground_of_track(
    track: *const SkidpadTrack,
    out: *mut *mut SkidpadGround,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let track = unsafe { borrow(track, "track") }?.track.clone();
        check_out(out, "out")?;
        let ground: Arc<dyn Ground> = Arc::new(track.ground()?);
        let origin = GroundOrigin::Track(track);
        // SAFETY: checked above.
        unsafe { hand_out(out, SkidpadGround { ground, origin }, "out") }
    })
}

/// A game's own ground: `vertex_count` vertices as x, y, z doubles (m, z
/// up), `triangle_count` triangles as three vertex indices each, wound
/// counter-clockwise seen from above, and `surfaces`, NULL or one surface
/// index per triangle. A replay can carry it (`SkidpadRecorderOptions`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_ground_from_triangles(
    vertices: *const f64,
    vertex_count: usize,
    triangles: *const u32,
    triangle_count: usize,
    surfaces: *const u8,
    out: *mut *mut SkidpadGround,
) -> SkidpadStatus {
    guard(|| {
        let too_many = |what: &str| Failure::invalid(format!("{what}: the count overflows"));
        let coordinates = vertex_count
            .checked_mul(3)
            .ok_or_else(|| too_many("vertex_count"))?;
        let corners = triangle_count
            .checked_mul(3)
            .ok_or_else(|| too_many("triangle_count"))?;
        // SAFETY: the caller's arrays, of the stated lengths.
        let (coordinates, corners) = unsafe {
            (
                slice(vertices, coordinates, "vertices")?,
                slice(triangles, corners, "triangles")?,
            )
        };
        let surfaces = if surfaces.is_null() {
            None
        } else {
            // SAFETY: one byte per triangle, by the caller's contract.
            let ids = unsafe { slice(surfaces, triangle_count, "surfaces") }?;
            Some(ids.iter().map(|&s| SurfaceId(s)).collect())
        };
        check_out(out, "out")?;
        let source = GroundSource::Mesh(MeshSource {
            vertices: coordinates
                .chunks_exact(3)
                .map(|v| DVec3::new(v[0], v[1], v[2]))
                .collect(),
            triangles: corners
                .chunks_exact(3)
                .map(|t| [t[0], t[1], t[2]])
                .collect(),
            surfaces,
        });
        let ground = source.build()?;
        let origin = GroundOrigin::Source(source);
        // SAFETY: checked above.
        unsafe { hand_out(out, SkidpadGround { ground, origin }, "out") }
    })
}

/// Frees a ground handle; NULL is ignored. Worlds on it keep their share.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_ground_free(ground: *mut SkidpadGround) {
    // SAFETY: NULL or a ground from this library, not used again.
    unsafe { drop_handle(ground) }
}
