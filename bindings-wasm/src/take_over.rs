//! Take-over in JavaScript: `TakeOver`, a new run from any step of a
//! replay with one car the player's (`skidpad_replay::TakeOver`).

use skidpad_replay::{Followers, TakeOverFollowers};
use wasm_bindgen::prelude::*;

use crate::args::{self, field, u32_arg};
use crate::error::{JsResult, error, range_error, replay_error};
use crate::replay::{Replay, ReplayRecorder, metadata_pairs};
use crate::world::World;

/// A run taken over from a replay at one of its steps: its world (taken
/// out once, with `takeWorld`), and the cars the player does not drive,
/// which follow their recordings (or the AI) while the game calls
/// `prepareFollowers(world)` before each step.
#[wasm_bindgen]
pub struct TakeOver {
    world: Option<skidpad_core::World>,
    followers: TakeOverFollowers,
}

#[wasm_bindgen]
impl TakeOver {
    /// The replay played to `step`, car `car` (by index in the replay)
    /// handed to the player. `options`: `followers` (`"recorded"`, the
    /// default, or `"ai"` on the replay's track) and `limits` (the work
    /// budget the source is checked against first).
    #[wasm_bindgen(constructor)]
    pub fn new(
        replay: &Replay,
        #[wasm_bindgen(unchecked_param_type = "number")] step: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "TakeOverOptions")] options: JsValue,
    ) -> JsResult<TakeOver> {
        let step = args::u64_arg(&step, "step")?;
        let car = u32_arg(&car, "car")? as usize;
        let followers = match field(&options, "followers")?.as_string().as_deref() {
            None | Some("recorded") => Followers::Recorded,
            Some("ai") => Followers::Ai,
            Some(other) => {
                return Err(range_error(format!(
                    "followers must be \"recorded\" or \"ai\", not {other:?}"
                )));
            }
        };
        let limits = crate::limits::limits(&field(&options, "limits")?)?;
        let run = skidpad_replay::TakeOver::with_followers(
            replay.inner.clone(),
            step,
            car,
            followers,
            &limits,
        )
        .map_err(replay_error)?;
        let (world, followers) = run.into_parts();
        Ok(TakeOver {
            world: Some(world),
            followers,
        })
    }

    /// The run's world; it moves out of here, so a second call throws.
    #[wasm_bindgen(js_name = takeWorld)]
    pub fn take_world(&mut self) -> JsResult<World> {
        self.world
            .take()
            .map(World::from_core)
            .ok_or_else(|| error("takeWorld: the world was taken already"))
    }

    /// The player's car id in the run's world.
    #[wasm_bindgen(getter)]
    pub fn player(&self) -> u32 {
        self.followers.player().to_raw()
    }

    /// The world id of the replay's car `index`.
    #[wasm_bindgen(js_name = carId)]
    pub fn car_id(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] index: JsValue,
    ) -> JsResult<u32> {
        let index = u32_arg(&index, "index")? as usize;
        self.followers
            .car_id(index)
            .map(skidpad_core::CarId::to_raw)
            .ok_or_else(|| range_error(format!("the replay has no car {index}")))
    }

    /// Where the run began: `{source, step, car}` (the source's final hash).
    #[wasm_bindgen(unchecked_return_type = "TakeOverOrigin")]
    pub fn origin(&self) -> JsResult<JsValue> {
        let origin = self.followers.origin();
        let object = js_sys::Object::new();
        for (key, value) in [
            ("source", JsValue::from_str(&origin.source)),
            ("step", JsValue::from_f64(origin.step as f64)),
            ("car", JsValue::from_f64(origin.car as f64)),
        ] {
            js_sys::Reflect::set(&object, &key.into(), &value)?;
        }
        Ok(object.into())
    }

    /// A recorder of the run's `world` (call it before the first step): it
    /// carries the source's ground and track on and names where the run
    /// began. `options`: `metadata` (an object of strings, added),
    /// `keyframeEvery` and `rewindWindow` (as `ReplayRecorder`'s).
    pub fn recorder(
        &self,
        world: &World,
        #[wasm_bindgen(unchecked_optional_param_type = "TakeOverRecorderOptions")] options: JsValue,
    ) -> JsResult<ReplayRecorder> {
        let mut chosen = self.followers.recorder_options();
        chosen
            .metadata
            .extend(metadata_pairs(&field(&options, "metadata")?)?);
        let every = field(&options, "keyframeEvery")?;
        if !every.is_undefined() {
            chosen.keyframe_every = u32_arg(&every, "keyframeEvery")?;
        }
        let window = field(&options, "rewindWindow")?;
        if !window.is_undefined() {
            chosen.rewind_window = args::u64_arg(&window, "rewindWindow")?;
        }
        ReplayRecorder::with_options(world, chosen)
    }

    /// After `recorder.rewind(world, step)`: the followers play their
    /// recordings from that step again.
    #[wasm_bindgen(js_name = rewoundTo)]
    pub fn rewound_to(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number")] step: JsValue,
    ) -> JsResult<()> {
        self.followers.rewound_to(args::u64_arg(&step, "step")?);
        Ok(())
    }

    /// Gives the followers their inputs for `world`'s next step; call it
    /// once before every step.
    #[wasm_bindgen(js_name = prepareFollowers)]
    pub fn prepare_followers(&mut self, world: &World) -> JsResult<()> {
        world.with_mut(|w| self.followers.prepare(w).map_err(replay_error))
    }
}

/// Where a take-over of the replay's car `car` can begin at a boundary:
/// `[{lap, sector, step, time}]`, the step just before the car entered
/// each sector of its completed laps (sector 1: the line), in order, as
/// the race layer times the replay. `limits`: the work budget the replay
/// is checked against first.
#[wasm_bindgen(js_name = sectorStarts, unchecked_return_type = "SectorStart[]")]
pub fn sector_starts(
    replay: &Replay,
    #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Limits")] limits: JsValue,
) -> JsResult<js_sys::Array> {
    let car = u32_arg(&car, "car")? as usize;
    let limits = crate::limits::limits(&limits)?;
    let starts =
        skidpad_replay::sector_starts(&replay.inner, car, &limits).map_err(replay_error)?;
    let out = js_sys::Array::new();
    for start in starts {
        out.push(&args::object_of_numbers(&[
            ("lap", f64::from(start.lap)),
            ("sector", f64::from(start.sector)),
            ("step", start.step as f64),
            ("time", start.time),
        ])?);
    }
    Ok(out)
}
