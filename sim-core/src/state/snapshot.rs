//! Snapshot byte layout of one car's state, and the hashes built on it.
//!
//! Layout (version 4, simulation version 15 on), all little-endian, 340
//! bytes:
//!
//! | offset | size | field                                                    |
//! |-------:|-----:|----------------------------------------------------------|
//! | 0      | 4    | magic `SKCS`                                             |
//! | 4      | 2    | snapshot layout version, u16 = 4                         |
//! | 6      | 4    | `SIMULATION_VERSION`, u32                                |
//! | 10     | 8    | definition fingerprint (first 8 bytes of blake3(JSON))   |
//! | 18     | 312  | 39 × f64 in the order of `FLOAT_FIELDS` (car_state.rs):  |
//! |        |      | xyz, orientation xyzw, velocity xyz, angular velocity    |
//! |        |      | xyz, wheel ω ×4, elapsed, input ×6, substep-rate         |
//! |        |      | override (0 = none), slope grade, cross slope, tire      |
//! |        |      | deflection (longitudinal, lateral) ×4 wheels, engine ω,  |
//! |        |      | steering give, axle lateral force (front, rear)          |
//! | 330    | 4    | engaged gear, i32                                        |
//! | 334    | 1    | LOD level code                                           |
//! | 335    | 4    | surface id per wheel, u8 ×4                              |
//! | 339    | 1    | clutch locked, 0 or 1                                    |
//!
//! Version 3 (simulation versions 10 to 14) had no axle lateral forces: 37
//! floats, 324 bytes. Version 2 (simulation versions 2 to 9) had no
//! steering give either: 36 floats, 316 bytes. Version 1 (simulation
//! version 1) had no tire deflections: 27 floats, 243 bytes.
//!
//! Every f64 is written as `x + 0.0`, so −0 and +0 hash alike (SPEC §3.5).

use glam::{DQuat, DVec3};

use crate::SIMULATION_VERSION;
use crate::ground::GroundSlope;
use crate::input::CarInput;
use crate::lod::{Lod, LodSetting};
use crate::state::car_state::{CarState, FLOAT_FIELDS, FLOATS};
use crate::surface::SurfaceId;
use crate::{CoreError, Result};

const MAGIC: &[u8; 4] = b"SKCS";
const LAYOUT_VERSION: u16 = 4;
/// Exact size of a snapshot.
pub const SNAPSHOT_LEN: usize = 18 + FLOATS * 8 + 4 + 1 + 4 + 1;

/// Serializes a state.
pub(crate) fn encode(state: &CarState, fingerprint: &[u8; 8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(SNAPSHOT_LEN);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&LAYOUT_VERSION.to_le_bytes());
    out.extend_from_slice(&SIMULATION_VERSION.to_le_bytes());
    out.extend_from_slice(fingerprint);
    for v in floats(state) {
        out.extend_from_slice(&(v + 0.0).to_le_bytes());
    }
    out.extend_from_slice(&state.gear.to_le_bytes());
    out.push(state.lod.level.code());
    out.extend(state.surfaces.iter().map(|s| s.0));
    out.push(u8::from(state.clutch_locked));
    debug_assert_eq!(out.len(), SNAPSHOT_LEN);
    out
}

/// A state at rest at the origin, every float zero: the base the decoder
/// writes the table's floats onto.
fn zeroed_state() -> CarState {
    CarState {
        position: DVec3::ZERO,
        orientation: DQuat::IDENTITY,
        velocity: DVec3::ZERO,
        angular_velocity: DVec3::ZERO,
        wheel_omega: [0.0; 4],
        elapsed: 0.0,
        gear: 0,
        input: CarInput::default(),
        lod: LodSetting::default(),
        surfaces: [SurfaceId(0); 4],
        slope: GroundSlope::FLAT,
        tire_deflection: [[0.0; 2]; 4],
        engine_omega: 0.0,
        steer_give: 0.0,
        axle_lateral_force: [0.0; 2],
        clutch_locked: false,
    }
}

fn floats(s: &CarState) -> [f64; FLOATS] {
    std::array::from_fn(|k| (FLOAT_FIELDS[k].get)(s))
}

fn bad(reason: impl Into<String>) -> CoreError {
    CoreError::Snapshot(reason.into())
}

/// Parses a snapshot. Checks length, magic, versions, the definition
/// fingerprint and every value's range; `surface_count` and `top_gear`
/// bound the ids.
pub(crate) fn decode(
    bytes: &[u8],
    fingerprint: &[u8; 8],
    surface_count: usize,
    top_gear: i32,
) -> Result<CarState> {
    if bytes.len() != SNAPSHOT_LEN {
        return Err(bad(format!(
            "expected {SNAPSHOT_LEN} bytes, got {}",
            bytes.len()
        )));
    }
    if &bytes[0..4] != MAGIC {
        return Err(bad("bad magic (not a skidpad car snapshot)"));
    }
    let layout = u16::from_le_bytes([bytes[4], bytes[5]]);
    if layout != LAYOUT_VERSION {
        return Err(bad(format!(
            "snapshot layout version {layout}, this core reads {LAYOUT_VERSION}"
        )));
    }
    let sim = u32::from_le_bytes([bytes[6], bytes[7], bytes[8], bytes[9]]);
    if sim != SIMULATION_VERSION {
        return Err(bad(format!(
            "made by simulation version {sim}, this core is version {SIMULATION_VERSION}"
        )));
    }
    if &bytes[10..18] != fingerprint {
        return Err(bad("made for a different car definition"));
    }
    let mut f = [0.0; FLOATS];
    for (k, chunk) in bytes[18..18 + FLOATS * 8].chunks_exact(8).enumerate() {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        let v = f64::from_le_bytes(b);
        if !v.is_finite() {
            return Err(bad(format!(
                "value {k} at byte offset {} is not finite",
                18 + k * 8
            )));
        }
        f[k] = v;
    }
    let tail = &bytes[18 + FLOATS * 8..];
    let gear = i32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    if !(-1..=top_gear).contains(&gear) {
        return Err(bad(format!("gear {gear} outside -1..={top_gear}")));
    }
    let level = Lod::from_code(tail[4]).map_err(|e| bad(e.to_string()))?;
    let mut surfaces = [SurfaceId(0); 4];
    for (w, &id) in tail[5..9].iter().enumerate() {
        if usize::from(id) >= surface_count {
            return Err(bad(format!(
                "wheel {w} surface id {id} not in the surface table"
            )));
        }
        surfaces[w] = SurfaceId(id);
    }
    let clutch_locked = match tail[9] {
        0 => false,
        1 => true,
        other => return Err(bad(format!("clutch flag {other} is neither 0 nor 1"))),
    };
    // Every float from the table, onto a state whose other fields come
    // from the tail; then the groups are validated as the setters would be.
    let mut state = CarState {
        gear,
        lod: LodSetting::new(level),
        surfaces,
        clutch_locked,
        ..zeroed_state()
    };
    for (field, &v) in FLOAT_FIELDS.iter().zip(&f) {
        (field.set)(&mut state, v);
    }
    if (state.orientation.length() - 1.0).abs() > 1e-6 {
        return Err(bad("orientation is not a unit quaternion"));
    }
    state.input = state
        .input
        .sanitized(top_gear)
        .map_err(|e| bad(e.to_string()))?;
    state.lod = state.lod.validated().map_err(|e| bad(e.to_string()))?;
    state.slope = state.slope.validated().map_err(|e| bad(e.to_string()))?;
    if let Some(field) = state.first_out_of_bounds() {
        return Err(bad(format!(
            "{} is outside the physical bounds of a car state",
            field.name
        )));
    }
    Ok(state)
}

/// Every named value of a snapshot, in layout order, for reports that
/// compare two snapshots field by field (a replay's desync report). Only
/// the length and magic are checked: this reads, it does not restore.
pub fn snapshot_fields(bytes: &[u8]) -> Result<Vec<(&'static str, f64)>> {
    check_shape(bytes)?;
    let mut fields: Vec<(&'static str, f64)> = bytes[18..18 + FLOATS * 8]
        .chunks_exact(8)
        .zip(&FLOAT_FIELDS)
        .map(|(chunk, field)| {
            let mut b = [0u8; 8];
            b.copy_from_slice(chunk);
            (field.name, f64::from_le_bytes(b))
        })
        .collect();
    let tail = &bytes[18 + FLOATS * 8..];
    let gear = i32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    fields.push(("gear", f64::from(gear)));
    fields.push(("lod.level", f64::from(tail[4])));
    for (name, &id) in ["surface.fl", "surface.fr", "surface.rl", "surface.rr"]
        .into_iter()
        .zip(&tail[5..9])
    {
        fields.push((name, f64::from(id)));
    }
    fields.push(("clutch_locked", f64::from(tail[9])));
    Ok(fields)
}

/// A snapshot's length and magic, all the field readers and writers
/// below need before they index it.
fn check_shape(bytes: &[u8]) -> Result<()> {
    if bytes.len() != SNAPSHOT_LEN || &bytes[0..4] != MAGIC {
        return Err(bad(format!(
            "not a {SNAPSHOT_LEN}-byte skidpad car snapshot"
        )));
    }
    Ok(())
}

/// Writes `value` into the float field `name` of a snapshot (a name
/// [`snapshot_fields`] lists before `gear`, such as `velocity.y`): how a
/// test or a tool sets up a state no input reaches, such as a car
/// sliding sideways, before [`World::restore`](crate::World::restore)
/// checks it.
pub fn set_snapshot_float(bytes: &mut [u8], name: &str, value: f64) -> Result<()> {
    check_shape(bytes)?;
    let index = FLOAT_FIELDS
        .iter()
        .position(|f| f.name == name)
        .ok_or_else(|| bad(format!("a snapshot has no float field {name}")))?;
    let at = 18 + 8 * index;
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
    Ok(())
}

/// blake3 of a car's canonical bytes.
pub(crate) fn car_hash(state: &CarState, fingerprint: &[u8; 8]) -> [u8; 32] {
    *blake3::hash(&encode(state, fingerprint)).as_bytes()
}

/// blake3 over the step count and car hashes in id order: what
/// [`World::world_hash`](crate::World::world_hash) returns for a world
/// holding exactly these cars. A replay that records some of a world's cars
/// uses it to compute the hash its playback world will have.
pub fn combine_world_hash(
    step_count: u64,
    car_hashes: impl IntoIterator<Item = [u8; 32]>,
) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(b"skidpad world v1");
    h.update(&step_count.to_le_bytes());
    for c in car_hashes {
        h.update(&c);
    }
    *h.finalize().as_bytes()
}

/// Lowercase hex of a hash, for messages and pinned constants.
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_float_table_reads_back_what_it_writes_and_names_each_once() {
        let mut state = zeroed_state();
        // Distinct values in every slot: a field written by two entries,
        // or read from the wrong place, shows as a mismatch.
        for (k, field) in FLOAT_FIELDS.iter().enumerate() {
            (field.set)(&mut state, 100.0 + k as f64);
        }
        let values = floats(&state);
        for (k, v) in values.iter().enumerate() {
            assert_eq!(*v, 100.0 + k as f64, "{}", FLOAT_FIELDS[k].name);
        }
        let mut names: Vec<&str> = FLOAT_FIELDS.iter().map(|f| f.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FLOATS);
    }
}
