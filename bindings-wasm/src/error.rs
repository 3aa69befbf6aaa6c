//! Rust errors as JavaScript exceptions.
//!
//! A bad argument (wrong type, NaN, an unknown car, a value out of range)
//! throws `RangeError`; everything else (corrupt bytes, version mismatches,
//! an unstable step) throws `Error`. Both carry the Rust message. A replay
//! played without the game's own ground it was recorded on also carries
//! `code: 'ground_mismatch'`, so a page can ask for the ground file.

use js_sys::{Error, RangeError};
use skidpad_core::CoreError;
use skidpad_ghost::GhostError;
use skidpad_replay::ReplayError;
use wasm_bindgen::{JsCast, JsValue};

/// What every exported function returns on failure: a JS exception value.
pub type JsResult<T> = Result<T, JsValue>;

/// A `RangeError` with this message.
pub fn range_error(message: impl AsRef<str>) -> JsValue {
    RangeError::new(message.as_ref()).into()
}

/// A plain `Error` with this message.
pub fn error(message: impl AsRef<str>) -> JsValue {
    Error::new(message.as_ref()).into()
}

/// True for the core errors that mean "the caller passed a bad argument".
fn is_argument_error(e: &CoreError) -> bool {
    matches!(
        e,
        CoreError::UnknownCar(_)
            | CoreError::NonFiniteInput { .. }
            | CoreError::InvalidTimestep(_)
            | CoreError::UnknownName { .. }
            | CoreError::UnknownSurface { .. }
            | CoreError::InvalidWheel(_)
            | CoreError::InvalidArgument { .. }
    )
}

/// Converts a core error.
pub fn core_error(e: CoreError) -> JsValue {
    if is_argument_error(&e) {
        range_error(e.to_string())
    } else {
        error(e.to_string())
    }
}

/// Converts a replay error.
pub fn replay_error(e: ReplayError) -> JsValue {
    let argument = match &e {
        ReplayError::InvalidArgument { .. } => true,
        ReplayError::World(inner) => is_argument_error(inner),
        _ => false,
    };
    if argument {
        return range_error(e.to_string());
    }
    let thrown = error(e.to_string());
    if matches!(e, ReplayError::GroundMismatch { .. }) {
        // Setting a property on a fresh Error object cannot fail.
        let _ = js_sys::Reflect::set(&thrown, &"code".into(), &"ground_mismatch".into());
    }
    thrown
}

/// Converts a ghost error.
pub fn ghost_error(e: GhostError) -> JsValue {
    let argument = match &e {
        GhostError::InvalidArgument { .. }
        | GhostError::EmptySlice { .. }
        | GhostError::NonFiniteFrame { .. }
        | GhostError::TimeNotIncreasing { .. }
        | GhostError::Empty => true,
        GhostError::World(inner) => is_argument_error(inner),
        _ => false,
    };
    if argument {
        range_error(e.to_string())
    } else {
        error(e.to_string())
    }
}

/// The message of a thrown JS value (an `Error`'s message, or the value
/// itself as text).
pub fn message_of(thrown: &JsValue) -> String {
    if let Some(e) = thrown.dyn_ref::<Error>() {
        return String::from(e.message());
    }
    thrown.as_string().unwrap_or_else(|| format!("{thrown:?}"))
}
