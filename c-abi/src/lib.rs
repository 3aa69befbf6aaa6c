//! skidpad's C ABI, for hosts that are not written in Rust (a Unity or
//! Godot game through C#, an Unreal or C++ engine, a C server): a live
//! world, replays (record, encode, decode, verify within limits, play and
//! seek) and ghosts, with the bits the Rust crates give.
//!
//! The rules every function follows (README.md says them to a host):
//! - objects are opaque handles made by `skidpad_*_new` (or a decoder)
//!   through an out pointer and freed by their own `skidpad_*_free`, which
//!   takes NULL;
//! - a function that can fail returns a [`SkidpadStatus`](status::SkidpadStatus); then
//!   `skidpad_last_error_message` says why, on the calling thread, and no
//!   output was written;
//! - every pointer is checked for NULL and alignment before it is used; a
//!   panic (a bug) is caught at the boundary and returned as
//!   `SKIDPAD_STATUS_PANIC`, never unwound into the host;
//! - one thread at a time per handle; different handles on different
//!   threads are independent.
//!
//! What the caller must still guarantee, and no check can: a handle is one
//! this library made and has not freed, and a pointer with a length points
//! at that many elements. That is the safety contract of every `unsafe`
//! function here.
#![allow(clippy::missing_safety_doc)] // one contract for all, stated above

mod args;
pub mod buffer;
pub mod ghost;
pub mod ground;
pub mod player;
pub mod replay;
pub mod status;
pub mod values;
pub mod world;

use std::ffi::c_char;

use crate::status::{copy_text, quietly};

/// The simulation version this library simulates and plays: replays of
/// other versions are refused (`SKIDPAD_STATUS_SIMULATION_VERSION`).
#[unsafe(no_mangle)]
pub extern "C" fn skidpad_simulation_version() -> u32 {
    skidpad_core::SIMULATION_VERSION
}

/// Copies this library's version (`"0.1.0"`) into `buffer` and returns the
/// bytes it needs, NUL included.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_core_version(buffer: *mut c_char, capacity: usize) -> usize {
    // SAFETY: the caller's buffer.
    quietly(0, || unsafe {
        copy_text(skidpad_core::CORE_VERSION, buffer, capacity)
    })
}
