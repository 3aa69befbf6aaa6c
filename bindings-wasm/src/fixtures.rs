//! The fixed scenarios the package exports for its own cross-engine checks
//! (`skidpad_fixtures`): the benchmarks' racing field and the reference
//! scenario behind the pinned golden hash. Test fixtures, not game API.

use skidpad_core::hex;
use skidpad_fixtures::reference_world_hash;
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{self, JsResult, core_error};
use crate::world::World;
/// Runs the core's reference scenario (the one behind the pinned `GOLDEN`
/// hash in `sim-core/tests/golden.rs`) and returns its final world hash, so
/// any host can compare its bits with native ones.
#[wasm_bindgen(js_name = referenceScenarioHash)]
pub fn reference_scenario_hash() -> Result<String, JsValue> {
    reference_world_hash()
        .map(|h| hex(&h))
        .map_err(error::core_error)
}

/// The benchmarks' racing field (`skidpad_fixtures::racing_world`):
/// `cars` cars of alternating presets spread around the built-in track at
/// speed, at level `"full"` or `"singleTrack"`, with AI drivers unless
/// `ai` is false. Step it at 1/60 s.
#[wasm_bindgen(js_name = racingWorld)]
pub fn racing_world(
    #[wasm_bindgen(unchecked_param_type = "number")] cars: JsValue,
    #[wasm_bindgen(unchecked_param_type = "'full' | 'singleTrack' | 'frozen'")] level: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "boolean")] ai: JsValue,
) -> JsResult<World> {
    const MAX_CARS: f64 = 10_000.0;
    let cars = args::whole(&cars, "cars", MAX_CARS)? as usize;
    let lod = args::lod(&level, &JsValue::UNDEFINED)?.level;
    let ai = args::bool_or(&ai, "ai", true)?;
    skidpad_fixtures::racing_world(cars, lod, ai)
        .map(World::from_core)
        .map_err(core_error)
}
