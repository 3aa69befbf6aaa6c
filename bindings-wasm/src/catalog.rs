//! What the core offers by name: pose fields, telemetry channels and their
//! units, car presets, built-in tracks.

use js_sys::Array;
use skidpad_core::preset;
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsResult, core_error};
use crate::read::POSE_FIELDS;

/// Pose field names, in the order of `ReplayPlayer.poses`.
#[wasm_bindgen(js_name = poseFields, unchecked_return_type = "string[]")]
pub fn pose_fields() -> Array {
    POSE_FIELDS.iter().map(|f| JsValue::from_str(f)).collect()
}

/// Telemetry channel names, in the order of `World.telemetry`.
#[wasm_bindgen(js_name = channelNames, unchecked_return_type = "string[]")]
pub fn channel_names() -> Array {
    skidpad_core::CHANNELS
        .iter()
        .map(|c| JsValue::from_str(c.name))
        .collect()
}

/// Telemetry channel units, in the same order.
#[wasm_bindgen(js_name = channelUnits, unchecked_return_type = "string[]")]
pub fn channel_units() -> Array {
    skidpad_core::CHANNELS
        .iter()
        .map(|c| JsValue::from_str(c.unit))
        .collect()
}

/// Telemetry channel interpolation modes (`lerp`, `lerpAngle`,
/// `discrete`: how to draw a channel between samples), in the same order.
#[wasm_bindgen(js_name = channelInterpolations, unchecked_return_type = "string[]")]
pub fn channel_interpolations() -> Array {
    skidpad_core::CHANNELS
        .iter()
        .map(|c| JsValue::from_str(c.interpolation.name()))
        .collect()
}

/// Telemetry channel groups (`motion`, `wheel fl`, …), in the same order.
#[wasm_bindgen(js_name = channelGroups, unchecked_return_type = "string[]")]
pub fn channel_groups() -> Array {
    skidpad_core::CHANNELS
        .iter()
        .map(|c| JsValue::from_str(c.group))
        .collect()
}

/// Names of the built-in car presets.
#[wasm_bindgen(js_name = presetNames, unchecked_return_type = "string[]")]
pub fn preset_names() -> Array {
    skidpad_core::preset_names()
        .into_iter()
        .map(JsValue::from_str)
        .collect()
}

/// A built-in preset's definition as JSON, to edit and pass to `addCar`.
#[wasm_bindgen(js_name = presetDefinition)]
pub fn preset_definition(
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
) -> JsResult<String> {
    let name = args::string(&name, "preset name")?;
    preset(&name).map(|d| d.to_json()).map_err(core_error)
}

/// A car package's definition written out in full, as JSON to pass to
/// `addCar`: `json` is a definition whose tires may name `.tir` files
/// (`{"tir": "front.tir"}`), `tirFiles` each named file's text (as
/// `skidpad car` reads them beside the package). The same car, with the
/// same fingerprint, as the Rust API reads.
#[wasm_bindgen(js_name = carFromPackage)]
pub fn car_from_package(
    #[wasm_bindgen(unchecked_param_type = "string")] json: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Record<string, string>")] tir_files: JsValue,
) -> JsResult<String> {
    let json = args::string(&json, "car package")?;
    let mut read_tir = |name: &str| -> skidpad_core::Result<String> {
        let text = args::field(&tir_files, name)
            .ok()
            .filter(|v| !v.is_undefined())
            .and_then(|v| v.as_string());
        text.ok_or_else(|| skidpad_core::CoreError::InvalidArgument {
            what: "tirFiles",
            reason: format!("has no text for {name:?}"),
        })
    };
    skidpad_core::CarDefinition::from_package_json(&json, &mut read_tir)
        .map(|d| d.to_json())
        .map_err(core_error)
}

/// Names of the built-in tracks.
#[wasm_bindgen(js_name = trackNames, unchecked_return_type = "string[]")]
pub fn track_names() -> Array {
    skidpad_core::track_names()
        .into_iter()
        .map(JsValue::from_str)
        .collect()
}
