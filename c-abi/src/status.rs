//! Status codes, the calling thread's last error message, and the guard
//! every exported function runs its body in, so that no panic crosses the
//! boundary.

use std::cell::RefCell;
use std::ffi::c_char;
use std::panic::{AssertUnwindSafe, catch_unwind};

use skidpad_core::CoreError;
use skidpad_ghost::GhostError;
use skidpad_replay::ReplayError;

/// What a call did. Every function that can fail returns one; on anything
/// but `SKIDPAD_STATUS_OK`, `skidpad_last_error_message` says why, and no
/// output was written.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkidpadStatus {
    /// Done.
    Ok = 0,
    /// A required pointer was NULL or not aligned for its type.
    NullPointer = 1,
    /// An argument was out of range, not UTF-8, or not a valid definition,
    /// or the call does not fit the handle's state (a finished recorder).
    InvalidArgument = 2,
    /// The world holds no car with that id (never added, or removed).
    UnknownCar = 3,
    /// The bytes are not a valid file of that kind: corrupt, truncated or
    /// of another format version.
    Decode = 4,
    /// The replay was recorded by another simulation version; this library
    /// plays only its own (`skidpad_simulation_version`).
    SimulationVersion = 5,
    /// The file declares more than the limits allow (cars, steps, substeps,
    /// bytes); refused before the work was done.
    LimitExceeded = 6,
    /// The simulation refused: a non-finite input, an invalid timestep, a
    /// numerical blow-up.
    Simulation = 7,
    /// The output buffer is too small; nothing was written.
    BufferTooSmall = 8,
    /// A bug in skidpad: it panicked. The handles the call was given may
    /// be in a broken state: free them and do not use them again.
    Panic = 9,
}

/// Why a call failed: the status it returns and the message kept for
/// `skidpad_last_error_message`.
#[derive(Debug)]
pub(crate) struct Failure {
    status: SkidpadStatus,
    message: String,
}

impl Failure {
    pub(crate) fn new(status: SkidpadStatus, message: impl Into<String>) -> Self {
        Failure {
            status,
            message: message.into(),
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Failure::new(SkidpadStatus::InvalidArgument, message)
    }
}

/// The status of a core error, wherever it was wrapped.
fn core_status(e: &CoreError) -> SkidpadStatus {
    match e {
        CoreError::UnknownCar(_) => SkidpadStatus::UnknownCar,
        CoreError::NonFiniteInput { .. }
        | CoreError::InvalidTimestep(_)
        | CoreError::NumericalInstability { .. } => SkidpadStatus::Simulation,
        _ => SkidpadStatus::InvalidArgument,
    }
}

impl From<CoreError> for Failure {
    fn from(e: CoreError) -> Self {
        Failure::new(core_status(&e), e.to_string())
    }
}

impl From<ReplayError> for Failure {
    fn from(e: ReplayError) -> Self {
        let status = match &e {
            ReplayError::World(core) => core_status(core),
            ReplayError::SimulationVersion { .. } => SkidpadStatus::SimulationVersion,
            ReplayError::FormatVersion { .. } | ReplayError::Decode { .. } => SkidpadStatus::Decode,
            ReplayError::LimitExceeded { .. } => SkidpadStatus::LimitExceeded,
            _ => SkidpadStatus::InvalidArgument,
        };
        Failure::new(status, e.to_string())
    }
}

impl From<GhostError> for Failure {
    fn from(e: GhostError) -> Self {
        let status = match &e {
            GhostError::Decode { .. } | GhostError::FormatVersion { .. } => SkidpadStatus::Decode,
            GhostError::World(core) => core_status(core),
            _ => SkidpadStatus::InvalidArgument,
        };
        Failure::new(status, e.to_string())
    }
}

thread_local! {
    /// The message of this thread's last failed call.
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Runs an exported function's body: its failure, or a panic caught here,
/// becomes the status and this thread's last error message.
pub(crate) fn guard(body: impl FnOnce() -> Result<(), Failure>) -> SkidpadStatus {
    let failure = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return SkidpadStatus::Ok,
        Ok(Err(failure)) => failure,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_owned());
            Failure::new(
                SkidpadStatus::Panic,
                format!("skidpad panicked (a bug): {what}"),
            )
        }
    };
    LAST_ERROR.with(|last| *last.borrow_mut() = failure.message);
    failure.status
}

/// Runs a function that cannot report failure (a free, a getter that has
/// a neutral answer): a panic is caught and the neutral answer given.
pub(crate) fn quietly<T>(neutral: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(neutral)
}

/// Copies `text` into the caller's buffer of `capacity` bytes as a
/// NUL-terminated string, cut to fit (never inside a UTF-8 character), and
/// returns the bytes the whole text needs with its NUL. A NULL buffer or a
/// capacity of 0 writes nothing: the call only measures.
///
/// # Safety
/// `buffer` is NULL or valid for `capacity` bytes of writes.
pub(crate) unsafe fn copy_text(text: &str, buffer: *mut c_char, capacity: usize) -> usize {
    if !buffer.is_null() && capacity > 0 {
        let mut cut = text.len().min(capacity - 1);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        // SAFETY: the caller gave `capacity` writable bytes and cut + 1 ≤ capacity.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), buffer.cast::<u8>(), cut);
            *buffer.add(cut) = 0;
        }
    }
    text.len() + 1
}

/// Copies this thread's last error message into `buffer` (see the rules of
/// text outputs in README.md) and returns the bytes it needs, NUL included;
/// 1 when no call has failed on this thread. Calls that succeed leave the
/// message as it was.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_last_error_message(buffer: *mut c_char, capacity: usize) -> usize {
    quietly(0, || {
        // SAFETY: the caller's buffer is valid for `capacity` bytes.
        LAST_ERROR.with(|last| unsafe { copy_text(&last.borrow(), buffer, capacity) })
    })
}

/// A status's name, as a static NUL-terminated string
/// (`"SKIDPAD_STATUS_DECODE"`); `"SKIDPAD_STATUS_UNKNOWN"` for a value
/// that is none of them.
#[unsafe(no_mangle)]
pub extern "C" fn skidpad_status_name(status: u32) -> *const c_char {
    let name = match status {
        0 => c"SKIDPAD_STATUS_OK",
        1 => c"SKIDPAD_STATUS_NULL_POINTER",
        2 => c"SKIDPAD_STATUS_INVALID_ARGUMENT",
        3 => c"SKIDPAD_STATUS_UNKNOWN_CAR",
        4 => c"SKIDPAD_STATUS_DECODE",
        5 => c"SKIDPAD_STATUS_SIMULATION_VERSION",
        6 => c"SKIDPAD_STATUS_LIMIT_EXCEEDED",
        7 => c"SKIDPAD_STATUS_SIMULATION",
        8 => c"SKIDPAD_STATUS_BUFFER_TOO_SMALL",
        9 => c"SKIDPAD_STATUS_PANIC",
        _ => c"SKIDPAD_STATUS_UNKNOWN",
    };
    name.as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_status_and_a_message_and_goes_no_further() {
        let status = guard(|| panic!("a broken invariant"));
        assert_eq!(status, SkidpadStatus::Panic);
        let mut buffer = [0 as c_char; 128];
        // SAFETY: a local buffer of that size.
        let needed = unsafe { skidpad_last_error_message(buffer.as_mut_ptr(), buffer.len()) };
        // SAFETY: NUL-terminated by the call.
        let message = unsafe { std::ffi::CStr::from_ptr(buffer.as_ptr()) };
        assert_eq!(
            message.to_str(),
            Ok("skidpad panicked (a bug): a broken invariant")
        );
        assert_eq!(needed, message.to_bytes().len() + 1);
    }

    #[test]
    fn text_is_cut_to_the_buffer_on_a_character_boundary() {
        let mut buffer = [0x55 as c_char; 4];
        // SAFETY: a local buffer of that size.
        let needed = unsafe { copy_text("aé€", buffer.as_mut_ptr(), buffer.len()) };
        assert_eq!(needed, "aé€".len() + 1);
        // "a" and "é" fit in 3 bytes; "€" would not, so the NUL follows "é".
        assert_eq!(buffer.map(|b| b as u8), [b'a', 0xc3, 0xa9, 0]);
    }
}
