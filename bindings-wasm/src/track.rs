//! Tracks and ghost laps for viewers: `TrackView` (a built-in or a game's
//! own track: its centre line, edges, sectors and the projection onto it) and `LapReference` (the live
//! time gap and split times against a ghost lap, the ghost crate's own
//! measurement).

use std::sync::Arc;

use js_sys::Float64Array;
use skidpad_core::Track;
use skidpad_core::glam::DVec2;
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsResult, core_error, range_error};
use crate::ghost::Ghost;

/// A track (built in, or a game's own) as a viewer draws and measures it.
#[wasm_bindgen]
pub struct TrackView {
    inner: Arc<Track>,
}

#[wasm_bindgen]
impl TrackView {
    /// The built-in track `name` (see `trackNames()`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> JsResult<TrackView> {
        let name = args::string(&name, "track")?;
        let inner = Track::builtin(&name).map_err(core_error)?;
        Ok(TrackView {
            inner: Arc::new(inner),
        })
    }

    /// A game's own track from its definition's JSON (the format of
    /// `sim-core/tracks/*.json`, `TrackDefinition`), checked as the Rust
    /// API checks it.
    #[wasm_bindgen(js_name = fromDefinition)]
    pub fn from_definition(
        #[wasm_bindgen(unchecked_param_type = "string")] json: JsValue,
    ) -> JsResult<TrackView> {
        let json = args::string(&json, "track definition")?;
        let inner = Track::from_json(&json).map_err(core_error)?;
        Ok(TrackView {
            inner: Arc::new(inner),
        })
    }

    /// A circuit from the TUM racetrack database's centre-line CSV (`x, y,
    /// width right, width left` per line), named `name`, with the line at
    /// its first point and the lap in thirds; `skidpad track import` reads
    /// the same.
    #[wasm_bindgen(js_name = fromTumCsv)]
    pub fn from_tum_csv(
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> JsResult<TrackView> {
        let text = args::string(&text, "CSV")?;
        if text.len() > skidpad_core::MAX_TRACK_FILE_BYTES {
            return Err(range_error(format!(
                "the CSV is {} bytes; a track file is at most {}",
                text.len(),
                skidpad_core::MAX_TRACK_FILE_BYTES
            )));
        }
        let name = args::string(&name, "track name")?;
        let options = skidpad_track_import::ImportOptions::named(&name);
        let definition = skidpad_track_import::from_tum_csv(&text, &options)
            .map_err(|e| range_error(e.to_string()))?;
        let inner = Track::from_definition(definition).map_err(core_error)?;
        Ok(TrackView {
            inner: Arc::new(inner),
        })
    }

    /// What `skidpad track check` prints of the track on its generated
    /// ground, as an object.
    #[wasm_bindgen(unchecked_return_type = "TrackReport")]
    pub fn report(&self) -> JsResult<JsValue> {
        let report = skidpad_track_import::check(&self.inner).map_err(core_error)?;
        crate::track_scene::report_object(&report)
    }

    /// The track's definition as JSON (what `fromDefinition` reads and a
    /// replay carries).
    #[wasm_bindgen(js_name = definitionJson)]
    pub fn definition_json(&self) -> String {
        self.inner.definition().to_json()
    }

    /// The track's fingerprint, 64 hex digits: what a replay names it by.
    #[wasm_bindgen(getter)]
    pub fn fingerprint(&self) -> String {
        self.inner.fingerprint_hex()
    }

    /// Sector boundaries, m along the line from the start line.
    pub fn sectors(&self) -> Float64Array {
        Float64Array::from(self.inner.sectors())
    }

    /// The road's edges at each of `points()`: `left, right` per point, m
    /// from the centre line (the track limits).
    pub fn edges(&self) -> Float64Array {
        let edges: Vec<f64> = self
            .inner
            .edges_at_points()
            .flat_map(|e| [e.left, e.right])
            .collect();
        Float64Array::from(edges.as_slice())
    }

    /// Signed curvature at each of `points()`, 1/m (positive: turning
    /// left).
    pub fn curvature(&self) -> Float64Array {
        Float64Array::from(self.inner.curvature())
    }

    /// The point `distance` m along the centre line (wrapped to the lap)
    /// and the unit direction of travel there: `[x, y, dx, dy]`.
    #[wasm_bindgen(js_name = pointAt)]
    pub fn point_at(&self, distance: f64) -> JsResult<Float64Array> {
        if !distance.is_finite() {
            return Err(range_error("pointAt needs a finite distance"));
        }
        let (p, d) = self.inner.point_at(distance);
        Ok(Float64Array::from([p.x, p.y, d.x, d.y].as_slice()))
    }

    /// A view of a track the other bindings found.
    pub(crate) fn of(track: impl Into<Arc<Track>>) -> TrackView {
        TrackView {
            inner: track.into(),
        }
    }

    /// The track, for the other bindings.
    pub(crate) fn inner(&self) -> &Arc<Track> {
        &self.inner
    }

    /// The track's name.
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.inner.name().to_owned()
    }

    /// The narrowest full width of the road, m (`edges()` gives it point
    /// by point).
    #[wasm_bindgen(getter)]
    pub fn width(&self) -> f64 {
        self.inner.width()
    }

    /// Width of the kerb beside each of the road's edges, m (the track's
    /// own ground lays it there). It is also the track limit: a lap is
    /// invalid once the car's centre is beyond the kerb (`RaceTiming`).
    #[wasm_bindgen(getter, js_name = kerbWidth)]
    pub fn kerb_width(&self) -> f64 {
        skidpad_core::KERB_WIDTH
    }

    /// Length of a lap along the centre line, m.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> f64 {
        self.inner.length()
    }

    /// The closed centre line, `x, y` per point (m); the last point joins
    /// the first.
    pub fn points(&self) -> Float64Array {
        let xy: Vec<f64> = self
            .inner
            .points()
            .iter()
            .flat_map(|p| [p.x, p.y])
            .collect();
        Float64Array::from(xy.as_slice())
    }

    /// Height of the centre line at each of `points()`, m (all zero for
    /// a flat track).
    pub fn elevation(&self) -> Float64Array {
        Float64Array::from(self.inner.elevation())
    }

    /// Banking at each of `points()`, rad (positive: the right-hand edge is
    /// higher). The road's height at offset `o` (positive to the left) is
    /// `elevation − o·tan(banking)`, as `Track::ground` builds it.
    pub fn banking(&self) -> Float64Array {
        Float64Array::from(self.inner.banking())
    }

    /// Distance along the centre line of each point, m.
    pub fn distances(&self) -> Float64Array {
        Float64Array::from(self.inner.distances())
    }

    /// Projects a position onto the centre line: `[distance from the
    /// start (m, in [0, length)), signed offset (m, positive to the
    /// left)]`.
    pub fn locate(&self, x: f64, y: f64) -> JsResult<Float64Array> {
        if !(x.is_finite() && y.is_finite()) {
            return Err(range_error("locate needs a finite position"));
        }
        let at = self.inner.locate(DVec2::new(x, y));
        Ok(Float64Array::from([at.distance, at.offset].as_slice()))
    }
}

/// A ghost lap measured along a track: the live time gap and the ghost's
/// split times (`skidpad_ghost::LapReference`).
#[wasm_bindgen]
pub struct LapReference {
    inner: skidpad_ghost::LapReference,
    track: Arc<Track>,
}

#[wasm_bindgen]
impl LapReference {
    /// Measures every frame of `ghost` along `track`.
    #[wasm_bindgen(constructor)]
    pub fn new(ghost: &Ghost, track: &TrackView) -> LapReference {
        LapReference {
            inner: skidpad_ghost::LapReference::new(ghost.core(), &track.inner),
            track: Arc::clone(&track.inner),
        }
    }

    /// Length of the track's lap, m.
    #[wasm_bindgen(getter, js_name = lapLength)]
    pub fn lap_length(&self) -> f64 {
        self.inner.lap_length()
    }

    /// Distance of a position from the ghost's start line along the
    /// track, m, in [0, lap length).
    #[wasm_bindgen(js_name = distanceFromStart)]
    pub fn distance_from_start(&self, x: f64, y: f64) -> f64 {
        self.inner.distance_from_start(&self.track, x, y)
    }

    /// The player's lap time minus the ghost's time at the player's
    /// position, s (positive: the player is behind); undefined where the
    /// ghost never was.
    pub fn gap(&self, x: f64, y: f64, lap_time: f64) -> Option<f64> {
        if !(x.is_finite() && y.is_finite() && lap_time.is_finite()) {
            return None;
        }
        self.inner.gap(&self.track, x, y, lap_time)
    }

    /// The ghost's time at `distance` metres from its start, s; undefined
    /// beyond its lap.
    #[wasm_bindgen(js_name = timeAt)]
    pub fn time_at(&self, distance: f64) -> Option<f64> {
        self.inner.time_at(distance).map(f64::from)
    }
}

/// Splits against a ghost lap as a car drives (`skidpad_ghost::SplitTracker`):
/// at each of the track's sector boundaries and at the line, the car's
/// time since its lap began and the ghost's there.
#[wasm_bindgen]
pub struct SplitTracker {
    inner: skidpad_ghost::SplitTracker,
}

#[wasm_bindgen]
impl SplitTracker {
    /// Splits at `reference`'s track's sector boundaries and its line, for
    /// a first lap that began at time `start` (s, the clock `update` is
    /// given).
    #[wasm_bindgen(constructor)]
    pub fn new(reference: &LapReference, start: f64) -> SplitTracker {
        let mut checkpoints = reference.track.sectors().to_vec();
        checkpoints.push(reference.inner.lap_length());
        SplitTracker {
            inner: skidpad_ghost::SplitTracker::new(&reference.inner, &checkpoints, start),
        }
    }

    /// A copy of the tracker as it is now, to go back to (a rewind).
    pub fn copy(&self) -> SplitTracker {
        SplitTracker {
            inner: self.inner.clone(),
        }
    }

    /// Takes the car's position at time `time` (s, not decreasing);
    /// returns the boundaries passed since the last call: `{checkpoint,
    /// line, time, delta}` (`checkpoint` from 0 in lap order, `line` true
    /// at the lap line, `time` the car's lap time there, `delta` its time
    /// minus the ghost's, s, or null where the ghost did not reach).
    #[wasm_bindgen(unchecked_return_type = "Split[]")]
    pub fn update(
        &mut self,
        reference: &LapReference,
        x: f64,
        y: f64,
        time: f64,
    ) -> JsResult<js_sys::Array> {
        let out = js_sys::Array::new();
        if !(x.is_finite() && y.is_finite() && time.is_finite()) {
            return Ok(out);
        }
        let line = self.inner.checkpoints().len() - 1;
        for event in self
            .inner
            .update(&reference.inner, &reference.track, x, y, time)
        {
            let object = crate::args::object_of_numbers(&[
                ("checkpoint", event.checkpoint as f64),
                ("time", event.player_time),
            ])?;
            let delta = event.delta().map_or(JsValue::NULL, JsValue::from_f64);
            js_sys::Reflect::set(&object, &"delta".into(), &delta)?;
            js_sys::Reflect::set(&object, &"line".into(), &(event.checkpoint == line).into())?;
            out.push(&object);
        }
        Ok(out)
    }
}
