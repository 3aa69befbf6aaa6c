//! One car's telemetry as the files analysis tools read, from JavaScript:
//! `telemetryCsv`, `telemetryMotecCsv` and `telemetryLd`. The writers are
//! the `skidpad-telemetry` crate's, as `skidpad telemetry` uses them, so a
//! browser's export of a replay is the same bytes as the command's; the
//! MoTeC formats' rows wait in memory here (the command spools them to a
//! temporary file).

use std::io::Cursor;

use js_sys::{Object, Reflect, Uint8Array};
use skidpad_replay::{NoHooks, PlayerOptions, ReplayPlayer, create_replay_world};
use skidpad_telemetry::motec::LogInfo;
use skidpad_telemetry::rows::{Row, RowFilter, Walked, walk};
use skidpad_telemetry::{Result, TelemetryError, csv, motec_csv, motec_ld};
use wasm_bindgen::prelude::*;

use crate::args::{self, field};
use crate::error::{JsResult, error, range_error};
use crate::replay::Replay;

/// The export's options, checked: car `car` of `replay`, `stride`
/// (default 1), `laps` (`"2-4"` or `"3"`), `fileName` (what the log
/// calls the replay; default `replay.skr`).
struct Export<'r> {
    replay: &'r skidpad_replay::Replay,
    car: u32,
    filter: RowFilter,
    info: LogInfo,
}

impl<'r> Export<'r> {
    fn new(replay: &'r Replay, car: &JsValue, options: &JsValue) -> JsResult<Self> {
        let replay = replay.inner.as_ref();
        let car = args::u32_arg(car, "car")?;
        let cars = replay.cars.len();
        if car as usize >= cars {
            return Err(range_error(format!(
                "the replay has {cars} car(s): no car {car}"
            )));
        }
        let stride = field(options, "stride")?;
        let stride = if stride.is_undefined() {
            1
        } else {
            args::u64_arg(&stride, "stride")?
        };
        if stride == 0 {
            return Err(range_error("stride must be at least 1"));
        }
        let laps = field(options, "laps")?;
        let laps = if laps.is_undefined() {
            None
        } else {
            let text = args::string(&laps, "laps")?;
            Some(RowFilter::parse_laps(&text).map_err(|e| range_error(e.to_string()))?)
        };
        let name = field(options, "fileName")?;
        let name = if name.is_undefined() {
            "replay.skr".to_owned()
        } else {
            args::string(&name, "fileName")?
        };
        Ok(Export {
            replay,
            car,
            filter: RowFilter { stride, laps },
            info: LogInfo::new(replay, car, &name),
        })
    }

    /// Walks the replay once, giving `each` every row the filter keeps.
    fn walk(&self, each: &mut dyn FnMut(&Row<'_>) -> Result<()>) -> Result<Walked> {
        let world = create_replay_world(self.replay)?;
        let options = PlayerOptions {
            cache_budget: 0,
            ..PlayerOptions::default()
        };
        let player = ReplayPlayer::with_options(world, self.replay, NoHooks, options)?;
        walk(
            self.replay,
            player,
            self.car,
            &self.filter,
            &mut || {},
            each,
        )
    }
}

fn text(bytes: Vec<u8>) -> JsResult<String> {
    String::from_utf8(bytes).map_err(|e| error(e.to_string()))
}

fn thrown(e: TelemetryError) -> JsValue {
    error(e.to_string())
}

/// Car `car`'s telemetry as CSV: two header rows (names, units), then a
/// row per written step; the same text `skidpad telemetry` writes.
#[wasm_bindgen(js_name = telemetryCsv)]
pub fn telemetry_csv(
    replay: &Replay,
    #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "TelemetryExportOptions")] options: JsValue,
) -> JsResult<String> {
    let export = Export::new(replay, &car, &options)?;
    let mut out = Vec::new();
    csv::write_csv(&mut out, &mut |each| export.walk(each)).map_err(thrown)?;
    text(out)
}

/// Car `car`'s telemetry as MoTeC CSV (MoTeC i2's import), with a beacon
/// at each crossing of the line.
#[wasm_bindgen(js_name = telemetryMotecCsv)]
pub fn telemetry_motec_csv(
    replay: &Replay,
    #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "TelemetryExportOptions")] options: JsValue,
) -> JsResult<String> {
    let export = Export::new(replay, &car, &options)?;
    let mut out = Vec::new();
    let mut spool = Cursor::new(Vec::new());
    motec_csv::write_motec_csv(
        &mut out,
        &export.info,
        &export.filter,
        &mut spool,
        &mut |each| export.walk(each),
    )
    .map_err(thrown)?;
    text(out)
}

/// Car `car`'s telemetry as MoTeC i2 logged data: `{ ld, ldx }`, the
/// `.ld` file's bytes and the `.ldx` beside it (lap beacons).
#[wasm_bindgen(js_name = telemetryLd, unchecked_return_type = "{ ld: Uint8Array; ldx: string }")]
pub fn telemetry_ld(
    replay: &Replay,
    #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "TelemetryExportOptions")] options: JsValue,
) -> JsResult<JsValue> {
    let export = Export::new(replay, &car, &options)?;
    let mut out = Cursor::new(Vec::new());
    let mut spool = Cursor::new(Vec::new());
    let log = motec_ld::write_ld(
        &mut out,
        &export.info,
        export.filter.stride,
        &mut spool,
        &mut |each| export.walk(each),
    )
    .map_err(thrown)?;
    let result = Object::new();
    Reflect::set(
        &result,
        &"ld".into(),
        &Uint8Array::from(out.into_inner().as_slice()),
    )?;
    Reflect::set(&result, &"ldx".into(), &log.ldx.into())?;
    Ok(result.into())
}
