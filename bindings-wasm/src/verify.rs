//! Verification in JavaScript: `verifyReplay`, which re-simulates replay
//! bytes as a leaderboard server does, and the desync report object it and
//! the player hand out.

use js_sys::{Array, Object, Reflect};
use skidpad_core::hex;
use skidpad_replay::DesyncReport;
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsResult, replay_error};
use crate::hooks::JsHooks;

/// A desync report as `{step, cars, fields: [{car, field, recorded,
/// simulated}]}`.
pub(crate) fn desync_object(report: &DesyncReport) -> JsResult<JsValue> {
    let object = Object::new();
    Reflect::set(
        &object,
        &"step".into(),
        &JsValue::from_f64(report.step as f64),
    )?;
    let cars: Array = report
        .cars
        .iter()
        .map(|c| JsValue::from(c.to_raw()))
        .collect();
    Reflect::set(&object, &"cars".into(), &cars)?;
    let fields = Array::new();
    for diff in &report.fields {
        let f = Object::new();
        Reflect::set(&f, &"car".into(), &JsValue::from(diff.car.to_raw()))?;
        Reflect::set(&f, &"field".into(), &JsValue::from_str(diff.field))?;
        Reflect::set(&f, &"recorded".into(), &JsValue::from_f64(diff.recorded))?;
        Reflect::set(&f, &"simulated".into(), &JsValue::from_f64(diff.simulated))?;
        fields.push(&f);
    }
    Reflect::set(&object, &"fields".into(), &fields)?;
    Ok(object.into())
}

/// Re-simulates replay bytes headless, as a leaderboard server does, with
/// optional hooks, within `limits` (the defaults when absent: a replay
/// declaring more work throws before any step runs), and returns `{valid,
/// simulationVersion, recordedBy, steps, duration, keyframes, desyncs,
/// firstDesync, finalHash, rewinds}` (`rewinds`: `{count, steps, seconds}`
/// the player's rewinds took back).
#[wasm_bindgen(js_name = verifyReplay, unchecked_return_type = "VerifyReport")]
pub fn verify_replay_js(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ReplayHooks")] hooks: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Limits")] limits: JsValue,
) -> JsResult<JsValue> {
    let bytes = args::bytes(&bytes, "bytes")?;
    let mut hooks = JsHooks::from_object(&hooks)?;
    let limits = crate::limits::limits(&limits)?;
    let report = skidpad_replay::verify(&bytes, &mut hooks, &limits);
    if let Some(e) = hooks.take_error() {
        return Err(e);
    }
    let report = report.map_err(replay_error)?;
    let object = Object::new();
    let set = |key: &str, value: JsValue| Reflect::set(&object, &key.into(), &value);
    set("valid", report.is_valid().into())?;
    set("simulationVersion", report.simulation_version.into())?;
    set("recordedBy", report.recorded_by.as_str().into())?;
    set("steps", (report.steps as f64).into())?;
    set("duration", report.duration.into())?;
    set("keyframes", (report.keyframes as f64).into())?;
    set("desyncs", (report.desyncs as f64).into())?;
    let first = match &report.first_desync {
        Some(d) => desync_object(d)?,
        None => JsValue::NULL,
    };
    set("firstDesync", first)?;
    set("finalHash", hex(&report.final_hash).into())?;
    set(
        "rewinds",
        args::object_of_numbers(&[
            ("count", report.rewinds.count as f64),
            ("steps", report.rewinds.steps as f64),
            ("seconds", report.rewinds.seconds),
        ])?,
    )?;
    Ok(object.into())
}
