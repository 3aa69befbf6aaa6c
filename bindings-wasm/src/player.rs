//! `ReplayPlayer`: playback in JavaScript, with JS hooks.

use std::sync::Arc;

use js_sys::{Float32Array, Float64Array, Uint8Array};
use skidpad_replay::{PlayerOptions, ReplaySource};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsResult, replay_error};
use crate::hooks::JsHooks;
use crate::read;
use crate::replay::Replay;
use crate::verify::desync_object;
use crate::world::World;

type CorePlayer = skidpad_replay::ReplayPlayer<'static, JsHooks>;

/// Plays a replay into a world holding the recorded cars (for example one
/// from `createReplayWorld`), checks every keyframe, re-syncs on a
/// mismatch and seeks.
#[wasm_bindgen]
pub struct ReplayPlayer {
    inner: CorePlayer,
}

impl ReplayPlayer {
    /// The native player (its world and cars), for another binding.
    pub(crate) fn core(&self) -> &CorePlayer {
        &self.inner
    }

    /// Runs `f`, then throws the first exception a hook threw during it.
    fn run<R>(
        &mut self,
        f: impl FnOnce(&mut CorePlayer) -> skidpad_replay::Result<R>,
    ) -> JsResult<R> {
        let result = f(&mut self.inner);
        if let Some(e) = self.inner.hooks_mut().take_error() {
            return Err(e);
        }
        result.map_err(replay_error)
    }
}

#[wasm_bindgen]
impl ReplayPlayer {
    /// Moves `world` into the player (the `World` object stops working)
    /// and restores keyframe 0. `hooks` may hold `beforeStep(step, world)`,
    /// `onRestore(step, state)` and `keyframeState(step) => Uint8Array |
    /// null`. Without `keyframeState` a player whose game has `onRestore`
    /// seeks from keyframes only.
    #[wasm_bindgen(constructor)]
    pub fn new(
        world: &World,
        replay: &Replay,
        #[wasm_bindgen(unchecked_optional_param_type = "ReplayHooks")] hooks: JsValue,
    ) -> JsResult<ReplayPlayer> {
        let hooks = JsHooks::from_object(&hooks)?;
        let source = ReplaySource::Shared(Arc::clone(&replay.inner));
        // Check the pairing before taking the world, so a mismatch leaves
        // the caller's world usable.
        let header = &replay.inner.header;
        if header.simulation_version != skidpad_core::SIMULATION_VERSION {
            return Err(replay_error(
                skidpad_replay::ReplayError::SimulationVersion {
                    replay: header.simulation_version,
                    core: skidpad_core::SIMULATION_VERSION,
                },
            ));
        }
        let cars = world.with(|w| Ok(w.car_count()))?;
        if cars != replay.inner.cars.len() {
            return Err(replay_error(skidpad_replay::ReplayError::CarCount {
                world: cars,
                replay: replay.inner.cars.len(),
            }));
        }
        let core_world = world.take()?;
        let mut hooks_error = None;
        let inner = CorePlayer::with_options(core_world, source, hooks, PlayerOptions::default())
            .map(|mut p| {
                hooks_error = p.hooks_mut().take_error();
                p
            })
            .map_err(replay_error)?;
        match hooks_error {
            Some(e) => Err(e),
            None => Ok(ReplayPlayer { inner }),
        }
    }

    /// Plays one recorded step; false at the end.
    pub fn advance(&mut self) -> JsResult<bool> {
        self.run(|p| p.advance())
    }

    /// Plays to the end.
    #[wasm_bindgen(js_name = playToEnd)]
    pub fn play_to_end(&mut self) -> JsResult<()> {
        self.run(|p| p.play_to_end())
    }

    /// Moves to `step` (0 ..= stepCount), forward or backward.
    pub fn seek(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number")] step: JsValue,
    ) -> JsResult<()> {
        let step = args::u64_arg(&step, "step")?;
        self.run(|p| p.seek(step))
    }

    /// Steps played since the recording's start.
    #[wasm_bindgen(getter)]
    pub fn step(&self) -> f64 {
        self.inner.step() as f64
    }

    /// True when every recorded step has been played.
    #[wasm_bindgen(getter, js_name = atEnd)]
    pub fn at_end(&self) -> bool {
        self.inner.at_end()
    }

    /// Keyframes that did not match (each was restored).
    #[wasm_bindgen(getter)]
    pub fn desyncs(&self) -> f64 {
        self.inner.desyncs() as f64
    }

    /// The first mismatch, field by field, or null.
    #[wasm_bindgen(getter, js_name = firstDesync, unchecked_return_type = "DesyncReport | null")]
    pub fn first_desync(&self) -> JsResult<JsValue> {
        match self.inner.first_desync() {
            Some(report) => desync_object(report),
            None => Ok(JsValue::NULL),
        }
    }

    /// The playback world's hash, as 64 hex digits.
    #[wasm_bindgen(js_name = worldHash)]
    pub fn world_hash(&self) -> String {
        read::world_hash(self.inner.world())
    }

    /// One playback car's hash.
    #[wasm_bindgen(js_name = carHash)]
    pub fn car_hash(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    ) -> JsResult<String> {
        read::car_hash(self.inner.world(), &car)
    }

    /// One playback car's telemetry (a copy).
    pub fn telemetry(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    ) -> JsResult<Float64Array> {
        read::telemetry(self.inner.world(), &car)
    }

    /// One telemetry channel of a playback car.
    pub fn channel(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> JsResult<f64> {
        read::channel(self.inner.world(), &car, &name)
    }

    /// A playback car's pose (for a camera).
    #[wasm_bindgen(unchecked_return_type = "CarPose")]
    pub fn pose(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    ) -> JsResult<JsValue> {
        read::pose(self.inner.world(), &car)
    }

    /// Every replay car's pose, eight values per car in the replay's car
    /// order (the fields `poseFields()` names; NaN while the recording had
    /// the car removed): one call per step for a viewer.
    pub fn poses(&self) -> JsResult<Float64Array> {
        read::poses(self.inner.world(), self.inner.car_ids())
    }

    /// Every replay car's telemetry in one array, as f32: cars ×
    /// `channelNames().length` values, in the replay's car order (NaN while
    /// removed; one call per step for a viewer's charts).
    #[wasm_bindgen(js_name = telemetryAll)]
    pub fn telemetry_all(&self) -> JsResult<Float32Array> {
        read::telemetry_all(self.inner.world(), self.inner.car_ids())
    }

    /// The contacts of the step just played: `{ first, second (a car, or
    /// null for the ground), point, normal, depth, impulse }`.
    #[wasm_bindgen(unchecked_return_type = "Contact[]")]
    pub fn contacts(&self) -> JsResult<js_sys::Array> {
        crate::ground::contacts(self.inner.world().contacts())
    }

    /// A playback car's snapshot bytes.
    pub fn snapshot(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    ) -> JsResult<Uint8Array> {
        read::snapshot(self.inner.world(), &car)
    }

    /// A copy of the playback world as it is now, as an independent
    /// `World` (for example to branch off and drive from this point).
    #[wasm_bindgen(js_name = copyWorld)]
    pub fn copy_world(&self) -> World {
        World::from_core(self.inner.world().clone())
    }
}
