//! Live multiplayer for JavaScript (`skidpad-netplay` without its network
//! shell): the snapshot schema and frame decoder, the predicting client
//! and the interpolation buffer. The page owns the WebSocket: it passes
//! each message's payload in (the bytes after the channel byte) and sends
//! the messages these return.

use std::sync::Arc;

use js_sys::{Array, Object, Reflect, Uint8Array};
use skidpad_core::{Track, WorldConfig, preset};
use skidpad_netplay as net;
use wasm_bindgen::prelude::*;

use crate::args::{self, object_of_numbers};
use crate::error::{JsResult, core_error, range_error};
use crate::world::car_input;

pub(crate) fn net_error(e: net::NetError) -> JsValue {
    range_error(e.to_string())
}

fn value_number(v: net::Value) -> f64 {
    v.as_f64()
}

/// A row as `{field: number}` in the schema's field order.
fn row_object(spec: &net::KeySpec, row: &[net::Value]) -> JsResult<JsValue> {
    let o = Object::new();
    for (field, value) in spec.fields.iter().zip(row) {
        Reflect::set(
            &o,
            &field.name.as_str().into(),
            &value_number(*value).into(),
        )?;
    }
    Ok(o.into())
}

/// Seed 001's message channels by name, `{config: 0, auth: 1, …,
/// pong: 31}` (`netplay/FORMAT.md`): the byte a page puts before each
/// message's payload and reads off each message it gets.
#[wasm_bindgen(js_name = netChannels, unchecked_return_type = "Record<string, number>")]
pub fn net_channels() -> JsResult<Object> {
    let o = Object::new();
    for channel in net::Channel::ALL {
        Reflect::set(&o, &channel.name().into(), &(channel as u8).into())?;
    }
    Ok(o)
}

/// A decoded frame as `{tick, serverTimeMs, blocks: {key: rows}}`.
fn frame_object(schema: &net::Schema, frame: &net::Frame) -> JsResult<JsValue> {
    let blocks = Object::new();
    for (id, block) in &frame.blocks {
        let Some(spec) = schema.by_id(*id) else {
            continue;
        };
        let rows = Array::new();
        match block {
            net::Block::Indexed(entries) => {
                for (id, row) in entries {
                    let entry = Object::new();
                    Reflect::set(&entry, &"id".into(), &(*id).into())?;
                    let row = match row {
                        Some(r) => row_object(spec, r)?,
                        None => JsValue::NULL,
                    };
                    Reflect::set(&entry, &"row".into(), &row)?;
                    rows.push(&entry);
                }
            }
            net::Block::List(list) => {
                for row in list {
                    rows.push(&row_object(spec, row)?);
                }
            }
            net::Block::Slots(slots) => {
                for (index, row) in slots {
                    let entry = Object::new();
                    Reflect::set(&entry, &"index".into(), &(*index).into())?;
                    Reflect::set(&entry, &"row".into(), &row_object(spec, row)?)?;
                    rows.push(&entry);
                }
            }
        }
        Reflect::set(&blocks, &spec.key.as_str().into(), &rows)?;
    }
    let o = Object::new();
    Reflect::set(&o, &"tick".into(), &frame.tick.into())?;
    Reflect::set(&o, &"serverTimeMs".into(), &frame.server_time_ms.into())?;
    Reflect::set(&o, &"blocks".into(), &blocks)?;
    Ok(o.into())
}

/// A snapshot schema: the keys a frame may carry.
#[wasm_bindgen]
pub struct NetSchema {
    inner: net::Schema,
}

#[wasm_bindgen]
impl NetSchema {
    /// skidpad's race schema (cars, player, contact, lap, removed).
    pub fn race() -> NetSchema {
        NetSchema {
            inner: net::race_schema(),
        }
    }

    /// A schema from its JSON (the config message's `schema`, as text);
    /// a broken rule throws a RangeError naming the entry.
    #[wasm_bindgen(js_name = fromJson)]
    pub fn from_json(
        #[wasm_bindgen(unchecked_param_type = "string")] json: JsValue,
    ) -> JsResult<NetSchema> {
        let json = args::string(&json, "json")?;
        net::Schema::from_json(&json)
            .map(|inner| NetSchema { inner })
            .map_err(net_error)
    }

    /// The schema as JSON.
    #[wasm_bindgen(js_name = toJson)]
    pub fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// Decodes a frame (a shot's payload) to `{tick, serverTimeMs,
    /// blocks}`; each block is keyed by name, its rows objects of named
    /// numbers (`{id, row}` for indexed blocks, `row: null` when the
    /// entity is gone; `{index, row}` for slots). A frame of another
    /// format version or a damaged one throws a RangeError with the byte.
    #[wasm_bindgen(js_name = decodeFrame, unchecked_return_type = "NetFrame")]
    pub fn decode_frame(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
    ) -> JsResult<JsValue> {
        let bytes = args::bytes(&bytes, "frame")?;
        let frame = net::decode_frame(&self.inner, &bytes).map_err(net_error)?;
        frame_object(&self.inner, &frame)
    }
}

pub(crate) fn decode(schema: &net::Schema, bytes: &JsValue) -> JsResult<net::Frame> {
    let bytes = args::bytes(bytes, "frame")?;
    net::decode_frame(schema, &bytes).map_err(net_error)
}

/// The player's own car, predicted ahead of the server and checked bit
/// for bit against every state the server sends.
///
/// The race's track and car come from its map message: see
/// [`RaceMap`] and [`NetClient::for_race`].
#[wasm_bindgen]
pub struct NetClient {
    inner: net::NetClient,
    schema: net::Schema,
}

#[wasm_bindgen]
impl NetClient {
    /// A client for `car` (a preset) on `track` (a built-in track's
    /// surface) at `tickHz`, from the first shot's payload.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "string")] track: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] car: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] tick_hz: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] first_shot: JsValue,
    ) -> JsResult<NetClient> {
        let track = Track::builtin(&args::string(&track, "track")?).map_err(core_error)?;
        let def = preset(&args::string(&car, "car")?).map_err(core_error)?;
        let ground = Arc::new(track.ground().map_err(core_error)?);
        NetClient::on(ground, &def, &tick_hz, &first_shot)
    }

    /// A client for the race its map message describes (a built-in or own
    /// track, a preset or own car), at `tickHz`, from the first shot's
    /// payload.
    #[wasm_bindgen(js_name = forRace)]
    pub fn for_race(
        race: &RaceMap,
        #[wasm_bindgen(unchecked_param_type = "number")] tick_hz: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] first_shot: JsValue,
    ) -> JsResult<NetClient> {
        NetClient::on(race.ground()?, &race.car, &tick_hz, &first_shot)
    }

    fn on(
        ground: Arc<dyn skidpad_core::Ground>,
        def: &skidpad_core::CarDefinition,
        tick_hz: &JsValue,
        first_shot: &JsValue,
    ) -> JsResult<NetClient> {
        let dt = tick_seconds(tick_hz)?;
        let schema = net::race_schema();
        let frame = decode(&schema, first_shot)?;
        let inner = net::NetClient::new(WorldConfig::default(), ground, def, dt, &frame)
            .map_err(net_error)?;
        Ok(NetClient { inner, schema })
    }

    /// The newest server tick seen.
    #[wasm_bindgen(getter, js_name = serverTick)]
    pub fn server_tick(&self) -> u32 {
        self.inner.server_tick()
    }

    /// Takes a shot's payload: checks the prediction against the player
    /// block and re-simulates on a difference. Returns the misprediction
    /// (`{tick, fields: [{field, server, predicted}]}`) or null.
    #[wasm_bindgen(js_name = onFrame, unchecked_return_type = "NetMisprediction | null")]
    pub fn on_frame(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] frame: JsValue,
    ) -> JsResult<JsValue> {
        let frame = decode(&self.schema, &frame)?;
        let Some(miss) = self.inner.on_frame(&frame).map_err(net_error)? else {
            return Ok(JsValue::NULL);
        };
        let fields = Array::new();
        for f in &miss.fields {
            let o = Object::new();
            Reflect::set(&o, &"field".into(), &f.field.into())?;
            Reflect::set(&o, &"server".into(), &f.recorded.into())?;
            Reflect::set(&o, &"predicted".into(), &f.simulated.into())?;
            fields.push(&o);
        }
        let o = Object::new();
        Reflect::set(&o, &"tick".into(), &miss.tick.into())?;
        Reflect::set(&o, &"fields".into(), &fields)?;
        Ok(o.into())
    }

    /// The car's pose to draw: the prediction, eased after a correction.
    #[wasm_bindgen(unchecked_return_type = "CarPose")]
    pub fn pose(&self) -> JsResult<JsValue> {
        let p = self
            .inner
            .world()
            .pose(self.inner.car())
            .map_err(core_error)?;
        drawn_pose(&p, self.inner.drawn_offset())
    }

    /// `{checked, mispredicted, lateCorrections, resetCorrections,
    /// largestCorrection}`.
    #[wasm_bindgen(unchecked_return_type = "NetStats")]
    pub fn stats(&self) -> JsResult<JsValue> {
        let s = self.inner.stats();
        object_of_numbers(&[
            ("checked", s.checked as f64),
            ("mispredicted", s.mispredicted as f64),
            ("lateCorrections", s.late_corrections as f64),
            ("resetCorrections", s.reset_corrections as f64),
            ("largestCorrection", s.largest_correction),
        ])
    }
}

/// The methods both clients share (`NetClient`: the player's car;
/// `RaceClient`: every car): the lead, the start, and driving. Each
/// client's `inner` has the same methods in Rust.
macro_rules! client_controls {
    ($client:ty) => {
        #[wasm_bindgen]
        impl $client {
            /// The tick the prediction has reached.
            #[wasm_bindgen(getter)]
            pub fn tick(&self) -> u32 {
                self.inner.tick()
            }

            /// Predicts up to `tick` holding the last input (a client starting
            /// ahead of the server).
            #[wasm_bindgen(js_name = advanceTo)]
            pub fn advance_to(
                &mut self,
                #[wasm_bindgen(unchecked_param_type = "number")] tick: JsValue,
            ) -> JsResult<()> {
                let tick = args::u32_arg(&tick, "tick")?;
                self.inner.advance_to(tick).map_err(net_error)
            }

            /// The margin in ticks the lead control keeps between an input's
            /// arrival and its tick (default 3, at most 30): a page that predicts
            /// on its drawing thread, whose ticks come irregularly, keeps more.
            #[wasm_bindgen(js_name = setLeadSafety)]
            pub fn set_lead_safety(
                &mut self,
                #[wasm_bindgen(unchecked_param_type = "number")] ticks: JsValue,
            ) -> JsResult<()> {
                let ticks = args::u32_arg(&ticks, "ticks")?;
                self.inner.set_lead_safety(ticks).map_err(net_error)
            }

            /// Tells the client the server's `maxInputLead` (from its config
            /// message; 60 by default): it predicts no further past the newest
            /// server state, so a stalled server does not leave it running away.
            #[wasm_bindgen(js_name = setMaxInputLead)]
            pub fn set_max_input_lead(
                &mut self,
                #[wasm_bindgen(unchecked_param_type = "number")] ticks: JsValue,
            ) -> JsResult<()> {
                let ticks = args::u32_arg(&ticks, "ticks")?;
                self.inner.set_max_input_lead(ticks);
                Ok(())
            }

            /// Tells the client the race's start tick, from the countdown game
            /// inform `[0, {startTick}]` (`null`: the race waits for players).
            /// Until then its car runs the held input (full brake), as on the
            /// server; a new client predicts a race that has started.
            #[wasm_bindgen(js_name = setStartTick)]
            pub fn set_start_tick(
                &mut self,
                #[wasm_bindgen(unchecked_param_type = "number | null")] tick: JsValue,
            ) -> JsResult<()> {
                let tick = if tick.is_null() {
                    None
                } else {
                    Some(args::u32_arg(&tick, "start tick")?)
                };
                self.inner.set_start_tick(tick);
                Ok(())
            }

            /// How many ticks to predict now (1 normally; more or 0 to keep the
            /// inputs arriving just before their ticks; 0 while the prediction is
            /// the server's input lead past its newest state).
            #[wasm_bindgen(js_name = ticksDue)]
            pub fn ticks_due(&mut self) -> u32 {
                self.inner.ticks_due()
            }

            /// Predicts one tick with `input` and returns the whole input message
            /// to send (channel byte included).
            pub fn drive(
                &mut self,
                #[wasm_bindgen(unchecked_param_type = "CarInput")] input: JsValue,
            ) -> JsResult<Uint8Array> {
                let input = car_input(&input)?;
                let message = self.inner.drive(input).map_err(net_error)?;
                let mut bytes = vec![net::Channel::Input as u8];
                bytes.extend_from_slice(&message.encode());
                Ok(Uint8Array::from(bytes.as_slice()))
            }
        }
    };
}
pub(crate) use client_controls;

client_controls!(NetClient);

/// A car's pose to draw: the physics pose moved by the correction still
/// being eased.
pub(crate) fn drawn_pose(
    p: &skidpad_core::CarPose,
    offset: skidpad_core::glam::DVec3,
) -> JsResult<JsValue> {
    object_of_numbers(&[
        ("x", p.position.x + offset.x),
        ("y", p.position.y + offset.y),
        ("z", p.position.z + offset.z),
        ("yaw", p.yaw),
        ("pitch", p.pitch),
        ("roll", p.roll),
        ("steer", p.steer_angle),
        ("speed", p.speed),
    ])
}

/// Reads a `tickHz` argument (1 to 1000) as seconds per tick.
pub(crate) fn tick_seconds(tick_hz: &JsValue) -> JsResult<f64> {
    let hz = args::whole(tick_hz, "tickHz", 1000.0)?;
    if hz < 1.0 {
        return Err(range_error("tickHz must be 1 to 1000"));
    }
    Ok(1.0 / hz)
}

/// Remote cars drawn at server time − delay with each field's
/// interpolation.
#[wasm_bindgen]
pub struct NetInterpolator {
    inner: net::Interpolator,
    schema: net::Schema,
}

#[wasm_bindgen]
impl NetInterpolator {
    /// A buffer for frames of `schema`, drawing `delayMs` behind the
    /// server and dropping frames older than `maxFrameAgeMs`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        schema: &NetSchema,
        #[wasm_bindgen(unchecked_param_type = "number")] delay_ms: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] max_frame_age_ms: JsValue,
    ) -> JsResult<NetInterpolator> {
        let delay_ms = args::number(&delay_ms, "delayMs")?;
        let max_frame_age_ms = args::number(&max_frame_age_ms, "maxFrameAgeMs")?;
        if !(0.0..=10_000.0).contains(&delay_ms)
            || !(delay_ms..=60_000.0).contains(&max_frame_age_ms)
        {
            return Err(range_error(
                "delayMs is 0 to 10 000 and maxFrameAgeMs from delayMs to 60 000",
            ));
        }
        let settings = net::InterpolationSettings {
            delay_ms,
            max_frame_age_ms,
        };
        Ok(NetInterpolator {
            inner: net::Interpolator::new(schema.inner.clone(), settings),
            schema: schema.inner.clone(),
        })
    }

    /// The first shot's payload: drawn at once, what was in hand dropped.
    #[wasm_bindgen(js_name = firstShot)]
    pub fn first_shot(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] frame: JsValue,
    ) -> JsResult<()> {
        let frame = decode(&self.schema, &frame)?;
        self.inner.first_shot(&frame);
        Ok(())
    }

    /// A shot's payload; false when it is not newer than the newest in
    /// hand (ignored).
    pub fn push(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] frame: JsValue,
    ) -> JsResult<bool> {
        let frame = decode(&self.schema, &frame)?;
        Ok(self.inner.push(&frame))
    }

    /// The hot entities as drawn at `serverNowMs` − delay:
    /// `[{key, id, row}]`.
    #[wasm_bindgen(unchecked_return_type = "NetEntity[]")]
    pub fn sample(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] server_now_ms: JsValue,
    ) -> JsResult<Array> {
        let now = args::number(&server_now_ms, "serverNowMs")?;
        let out = Array::new();
        for ((key, id), row) in self.inner.sample(now) {
            let Some(spec) = self.schema.by_id(key) else {
                continue;
            };
            let o = Object::new();
            Reflect::set(&o, &"key".into(), &spec.key.as_str().into())?;
            Reflect::set(&o, &"id".into(), &id.into())?;
            Reflect::set(&o, &"row".into(), &row_object(spec, &row)?)?;
            out.push(&o);
        }
        Ok(out)
    }
}

impl RaceMap {
    /// The ground the race is driven on: its own, or the track's generated
    /// surface (`race_ground`, as the Rust client builds it).
    pub(crate) fn ground(&self) -> JsResult<Arc<dyn skidpad_core::Ground>> {
        net::race_ground(&self.track, self.ground.as_ref()).map_err(core_error)
    }
}

/// The race a server's map message (channel 3) describes: its track and
/// car, built in or the race's own, read as the Rust client reads them
/// (`MapData::race_track`, `MapData::race_car`).
#[wasm_bindgen]
pub struct RaceMap {
    pub(crate) track: Track,
    pub(crate) car: skidpad_core::CarDefinition,
    /// The race's own ground (a glTF scene's), when it has one.
    ground: Option<skidpad_core::GroundSource>,
}

#[wasm_bindgen]
impl RaceMap {
    /// Reads the map message's JSON text; a track or car that does not
    /// check out is refused with the reason.
    pub fn parse(
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    ) -> JsResult<RaceMap> {
        let text = args::string(&text, "map")?;
        // An own track's definition and an own ground are the bulk of a
        // map.
        let most = 2 * skidpad_core::MAX_TRACK_FILE_BYTES + net::payloads::MAX_MAP_GROUND_TEXT;
        if text.len() > most {
            return Err(range_error(format!(
                "the map message is {} bytes, over {most}",
                text.len()
            )));
        }
        let map: net::payloads::MapData = serde_json::from_str(&text)
            .map_err(|e| range_error(format!("the map message: {e}")))?;
        Ok(RaceMap {
            track: map.race_track().map_err(core_error)?,
            car: map.race_car().map_err(core_error)?,
            ground: map.race_ground_source().map_err(core_error)?,
        })
    }

    /// Whether the race is driven on a ground of its own (a glTF scene's)
    /// rather than the track's generated surface.
    #[wasm_bindgen(getter, js_name = ownGround)]
    pub fn own_ground(&self) -> bool {
        self.ground.is_some()
    }

    /// The race's track, to draw and measure.
    #[wasm_bindgen(js_name = trackView)]
    pub fn track_view(&self) -> crate::track::TrackView {
        crate::track::TrackView::of(self.track.clone())
    }

    /// The race's car definition as JSON (what `presetDefinition` gives
    /// for a preset).
    #[wasm_bindgen(js_name = carDefinition)]
    pub fn car_definition(&self) -> String {
        self.car.to_json()
    }
}
