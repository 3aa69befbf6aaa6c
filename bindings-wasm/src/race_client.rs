//! The whole race for JavaScript: `skidpad-netplay`'s [`RaceClient`]
//! (every car predicted from the server's confirmations, rolled back to
//! the first tick guessed wrong, checked against the server's hashes). The
//! page signs in with `"predict": "all"`, owns the WebSocket and passes
//! each frame's payload in, as with `NetClient`.
//!
//! [`RaceClient`]: skidpad_netplay::RaceClient

use js_sys::{Array, Object, Reflect, Uint8Array};
use skidpad_core::WorldConfig;
use skidpad_netplay as net;
use wasm_bindgen::prelude::*;

use crate::args::{self, object_of_numbers};
use crate::error::{JsResult, core_error, range_error};
use crate::netplay::{RaceMap, client_controls, decode, drawn_pose, net_error, tick_seconds};
use crate::world::car_input;

/// Every car of an online race, predicted.
#[wasm_bindgen]
pub struct RaceClient {
    inner: net::RaceClient,
    schema: net::Schema,
}

client_controls!(RaceClient);

#[wasm_bindgen]
impl RaceClient {
    /// A client for the race its map message describes, at `tickHz` with
    /// a frame every `ticksPerFrame` ticks (the config message's), from
    /// the first shot's payload (which carries every car's state).
    #[wasm_bindgen(js_name = forRace)]
    pub fn for_race(
        race: &RaceMap,
        #[wasm_bindgen(unchecked_param_type = "number")] tick_hz: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] ticks_per_frame: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] first_shot: JsValue,
    ) -> JsResult<RaceClient> {
        let dt = tick_seconds(&tick_hz)?;
        let ticks_per_frame = args::whole(&ticks_per_frame, "ticksPerFrame", 1000.0)? as u32;
        let ground = race.ground()?;
        let schema = net::race_schema();
        let frame = decode(&schema, &first_shot)?;
        let inner = net::RaceClient::new(
            WorldConfig::default(),
            ground,
            &race.car,
            dt,
            ticks_per_frame,
            &frame,
        )
        .map_err(net_error)?;
        Ok(RaceClient { inner, schema })
    }

    /// The newest tick the server confirmed.
    #[wasm_bindgen(getter, js_name = confirmedTick)]
    pub fn confirmed_tick(&self) -> u32 {
        self.inner.confirmed_tick()
    }

    /// The player's seat.
    #[wasm_bindgen(getter)]
    pub fn seat(&self) -> u8 {
        self.inner.seat()
    }

    /// Takes a shot's payload: its confirmations correct the prediction.
    /// Returns the desync (`{tick, seats, fields}`) if the confirmed race
    /// differs from the server's hashes (it must not), else null. A lost
    /// frame is an error: send the `resync` command and wait for a first
    /// shot.
    #[wasm_bindgen(js_name = onFrame, unchecked_return_type = "NetDesync | null")]
    pub fn on_frame(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] frame: JsValue,
    ) -> JsResult<JsValue> {
        let frame = decode(&self.schema, &frame)?;
        let Some(desync) = self.inner.on_frame(&frame).map_err(net_error)? else {
            return Ok(JsValue::NULL);
        };
        let fields = field_objects(&desync.fields)?;
        let seats: Array = desync.seats.iter().map(|s| JsValue::from(*s)).collect();
        let o = Object::new();
        Reflect::set(&o, &"tick".into(), &desync.tick.into())?;
        Reflect::set(&o, &"seats".into(), &seats)?;
        Reflect::set(&o, &"fields".into(), &fields)?;
        Ok(o.into())
    }

    /// After a desync (and the `resync` command): the first shot that
    /// came, taken as any frame, and each car whose state differs from the
    /// first shot's, field by field: `[{seat, fields: [{field, server,
    /// client}]}]`. Build a new client from the first shot afterwards.
    #[wasm_bindgen(
        js_name = desyncFields,
        unchecked_return_type = "Array<{ seat: number; fields: Array<{ field: string; server: number; client: number }> }>"
    )]
    pub fn desync_fields(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] first_shot: JsValue,
    ) -> JsResult<Array> {
        let frame = decode(&self.schema, &first_shot)?;
        let out = Array::new();
        for (seat, fields) in self.inner.desync_fields(&frame).map_err(net_error)? {
            let o = Object::new();
            Reflect::set(&o, &"seat".into(), &seat.into())?;
            Reflect::set(&o, &"fields".into(), &field_objects(&fields)?.into())?;
            out.push(&o);
        }
        Ok(out)
    }

    /// The player's car's pose to draw.
    #[wasm_bindgen(unchecked_return_type = "CarPose")]
    pub fn pose(&self) -> JsResult<JsValue> {
        let car = self
            .inner
            .car()
            .ok_or_else(|| range_error("the player's car has left the race"))?;
        let p = self.inner.world().pose(car).map_err(core_error)?;
        drawn_pose(&p, self.inner.drawn_offset(self.inner.seat()))
    }

    /// Every car's pose to draw, in seat order: `[{seat, pose}]`.
    #[wasm_bindgen(unchecked_return_type = "Array<{ seat: number; pose: CarPose }>")]
    pub fn poses(&self) -> JsResult<Array> {
        let out = Array::new();
        for (seat, car) in self.inner.cars() {
            let p = self.inner.world().pose(car).map_err(core_error)?;
            let o = Object::new();
            Reflect::set(&o, &"seat".into(), &seat.into())?;
            Reflect::set(
                &o,
                &"pose".into(),
                &drawn_pose(&p, self.inner.drawn_offset(seat))?,
            )?;
            out.push(&o);
        }
        Ok(out)
    }

    /// `{frames, confirmedTicks, wrongTicks, rollbacks, resimulatedTicks,
    /// lateFrames, resets, desyncs, corrections, correctionP99,
    /// drawnCorrectionP99, largestCorrection}` (distances in m; `resets`:
    /// the player's car's, from the confirmations).
    #[wasm_bindgen(unchecked_return_type = "NetRaceStats")]
    pub fn stats(&self) -> JsResult<JsValue> {
        let s = self.inner.stats();
        object_of_numbers(&[
            ("frames", s.frames as f64),
            ("confirmedTicks", s.confirmed_ticks as f64),
            ("wrongTicks", s.wrong_ticks as f64),
            ("rollbacks", s.rollbacks as f64),
            ("resimulatedTicks", s.resimulated_ticks as f64),
            ("lateFrames", s.late_frames as f64),
            ("resets", s.own_resets as f64),
            ("desyncs", s.desyncs as f64),
            ("corrections", s.corrections.count() as f64),
            ("correctionP99", s.corrections.quantile(0.99)),
            ("drawnCorrectionP99", s.drawn_corrections.quantile(0.99)),
            ("largestCorrection", s.largest_correction),
        ])
    }
}

/// Fields that differ as `[{field, server, client}]`.
fn field_objects(fields: &[skidpad_replay::FieldDiff]) -> JsResult<Array> {
    let out = Array::new();
    for f in fields {
        let o = Object::new();
        Reflect::set(&o, &"field".into(), &f.field.into())?;
        Reflect::set(&o, &"server".into(), &f.recorded.into())?;
        Reflect::set(&o, &"client".into(), &f.simulated.into())?;
        out.push(&o);
    }
    Ok(out)
}
