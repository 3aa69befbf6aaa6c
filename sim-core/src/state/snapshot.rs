//! Snapshot byte layout of one car's state, and the hashes built on it.
//!
//! Layout (version 2), all little-endian, 316 bytes:
//!
//! | offset | size | field                                                    |
//! |-------:|-----:|----------------------------------------------------------|
//! | 0      | 4    | magic `SKCS`                                             |
//! | 4      | 2    | snapshot layout version, u16 = 1                         |
//! | 6      | 4    | `SIMULATION_VERSION`, u32                                |
//! | 10     | 8    | definition fingerprint (first 8 bytes of blake3(JSON))   |
//! | 18     | 288  | 36 × f64: position xyz, orientation xyzw, velocity xyz,  |
//! |        |      | angular velocity xyz, wheel ω ×4, elapsed, input ×6,     |
//! |        |      | substep-rate override (0 = none), slope grade, cross     |
//! |        |      | slope, tire deflection (longitudinal, lateral) ×4        |
//! |        |      | wheels, engine ω                                         |
//! | 306    | 4    | engaged gear, i32                                        |
//! | 310    | 1    | LOD level code                                           |
//! | 311    | 4    | surface id per wheel, u8 ×4                              |
//! | 315    | 1    | clutch locked, 0 or 1                                    |
//!
//! Version 1 (simulation version 1) had no tire deflections: 27 floats,
//! 243 bytes.
//!
//! Every f64 is written as `x + 0.0`, so −0 and +0 hash alike (SPEC §3.5).

use glam::{DQuat, DVec3};

use crate::SIMULATION_VERSION;
use crate::ground::GroundSlope;
use crate::input::CarInput;
use crate::lod::{Lod, LodSetting};
use crate::state::car_state::CarState;
use crate::surface::SurfaceId;
use crate::{CoreError, Result};

const MAGIC: &[u8; 4] = b"SKCS";
const LAYOUT_VERSION: u16 = 2;
const FLOATS: usize = 36;
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

fn floats(s: &CarState) -> [f64; FLOATS] {
    let q = s.orientation;
    let i = s.input;
    [
        s.position.x,
        s.position.y,
        s.position.z,
        q.x,
        q.y,
        q.z,
        q.w,
        s.velocity.x,
        s.velocity.y,
        s.velocity.z,
        s.angular_velocity.x,
        s.angular_velocity.y,
        s.angular_velocity.z,
        s.wheel_omega[0],
        s.wheel_omega[1],
        s.wheel_omega[2],
        s.wheel_omega[3],
        s.elapsed,
        i.steer,
        i.throttle,
        i.brake,
        i.handbrake,
        i.clutch,
        i.gear,
        s.lod.substep_rate.unwrap_or(0.0),
        s.slope.grade,
        s.slope.cross_slope,
        s.tire_deflection[0][0],
        s.tire_deflection[0][1],
        s.tire_deflection[1][0],
        s.tire_deflection[1][1],
        s.tire_deflection[2][0],
        s.tire_deflection[2][1],
        s.tire_deflection[3][0],
        s.tire_deflection[3][1],
        s.engine_omega,
    ]
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
    let orientation = DQuat::from_xyzw(f[3], f[4], f[5], f[6]);
    if (orientation.length() - 1.0).abs() > 1e-6 {
        return Err(bad("orientation is not a unit quaternion"));
    }
    let input = CarInput::from_array([f[18], f[19], f[20], f[21], f[22], f[23]])
        .sanitized(top_gear)
        .map_err(|e| bad(e.to_string()))?;
    let rate = f[24];
    let lod = LodSetting {
        level,
        substep_rate: (rate != 0.0).then_some(rate),
    }
    .validated()
    .map_err(|e| bad(e.to_string()))?;
    let slope = GroundSlope {
        grade: f[25],
        cross_slope: f[26],
    }
    .validated()
    .map_err(|e| bad(e.to_string()))?;
    let state = CarState {
        position: DVec3::new(f[0], f[1], f[2]),
        orientation,
        velocity: DVec3::new(f[7], f[8], f[9]),
        angular_velocity: DVec3::new(f[10], f[11], f[12]),
        wheel_omega: [f[13], f[14], f[15], f[16]],
        elapsed: f[17],
        gear,
        input,
        lod,
        surfaces,
        slope,
        tire_deflection: [
            [f[27], f[28]],
            [f[29], f[30]],
            [f[31], f[32]],
            [f[33], f[34]],
        ],
        engine_omega: f[35],
        clutch_locked,
    };
    if !state.is_sane() {
        return Err(bad("a value is outside the physical bounds of a car state"));
    }
    Ok(state)
}

/// Names of the floats, in layout order.
const FLOAT_NAMES: [&str; FLOATS] = [
    "position.x",
    "position.y",
    "position.z",
    "orientation.x",
    "orientation.y",
    "orientation.z",
    "orientation.w",
    "velocity.x",
    "velocity.y",
    "velocity.z",
    "angular_velocity.x",
    "angular_velocity.y",
    "angular_velocity.z",
    "wheel_omega.fl",
    "wheel_omega.fr",
    "wheel_omega.rl",
    "wheel_omega.rr",
    "elapsed",
    "input.steer",
    "input.throttle",
    "input.brake",
    "input.handbrake",
    "input.clutch",
    "input.gear",
    "lod.substep_rate",
    "slope.grade",
    "slope.cross_slope",
    "tire_deflection_x.fl",
    "tire_deflection_y.fl",
    "tire_deflection_x.fr",
    "tire_deflection_y.fr",
    "tire_deflection_x.rl",
    "tire_deflection_y.rl",
    "tire_deflection_x.rr",
    "tire_deflection_y.rr",
    "engine_omega",
];

/// Every named value of a snapshot, in layout order, for reports that
/// compare two snapshots field by field (a replay's desync report). Only
/// the length and magic are checked: this reads, it does not restore.
pub fn snapshot_fields(bytes: &[u8]) -> Result<Vec<(&'static str, f64)>> {
    if bytes.len() != SNAPSHOT_LEN || &bytes[0..4] != MAGIC {
        return Err(bad(format!(
            "not a {SNAPSHOT_LEN}-byte skidpad car snapshot"
        )));
    }
    let mut fields: Vec<(&'static str, f64)> = bytes[18..18 + FLOATS * 8]
        .chunks_exact(8)
        .zip(FLOAT_NAMES)
        .map(|(chunk, name)| {
            let mut b = [0u8; 8];
            b.copy_from_slice(chunk);
            (name, f64::from_le_bytes(b))
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
