//! The race layer for JavaScript (`skidpad_core::race`): `RaceTiming`
//! times a field of cars from their poses, lap by lap, with the same rules
//! and bits as the native crates, and `gridPose` places a starting grid.
//! Cars are named by their index in the pose arrays (the order of
//! `ReplayPlayer.poses()`).

use std::sync::Arc;

use js_sys::{Array, Float64Array, Object, Reflect};
use skidpad_core::CarId;
use skidpad_core::glam::DVec2;
use skidpad_core::race::{self, CarStatus, LapStart, RaceEvent, RaceRules, Standing};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsResult, range_error};
use crate::track::TrackView;

/// Numbers per car in a pose array (`ReplayPlayer.poses()`: x, y, z, yaw,
/// pitch, roll, steer, speed); a removed car's x is NaN.
const POSE_WIDTH: usize = 8;

/// Times the cars of a race from their poses.
#[wasm_bindgen]
pub struct RaceTiming {
    inner: race::RaceTiming,
    cars: usize,
}

impl RaceTiming {
    /// The native timing, for another binding.
    pub(crate) fn core(&self) -> &race::RaceTiming {
        &self.inner
    }
}

#[wasm_bindgen]
impl RaceTiming {
    /// Starts timing on `track` from the cars' poses at race time 0
    /// (eight numbers per car; a NaN x for a car not in the race). With
    /// `laps`, a car is finished after that many laps.
    #[wasm_bindgen(constructor)]
    pub fn new(
        track: &TrackView,
        #[wasm_bindgen(unchecked_param_type = "Float64Array")] start: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] laps: JsValue,
    ) -> JsResult<RaceTiming> {
        let poses = args::f64s(&start, "start poses")?;
        let cars = car_count(&poses)?;
        let laps = if laps.is_undefined() || laps.is_null() {
            None
        } else {
            Some(args::u32_arg(&laps, "laps")?)
        };
        let rules = RaceRules {
            laps,
            ..RaceRules::default()
        };
        let start: Vec<(CarId, DVec2)> = positions(&poses)
            .filter_map(|(car, p)| Some((car, p?)))
            .collect();
        Ok(RaceTiming {
            inner: race::RaceTiming::from_positions(Arc::clone(track.inner()), rules, &start),
            cars,
        })
    }

    /// A copy of this race's timing as it is now, to go back to: a game
    /// that rewinds (`ReplayRecorder.rewind`) keeps one per keyframe and
    /// takes the copy of the step it rewinds to.
    pub fn copy(&self) -> RaceTiming {
        RaceTiming {
            inner: self.inner.clone(),
            cars: self.cars,
        }
    }

    /// Observes every car's pose at race time `time` (s, not decreasing;
    /// NaN for a car not in the race: one with NaN at the start that has a
    /// pose now joined late and is timed from now, as is a car beyond those
    /// of the last observation); returns what happened: `{kind: 'lap', car,
    /// lap, start, end, time, valid, standing, faults, sectors}`, `{kind:
    /// 'finished', car, time}` or `{kind: 'retired', car, time}`.
    #[wasm_bindgen(unchecked_return_type = "RaceEvent[]")]
    pub fn observe(
        &mut self,
        time: f64,
        #[wasm_bindgen(unchecked_param_type = "Float64Array")] poses: JsValue,
    ) -> JsResult<Array> {
        if !time.is_finite() || time < self.inner.time() {
            return Err(range_error(format!(
                "time must be finite and not before the last observation ({} s), got {time}",
                self.inner.time()
            )));
        }
        let poses = args::f64s(&poses, "poses")?;
        // More cars than before: cars that joined the race (a live race a
        // viewer follows); fewer would lose cars.
        let cars = car_count(&poses)?;
        if cars < self.cars {
            return Err(range_error(format!(
                "poses hold {cars} cars; the race has {}",
                self.cars
            )));
        }
        self.cars = cars;
        let positions: Vec<(CarId, Option<DVec2>)> = positions(&poses).collect();
        let out = Array::new();
        for event in self.inner.observe_positions(time, &positions) {
            out.push(&event_object(&event)?);
        }
        Ok(out)
    }

    /// The game reset car `car` onto the track since the last observation
    /// (`Replay.resets()`, `World.resetCar`): its lap in progress does not
    /// count, as in every other skidpad tool's timing.
    #[wasm_bindgen(js_name = noteReset)]
    pub fn note_reset(&mut self, car: u32) {
        self.inner.note_reset(CarId::from_raw(car));
    }

    /// Why car `car`'s lap in progress will not count, so far, in the
    /// words its completed lap's `faults` will give (empty while the lap
    /// is clean, and for an unknown car): a game shows it the moment the
    /// lap is lost.
    #[wasm_bindgen(js_name = lapFaults, unchecked_return_type = "string[]")]
    pub fn lap_faults(&self, car: u32) -> Array {
        self.inner
            .faults_in_progress(CarId::from_raw(car))
            .unwrap_or_default()
            .iter()
            .map(|fault| JsValue::from_str(&fault.to_string()))
            .collect()
    }

    /// Distance raced from the line by car `car`, m (negative on the grid;
    /// NaN for a retired car).
    pub fn progress(&self, car: u32) -> f64 {
        self.inner
            .progress(CarId::from_raw(car))
            .unwrap_or(f64::NAN)
    }

    /// The completed laps of car `car`, as the `lap` events give them.
    #[wasm_bindgen(js_name = lapsOf, unchecked_return_type = "RaceLap[]")]
    pub fn laps_of(&self, car: u32) -> JsResult<Array> {
        let out = Array::new();
        for lap in self.inner.laps(CarId::from_raw(car)).unwrap_or_default() {
            out.push(&lap_object(CarId::from_raw(car), lap)?);
        }
        Ok(out)
    }

    /// The standings packed for a viewer's per-step tables: `2 × cars`
    /// numbers, first the cars' indices in race order (leader first; NaN
    /// past the cars timed), then each car's gap to the leader by index
    /// (s; 0 for the leader, NaN before its first timing point or for a
    /// car not timed). The same order and gaps as `standings()`.
    #[wasm_bindgen(js_name = orderAndGaps)]
    pub fn order_and_gaps(&self, cars: u32) -> Float64Array {
        let cars = cars as usize;
        let mut out = vec![f64::NAN; 2 * cars];
        for (k, s) in self.inner.standings().iter().enumerate() {
            let car = s.car.to_raw() as usize;
            if k < cars {
                out[k] = car as f64;
            }
            if car < cars {
                out[cars + car] = s.gap.unwrap_or(f64::NAN);
            }
        }
        Float64Array::from(out.as_slice())
    }

    /// The standings: `{position, car, laps, progress, gap, lastLap,
    /// bestLap, status}` in race order (`gap`, `lastLap` and `bestLap` are
    /// null until known; `status` is `running`, `finished` or `retired`).
    #[wasm_bindgen(unchecked_return_type = "RaceStanding[]")]
    pub fn standings(&self) -> JsResult<Array> {
        let out = Array::new();
        for s in self.inner.standings() {
            out.push(&standing_object(&s)?);
        }
        Ok(out)
    }
}

/// The pose of starting-grid slot `slot` on `track` (0 is pole; the
/// track's own grid, by default two abreast, rows 8 m apart from 6 m
/// behind the line), as `World.addCar` takes it.
#[wasm_bindgen(js_name = gridPose, unchecked_return_type = "CarPoseOptions")]
pub fn grid_pose(track: &TrackView, slot: u32) -> JsResult<JsValue> {
    let pose = race::grid_pose(track.inner(), slot as usize, &track.inner().grid());
    args::object_of_numbers(&[
        ("x", pose.x),
        ("y", pose.y),
        ("yaw", pose.yaw),
        ("speed", pose.speed),
    ])
}

/// Where a car at `x, y` goes back on `track` when the player resets it
/// (`Track::rejoin_point`, the AI's own reset): on the centre line level
/// with it, facing along the track, at rest; as `World.resetCar` takes it.
#[wasm_bindgen(js_name = rejoinPose, unchecked_return_type = "CarPoseOptions")]
pub fn rejoin_pose(track: &TrackView, x: f64, y: f64) -> JsResult<JsValue> {
    if !(x.is_finite() && y.is_finite()) {
        return Err(range_error("rejoinPose needs a finite position"));
    }
    let (point, yaw) = track.inner().rejoin_point(DVec2::new(x, y));
    args::object_of_numbers(&[("x", point.x), ("y", point.y), ("yaw", yaw), ("speed", 0.0)])
}

fn car_count(poses: &[f64]) -> JsResult<usize> {
    if !poses.len().is_multiple_of(POSE_WIDTH) {
        return Err(range_error(format!(
            "a pose array holds {POSE_WIDTH} numbers per car, got {}",
            poses.len()
        )));
    }
    Ok(poses.len() / POSE_WIDTH)
}

/// Each car's position, `None` when its x or y is not finite (removed).
fn positions(poses: &[f64]) -> impl Iterator<Item = (CarId, Option<DVec2>)> + '_ {
    poses.chunks_exact(POSE_WIDTH).enumerate().map(|(k, p)| {
        let finite = p[0].is_finite() && p[1].is_finite();
        (
            CarId::from_raw(k as u32),
            finite.then(|| DVec2::new(p[0], p[1])),
        )
    })
}

fn set(object: &Object, key: &str, value: impl Into<JsValue>) -> JsResult<()> {
    Reflect::set(object, &key.into(), &value.into())?;
    Ok(())
}

fn lap_object(car: CarId, lap: &race::Lap) -> JsResult<JsValue> {
    let o = Object::new();
    set(&o, "kind", "lap")?;
    set(&o, "car", car.to_raw())?;
    set(&o, "lap", lap.number)?;
    set(&o, "start", lap.start)?;
    set(&o, "end", lap.end)?;
    set(&o, "time", lap.time())?;
    set(&o, "valid", lap.is_valid())?;
    set(&o, "standing", lap.kind == LapStart::Standing)?;
    let faults = Array::new();
    for fault in &lap.faults {
        faults.push(&JsValue::from_str(&fault.to_string()));
    }
    set(&o, "faults", faults)?;
    set(
        &o,
        "sectors",
        js_sys::Float64Array::from(lap.sectors.as_slice()),
    )?;
    Ok(o.into())
}

fn event_object(event: &RaceEvent) -> JsResult<JsValue> {
    let (kind, car, time) = match event {
        RaceEvent::Lap { car, lap } => return lap_object(*car, lap),
        RaceEvent::Finished { car, time } => ("finished", car, time),
        RaceEvent::Retired { car, time } => ("retired", car, time),
    };
    let o = Object::new();
    set(&o, "kind", kind)?;
    set(&o, "car", car.to_raw())?;
    set(&o, "time", *time)?;
    Ok(o.into())
}

fn standing_object(s: &Standing) -> JsResult<JsValue> {
    let o = Object::new();
    let or_null = |v: Option<f64>| v.map_or(JsValue::NULL, JsValue::from_f64);
    set(&o, "position", s.position)?;
    set(&o, "car", s.car.to_raw())?;
    set(&o, "laps", s.laps)?;
    set(&o, "progress", s.progress)?;
    set(&o, "gap", or_null(s.gap))?;
    set(&o, "lastLap", or_null(s.last_lap))?;
    set(&o, "bestLap", or_null(s.best_lap))?;
    let status = match s.status {
        CarStatus::Running => "running",
        CarStatus::Finished(_) => "finished",
        CarStatus::Retired(_) => "retired",
    };
    set(&o, "status", status)?;
    Ok(o.into())
}
