//! What a replay file says before, or without, decoding it: its kind,
//! the simulation version that recorded it, and its cars' resets (for a
//! replay of an older version, which this build cannot decode).

use js_sys::{Array, Uint8Array};
use skidpad_replay::FileKind;
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsResult, range_error, replay_error};

/// Every car's resets as `CarResetEvent`s, in (step, car) order.
pub(crate) fn reset_events(per_car: &[&[skidpad_replay::CarReset]]) -> JsResult<Array> {
    let mut all: Vec<(u64, usize, skidpad_core::InitialPose)> = per_car
        .iter()
        .enumerate()
        .flat_map(|(car, resets)| resets.iter().map(move |r| (r.step, car, r.pose)))
        .collect();
    all.sort_by_key(|(step, car, _)| (*step, *car));
    let out = Array::new();
    for (step, car, p) in all {
        out.push(&args::object_of_numbers(&[
            ("car", car as f64),
            ("step", step as f64),
            ("x", p.x),
            ("y", p.y),
            ("yaw", p.yaw),
            ("speed", p.speed),
        ])?);
    }
    Ok(out)
}

/// The resets a replay file of any simulation version records, as
/// `Replay.resets()` gives them: for a replay of an older version, which
/// the archive of old cores plays (its interface has no resets) and this
/// build cannot decode. The file's checksum, header and resets section
/// are checked.
#[wasm_bindgen(js_name = resetsOfReplayFile, unchecked_return_type = "CarResetEvent[]")]
pub fn resets_of_replay_file(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
) -> JsResult<Array> {
    let bytes = args::bytes(&bytes, "bytes")?;
    let per_car = skidpad_replay::read_resets_any_version(&bytes).map_err(replay_error)?;
    let per_car: Vec<&[skidpad_replay::CarReset]> = per_car.iter().map(Vec::as_slice).collect();
    reset_events(&per_car)
}

/// What bytes hold, told by their first bytes as every skidpad tool tells
/// it (`FileKind::sniff`): `"replay"` (plain or gzip), `"stream"`,
/// `"ghost"`, `"empty"` or `"unknown"`. Reads only the first four bytes.
#[wasm_bindgen(js_name = fileKind, unchecked_return_type = "FileKind")]
pub fn file_kind(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
) -> JsResult<String> {
    let array = bytes.dyn_ref::<Uint8Array>().ok_or_else(|| {
        range_error(format!(
            "bytes must be a Uint8Array, got {}",
            args::type_name(&bytes)
        ))
    })?;
    let head = array.subarray(0, array.length().min(4)).to_vec();
    // Four bytes tell every kind but "empty", which needs the length.
    let kind = if array.length() == 0 {
        FileKind::Empty
    } else {
        FileKind::sniff(&head)
    };
    Ok(kind.name().to_owned())
}

/// The simulation version a replay (`.skr`, plain or gzip) was recorded
/// with, read from its header alone, whatever the version: a replay of an
/// older version is played by that version's archived core (the viewer
/// loads it from `/cores/`). Throws for bytes that are not a replay.
#[wasm_bindgen(js_name = replaySimulationVersion)]
pub fn replay_simulation_version(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
) -> JsResult<u32> {
    let bytes = args::bytes(&bytes, "bytes")?;
    skidpad_replay::read_replay_header(&bytes)
        .map(|h| h.simulation_version)
        .map_err(replay_error)
}
