//! Highlights for JavaScript: `HighlightFinder` finds overtakes, slides,
//! lap records and hard contacts step by step as a replay plays, by the
//! replay crate's rules (`skidpad_replay::HighlightFinder`), so a viewer
//! shows what `find_highlights` finds and keeps no rule of its own.

use js_sys::{Array, Reflect};
use skidpad_core::CarId;
use skidpad_replay::{CarSample, HighlightKind, HighlightOptions};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsResult, replay_error};
use crate::player::ReplayPlayer;
use crate::race::RaceTiming;

/// Finds a replay's highlights as it plays, with the default thresholds.
#[wasm_bindgen]
pub struct HighlightFinder {
    inner: skidpad_replay::HighlightFinder,
    /// Laps of each car (by index) already handed to the finder.
    laps_seen: Vec<usize>,
}

#[wasm_bindgen]
impl HighlightFinder {
    #[wasm_bindgen(constructor)]
    pub fn new() -> JsResult<HighlightFinder> {
        Ok(HighlightFinder {
            inner: skidpad_replay::HighlightFinder::new(HighlightOptions::default())
                .map_err(replay_error)?,
            laps_seen: Vec::new(),
        })
    }

    /// After `player` played step `step` and `timing` (whose cars are the
    /// replay's car indices) observed it: the highlights that began at
    /// that step, `{kind, step, cars}` with `cars` as indices (`'ground'`
    /// for a car's contact with the ground) and `impulse` (contact, N·s),
    /// `angle` (slide, rad) or `time` (lap record, s).
    #[wasm_bindgen(unchecked_return_type = "Highlight[]")]
    pub fn observe(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number")] step: JsValue,
        player: &ReplayPlayer,
        timing: &RaceTiming,
    ) -> JsResult<Array> {
        self.find(&step, player, Some(timing.core()))
    }

    /// `observe` for a replay without a track, so without a race: slides
    /// and contacts only.
    #[wasm_bindgen(js_name = observeUntimed, unchecked_return_type = "Highlight[]")]
    pub fn observe_untimed(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number")] step: JsValue,
        player: &ReplayPlayer,
    ) -> JsResult<Array> {
        self.find(&step, player, None)
    }
}

impl HighlightFinder {
    fn find(
        &mut self,
        step: &JsValue,
        player: &ReplayPlayer,
        race: Option<&skidpad_core::race::RaceTiming>,
    ) -> JsResult<Array> {
        let step = args::u64_arg(step, "step")?;
        let world = player.core().world();
        let ids = player.core().car_ids();
        let index = |id: CarId| {
            ids.iter()
                .position(|&c| c == id)
                .map(|k| CarId::from_raw(k as u32))
        };
        self.laps_seen.resize(ids.len(), 0);
        let mut cars = Vec::with_capacity(ids.len());
        let mut laps = Vec::new();
        for (k, &id) in ids.iter().enumerate() {
            let key = CarId::from_raw(k as u32);
            let Some(race) = race else {
                cars.extend(CarSample::untimed(world, id, key));
                continue;
            };
            cars.extend(CarSample::read(world, id, key, race));
            let done = race.laps(key).unwrap_or_default();
            let new = &done[self.laps_seen[k].min(done.len())..];
            laps.extend(new.iter().map(|l| (key, l.clone())));
            self.laps_seen[k] = done.len();
        }
        let contacts: Vec<_> = world
            .contacts()
            .iter()
            .filter_map(|c| Some((index(c.first)?, c.second.and_then(index), c.impulse)))
            .collect();
        let out = Array::new();
        for h in self.inner.observe(step, &cars, &contacts, &laps) {
            out.push(&highlight_object(h)?);
        }
        Ok(out)
    }
}

fn highlight_object(h: &skidpad_replay::Highlight) -> JsResult<JsValue> {
    let car = |c: CarId| JsValue::from_f64(f64::from(c.to_raw()));
    let (kind, cars, value) = match h.kind {
        HighlightKind::Overtake { car: a, passed } => ("overtake", vec![car(a), car(passed)], None),
        HighlightKind::BigSlide { car: a, angle } => {
            ("slide", vec![car(a)], Some(("angle", angle)))
        }
        HighlightKind::LapRecord { car: a, time } => ("record", vec![car(a)], Some(("time", time))),
        HighlightKind::Contact {
            car: a,
            other,
            impulse,
        } => (
            "contact",
            vec![
                car(a),
                other.map_or_else(|| JsValue::from_str("ground"), car),
            ],
            Some(("impulse", impulse)),
        ),
    };
    let object = args::object_of_numbers(&[("step", h.step as f64)])?;
    Reflect::set(&object, &"kind".into(), &kind.into())?;
    Reflect::set(
        &object,
        &"cars".into(),
        &cars.into_iter().collect::<Array>(),
    )?;
    if let Some((key, v)) = value {
        Reflect::set(&object, &key.into(), &v.into())?;
    }
    Ok(object)
}
