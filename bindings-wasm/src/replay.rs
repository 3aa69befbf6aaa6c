//! Replays in JavaScript: `Replay`, `ReplayRecorder`, `encodeReplay`,
//! `decodeReplay`, `createReplayWorld` and `verifyReplay`.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use js_sys::{Array, Float64Array, Function, Object, Reflect, Uint8Array};
use skidpad_core::hex;
use skidpad_core::{CarId, Track};
use skidpad_replay::{
    KeyframeState, RecorderOptions, decode_replay_with, encode_replay, encode_replay_gzip,
};
use wasm_bindgen::prelude::*;

use crate::args::{self, bool_or, car_id, field, number};
use crate::error::{JsResult, core_error, error, message_of, range_error, replay_error};
use crate::ghost::Ghost;
use crate::track::TrackView;
use crate::world::World;

/// A decoded or freshly recorded replay. Read-only; players share it.
#[wasm_bindgen]
pub struct Replay {
    pub(crate) inner: Arc<skidpad_replay::Replay>,
}

#[wasm_bindgen]
impl Replay {
    /// Recorded host steps.
    #[wasm_bindgen(getter, js_name = stepCount)]
    pub fn step_count(&self) -> f64 {
        self.inner.header.step_count as f64
    }

    /// Recorded cars.
    #[wasm_bindgen(getter, js_name = carCount)]
    pub fn car_count(&self) -> u32 {
        self.inner.header.car_count
    }

    /// Keyframes stored.
    #[wasm_bindgen(getter, js_name = keyframeCount)]
    pub fn keyframe_count(&self) -> f64 {
        self.inner.keyframes.len() as f64
    }

    /// Simulated seconds.
    #[wasm_bindgen(getter)]
    pub fn duration(&self) -> f64 {
        self.inner.duration()
    }

    /// The simulation version it was recorded with.
    #[wasm_bindgen(getter, js_name = simulationVersion)]
    pub fn simulation_version(&self) -> u32 {
        self.inner.header.simulation_version
    }

    /// The core version that recorded it.
    #[wasm_bindgen(getter, js_name = coreVersion)]
    pub fn core_version(&self) -> String {
        self.inner.header.core_version.clone()
    }

    /// The world hash at the last keyframe (the end of the recording), as
    /// 64 hex digits.
    #[wasm_bindgen(getter, js_name = finalHash)]
    pub fn final_hash(&self) -> String {
        self.inner
            .keyframes
            .last()
            .map(|k| hex(&k.world_hash))
            .unwrap_or_default()
    }

    /// The time (s) at every step from 0 to `stepCount` (stepCount + 1
    /// values): the sums of the recorded step lengths.
    #[wasm_bindgen(js_name = stepTimes)]
    pub fn step_times(&self) -> Float64Array {
        let mut times = Vec::with_capacity(self.inner.dt.len() as usize + 1);
        let mut t = 0.0;
        times.push(t);
        for (count, dt) in self.inner.dt.runs() {
            for _ in 0..count {
                t += dt;
                times.push(t);
            }
        }
        Float64Array::from(times.as_slice())
    }

    /// The description of the ground the replay was recorded on (the
    /// plane's when it names none).
    #[wasm_bindgen(getter, js_name = groundDescription)]
    pub fn ground_description(&self) -> JsResult<String> {
        Ok(self.inner.header.ground().map_err(replay_error)?.1)
    }

    /// Hex blake3 fingerprint of the ground the replay was recorded on
    /// (the plane's when it names none).
    #[wasm_bindgen(getter, js_name = groundFingerprint)]
    pub fn ground_fingerprint(&self) -> JsResult<String> {
        Ok(skidpad_core::hex(
            &self.inner.header.ground().map_err(replay_error)?.0,
        ))
    }

    /// The built-in track whose surface the replay was recorded on (by the
    /// ground's fingerprint), or null: the plane or a game's own ground.
    /// A viewer can draw that track's road; laps are timed only on the
    /// track the `track` metadata names.
    #[wasm_bindgen(getter, js_name = groundTrack)]
    pub fn ground_track(&self) -> JsResult<Option<String>> {
        skidpad_replay::builtin_track_of_ground(&self.inner)
            .map(|t| t.map(str::to_owned))
            .map_err(replay_error)
    }

    /// The ground the replay carries (section 11), as triangles to draw,
    /// or null when it carries none.
    #[wasm_bindgen(js_name = carriedGround, unchecked_return_type = "CarriedGround | null")]
    pub fn carried_ground(&self) -> JsResult<JsValue> {
        self.inner
            .ground
            .as_ref()
            .map_or(Ok(JsValue::NULL), crate::ground::drawn_ground)
    }

    /// This replay with the ground of a ground file (`.skgd`) given beside
    /// it, for a replay that does not carry its own; one that does is
    /// returned as it is. Whether it is the ground the replay names is
    /// checked when a world is made for it (`createReplayWorld` throws,
    /// naming both grounds).
    #[wasm_bindgen(js_name = withGroundFile)]
    pub fn with_ground_file(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
    ) -> JsResult<Replay> {
        if self.inner.ground.is_some() {
            return Ok(Replay {
                inner: self.inner.clone(),
            });
        }
        let ground = skidpad_replay::decode_ground_file(&args::bytes(&bytes, "bytes")?)
            .map_err(replay_error)?;
        let mut replay = (*self.inner).clone();
        replay.ground = Some(ground);
        Ok(Replay {
            inner: Arc::new(replay),
        })
    }

    /// This replay with `track`, for one that names it by fingerprint
    /// without carrying it (a game's own track, given beside it as a
    /// file): afterwards `track()` finds it, and a world is made on its
    /// generated ground when that is the one the replay names. A replay
    /// that carries its track, or names a built-in one, is returned as it
    /// is; one that names another track throws, naming both.
    #[wasm_bindgen(js_name = withTrack)]
    pub fn with_track(&self, track: &TrackView) -> JsResult<Replay> {
        let mut replay = (*self.inner).clone();
        replay
            .header
            .supply_track(track.inner())
            .map_err(replay_error)?;
        Ok(Replay {
            inner: Arc::new(replay),
        })
    }

    /// The metadata as a plain object of strings.
    #[wasm_bindgen(unchecked_return_type = "Record<string, string>")]
    pub fn metadata(&self) -> JsResult<JsValue> {
        metadata_object(&self.inner.header)
    }

    /// The track the replay names (metadata `track`): a built-in one, or a
    /// game's own one it carries (`ReplayHeader::track`); undefined when
    /// it names none. Throws when it names a track this package cannot
    /// find, saying which.
    pub fn track(&self) -> JsResult<Option<TrackView>> {
        let track = self.inner.header.track().map_err(replay_error)?;
        Ok(track.map(TrackView::of))
    }

    /// The game's resets of its cars (`World.resetCar`), in step order:
    /// `{car, step, x, y, yaw, speed}`, the car put down at that pose
    /// before step `step` was played (steps from the replay's start).
    #[wasm_bindgen(unchecked_return_type = "CarResetEvent[]")]
    pub fn resets(&self) -> JsResult<Array> {
        let per_car: Vec<&[skidpad_replay::CarReset]> = self
            .inner
            .cars
            .iter()
            .map(|c| c.resets.as_slice())
            .collect();
        crate::replay_file::reset_events(&per_car)
    }

    /// The player's rewinds, by the step they went back to:
    /// `{at, count, steps, seconds}` (`count` rewinds to step `at` that
    /// abandoned `steps` steps, `seconds` simulated seconds).
    #[wasm_bindgen(unchecked_return_type = "RewindRecord[]")]
    pub fn rewinds(&self) -> JsResult<Array> {
        self.inner
            .rewinds
            .iter()
            .map(|r| {
                args::object_of_numbers(&[
                    ("at", r.at as f64),
                    ("count", f64::from(r.count)),
                    ("steps", r.steps as f64),
                    ("seconds", r.seconds),
                ])
            })
            .collect()
    }

    /// Car `index`'s embedded ghost, if the recording embedded ghosts.
    #[wasm_bindgen(js_name = embeddedGhost)]
    pub fn embedded_ghost(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] index: JsValue,
    ) -> JsResult<Option<Ghost>> {
        let index = args::u32_arg(&index, "car index")? as usize;
        let Some(ghosts) = &self.inner.ghosts else {
            return Ok(None);
        };
        ghosts
            .get(index)
            .map(|g| Some(Ghost::from_core(g.clone())))
            .ok_or_else(|| {
                range_error(format!(
                    "car index {index} out of range (0..{})",
                    ghosts.len()
                ))
            })
    }
}

/// Shared with the `keyframeState` closure: the first exception it threw.
type CallbackError = Rc<RefCell<Option<(u64, JsValue)>>>;

/// Records a world's steps (SPEC §5).
#[wasm_bindgen]
pub struct ReplayRecorder {
    inner: Option<skidpad_replay::ReplayRecorder<'static>>,
    callback_error: CallbackError,
}

fn recorder_options(
    world: &World,
    options: &JsValue,
    errors: &CallbackError,
) -> JsResult<RecorderOptions<'static>> {
    let mut out = RecorderOptions::default();
    let cars = field(options, "cars")?;
    if !cars.is_undefined() && !cars.is_null() {
        if !Array::is_array(&cars) {
            return Err(range_error("options.cars must be an array of car ids"));
        }
        out.cars = Some(
            Array::from(&cars)
                .iter()
                .map(|c| car_id(&c))
                .collect::<JsResult<Vec<CarId>>>()?,
        );
    }
    let every = field(options, "keyframeEvery")?;
    if !every.is_undefined() {
        out.keyframe_every = args::u32_arg(&every, "keyframeEvery")?;
    }
    out.embed_definitions = bool_or(
        &field(options, "embedDefinitions")?,
        "embedDefinitions",
        true,
    )?;
    out.embed_ghosts = bool_or(&field(options, "embedGhosts")?, "embedGhosts", false)?;
    if bool_or(&field(options, "carryGround")?, "carryGround", false)? {
        out.ground = Some(world.ground_source().ok_or_else(|| {
            range_error(
                "carryGround: the world's ground was not set from a heightfield or a mesh (the plane and the built-in tracks need none)",
            )
        })?);
    }
    let track = field(options, "trackDefinition")?;
    if !track.is_undefined() && !track.is_null() {
        let json = args::string(&track, "trackDefinition")?;
        out.track = Some(Arc::new(Track::from_json(&json).map_err(core_error)?));
    }
    out.carry_track = bool_or(&field(options, "carryTrack")?, "carryTrack", true)?;
    let window = field(options, "rewindWindow")?;
    if !window.is_undefined() {
        out.rewind_window = args::u64_arg(&window, "rewindWindow")?;
    }
    let reserve = field(options, "reserveSteps")?;
    if !reserve.is_undefined() {
        out.reserve_steps = args::u64_arg(&reserve, "reserveSteps")?;
    }
    out.metadata = metadata_pairs(&field(options, "metadata")?)?;
    let state = field(options, "keyframeState")?;
    if !state.is_undefined() && !state.is_null() {
        let f = state
            .dyn_into::<Function>()
            .map_err(|_| range_error("options.keyframeState must be a function"))?;
        let errors = errors.clone();
        let closure: KeyframeState<'static> = Box::new(move |step| {
            let result = f
                .call1(&JsValue::NULL, &JsValue::from_f64(step as f64))
                .and_then(|v| {
                    v.dyn_into::<Uint8Array>()
                        .map(|b| b.to_vec())
                        .map_err(|_| range_error("keyframeState must return a Uint8Array"))
                });
            result.unwrap_or_else(|e| {
                errors.borrow_mut().get_or_insert((step, e));
                Vec::new()
            })
        });
        out.keyframe_state = Some(closure);
    }
    Ok(out)
}

/// The pairs of a metadata object of strings; none for undefined or null.
pub(crate) fn metadata_pairs(metadata: &JsValue) -> JsResult<Vec<(String, String)>> {
    if metadata.is_undefined() || metadata.is_null() {
        return Ok(Vec::new());
    }
    let object = metadata
        .clone()
        .dyn_into::<Object>()
        .map_err(|_| range_error("metadata must be an object of strings"))?;
    Object::entries(&object)
        .iter()
        .map(|entry| {
            let pair = Array::from(&entry);
            let key = args::string(&pair.get(0), "metadata key")?;
            let value = args::string(&pair.get(1), &format!("metadata.{key}"))?;
            Ok((key, value))
        })
        .collect()
}

/// The error thrown when `keyframeState` failed.
fn abandoned(step: u64, e: &JsValue) -> JsValue {
    error(format!(
        "keyframeState threw at step {step}, so the recording was abandoned: {}",
        message_of(e)
    ))
}

impl ReplayRecorder {
    /// A recorder of `world` with options made on the Rust side (a
    /// take-over's), which hold no JS callback.
    pub(crate) fn with_options(
        world: &World,
        options: RecorderOptions<'static>,
    ) -> JsResult<ReplayRecorder> {
        let inner = world
            .with(|w| skidpad_replay::ReplayRecorder::new(w, options).map_err(replay_error))?;
        Ok(ReplayRecorder {
            inner: Some(inner),
            callback_error: CallbackError::default(),
        })
    }

    /// Runs `f` on the recorder; a `keyframeState` exception during it
    /// ends the recording (its keyframe would hold no game state).
    fn run<R>(
        &mut self,
        f: impl FnOnce(&mut skidpad_replay::ReplayRecorder<'static>) -> JsResult<R>,
    ) -> JsResult<R> {
        let recorder = self
            .inner
            .as_mut()
            .ok_or_else(|| error("this ReplayRecorder has finished or failed"))?;
        let result = f(recorder);
        if let Some((step, e)) = self.callback_error.borrow_mut().take() {
            self.inner = None;
            return Err(abandoned(step, &e));
        }
        result
    }
}

#[wasm_bindgen]
impl ReplayRecorder {
    /// Starts recording `world` as it is now (keyframe 0). `options`:
    /// `cars` (ids, in playback order; default all), `keyframeEvery`
    /// (default 600), `embedDefinitions` (default true), `embedGhosts`
    /// (default false), `carryGround` (default false: carry the ground the
    /// world was given with `setHeightfieldGround` or `setMeshGround`, so
    /// the replay plays anywhere), `metadata` (object of strings),
    /// `keyframeState(step) => Uint8Array` (the game's own state) and
    /// `reserveSteps` (input memory to allocate now, for a race of known
    /// length; default 0).
    #[wasm_bindgen(constructor)]
    pub fn new(
        world: &World,
        #[wasm_bindgen(unchecked_optional_param_type = "ReplayRecorderOptions")] options: JsValue,
    ) -> JsResult<ReplayRecorder> {
        let callback_error = CallbackError::default();
        let options = recorder_options(world, &options, &callback_error)?;
        let mut recorder = ReplayRecorder {
            inner: None,
            callback_error,
        };
        let inner = world
            .with(|w| skidpad_replay::ReplayRecorder::new(w, options).map_err(replay_error))?;
        recorder.inner = Some(inner);
        // Keyframe 0 already ran keyframeState; report its exception now.
        recorder.run(|_| Ok(()))?;
        Ok(recorder)
    }

    /// Steps `world` by `dt` and records the step.
    pub fn step(
        &mut self,
        world: &World,
        #[wasm_bindgen(unchecked_param_type = "number")] dt: JsValue,
    ) -> JsResult<()> {
        let dt = number(&dt, "dt")?;
        self.run(|r| world.with_mut(|w| r.step(w, dt).map_err(replay_error)))
    }

    /// Records the step the game just took with `world.step(dt)`, with
    /// the timestep the world ran (it is not handed again).
    #[wasm_bindgen(js_name = afterStep)]
    pub fn after_step(&mut self, world: &World) -> JsResult<()> {
        self.run(|r| world.with(|w| r.after_step(w).map_err(replay_error)))
    }

    /// `afterStep`, handed the timestep again: it must be the one the
    /// world ran, bit for bit, or this throws.
    /// @deprecated use `afterStep`, which reads the timestep from the world
    pub fn capture(
        &mut self,
        world: &World,
        #[wasm_bindgen(unchecked_param_type = "number")] dt: JsValue,
    ) -> JsResult<()> {
        let dt = number(&dt, "dt")?;
        #[allow(deprecated)]
        self.run(|r| world.with(|w| r.capture(w, dt).map_err(replay_error)))
    }

    /// Takes `world` back to recorded step `step` (within the recorder's
    /// `rewindWindow`, default 600 steps) and the recording with it: the
    /// cars are bit for bit where they were then, the later steps are
    /// dropped, and the replay notes the rewind (`Replay.rewinds()`).
    pub fn rewind(
        &mut self,
        world: &World,
        #[wasm_bindgen(unchecked_param_type = "number")] step: JsValue,
    ) -> JsResult<()> {
        let step = args::u64_arg(&step, "step")?;
        self.run(|r| world.with_mut(|w| r.rewind(w, step).map_err(replay_error)))
    }

    /// Takes a car the game has just added to `world` (`world.addCar`,
    /// after the last recorded step) into the recording: the replay
    /// records its arrival (step and state) and a player puts it in the
    /// world there. Cars added together are adopted oldest first. Throws,
    /// changing nothing, for a recording of chosen cars (`cars`), one that
    /// embeds ghosts, or a car that is not the oldest the recording lacks.
    #[wasm_bindgen(js_name = adoptCar)]
    pub fn adopt_car(
        &mut self,
        world: &World,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    ) -> JsResult<()> {
        let car = crate::args::car_id(&car)?;
        self.run(|r| world.with(|w| r.adopt_car(w, car).map_err(replay_error)))
    }

    /// Changes a recorded car's level of detail (the replay records it).
    #[wasm_bindgen(js_name = setLod)]
    pub fn set_lod(
        &mut self,
        world: &World,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
        #[wasm_bindgen(unchecked_param_type = "'full' | 'singleTrack' | 'frozen'")] level: JsValue,
        #[wasm_bindgen(js_name = substepRate, unchecked_optional_param_type = "number")]
        substep_rate: JsValue,
    ) -> JsResult<()> {
        let car = car_id(&car)?;
        let lod = args::lod(&level, &substep_rate)?;
        self.run(|r| world.with_mut(|w| r.set_lod(w, car, lod).map_err(replay_error)))
    }

    /// Steps recorded so far.
    #[wasm_bindgen(getter, js_name = stepCount)]
    pub fn step_count(&self) -> JsResult<f64> {
        self.inner
            .as_ref()
            .map(|r| r.step_count() as f64)
            .ok_or_else(|| error("this ReplayRecorder has finished or failed"))
    }

    /// Ends the recording (a final keyframe of `world`) and returns the
    /// replay. The recorder cannot be used afterwards.
    pub fn finish(&mut self, world: &World) -> JsResult<Replay> {
        let recorder = self
            .inner
            .take()
            .ok_or_else(|| error("this ReplayRecorder has finished or failed"))?;
        let replay = world.with(|w| recorder.finish(w).map_err(replay_error))?;
        if let Some((step, e)) = self.callback_error.borrow_mut().take() {
            return Err(abandoned(step, &e));
        }
        Ok(Replay {
            inner: Arc::new(replay),
        })
    }
}

/// Encodes a replay to `.skr` bytes; `{gzip: true}` wraps them in gzip.
#[wasm_bindgen(js_name = encodeReplay)]
pub fn encode_replay_js(
    replay: &Replay,
    #[wasm_bindgen(unchecked_optional_param_type = "{ gzip?: boolean }")] options: JsValue,
) -> JsResult<Uint8Array> {
    let gzip = bool_or(&field(&options, "gzip")?, "gzip", false)?;
    let bytes = if gzip {
        encode_replay_gzip(&replay.inner)
    } else {
        encode_replay(&replay.inner)
    }
    .map_err(replay_error)?;
    Ok(Uint8Array::from(bytes.as_slice()))
}

/// Steps `fromStep` to `toStep` of `replay` as a replay of their own: it
/// starts from the world at `fromStep` (every car's state), plays and
/// verifies bit for bit alone, and keeps the metadata (game logic's
/// keyframe state and embedded ghosts are not carried).
#[wasm_bindgen(js_name = clipReplay)]
pub fn clip_replay(
    replay: &Replay,
    #[wasm_bindgen(js_name = fromStep, unchecked_param_type = "number")] from_step: JsValue,
    #[wasm_bindgen(js_name = toStep, unchecked_param_type = "number")] to_step: JsValue,
) -> JsResult<Replay> {
    let from = args::u64_arg(&from_step, "fromStep")?;
    let to = args::u64_arg(&to_step, "toStep")?;
    skidpad_replay::clip_replay(&replay.inner, from, to, &skidpad_replay::Limits::default())
        .map(|clip| Replay {
            inner: Arc::new(clip),
        })
        .map_err(replay_error)
}

/// The blake3 hash of `bytes`, 64 hex digits: what the archive's manifest
/// pins for each module, checked before a module is instantiated.
#[wasm_bindgen(js_name = blake3Hex)]
pub fn blake3_hex(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
) -> JsResult<String> {
    let bytes = args::bytes(&bytes, "bytes")?;
    Ok(hex(blake3::hash(&bytes).as_bytes()))
}

/// Decodes `.skr` bytes, plain or gzip (detected), within `limits` (the
/// defaults when absent). Corrupt, truncated or foreign bytes throw an
/// `Error` naming the section and offset; a replay over a limit throws an
/// `Error` naming the limit and the value.
#[wasm_bindgen(js_name = decodeReplay)]
pub fn decode_replay_js(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Limits")] limits: JsValue,
) -> JsResult<Replay> {
    let bytes = args::bytes(&bytes, "bytes")?;
    let limits = crate::limits::limits(&limits)?;
    decode_replay_with(&bytes, &limits)
        .map(|r| Replay { inner: Arc::new(r) })
        .map_err(replay_error)
}

/// A playback world built from the replay alone (its embedded definitions,
/// surfaces, gravity and air density).
#[wasm_bindgen(js_name = createReplayWorld)]
pub fn create_replay_world_js(replay: &Replay) -> JsResult<World> {
    skidpad_replay::create_replay_world(&replay.inner)
        .map(World::from_core)
        .map_err(replay_error)
}

/// A recording's metadata as a plain object of strings.
pub(crate) fn metadata_object(header: &skidpad_replay::ReplayHeader) -> JsResult<JsValue> {
    let object = Object::new();
    for (key, value) in &header.metadata {
        Reflect::set(&object, &JsValue::from_str(key), &JsValue::from_str(value))?;
    }
    Ok(object.into())
}
