//! Ghosts in JavaScript: `Ghost`, `GhostRecorder`, `GhostPlayer`,
//! `ghostQuaternion`, `sliceGhost`, `sliceGhostFrames`, `encodeGhost` and
//! `decodeGhost`.
//!
//! Frames cross the boundary as `Float32Array`s of nine values each, in the
//! storage order `t, x, y, z, yaw, pitch, roll, steer, speed`, and poses as
//! plain objects with those names (without `t`).

use js_sys::{Float32Array, Uint8Array};
use skidpad_ghost::{GhostFrame, GhostPose, GhostRecorderOptions};
use wasm_bindgen::prelude::*;

use crate::args::{self, car_id, field, number};
use crate::error::{JsResult, ghost_error, range_error};
use crate::world::World;

/// A validated ghost track (frames with increasing times).
#[wasm_bindgen]
pub struct Ghost {
    inner: skidpad_ghost::Ghost,
}

impl Ghost {
    pub(crate) fn from_core(inner: skidpad_ghost::Ghost) -> Ghost {
        Ghost { inner }
    }

    pub(crate) fn core(&self) -> &skidpad_ghost::Ghost {
        &self.inner
    }
}

fn pose_object(pose: &GhostPose) -> JsResult<JsValue> {
    let values = GhostFrame {
        t: 0.0,
        pose: *pose,
    }
    .to_array();
    let fields: Vec<(&str, f64)> = GhostFrame::FIELD_NAMES[1..]
        .iter()
        .copied()
        .zip(values[1..].iter().map(|&v| f64::from(v)))
        .collect();
    args::object_of_numbers(&fields)
}

#[wasm_bindgen]
impl Ghost {
    /// A ghost from frames packed nine floats each (see the module
    /// documentation). Throws for an empty, ragged, non-finite or
    /// time-disordered array.
    #[wasm_bindgen(js_name = fromFrames)]
    pub fn from_frames(
        #[wasm_bindgen(unchecked_param_type = "Float32Array")] frames: JsValue,
    ) -> JsResult<Ghost> {
        let values = frames
            .dyn_into::<Float32Array>()
            .map_err(|_| range_error("frames must be a Float32Array"))?
            .to_vec();
        if values.len() % 9 != 0 {
            return Err(range_error(format!(
                "frames must hold nine values per frame, got {} values",
                values.len()
            )));
        }
        let frames = values
            .chunks_exact(9)
            .map(|c| {
                let mut a = [0.0; 9];
                a.copy_from_slice(c);
                GhostFrame::from_array(a)
            })
            .collect();
        skidpad_ghost::Ghost::from_frames(frames)
            .map(Ghost::from_core)
            .map_err(ghost_error)
    }

    /// All frames, nine floats each.
    pub fn frames(&self) -> Float32Array {
        let values: Vec<f32> = self
            .inner
            .frames()
            .iter()
            .flat_map(|f| f.to_array())
            .collect();
        Float32Array::from(values.as_slice())
    }

    /// Number of frames.
    #[wasm_bindgen(getter, js_name = frameCount)]
    pub fn frame_count(&self) -> u32 {
        // A decoded ghost holds at most MAX_FRAMES; a recorded one cannot
        // reach 2^32 frames in wasm's 4 GiB.
        self.inner.len() as u32
    }

    /// Time of the last frame minus the first, s.
    #[wasm_bindgen(getter)]
    pub fn duration(&self) -> f32 {
        self.inner.duration()
    }
}

/// Records one car's poses after each step.
#[wasm_bindgen]
pub struct GhostRecorder {
    inner: skidpad_ghost::GhostRecorder,
}

#[wasm_bindgen]
impl GhostRecorder {
    /// A recorder for `car`; `options.every` keeps one sample every n
    /// steps (default 1).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "number")] car: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ every?: number }")] options: JsValue,
    ) -> JsResult<GhostRecorder> {
        let car = car_id(&car)?;
        let every = field(&options, "every")?;
        let every = if every.is_undefined() {
            1
        } else {
            args::u32_arg(&every, "every")?
        };
        skidpad_ghost::GhostRecorder::with_options(car, GhostRecorderOptions { every })
            .map(|inner| GhostRecorder { inner })
            .map_err(ghost_error)
    }

    /// A copy of this recorder as it is now, to go back to (see
    /// `RaceTiming.copy`).
    pub fn copy(&self) -> GhostRecorder {
        GhostRecorder {
            inner: self.inner.clone(),
        }
    }

    /// Call after each step the world takes: records the car's pose at
    /// the timestep the world ran.
    #[wasm_bindgen(js_name = afterStep)]
    pub fn after_step(&mut self, world: &World) -> JsResult<()> {
        world.with(|w| self.inner.after_step(w).map_err(ghost_error))
    }

    /// `afterStep`, handed the step's `dt` again: it must be the one the
    /// world ran, bit for bit, or this throws.
    /// @deprecated use `afterStep`, which reads the timestep from the world
    pub fn sample(
        &mut self,
        world: &World,
        #[wasm_bindgen(unchecked_param_type = "number")] dt: JsValue,
    ) -> JsResult<()> {
        let dt = number(&dt, "dt")?;
        world.with(|w| {
            skidpad_ghost::check_timestep(w, dt).map_err(ghost_error)?;
            self.inner.after_step(w).map_err(ghost_error)
        })
    }

    /// Makes the latest pose frame 0 of a new lap.
    pub fn restart(&mut self) {
        self.inner.restart();
    }

    /// Frames kept so far.
    #[wasm_bindgen(getter, js_name = frameCount)]
    pub fn frame_count(&self) -> u32 {
        self.inner.frames().len() as u32
    }

    /// The ghost recorded so far, timed from zero.
    pub fn finish(&self) -> JsResult<Ghost> {
        self.inner
            .finish()
            .map(Ghost::from_core)
            .map_err(ghost_error)
    }
}

/// Plays a ghost: poses at any time, O(1) for forward lookups.
#[wasm_bindgen]
pub struct GhostPlayer {
    inner: skidpad_ghost::GhostPlayer,
}

#[wasm_bindgen]
impl GhostPlayer {
    /// A player over a copy of `ghost`.
    #[wasm_bindgen(constructor)]
    pub fn new(ghost: &Ghost) -> GhostPlayer {
        GhostPlayer {
            inner: skidpad_ghost::GhostPlayer::new(ghost.inner.clone()),
        }
    }

    /// The pose at time `t` (clamped to the ghost), interpolated;
    /// `{x, y, z, yaw, pitch, roll, steer, speed}`.
    #[wasm_bindgen(js_name = poseAt, unchecked_return_type = "GhostPose")]
    pub fn pose_at(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number")] t: JsValue,
    ) -> JsResult<JsValue> {
        let t = number(&t, "t")? as f32;
        let pose = self.inner.pose_at(t).map_err(ghost_error)?;
        pose_object(&pose)
    }

    /// As `poseAt`, writing the eight pose values into `out` (a
    /// `Float32Array` of length 8) without making an object per frame.
    #[wasm_bindgen(js_name = poseAtInto)]
    pub fn pose_at_into(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number")] t: JsValue,
        out: &mut [f32],
    ) -> JsResult<()> {
        if out.len() != 8 {
            return Err(range_error(format!(
                "out must hold 8 values, got {}",
                out.len()
            )));
        }
        let t = number(&t, "t")? as f32;
        let mut pose = GhostPose::default();
        self.inner.pose_at_into(t, &mut pose).map_err(ghost_error)?;
        let values = GhostFrame { t, pose }.to_array();
        out.copy_from_slice(&values[1..]);
        Ok(())
    }
}

/// A pose's body-to-world rotation `[qx, qy, qz, qw]` (z-y-x). `pose` is
/// an object with `yaw`, `pitch` and `roll`.
#[wasm_bindgen(js_name = ghostQuaternion)]
pub fn ghost_quaternion(
    #[wasm_bindgen(unchecked_param_type = "{ yaw: number, pitch: number, roll: number }")]
    pose: JsValue,
) -> JsResult<Float32Array> {
    let angle = |key: &str| -> JsResult<f32> { Ok(number(&field(&pose, key)?, key)? as f32) };
    let pose = GhostPose {
        yaw: angle("yaw")?,
        pitch: angle("pitch")?,
        roll: angle("roll")?,
        ..GhostPose::default()
    };
    Ok(Float32Array::from(
        skidpad_ghost::ghost_quaternion(&pose).as_slice(),
    ))
}

/// The frames with `from ≤ t ≤ to` (bounds rounded to f32), re-timed from
/// zero.
#[wasm_bindgen(js_name = sliceGhost)]
pub fn slice_ghost(
    ghost: &Ghost,
    #[wasm_bindgen(unchecked_param_type = "number")] from: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] to: JsValue,
) -> JsResult<Ghost> {
    let from = number(&from, "from")?;
    let to = number(&to, "to")?;
    skidpad_ghost::slice_ghost(&ghost.inner, from, to)
        .map(Ghost::from_core)
        .map_err(ghost_error)
}

/// Frames `i0 .. i1` (end exclusive, clamped), re-timed from zero.
#[wasm_bindgen(js_name = sliceGhostFrames)]
pub fn slice_ghost_frames(
    ghost: &Ghost,
    #[wasm_bindgen(unchecked_param_type = "number")] i0: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] i1: JsValue,
) -> JsResult<Ghost> {
    let i0 = args::u32_arg(&i0, "i0")? as usize;
    let i1 = args::u32_arg(&i1, "i1")? as usize;
    skidpad_ghost::slice_ghost_frames(&ghost.inner, i0, i1)
        .map(Ghost::from_core)
        .map_err(ghost_error)
}

/// Encodes a ghost to `.skg` bytes (lossless); throws for a ghost too long
/// for the format.
#[wasm_bindgen(js_name = encodeGhost)]
pub fn encode_ghost(ghost: &Ghost) -> JsResult<Uint8Array> {
    skidpad_ghost::encode_ghost(&ghost.inner)
        .map(|bytes| Uint8Array::from(bytes.as_slice()))
        .map_err(ghost_error)
}

/// Decodes `.skg` bytes; corrupt or truncated bytes throw.
#[wasm_bindgen(js_name = decodeGhost)]
pub fn decode_ghost(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
) -> JsResult<Ghost> {
    let bytes = args::bytes(&bytes, "bytes")?;
    skidpad_ghost::decode_ghost(&bytes)
        .map(Ghost::from_core)
        .map_err(ghost_error)
}
