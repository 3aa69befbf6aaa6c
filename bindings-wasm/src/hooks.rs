//! `JsHooks`: a game's JavaScript callbacks as `ReplayHooks`.
//!
//! `beforeStep(step, world)` receives the playback world as an ordinary
//! `World` object. The core player owns that world and lends it as
//! `&mut World`; the hook swaps it into a shared slot for the length of the
//! call (a move, not a copy, with a spare empty world kept for the swap) and
//! back afterwards, so the callback can set slopes or surfaces on it.
//!
//! A callback that throws cannot unwind through the core player. The first
//! exception is kept and thrown by the player call that ran the callback.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Uint8Array};
use skidpad_core::WorldConfig;
use skidpad_replay::ReplayHooks;
use wasm_bindgen::{JsCast, JsValue};

use crate::args::field;
use crate::error::{JsResult, error, range_error};
use crate::world::{World, WorldSlot};

/// The callbacks of a hooks object `{beforeStep, onRestore, keyframeState}`.
pub struct JsHooks {
    before_step: Option<Function>,
    on_restore: Option<Function>,
    keyframe_state: Option<Function>,
    /// Where the playback world sits while `beforeStep` runs.
    slot: WorldSlot,
    /// The `World` object bound to `slot`, made once.
    world_object: JsValue,
    /// An empty world that stands in for the real one during the swap.
    spare: Option<skidpad_core::World>,
    /// The first exception a callback threw, not yet reported.
    error: Option<JsValue>,
}

fn callback(hooks: &JsValue, name: &str) -> JsResult<Option<Function>> {
    let value = field(hooks, name)?;
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .dyn_into::<Function>()
        .map(Some)
        .map_err(|_| range_error(format!("hooks.{name} must be a function")))
}

impl JsHooks {
    /// Reads the callbacks from `hooks` (`undefined` or `null`: none).
    pub fn from_object(hooks: &JsValue) -> JsResult<JsHooks> {
        let slot: WorldSlot = Rc::new(RefCell::new(None));
        let spare =
            skidpad_core::World::new(WorldConfig::default()).map_err(|e| error(e.to_string()))?;
        Ok(JsHooks {
            before_step: callback(hooks, "beforeStep")?,
            on_restore: callback(hooks, "onRestore")?,
            keyframe_state: callback(hooks, "keyframeState")?,
            world_object: World::lent(slot.clone()).into(),
            slot,
            spare: Some(spare),
            error: None,
        })
    }

    /// The first exception a callback threw since the last call, if any.
    pub fn take_error(&mut self) -> Option<JsValue> {
        self.error.take()
    }

    fn keep(&mut self, result: Result<JsValue, JsValue>) -> Option<JsValue> {
        match result {
            Ok(value) => Some(value),
            Err(e) => {
                self.error.get_or_insert(e);
                None
            }
        }
    }
}

impl ReplayHooks for JsHooks {
    fn before_step(&mut self, step: u64, world: &mut skidpad_core::World) {
        let Some(f) = self.before_step.clone() else {
            return;
        };
        let Ok(mut slot) = self.slot.try_borrow_mut() else {
            self.error
                .get_or_insert_with(|| error("beforeStep was re-entered"));
            return;
        };
        let Some(spare) = self.spare.take() else {
            drop(slot);
            self.error
                .get_or_insert_with(|| error("beforeStep was re-entered"));
            return;
        };
        *slot = Some(std::mem::replace(world, spare));
        drop(slot);
        let result = f.call2(
            &JsValue::NULL,
            &JsValue::from_f64(step as f64),
            &self.world_object,
        );
        self.keep(result);
        // The slot cannot be emptied from JS (a lent world refuses to
        // move), so the world is always there to take back.
        if let Some(real) = self.slot.borrow_mut().take() {
            self.spare = Some(std::mem::replace(world, real));
        }
    }

    fn on_restore(&mut self, step: u64, state: &[u8]) {
        if let Some(f) = self.on_restore.clone() {
            let state = Uint8Array::from(state);
            let result = f.call2(&JsValue::NULL, &JsValue::from_f64(step as f64), &state);
            self.keep(result);
        }
    }

    fn save_state(&mut self, step: u64) -> Option<Vec<u8>> {
        let Some(f) = self.keyframe_state.clone() else {
            // A game that restores state but cannot save it gets seeks
            // from keyframes only; a game with no state at all caches.
            return if self.on_restore.is_some() {
                None
            } else {
                Some(Vec::new())
            };
        };
        let value = self.keep(f.call1(&JsValue::NULL, &JsValue::from_f64(step as f64)))?;
        if value.is_null() || value.is_undefined() {
            return None;
        }
        match value.dyn_into::<Uint8Array>() {
            Ok(bytes) => Some(bytes.to_vec()),
            Err(_) => {
                self.error.get_or_insert_with(|| {
                    range_error("keyframeState must return a Uint8Array or null")
                });
                None
            }
        }
    }
}
