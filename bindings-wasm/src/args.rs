//! Reading JavaScript arguments strictly.
//!
//! wasm-bindgen coerces a JS value passed to an `f64` or `u32` parameter
//! (`null` becomes 0, `-1` becomes 4294967295), which would turn a caller's
//! mistake into a valid call. Exported functions therefore take `JsValue`
//! where a mistake is plausible and read it here: wrong types, NaN,
//! fractions and out-of-range values throw `RangeError` naming the
//! argument.

use js_sys::{Float64Array, Object, Reflect, Uint8Array, Uint32Array};
use skidpad_core::{CarId, Lod, LodSetting, SurfaceId, SurfaceTable, Wheel};
use wasm_bindgen::{JsCast, JsValue};

use crate::error::{JsResult, range_error};

/// A JS number (not NaN), or RangeError.
pub fn number(value: &JsValue, what: &str) -> JsResult<f64> {
    match value.as_f64() {
        Some(v) if !v.is_nan() => Ok(v),
        Some(_) => Err(range_error(format!("{what} is NaN"))),
        None => Err(range_error(format!(
            "{what} must be a number, got {}",
            type_name(value)
        ))),
    }
}

/// A number, or `default` when the argument is `undefined` or `null`.
pub fn number_or(value: &JsValue, what: &str, default: f64) -> JsResult<f64> {
    if value.is_undefined() || value.is_null() {
        Ok(default)
    } else {
        number(value, what)
    }
}

/// A whole number in `0 ..= max`.
pub fn whole(value: &JsValue, what: &str, max: f64) -> JsResult<f64> {
    let v = number(value, what)?;
    if v.fract() != 0.0 || !(0.0..=max).contains(&v) {
        return Err(range_error(format!(
            "{what} must be a whole number in 0..={max}, got {v}"
        )));
    }
    Ok(v)
}

/// A whole number that fits a u32.
pub fn u32_arg(value: &JsValue, what: &str) -> JsResult<u32> {
    // The range check above makes the cast exact.
    whole(value, what, f64::from(u32::MAX)).map(|v| v as u32)
}

/// A step index or count: a whole number up to 2^53 (exact in a double).
pub fn u64_arg(value: &JsValue, what: &str) -> JsResult<u64> {
    const MAX_EXACT: f64 = 9_007_199_254_740_992.0;
    whole(value, what, MAX_EXACT).map(|v| v as u64)
}

/// A car id.
pub fn car_id(value: &JsValue) -> JsResult<CarId> {
    u32_arg(value, "car id").map(CarId::from_raw)
}

/// A string, or RangeError.
pub fn string(value: &JsValue, what: &str) -> JsResult<String> {
    value
        .as_string()
        .ok_or_else(|| range_error(format!("{what} must be a string, got {}", type_name(value))))
}

/// The bytes of a `Uint8Array`, copied into wasm memory.
pub fn bytes(value: &JsValue, what: &str) -> JsResult<Vec<u8>> {
    value
        .dyn_ref::<Uint8Array>()
        .map(Uint8Array::to_vec)
        .ok_or_else(|| {
            range_error(format!(
                "{what} must be a Uint8Array, got {}",
                type_name(value)
            ))
        })
}

/// The numbers of a `Float64Array`, copied into wasm memory.
pub fn f64s(value: &JsValue, what: &str) -> JsResult<Vec<f64>> {
    value
        .dyn_ref::<Float64Array>()
        .map(Float64Array::to_vec)
        .ok_or_else(|| {
            range_error(format!(
                "{what} must be a Float64Array, got {}",
                type_name(value)
            ))
        })
}

/// The numbers of a `Uint32Array`, copied into wasm memory.
pub fn u32s(value: &JsValue, what: &str) -> JsResult<Vec<u32>> {
    value
        .dyn_ref::<Uint32Array>()
        .map(Uint32Array::to_vec)
        .ok_or_else(|| {
            range_error(format!(
                "{what} must be a Uint32Array, got {}",
                type_name(value)
            ))
        })
}

/// A boolean, or `default` when absent.
pub fn bool_or(value: &JsValue, what: &str, default: bool) -> JsResult<bool> {
    if value.is_undefined() || value.is_null() {
        return Ok(default);
    }
    value.as_bool().ok_or_else(|| {
        range_error(format!(
            "{what} must be a boolean, got {}",
            type_name(value)
        ))
    })
}

/// Property `key` of an options object (`undefined` when the object itself
/// is `undefined` or `null`).
pub fn field(options: &JsValue, key: &str) -> JsResult<JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(JsValue::UNDEFINED);
    }
    if !options.is_object() {
        return Err(range_error(format!(
            "options must be an object, got {}",
            type_name(options)
        )));
    }
    Reflect::get(options, &JsValue::from_str(key))
}

/// A surface given by id (number) or by name in `table`.
pub fn surface(value: &JsValue, table: &SurfaceTable) -> JsResult<SurfaceId> {
    if let Some(name) = value.as_string() {
        return table
            .id_of(&name)
            .ok_or_else(|| range_error(format!("unknown surface `{name}`")));
    }
    let id = whole(value, "surface id", f64::from(u8::MAX))?;
    Ok(SurfaceId(id as u8))
}

/// A wheel given by index 0..4 or by short name (`fl`, `fr`, `rl`, `rr`).
pub fn wheel(value: &JsValue) -> JsResult<Wheel> {
    if let Some(name) = value.as_string() {
        return Wheel::ALL
            .into_iter()
            .find(|w| w.short_name() == name)
            .ok_or_else(|| range_error(format!("unknown wheel `{name}` (fl, fr, rl, rr)")));
    }
    let index = whole(value, "wheel", 3.0)?;
    Wheel::from_index(index as u8)
        .ok_or(skidpad_core::CoreError::InvalidWheel(index as u8))
        .map_err(crate::error::core_error)
}

/// A level of detail by name, with an optional substep rate.
pub fn lod(level: &JsValue, substep_rate: &JsValue) -> JsResult<LodSetting> {
    let name = string(level, "level of detail")?;
    let level = match name.as_str() {
        "full" => Lod::Full,
        "singleTrack" => Lod::SingleTrack,
        "frozen" => Lod::Frozen,
        _ => {
            return Err(range_error(format!(
                "unknown level of detail `{name}` (full, singleTrack, frozen)"
            )));
        }
    };
    if substep_rate.is_undefined() || substep_rate.is_null() {
        return Ok(LodSetting::new(level));
    }
    let rate = number(substep_rate, "substep rate")?;
    Ok(LodSetting::with_rate(level, rate))
}

/// `typeof value`, for messages.
pub(crate) fn type_name(value: &JsValue) -> String {
    value.js_typeof().as_string().unwrap_or_default()
}

/// A new plain object with these number fields.
pub fn object_of_numbers(fields: &[(&str, f64)]) -> JsResult<JsValue> {
    let object = Object::new();
    for (key, value) in fields {
        Reflect::set(&object, &JsValue::from_str(key), &JsValue::from_f64(*value))?;
    }
    Ok(object.into())
}
