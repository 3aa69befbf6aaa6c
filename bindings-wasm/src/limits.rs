//! Work budgets from JavaScript: a `Limits` object (camelCase fields of
//! `skidpad_replay::Limits`, each optional) for `decodeReplay` and
//! `verifyReplay`.

use skidpad_replay::Limits;
use wasm_bindgen::JsValue;

use crate::args::{field, u32_arg, u64_arg};
use crate::error::JsResult;

/// The limits in `value` (`undefined` or `null` gives the defaults); each
/// absent field keeps its default, a present one must be a whole number.
pub fn limits(value: &JsValue) -> JsResult<Limits> {
    let mut limits = Limits::default();
    // Each field is given as a JS number; u32 fields are range-checked as
    // u32, the rest up to 2^53.
    let given = |key: &str| -> JsResult<Option<JsValue>> {
        let v = field(value, key)?;
        Ok((!v.is_undefined()).then_some(v))
    };
    if let Some(v) = given("maxCars")? {
        limits.max_cars = u32_arg(&v, "maxCars")?;
    }
    if let Some(v) = given("maxSubstepsPerStep")? {
        limits.max_substeps_per_step = u32_arg(&v, "maxSubstepsPerStep")?;
    }
    for (key, slot) in [
        ("maxSteps", &mut limits.max_steps),
        ("maxCarSubsteps", &mut limits.max_car_substeps),
        (
            "maxKeyframeStateBytes",
            &mut limits.max_keyframe_state_bytes,
        ),
        ("maxMetadataBytes", &mut limits.max_metadata_bytes),
        ("maxDecodedBytes", &mut limits.max_decoded_bytes),
    ] {
        if let Some(v) = given(key)? {
            *slot = u64_arg(&v, key)?;
        }
    }
    Ok(limits)
}
