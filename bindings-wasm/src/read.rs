//! Read-only views of a core world, shared by `World` and `ReplayPlayer`
//! (and the stream follower): hashes, telemetry, poses and snapshots as JS
//! values.

use js_sys::{Float32Array, Float64Array, Uint8Array};
use skidpad_core::{CarId, hex};
use wasm_bindgen::prelude::*;

use crate::args::{self, car_id, object_of_numbers};
use crate::error::{JsResult, core_error};

/// The fields of a pose, in the order `ReplayPlayer.poses` packs them.
pub(crate) const POSE_FIELDS: [&str; 8] = ["x", "y", "z", "yaw", "pitch", "roll", "steer", "speed"];

pub fn world_hash(world: &skidpad_core::World) -> String {
    hex(&world.world_hash())
}

pub fn car_hash(world: &skidpad_core::World, car: &JsValue) -> JsResult<String> {
    world
        .car_hash(car_id(car)?)
        .map(|h| hex(&h))
        .map_err(core_error)
}

pub fn telemetry(world: &skidpad_core::World, car: &JsValue) -> JsResult<Float64Array> {
    let values = world.telemetry(car_id(car)?).map_err(core_error)?;
    Ok(Float64Array::from(values))
}

pub fn channel(world: &skidpad_core::World, car: &JsValue, name: &JsValue) -> JsResult<f64> {
    let name = args::string(name, "channel name")?;
    world.channel(car_id(car)?, &name).map_err(core_error)
}

pub fn pose(world: &skidpad_core::World, car: &JsValue) -> JsResult<JsValue> {
    let p = world.pose(car_id(car)?).map_err(core_error)?;
    object_of_numbers(&[
        ("x", p.position.x),
        ("y", p.position.y),
        ("z", p.position.z),
        ("yaw", p.yaw),
        ("pitch", p.pitch),
        ("roll", p.roll),
        ("steer", p.steer_angle),
        ("speed", p.speed),
    ])
}

/// The pose of each car of `ids`, `POSE_FIELDS` values per car in
/// that order (NaN for an id the world no longer holds: a removed
/// car): one call per step for a viewer that tabulates a whole replay.
pub fn poses(world: &skidpad_core::World, ids: &[CarId]) -> JsResult<Float64Array> {
    Ok(Float64Array::from(pose_values(world, ids)?.as_slice()))
}

/// The telemetry of each car of `ids` in that order, as f32 (a
/// viewer's charts), channels in `channelNames()` order; NaN for a
/// removed car.
pub fn telemetry_all(world: &skidpad_core::World, ids: &[CarId]) -> JsResult<Float32Array> {
    let channels = skidpad_core::CHANNELS.len();
    let mut values = Vec::with_capacity(ids.len() * channels);
    for &id in ids {
        if !world.contains_car(id) {
            values.extend(std::iter::repeat_n(f32::NAN, channels));
            continue;
        }
        let car = world.telemetry(id).map_err(core_error)?;
        values.extend(car.iter().map(|&v| v as f32));
    }
    Ok(Float32Array::from(values.as_slice()))
}

/// `poses` as a Rust vector.
pub fn pose_values(world: &skidpad_core::World, ids: &[CarId]) -> JsResult<Vec<f64>> {
    let mut values = Vec::with_capacity(ids.len() * POSE_FIELDS.len());
    for &id in ids {
        if !world.contains_car(id) {
            values.extend(std::iter::repeat_n(f64::NAN, POSE_FIELDS.len()));
            continue;
        }
        let p = world.pose(id).map_err(core_error)?;
        values.extend_from_slice(&[
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
    Ok(values)
}

pub fn snapshot(world: &skidpad_core::World, car: &JsValue) -> JsResult<Uint8Array> {
    let bytes = world.snapshot(car_id(car)?).map_err(core_error)?;
    Ok(Uint8Array::from(bytes.as_slice()))
}
