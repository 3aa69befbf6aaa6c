//! `World`: the simulation world in JavaScript.
//!
//! The core world sits in a shared slot so that a `ReplayPlayer` can lend
//! its playback world to a `beforeStep` callback as an ordinary `World`
//! object, and so that a world moved into a player stops working instead of
//! diverging from it. An empty slot throws a clear `Error`.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use js_sys::{Array, Float64Array, Uint8Array, Uint32Array};
use skidpad_core::hex;
use skidpad_core::{
    CarDefinition, CarId, CarInput, GroundSlope, GroundSource, InitialPose, Track, WorldConfig,
    preset,
};
use wasm_bindgen::prelude::*;

use crate::args::{self, car_id, field, number, number_or, object_of_numbers};
use crate::error::{JsResult, core_error, error, range_error};
use crate::read;

/// The core world, shared between a JS `World` object and whoever lent it.
pub(crate) type WorldSlot = Rc<RefCell<Option<skidpad_core::World>>>;

/// Cars simulated together (SPEC §4). Car ids are small whole numbers,
/// handed out by `addCar` in order.
#[wasm_bindgen]
pub struct World {
    slot: WorldSlot,
    /// True for a playback world lent to a `beforeStep` callback: usable,
    /// but it cannot be moved into a player.
    lent: bool,
    /// What the world's ground was built from, when it was set here from
    /// a heightfield or a mesh: a recorder with `carryGround` carries it.
    ground_source: RefCell<Option<GroundSource>>,
}

impl World {
    /// A JS world holding `world`.
    pub(crate) fn from_core(world: skidpad_core::World) -> World {
        World {
            slot: Rc::new(RefCell::new(Some(world))),
            lent: false,
            ground_source: RefCell::new(None),
        }
    }

    /// A JS world bound to an existing slot (the playback world lent to a
    /// hook).
    /// Builds the ground from `source`, sets it and keeps the source.
    fn set_ground_from(&self, source: GroundSource) -> JsResult<()> {
        let ground = source.build().map_err(core_error)?;
        self.with_mut(|w| w.set_ground(ground).map_err(core_error))?;
        self.ground_source.replace(Some(source));
        Ok(())
    }

    /// What the ground was built from, if it was set from a heightfield or
    /// a mesh.
    pub(crate) fn ground_source(&self) -> Option<GroundSource> {
        self.ground_source.borrow().clone()
    }

    pub(crate) fn lent(slot: WorldSlot) -> World {
        World {
            slot,
            lent: true,
            ground_source: RefCell::new(None),
        }
    }

    /// Runs `f` on the core world.
    pub(crate) fn with<R>(
        &self,
        f: impl FnOnce(&skidpad_core::World) -> JsResult<R>,
    ) -> JsResult<R> {
        let slot = self.slot.try_borrow().map_err(|_| busy())?;
        f(slot.as_ref().ok_or_else(unavailable)?)
    }

    /// Runs `f` on the core world, mutably.
    pub(crate) fn with_mut<R>(
        &self,
        f: impl FnOnce(&mut skidpad_core::World) -> JsResult<R>,
    ) -> JsResult<R> {
        let mut slot = self.slot.try_borrow_mut().map_err(|_| busy())?;
        f(slot.as_mut().ok_or_else(unavailable)?)
    }

    /// Moves the core world out; this object throws from then on.
    pub(crate) fn take(&self) -> JsResult<skidpad_core::World> {
        if self.lent {
            return Err(error(
                "the playback world lent to beforeStep belongs to its player and cannot be moved",
            ));
        }
        let mut slot = self.slot.try_borrow_mut().map_err(|_| busy())?;
        slot.take().ok_or_else(unavailable)
    }
}

fn unavailable() -> JsValue {
    error(
        "this World is not available: it was moved into a ReplayPlayer, or it is a \
         playback world kept after its beforeStep callback returned",
    )
}

fn busy() -> JsValue {
    error("this World is already in use by the call that is running")
}

/// The pose of a new car from an options object `{x, y, yaw, speed}`.
fn initial_pose(options: &JsValue) -> JsResult<InitialPose> {
    let get = |key: &str| -> JsResult<f64> { number_or(&field(options, key)?, key, 0.0) };
    Ok(InitialPose {
        x: get("x")?,
        y: get("y")?,
        yaw: get("yaw")?,
        speed: get("speed")?,
    })
}

/// Reads a `CarInput` from `{steer, throttle, brake, handbrake, clutch,
/// gear}`; absent fields are 0. Non-numbers throw; NaN is left to the core,
/// whose message names the field.
pub(crate) fn car_input(value: &JsValue) -> JsResult<CarInput> {
    if !value.is_object() {
        return Err(range_error(
            "input must be an object like {steer, throttle, brake}",
        ));
    }
    let mut fields = [0.0; 6];
    for (slot, name) in fields.iter_mut().zip(CarInput::FIELD_NAMES) {
        let v = field(value, name)?;
        if v.is_undefined() {
            continue;
        }
        *slot = v
            .as_f64()
            .ok_or_else(|| range_error(format!("input.{name} must be a number")))?;
    }
    Ok(CarInput::from_array(fields))
}

/// A car's input as a plain object.
fn input_object(input: CarInput) -> JsResult<JsValue> {
    let values = input.to_array();
    let fields: Vec<(&str, f64)> = CarInput::FIELD_NAMES.into_iter().zip(values).collect();
    object_of_numbers(&fields)
}

#[wasm_bindgen]
impl World {
    /// An empty world with the preset surface table. `options` may set
    /// `gravity` (m/s²) and `airDensity` (kg/m³).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(
            unchecked_optional_param_type = "{ gravity?: number, airDensity?: number }"
        )]
        options: JsValue,
    ) -> JsResult<World> {
        let defaults = WorldConfig::default();
        let config = WorldConfig {
            gravity: number_or(&field(&options, "gravity")?, "gravity", defaults.gravity)?,
            air_density: number_or(
                &field(&options, "airDensity")?,
                "airDensity",
                defaults.air_density,
            )?,
            ..defaults
        };
        skidpad_core::World::new(config)
            .map(World::from_core)
            .map_err(core_error)
    }

    /// Adds a car from a definition in JSON (the schema of the preset
    /// files); `pose` is `{x, y, yaw, speed}`, all optional. Returns its id.
    #[wasm_bindgen(js_name = addCar)]
    pub fn add_car(
        &self,
        #[wasm_bindgen(js_name = definitionJson, unchecked_param_type = "string")] definition_json: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CarPoseOptions")] pose: JsValue,
    ) -> JsResult<u32> {
        let json = args::string(&definition_json, "definition")?;
        let def = CarDefinition::from_json(&json).map_err(core_error)?;
        let pose = initial_pose(&pose)?;
        self.with_mut(|w| w.add_car(&def, pose).map(CarId::to_raw).map_err(core_error))
    }

    /// Adds a car of a built-in preset (see `presetNames()`).
    #[wasm_bindgen(js_name = addPresetCar)]
    pub fn add_preset_car(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CarPoseOptions")] pose: JsValue,
    ) -> JsResult<u32> {
        let name = args::string(&name, "preset name")?;
        let def = preset(&name).map_err(core_error)?;
        let pose = initial_pose(&pose)?;
        self.with_mut(|w| w.add_car(&def, pose).map(CarId::to_raw).map_err(core_error))
    }

    /// Removes a car from the world: it is no longer stepped, hashed or
    /// touched, and its id names no car (ids are never given out again).
    /// A recorder running on this world records the removal.
    #[wasm_bindgen(js_name = removeCar)]
    pub fn remove_car(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    ) -> JsResult<()> {
        let car = car_id(&car)?;
        self.with_mut(|w| w.remove_car(car).map(drop).map_err(core_error))
    }

    /// Puts a car back on the track (`World::reset_car`): down at `pose`
    /// (`{x, y, yaw, speed}`, all optional) as a new car of its definition
    /// would be, keeping its id, input and driver. The next step records
    /// the reset, so a recorder running on this world keeps it and a
    /// replay makes it again before the same step.
    #[wasm_bindgen(js_name = resetCar)]
    pub fn reset_car(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CarPoseOptions")] pose: JsValue,
    ) -> JsResult<()> {
        let car = car_id(&car)?;
        let pose = initial_pose(&pose)?;
        self.with_mut(|w| w.reset_car(car, pose).map_err(core_error))
    }

    /// The car ids, in stepping order.
    #[wasm_bindgen(js_name = carIds)]
    pub fn car_ids(&self) -> JsResult<Uint32Array> {
        self.with(|w| {
            let ids: Vec<u32> = w.car_ids().map(CarId::to_raw).collect();
            Ok(Uint32Array::from(ids.as_slice()))
        })
    }

    /// A car's definition as JSON.
    pub fn definition(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    ) -> JsResult<String> {
        self.with(|w| {
            w.definition(car_id(&car)?)
                .map(CarDefinition::to_json)
                .map_err(core_error)
        })
    }

    /// Sets a car's input for the next steps. Non-finite values throw;
    /// the rest is clamped to range.
    #[wasm_bindgen(js_name = setInput)]
    pub fn set_input(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
        #[wasm_bindgen(unchecked_param_type = "CarInput")] input: JsValue,
    ) -> JsResult<()> {
        let car = car_id(&car)?;
        let input = car_input(&input)?;
        self.with_mut(|w| w.set_input(car, input).map_err(core_error))
    }

    /// The input a car ran with in the last step (after its AI driver, if
    /// any, wrote it), or the input set since.
    #[wasm_bindgen(unchecked_return_type = "Required<CarInput>")]
    pub fn input(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    ) -> JsResult<JsValue> {
        self.with(|w| input_object(w.input(car_id(&car)?).map_err(core_error)?))
    }

    /// Gives a car the built-in AI driver on a built-in track (see
    /// `trackNames()`), or takes it away with `null`.
    #[wasm_bindgen(js_name = setDriver)]
    pub fn set_driver(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string | null")] track: JsValue,
    ) -> JsResult<()> {
        let car = car_id(&car)?;
        let track = if track.is_null() || track.is_undefined() {
            None
        } else {
            let name = args::string(&track, "track name")?;
            Some(Arc::new(Track::builtin(&name).map_err(core_error)?))
        };
        self.with_mut(|w| w.set_driver(car, track).map_err(core_error))
    }

    /// Gives a car the built-in AI driver on any track's view: a game's own
    /// (`TrackView.fromDefinition`, `fromTumCsv`, `TrackScene.track`) or a
    /// built-in one.
    #[wasm_bindgen(js_name = setDriverOnTrack)]
    pub fn set_driver_on_track(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
        track: &crate::track::TrackView,
    ) -> JsResult<()> {
        let car = car_id(&car)?;
        let track = track.inner().clone();
        self.with_mut(|w| w.set_driver(car, Some(track)).map_err(core_error))
    }

    /// Advances every car by `dt` seconds, in (0, 0.25]. On error nothing
    /// changes.
    pub fn step(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] dt: JsValue,
    ) -> JsResult<()> {
        let dt = number(&dt, "dt")?;
        self.with_mut(|w| w.step(dt).map_err(core_error))
    }

    /// Runs `count` steps of `dt`. Stops at the first failing step, which
    /// changes nothing, and throws its error.
    #[wasm_bindgen(js_name = stepMany)]
    pub fn step_many(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] count: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] dt: JsValue,
    ) -> JsResult<()> {
        let count = args::u64_arg(&count, "count")?;
        let dt = number(&dt, "dt")?;
        self.with_mut(|w| {
            for _ in 0..count {
                w.step(dt).map_err(core_error)?;
            }
            Ok(())
        })
    }

    /// Host steps taken.
    #[wasm_bindgen(getter, js_name = stepCount)]
    pub fn step_count(&self) -> JsResult<f64> {
        // Exact below 2^53 steps (4.7 million years at 60 Hz).
        self.with(|w| Ok(w.step_count() as f64))
    }

    /// The timestep the last step ran, s (what `ReplayRecorder.afterStep`
    /// records); undefined before the first step and after the step count was
    /// set.
    #[wasm_bindgen(getter, js_name = lastTimestep)]
    pub fn last_timestep(&self) -> JsResult<Option<f64>> {
        self.with(|w| Ok(w.last_timestep()))
    }

    /// The world hash (blake3 of step count and every car), as 64 hex
    /// digits.
    #[wasm_bindgen(js_name = worldHash)]
    pub fn world_hash(&self) -> JsResult<String> {
        self.with(|w| Ok(read::world_hash(w)))
    }

    /// One car's state hash, as 64 hex digits.
    #[wasm_bindgen(js_name = carHash)]
    pub fn car_hash(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    ) -> JsResult<String> {
        self.with(|w| read::car_hash(w, &car))
    }

    /// A car's state as versioned little-endian bytes.
    pub fn snapshot(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    ) -> JsResult<Uint8Array> {
        self.with(|w| read::snapshot(w, &car))
    }

    /// Restores a car from `snapshot` bytes; corrupt bytes throw and change
    /// nothing.
    pub fn restore(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] snapshot: JsValue,
    ) -> JsResult<()> {
        let car = car_id(&car)?;
        let bytes = args::bytes(&snapshot, "snapshot")?;
        self.with_mut(|w| w.restore(car, &bytes).map_err(core_error))
    }

    /// Puts all four wheels of a car on a surface, by id or name
    /// (`"gravel"`).
    #[wasm_bindgen(js_name = setSurface)]
    pub fn set_surface(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number | string")] surface: JsValue,
    ) -> JsResult<()> {
        let car = car_id(&car)?;
        self.with_mut(|w| {
            let surface = args::surface(&surface, &w.config().surfaces)?;
            w.set_surface(car, surface).map_err(core_error)
        })
    }

    /// Puts one wheel (0..4 or `"fl"`, `"fr"`, `"rl"`, `"rr"`) on a surface.
    #[wasm_bindgen(js_name = setWheelSurface)]
    pub fn set_wheel_surface(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number | string")] wheel: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number | string")] surface: JsValue,
    ) -> JsResult<()> {
        let car = car_id(&car)?;
        let wheel = args::wheel(&wheel)?;
        self.with_mut(|w| {
            let surface = args::surface(&surface, &w.config().surfaces)?;
            w.set_wheel_surface(car, wheel, surface).map_err(core_error)
        })
    }

    /// Puts the world on a heightfield: `{ x0, y0, spacing, columns, rows,
    /// heights: Float64Array (row-major, x fastest), surfaces?: Uint8Array
    /// (one id per cell) }`. Set it before adding cars, which are put down
    /// on it.
    #[wasm_bindgen(js_name = setHeightfieldGround)]
    pub fn set_heightfield_ground(
        &self,
        #[wasm_bindgen(unchecked_param_type = "HeightfieldOptions")] options: JsValue,
    ) -> JsResult<()> {
        self.set_ground_from(crate::ground::heightfield(&options)?)
    }

    /// Puts the world on a triangle mesh: `vertices` (x, y, z each),
    /// `triangles` (three vertex indices each, counter-clockwise seen from
    /// above) and optional `surfaces` (one id per triangle).
    #[wasm_bindgen(js_name = setMeshGround)]
    pub fn set_mesh_ground(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Float64Array")] vertices: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint32Array")] triangles: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "Uint8Array")] surfaces: JsValue,
    ) -> JsResult<()> {
        self.set_ground_from(crate::ground::mesh(&vertices, &triangles, &surfaces)?)
    }

    /// Puts the world on a built-in track's own surface (banked road on its
    /// elevation, kerbs, grass run-off, barriers), as `skidpad demo` races:
    /// the same mesh, so a replay recorded on it verifies natively.
    #[wasm_bindgen(js_name = setTrackGround)]
    pub fn set_track_ground(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] track: JsValue,
    ) -> JsResult<()> {
        let name = args::string(&track, "track")?;
        let ground = Track::builtin(&name)
            .and_then(|t| t.ground())
            .map_err(core_error)?;
        self.with_mut(|w| w.set_ground(Arc::new(ground)).map_err(core_error))?;
        // Every build has the built-in tracks' surfaces: nothing to carry.
        self.ground_source.replace(None);
        Ok(())
    }

    /// Puts the world on a track's own generated surface (`Track::ground`)
    /// from its view: a game's own track (`TrackView.fromDefinition`,
    /// `fromTumCsv`) or a built-in one. A replay recorded with the
    /// recorder's `trackDefinition` needs nothing else to verify anywhere.
    #[wasm_bindgen(js_name = setGroundOfTrack)]
    pub fn set_ground_of_track(&self, track: &crate::track::TrackView) -> JsResult<()> {
        let ground = track.inner().ground().map_err(core_error)?;
        self.with_mut(|w| w.set_ground(Arc::new(ground)).map_err(core_error))?;
        // A replay names the track, and its definition rebuilds this.
        self.ground_source.replace(None);
        Ok(())
    }

    /// Puts the world on a glTF scene's ground (`TrackScene.fromGltf`); a
    /// recorder with `carryGround` carries it, so its replays verify
    /// anywhere with nothing beside them.
    #[wasm_bindgen(js_name = setSceneGround)]
    pub fn set_scene_ground(&self, scene: &crate::track_scene::TrackScene) -> JsResult<()> {
        self.set_ground_from(scene.ground_source())
    }

    /// The world's ground as a ground file (`.skgd`), for replays recorded
    /// on it that do not carry it; a RangeError unless the ground was set
    /// from a heightfield or a mesh.
    #[wasm_bindgen(js_name = groundFile, unchecked_return_type = "Uint8Array")]
    pub fn ground_file(&self) -> JsResult<Vec<u8>> {
        let source = self.ground_source().ok_or_else(|| {
            crate::error::range_error(
                "groundFile: the world's ground was not set from a heightfield or a mesh",
            )
        })?;
        skidpad_replay::encode_ground_file(&source).map_err(crate::error::replay_error)
    }

    /// Hex blake3 fingerprint of the world's ground (replays record it).
    #[wasm_bindgen(getter, js_name = groundFingerprint)]
    pub fn ground_fingerprint(&self) -> JsResult<String> {
        self.with(|w| Ok(hex(&w.ground().fingerprint())))
    }

    /// The contacts of the last step: `{ first, second (a car, or null for
    /// the ground), point, normal, depth, impulse }`.
    #[wasm_bindgen(unchecked_return_type = "Contact[]")]
    pub fn contacts(&self) -> JsResult<Array> {
        self.with(|w| crate::ground::contacts(w.contacts()))
    }

    /// Tilts gravity in a car's ground frame: `grade` (rise over run, positive
    /// uphill ahead) and `crossSlope` (positive: left side up).
    #[wasm_bindgen(js_name = setGroundSlope)]
    pub fn set_ground_slope(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] grade: JsValue,
        #[wasm_bindgen(js_name = crossSlope, unchecked_optional_param_type = "number")] cross_slope: JsValue,
    ) -> JsResult<()> {
        let car = car_id(&car)?;
        let slope = GroundSlope {
            grade: number(&grade, "grade")?,
            cross_slope: number_or(&cross_slope, "crossSlope", 0.0)?,
        };
        self.with_mut(|w| w.set_ground_slope(car, slope).map_err(core_error))
    }

    /// Sets a car's level of detail: `"full"`, `"singleTrack"` or
    /// `"frozen"`, with an optional substep rate in Hz.
    #[wasm_bindgen(js_name = setLod)]
    pub fn set_lod(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
        #[wasm_bindgen(unchecked_param_type = "'full' | 'singleTrack' | 'frozen'")] level: JsValue,
        #[wasm_bindgen(js_name = substepRate, unchecked_optional_param_type = "number")]
        substep_rate: JsValue,
    ) -> JsResult<()> {
        let car = car_id(&car)?;
        let lod = args::lod(&level, &substep_rate)?;
        self.with_mut(|w| w.set_lod(car, lod).map_err(core_error))
    }

    /// A car's telemetry after the last step, one value per channel in the
    /// order of `channelNames()`. A copy: it stays valid however the wasm
    /// memory grows.
    pub fn telemetry(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    ) -> JsResult<Float64Array> {
        self.with(|w| read::telemetry(w, &car))
    }

    /// One telemetry channel by name.
    pub fn channel(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> JsResult<f64> {
        self.with(|w| read::channel(w, &car, &name))
    }

    /// A car's pose: `{x, y, z, yaw, pitch, roll, steer, speed}`.
    #[wasm_bindgen(unchecked_return_type = "CarPose")]
    pub fn pose(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    ) -> JsResult<JsValue> {
        self.with(|w| read::pose(w, &car))
    }

    /// Every car's pose, eight values per car (the fields `poseFields()`
    /// names) in `carIds()` order: what `RaceTiming` observes, in one call
    /// per step.
    pub fn poses(&self) -> JsResult<Float64Array> {
        self.with(|w| {
            let ids: Vec<CarId> = w.car_ids().collect();
            read::poses(w, &ids)
        })
    }
}
