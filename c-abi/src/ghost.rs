//! Ghosts: recording one car's poses, encoding and decoding `.skg` bytes,
//! and the pose at any time (no physics).

use skidpad_core::CarId;
use skidpad_ghost::{GhostPlayer, GhostRecorder, GhostRecorderOptions, decode_ghost, encode_ghost};

use crate::args::{borrow, borrow_mut, check_out, drop_handle, hand_out, slice, write};
use crate::buffer::SkidpadBuffer;
use crate::status::{SkidpadStatus, guard};
use crate::values::SkidpadGhostPose;
use crate::world::SkidpadWorld;

/// Records one car's poses, sampled after each step.
pub struct SkidpadGhostRecorder {
    recorder: GhostRecorder,
}

/// A ghost: a pose track to play back, with a cursor that makes playing
/// forwards cheap. One thread at a time may use it.
pub struct SkidpadGhost {
    player: GhostPlayer,
}

/// A recorder of car `car_id`, keeping every `every`-th step (1: all).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_ghost_recorder_new(
    car_id: u32,
    every: u32,
    out: *mut *mut SkidpadGhostRecorder,
) -> SkidpadStatus {
    guard(|| {
        check_out(out, "out")?;
        let recorder =
            GhostRecorder::with_options(CarId::from_raw(car_id), GhostRecorderOptions { every })?;
        // SAFETY: checked above.
        unsafe { hand_out(out, SkidpadGhostRecorder { recorder }, "out") }
    })
}

/// Samples the car's pose after a step of `dt` seconds (call it after each
/// `skidpad_world_step`, with the same dt: the world's own timestep is
/// recorded, and a `dt` other than the one it ran is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_ghost_recorder_sample(
    recorder: *mut SkidpadGhostRecorder,
    world: *const SkidpadWorld,
    dt: f64,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handles.
        let (recorder, world) =
            unsafe { (borrow_mut(recorder, "recorder")?, borrow(world, "world")?) };
        skidpad_ghost::check_timestep(&world.world, dt)?;
        Ok(recorder.recorder.after_step(&world.world)?)
    })
}

/// The ghost recorded so far (the recorder may go on).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_ghost_recorder_finish(
    recorder: *const SkidpadGhostRecorder,
    out: *mut *mut SkidpadGhost,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let recorder = unsafe { borrow(recorder, "recorder") }?;
        check_out(out, "out")?;
        let player = GhostPlayer::new(recorder.recorder.finish()?);
        // SAFETY: checked above.
        unsafe { hand_out(out, SkidpadGhost { player }, "out") }
    })
}

/// Frees a ghost recorder; NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_ghost_recorder_free(recorder: *mut SkidpadGhostRecorder) {
    // SAFETY: NULL or a recorder from this library, not used again.
    unsafe { drop_handle(recorder) }
}

/// Encodes a ghost as `.skg` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_ghost_encode(
    ghost: *const SkidpadGhost,
    out: *mut *mut SkidpadBuffer,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let ghost = unsafe { borrow(ghost, "ghost") }?;
        check_out(out, "out")?;
        let bytes = encode_ghost(ghost.player.ghost())?;
        // SAFETY: checked above.
        unsafe { hand_out(out, SkidpadBuffer { bytes }, "out") }
    })
}

/// Decodes `.skg` bytes; corrupt and truncated files are refused.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_ghost_decode(
    bytes: *const u8,
    len: usize,
    out: *mut *mut SkidpadGhost,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's bytes.
        let bytes = unsafe { slice(bytes, len, "bytes") }?;
        check_out(out, "out")?;
        let player = GhostPlayer::new(decode_ghost(bytes)?);
        // SAFETY: checked above.
        unsafe { hand_out(out, SkidpadGhost { player }, "out") }
    })
}

/// The ghost's length in seconds (its last frame's time).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_ghost_duration(
    ghost: *const SkidpadGhost,
    out: *mut f32,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        unsafe {
            write(
                out,
                borrow(ghost, "ghost")?.player.ghost().duration(),
                "out",
            )
        }
    })
}

/// The number of frames the ghost holds.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_ghost_frame_count(
    ghost: *const SkidpadGhost,
    out: *mut usize,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        unsafe { write(out, borrow(ghost, "ghost")?.player.ghost().len(), "out") }
    })
}

/// The ghost's pose at `t` seconds from its start, interpolated between
/// frames (angles the short way round), held at either end.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_ghost_pose_at(
    ghost: *mut SkidpadGhost,
    t: f32,
    out: *mut SkidpadGhostPose,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let ghost = unsafe { borrow_mut(ghost, "ghost") }?;
        check_out(out, "out")?;
        let pose = ghost.player.pose_at(t)?;
        // SAFETY: checked above.
        unsafe { write(out, pose.into(), "out") }
    })
}

/// Frees a ghost; NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_ghost_free(ghost: *mut SkidpadGhost) {
    // SAFETY: NULL or a ghost from this library, not used again.
    unsafe { drop_handle(ghost) }
}
