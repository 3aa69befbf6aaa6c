//! One simulation version's core behind a plain C ABI, compiled to a wasm
//! module for the archive of old cores (`cores/ABI.md` is the contract).
//!
//! This file is built against the crates of every archived commit, from
//! the first simulation version on, so it only uses what all of them have:
//! `decode_replay`, `create_replay_world`, `ReplayPlayer::with_options`,
//! `advance`, the desync report and `World::world_hash`. Anything newer
//! would stop the old versions from building.
//!
//! Calls pass bytes in memory the host obtained from `skidpad_alloc`, and
//! every call that answers leaves a UTF-8 JSON document in one result
//! buffer, read through `skidpad_result_ptr` / `skidpad_result_len` until
//! the next call.

use std::cell::RefCell;

use serde_json::{Value, json};
use skidpad_core::{SIMULATION_VERSION, World};
use skidpad_replay::{
    NoHooks, PlayerOptions, Replay, ReplayHooks, ReplayPlayer, create_replay_world, decode_replay,
};

/// The version of this ABI; the host refuses a module with another.
const ABI_VERSION: u32 = 1;

/// The `scenario` metadata value of the golden replay whose game logic
/// (the golden crate's `HillGame`) must run during playback.
const GAME_LOGIC_SCENARIO: &str = "game_logic";

thread_local! {
    static RESULT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
}

/// An opened replay and its player, for a viewer (`skidpad_open`).
struct Session {
    /// `None` only while the session is dropped: the player goes first.
    player: Option<ReplayPlayer<'static, Box<dyn ReplayHooks>>>,
    /// Leaked by `skidpad_open` so the player can borrow it for as long as
    /// the session lives; `Drop` frees it after the player is gone.
    replay: *mut Replay,
}

impl Drop for Session {
    fn drop(&mut self) {
        self.player = None;
        // SAFETY: `replay` came from `Box::into_raw` in `open`, and the
        // only borrow of it (the player) was dropped on the line above.
        drop(unsafe { Box::from_raw(self.replay) });
    }
}

/// Status codes every answering call returns.
const ANSWERED: u32 = 0;
const REFUSED: u32 = 1;

fn answer(status: u32, document: &Value) -> u32 {
    RESULT.with(|r| *r.borrow_mut() = document.to_string().into_bytes());
    status
}

fn refuse(message: impl std::fmt::Display) -> u32 {
    answer(REFUSED, &json!({ "error": message.to_string() }))
}

/// The bytes the host wrote at `ptr`.
///
/// # Safety
/// `ptr..ptr + len` must be a live allocation from `skidpad_alloc`.
unsafe fn input<'a>(ptr: *const u8, len: u32) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: the caller's contract above.
    unsafe { std::slice::from_raw_parts(ptr, len as usize) }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[unsafe(no_mangle)]
pub extern "C" fn skidpad_abi_version() -> u32 {
    ABI_VERSION
}

#[unsafe(no_mangle)]
pub extern "C" fn skidpad_simulation_version() -> u32 {
    SIMULATION_VERSION
}

/// A buffer of `len` bytes for the host to fill; 0 when it cannot be had.
#[unsafe(no_mangle)]
pub extern "C" fn skidpad_alloc(len: u32) -> *mut u8 {
    let mut buffer = Vec::<u8>::new();
    if buffer.try_reserve_exact(len as usize).is_err() {
        return std::ptr::null_mut();
    }
    buffer.resize(len as usize, 0);
    let mut boxed = buffer.into_boxed_slice();
    let ptr = boxed.as_mut_ptr();
    std::mem::forget(boxed);
    ptr
}

/// Gives back a buffer from `skidpad_alloc`.
///
/// # Safety
/// `ptr` and `len` must be exactly what one `skidpad_alloc` call gave.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_free(ptr: *mut u8, len: u32) {
    if ptr.is_null() {
        return;
    }
    // SAFETY: rebuilds the boxed slice `skidpad_alloc` leaked.
    drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len as usize)) });
}

#[unsafe(no_mangle)]
pub extern "C" fn skidpad_result_ptr() -> *const u8 {
    RESULT.with(|r| r.borrow().as_ptr())
}

#[unsafe(no_mangle)]
pub extern "C" fn skidpad_result_len() -> u32 {
    RESULT.with(|r| u32::try_from(r.borrow().len()).unwrap_or(u32::MAX))
}

fn decode(bytes: &[u8]) -> Result<Replay, String> {
    let replay = decode_replay(bytes).map_err(|e| e.to_string())?;
    if replay.header.simulation_version != SIMULATION_VERSION {
        return Err(format!(
            "the replay was recorded by simulation version {}, this archived core is version {SIMULATION_VERSION}",
            replay.header.simulation_version
        ));
    }
    Ok(replay)
}

fn header_document(replay: &Replay) -> Value {
    let h = &replay.header;
    let metadata: Vec<Value> = h.metadata.iter().map(|(k, v)| json!([k, v])).collect();
    let recorded_hashes: Vec<Value> = replay
        .keyframes
        .iter()
        .map(|k| json!([k.step, hex(&k.world_hash)]))
        .collect();
    json!({
        "simulation_version": h.simulation_version,
        "recorded_by": h.core_version,
        "cars": h.car_count,
        "steps": h.step_count,
        "keyframe_every": h.keyframe_every,
        "keyframes": replay.keyframes.len(),
        "duration": replay.duration(),
        "metadata": metadata,
        "recorded_hashes": recorded_hashes,
        "car_names": replay.definitions.iter().map(|d| d.name.clone()).collect::<Vec<_>>(),
        // The step lengths as (steps, seconds) runs, for a viewer's clock.
        "dt_runs": replay.dt.runs().map(|(n, dt)| json!([n, dt])).collect::<Vec<_>>(),
        // Each car's definition as that version's JSON, for a viewer's meshes.
        "definitions": replay
            .definitions
            .iter()
            .map(|d| serde_json::to_string(d).unwrap_or_default())
            .collect::<Vec<_>>(),
        "embedded_ghosts": replay.ghosts.as_ref().map_or(0, Vec::len),
    })
}

/// Decodes the replay at `ptr` and answers with its header.
///
/// # Safety
/// As for [`input`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_inspect(ptr: *const u8, len: u32) -> u32 {
    // SAFETY: forwarded contract.
    let bytes = unsafe { input(ptr, len) };
    match decode(bytes) {
        Ok(replay) => answer(ANSWERED, &header_document(&replay)),
        Err(e) => refuse(e),
    }
}

/// The game logic `replay` needs: the golden game-logic scenario's, or none.
fn hooks_for(replay: &Replay) -> Box<dyn ReplayHooks> {
    let scenario = replay
        .header
        .metadata
        .iter()
        .find(|(key, _)| key == "scenario")
        .map(|(_, value)| value.as_str());
    if scenario == Some(GAME_LOGIC_SCENARIO) {
        if let Some(s) = skidpad_golden::Scenario::from_file("game_logic.skr") {
            return s.hooks();
        }
    }
    Box::new(NoHooks)
}

/// Re-simulates the replay at `ptr` and answers with the verdict. A replay
/// that declares more than `max_car_steps` car-steps (steps × cars) is
/// refused before anything is simulated.
///
/// # Safety
/// As for [`input`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_verify(ptr: *const u8, len: u32, max_car_steps: u64) -> u32 {
    // SAFETY: forwarded contract.
    let bytes = unsafe { input(ptr, len) };
    match verify(bytes, max_car_steps) {
        Ok(document) => answer(ANSWERED, &document),
        Err(e) => refuse(e),
    }
}

fn desync_document(d: &skidpad_replay::DesyncReport) -> Value {
    let fields: Vec<Value> = d
        .fields
        .iter()
        .map(|f| {
            json!({
                "car": f.car.to_string(),
                "field": f.field,
                "recorded": f.recorded,
                "simulated": f.simulated,
                // The exact doubles, for readers whose JSON parser rounds.
                "recorded_bits": format!("{:016x}", f.recorded.to_bits()),
                "simulated_bits": format!("{:016x}", f.simulated.to_bits()),
            })
        })
        .collect();
    json!({ "step": d.step, "text": d.to_string(), "fields": fields })
}

fn verify(bytes: &[u8], max_car_steps: u64) -> Result<Value, String> {
    let replay = decode(bytes)?;
    let declared = replay
        .header
        .step_count
        .saturating_mul(u64::from(replay.header.car_count));
    if declared > max_car_steps {
        return Err(format!(
            "the replay declares {declared} car-steps ({} steps x {} cars), over the budget of {max_car_steps}",
            replay.header.step_count, replay.header.car_count
        ));
    }
    let world: World = create_replay_world(&replay).map_err(|e| e.to_string())?;
    let options = PlayerOptions {
        cache_budget: 0,
        ..PlayerOptions::default()
    };
    let mut player = ReplayPlayer::with_options(world, &replay, hooks_for(&replay), options)
        .map_err(|e| e.to_string())?;
    // The world hash before the first step and at every keyframe, as the
    // golden corpus pins them (`golden/v<N>/HASHES`).
    let world_hash = |player: &ReplayPlayer<'_, Box<dyn ReplayHooks>>| {
        json!([player.step(), hex(&player.world().world_hash())])
    };
    let mut keyframe_hashes = vec![world_hash(&player)];
    while player.advance().map_err(|e| e.to_string())? {
        if replay.keyframe_at(player.step()).is_some() {
            keyframe_hashes.push(world_hash(&player));
        }
    }
    let first_desync = player.first_desync().map(desync_document);
    let mut document = header_document(&replay);
    document["steps_simulated"] = json!(player.step());
    document["desyncs"] = json!(player.desyncs());
    document["first_desync"] = first_desync.unwrap_or(Value::Null);
    document["final_hash"] = json!(hex(&player.world().world_hash()));
    document["keyframe_hashes"] = Value::Array(keyframe_hashes);
    Ok(document)
}

/// Opens the replay at `ptr` for playback (closing any open one) and
/// answers with its header; `skidpad_seek` and `skidpad_poses` then read
/// the cars' poses at any step.
///
/// # Safety
/// As for [`input`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_open(ptr: *const u8, len: u32) -> u32 {
    // SAFETY: forwarded contract.
    let bytes = unsafe { input(ptr, len) };
    SESSION.with(|s| *s.borrow_mut() = None);
    match open(bytes) {
        Ok((session, document)) => {
            SESSION.with(|s| *s.borrow_mut() = Some(session));
            answer(ANSWERED, &document)
        }
        Err(e) => refuse(e),
    }
}

fn open(bytes: &[u8]) -> Result<(Session, Value), String> {
    let replay = decode(bytes)?;
    let world = create_replay_world(&replay).map_err(|e| e.to_string())?;
    let document = header_document(&replay);
    let hooks = hooks_for(&replay);
    let raw = Box::into_raw(Box::new(replay));
    // SAFETY: `raw` stays allocated until the session's `Drop`, which
    // drops the player first.
    let borrowed: &'static Replay = unsafe { &*raw };
    match ReplayPlayer::with_options(world, borrowed, hooks, PlayerOptions::default()) {
        Ok(player) => Ok((
            Session {
                player: Some(player),
                replay: raw,
            },
            document,
        )),
        Err(e) => {
            // SAFETY: nothing borrows `raw` any more.
            drop(unsafe { Box::from_raw(raw) });
            Err(e.to_string())
        }
    }
}

/// Moves the open replay to `step` (clamped to its end) and answers
/// `{"step": n}`.
#[unsafe(no_mangle)]
pub extern "C" fn skidpad_seek(step: u64) -> u32 {
    with_player(|player| {
        player.seek(step).map_err(|e| e.to_string())?;
        Ok(json!({ "step": player.step() }))
    })
}

/// Every car's pose at the open replay's current step: `{"step", "poses":
/// [{car, position: [x, y, z], orientation: [x, y, z, w], yaw, pitch,
/// roll, steer, speed}]}`.
#[unsafe(no_mangle)]
pub extern "C" fn skidpad_poses() -> u32 {
    with_player(|player| {
        let world = player.world();
        let mut poses = Vec::new();
        for id in world.car_ids().collect::<Vec<_>>() {
            let p = world.pose(id).map_err(|e| e.to_string())?;
            poses.push(json!({
                "car": id.to_string(),
                "position": [p.position.x, p.position.y, p.position.z],
                "orientation": [p.orientation.x, p.orientation.y, p.orientation.z, p.orientation.w],
                "yaw": p.yaw,
                "pitch": p.pitch,
                "roll": p.roll,
                "steer": p.steer_angle,
                "speed": p.speed,
            }));
        }
        Ok(json!({ "step": player.step(), "poses": poses }))
    })
}

/// Plays one step of the open replay; answers `{"step": n, "more": bool,
/// "desyncs": n}` (`more` false once the end was reached and nothing was
/// played).
#[unsafe(no_mangle)]
pub extern "C" fn skidpad_advance() -> u32 {
    with_player(|player| {
        let more = player.advance().map_err(|e| e.to_string())?;
        Ok(json!({ "step": player.step(), "more": more, "desyncs": player.desyncs() }))
    })
}

/// The open replay's state: `{"step", "desyncs", "world_hash",
/// "first_desync"}` (the last as in the verify answer, or null).
#[unsafe(no_mangle)]
pub extern "C" fn skidpad_state() -> u32 {
    with_player(|player| {
        Ok(json!({
            "step": player.step(),
            "desyncs": player.desyncs(),
            "world_hash": hex(&player.world().world_hash()),
            "first_desync": player.first_desync().map(desync_document).unwrap_or(Value::Null),
        }))
    })
}

/// Every replay car's pose at the open replay's step as raw little-endian
/// f64s, 8 per car in replay order (x, y, z, yaw, pitch, roll, steer,
/// speed; NaN for a car the world no longer holds): the layout of the npm
/// package's `ReplayPlayer.poses()`, for a viewer that tabulates every step.
/// The answer is these bytes, not JSON.
#[unsafe(no_mangle)]
pub extern "C" fn skidpad_pose_values(cars: u32) -> u32 {
    SESSION.with(
        |s| match s.borrow_mut().as_mut().and_then(|s| s.player.as_mut()) {
            Some(player) => {
                let world = player.world();
                let mut values = vec![f64::NAN; cars as usize * 8];
                for id in world.car_ids().collect::<Vec<_>>() {
                    // Every version numbers replay cars 0, 1, … in order and
                    // prints an id as its number.
                    let Some(index) = id
                        .to_string()
                        .parse::<usize>()
                        .ok()
                        .filter(|&i| i < cars as usize)
                    else {
                        continue;
                    };
                    let Ok(p) = world.pose(id) else { continue };
                    values[index * 8..index * 8 + 8].copy_from_slice(&[
                        p.position.x,
                        p.position.y,
                        p.position.z,
                        p.yaw,
                        p.pitch,
                        p.roll,
                        p.steer_angle,
                        p.speed,
                    ]);
                }
                let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
                RESULT.with(|r| *r.borrow_mut() = bytes);
                ANSWERED
            }
            None => refuse("no replay is open (skidpad_open)"),
        },
    )
}

/// Closes the open replay, freeing it.
#[unsafe(no_mangle)]
pub extern "C" fn skidpad_close() {
    SESSION.with(|s| *s.borrow_mut() = None);
}

fn with_player(
    f: impl FnOnce(&mut ReplayPlayer<'static, Box<dyn ReplayHooks>>) -> Result<Value, String>,
) -> u32 {
    SESSION.with(
        |s| match s.borrow_mut().as_mut().and_then(|s| s.player.as_mut()) {
            Some(player) => match f(player) {
                Ok(document) => answer(ANSWERED, &document),
                Err(e) => refuse(e),
            },
            None => refuse("no replay is open (skidpad_open)"),
        },
    )
}
