//! Streams in JavaScript: `readStream` (a stream, complete or cut at any
//! byte, to the replay of its whole chunks), `encodeStream`, `splitStream`
//! (bytes as written into header, chunk and end pieces) and
//! `StreamFollower`, a spectator's side of a live race: fed the header
//! piece and then chunks as a spectator service offers them, it holds the
//! host's world bit for bit at every chunk boundary.

use std::sync::Arc;

use js_sys::{Array, Float64Array, Object, Reflect, Uint8Array};
use skidpad_replay::{StreamPieceKind, StreamSplitter, encode_stream, read_stream};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsResult, error, range_error, replay_error};
use crate::read;
use crate::replay::{Replay, metadata_object};
use crate::track::TrackView;

fn set(object: &Object, key: &str, value: &JsValue) -> JsResult<()> {
    Reflect::set(object, &JsValue::from_str(key), value)
        .map(|_| ())
        .map_err(|_| error(format!("cannot set {key}")))
}

/// Reads a stream (`.sks`) cut at any byte: `{ replay, chunks, complete,
/// droppedBytes, stopped }`, the replay joining every whole chunk.
#[wasm_bindgen(js_name = readStream, unchecked_return_type = "StreamContents")]
pub fn read_stream_js(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Limits")] limits: JsValue,
) -> JsResult<JsValue> {
    let bytes = args::bytes(&bytes, "bytes")?;
    let limits = crate::limits::limits(&limits)?;
    let read = read_stream(&bytes, &limits).map_err(replay_error)?;
    let out = Object::new();
    set(
        &out,
        "replay",
        &Replay {
            inner: Arc::new(read.replay),
        }
        .into(),
    )?;
    set(&out, "chunks", &JsValue::from_f64(read.chunks as f64))?;
    set(&out, "complete", &JsValue::from_bool(read.complete))?;
    set(
        &out,
        "droppedBytes",
        &JsValue::from_f64(read.dropped_bytes as f64),
    )?;
    let stopped = read
        .stopped
        .map_or(JsValue::NULL, |s| JsValue::from_str(&s));
    set(&out, "stopped", &stopped)?;
    Ok(out.into())
}

/// A replay as a stream: header, one chunk per keyframe interval, end.
#[wasm_bindgen(js_name = encodeStream)]
pub fn encode_stream_js(replay: &Replay) -> JsResult<Uint8Array> {
    let bytes = encode_stream(&replay.inner).map_err(replay_error)?;
    Ok(Uint8Array::from(bytes.as_slice()))
}

/// Cuts stream bytes into pieces: `[{ kind: 'header' | 'arrival' |
/// 'chunk' | 'end', bytes }]`; a trailing partial record is left out.
#[wasm_bindgen(js_name = splitStream, unchecked_return_type = "StreamPiece[]")]
pub fn split_stream_js(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
) -> JsResult<Array> {
    let bytes = args::bytes(&bytes, "bytes")?;
    let pieces = StreamSplitter::default()
        .push(&bytes)
        .map_err(replay_error)?;
    let out = Array::new();
    for (kind, piece) in pieces {
        let object = Object::new();
        let kind = match kind {
            StreamPieceKind::Header => "header",
            StreamPieceKind::Chunk => "chunk",
            StreamPieceKind::Arrival => "arrival",
            StreamPieceKind::End => "end",
        };
        set(&object, "kind", &JsValue::from_str(kind))?;
        set(&object, "bytes", &Uint8Array::from(piece.as_slice()).into())?;
        out.push(&object);
    }
    Ok(out)
}

/// A spectator following a live stream chunk by chunk.
#[wasm_bindgen]
pub struct StreamFollower {
    inner: skidpad_replay::StreamFollower,
}

#[wasm_bindgen]
impl StreamFollower {
    /// Starts from the stream's header piece (`GET /races/{id}/header`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] header: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "Limits")] limits: JsValue,
    ) -> JsResult<StreamFollower> {
        let header = args::bytes(&header, "header")?;
        let limits = crate::limits::limits(&limits)?;
        skidpad_replay::StreamFollower::new(&header, limits)
            .map(|inner| StreamFollower { inner })
            .map_err(replay_error)
    }

    /// Takes arrival records (cars that joined the race): one `arrival`
    /// piece, or those a spectator service serves before chunk `n`
    /// (`GET /races/{id}/arrivals/{n}`, for a spectator starting there).
    /// Throws, taking none, if one is not the next car.
    #[wasm_bindgen(js_name = pushArrivals)]
    pub fn push_arrivals(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
    ) -> JsResult<()> {
        let bytes = args::bytes(&bytes, "arrivals")?;
        self.inner.push_arrivals(&bytes).map_err(replay_error)
    }

    /// Plays one chunk piece: a chunk record, after the arrival records
    /// written since the chunk before, if any (as `GET
    /// /races/{id}/chunks/{n}` serves it; the first may be any: joining
    /// late); returns the steps it held. Throws if it does not continue,
    /// fails its checksum or does not re-simulate to its closing keyframe.
    #[wasm_bindgen(js_name = pushChunk)]
    pub fn push_chunk(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] record: JsValue,
    ) -> JsResult<f64> {
        let record = args::bytes(&record, "chunk")?;
        self.inner
            .push_chunk(&record)
            .map(|n| n as f64)
            .map_err(replay_error)
    }

    /// `pushChunk`, returning after each step of the chunk its length
    /// (dt, s) and every car's pose: steps × (1 + cars × 8) values (the
    /// pose fields of `poseFields()`), for a viewer that draws each step
    /// rather than each chunk. `cars` is `carCount` after the push; a car
    /// not in the world at a step (removed, or yet to arrive) has NaN.
    #[wasm_bindgen(js_name = pushChunkPoses)]
    pub fn push_chunk_poses(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] record: JsValue,
    ) -> JsResult<Float64Array> {
        let record = args::bytes(&record, "chunk")?;
        let mut poses = Vec::new();
        let mut failed = None;
        let mut held = 0;
        self.inner
            .push_chunk_with(&record, |world, ids, dt| {
                held = ids.len();
                if failed.is_none() {
                    match read::pose_values(world, ids) {
                        Ok(values) => {
                            poses.push(dt);
                            poses.extend_from_slice(&values);
                        }
                        Err(e) => failed = Some(e),
                    }
                }
            })
            .map_err(replay_error)?;
        if let Some(e) = failed {
            return Err(e);
        }
        Ok(Float64Array::from(
            padded_poses(&poses, held, self.inner.definitions().len()).as_slice(),
        ))
    }

    /// The recording's metadata as a plain object of strings.
    #[wasm_bindgen(unchecked_return_type = "Record<string, string>")]
    pub fn metadata(&self) -> JsResult<JsValue> {
        metadata_object(self.inner.header())
    }

    /// The track the race is on (as `Replay.track`).
    pub fn track(&self) -> JsResult<Option<TrackView>> {
        let track = self.inner.header().track().map_err(replay_error)?;
        Ok(track.map(TrackView::of))
    }

    /// The description of the ground the race runs on (the plane's when
    /// the stream names none).
    #[wasm_bindgen(getter, js_name = groundDescription)]
    pub fn ground_description(&self) -> JsResult<String> {
        Ok(self.inner.header().ground().map_err(replay_error)?.1)
    }

    /// The built-in track whose surface the race runs on, or null (as
    /// `Replay.groundTrack`).
    #[wasm_bindgen(getter, js_name = groundTrack)]
    pub fn ground_track(&self) -> JsResult<Option<String>> {
        self.inner
            .ground_track()
            .map(|t| t.map(str::to_owned))
            .map_err(replay_error)
    }

    /// The ground the stream carries in its header record, as triangles to
    /// draw, or null (as `Replay.carriedGround`).
    #[wasm_bindgen(js_name = carriedGround, unchecked_return_type = "CarriedGround | null")]
    pub fn carried_ground(&self) -> JsResult<JsValue> {
        self.inner
            .carried_ground()
            .map_or(Ok(JsValue::NULL), crate::ground::drawn_ground)
    }

    /// Cars in the race.
    #[wasm_bindgen(getter, js_name = carCount)]
    pub fn car_count(&self) -> usize {
        self.inner.definitions().len()
    }

    /// Car `index`'s definition as JSON.
    pub fn definition(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] index: JsValue,
    ) -> JsResult<String> {
        let index = args::u32_arg(&index, "car index")? as usize;
        self.inner
            .definitions()
            .get(index)
            .map(skidpad_core::CarDefinition::to_json)
            .ok_or_else(|| range_error(format!("no car {index} in this race")))
    }

    /// Steps since the recording began that the spectator has reached.
    #[wasm_bindgen(getter)]
    pub fn step(&self) -> f64 {
        self.inner.step() as f64
    }

    /// The spectator world's hash (64 hex digits), or undefined before
    /// the first chunk.
    #[wasm_bindgen(js_name = worldHash)]
    pub fn world_hash(&self) -> Option<String> {
        self.inner.world().map(read::world_hash)
    }

    /// A car's pose in the spectator's world.
    #[wasm_bindgen(unchecked_return_type = "CarPose")]
    pub fn pose(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
    ) -> JsResult<JsValue> {
        let world = self
            .inner
            .world()
            .ok_or_else(|| error("no chunk played yet"))?;
        read::pose(world, &car)
    }
}

/// Per-step pose rows of `held` cars (dt first) widened to `cars` cars,
/// NaN for those the chunk does not hold (arrival records running ahead of
/// the chunks), so every row of a follower has one layout.
fn padded_poses(rows: &[f64], held: usize, cars: usize) -> Vec<f64> {
    let fields = read::POSE_FIELDS.len();
    let (from, to) = (1 + held * fields, 1 + cars * fields);
    if from >= to {
        return rows.to_vec();
    }
    let mut out = Vec::with_capacity(rows.len() / from * to);
    for row in rows.chunks_exact(from) {
        out.extend_from_slice(row);
        out.extend(std::iter::repeat_n(f64::NAN, to - from));
    }
    out
}
