//! `SkidpadPlayer`: plays a replay back in a world rebuilt from it, step by
//! step or by seeking, and lends that world to every reading function.

use skidpad_replay::{NoHooks, ReplayPlayer, create_replay_world};

use crate::args::{borrow, borrow_mut, check_out, drop_handle, hand_out, write};
use crate::buffer::SkidpadBuffer;
use crate::replay::SkidpadReplay;
use crate::status::{Failure, SkidpadStatus, guard, quietly};
use crate::world::SkidpadWorld;

/// A replay being played back.
pub struct SkidpadPlayer {
    player: ReplayPlayer<'static, NoHooks>,
}

/// A player at step 0 of `replay`, in a world rebuilt from the replay's
/// car definitions and ground (the replay must carry or name a ground this
/// library can build). The player keeps its own share of the replay.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_player_new(
    replay: *const SkidpadReplay,
    out: *mut *mut SkidpadPlayer,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let replay = unsafe { borrow(replay, "replay") }?.replay.clone();
        check_out(out, "out")?;
        let world = create_replay_world(&replay)?;
        let player = ReplayPlayer::new(world, replay, NoHooks)?;
        // SAFETY: checked above.
        unsafe { hand_out(out, SkidpadPlayer { player }, "out") }
    })
}

/// Plays one recorded step; `played_out` gets 1, or 0 at the end.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_player_advance(
    player: *mut SkidpadPlayer,
    played_out: *mut u8,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let player = unsafe { borrow_mut(player, "player") }?;
        check_out(played_out, "played_out")?;
        let played = player.player.advance()?;
        // SAFETY: checked above.
        unsafe { write(played_out, u8::from(played), "played_out") }
    })
}

/// Moves to step `step` (back or forth), from the nearest keyframe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_player_seek(
    player: *mut SkidpadPlayer,
    step: u64,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let player = unsafe { borrow_mut(player, "player") }?;
        Ok(player.player.seek(step)?)
    })
}

/// Plays every remaining step.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_player_play_to_end(player: *mut SkidpadPlayer) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let player = unsafe { borrow_mut(player, "player") }?;
        Ok(player.player.play_to_end()?)
    })
}

/// The step the player is at (0 … the replay's step count).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_player_step(
    player: *const SkidpadPlayer,
    out: *mut u64,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        unsafe { write(out, borrow(player, "player")?.player.step(), "out") }
    })
}

/// Keyframes passed so far whose hash did not match the re-simulation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_player_desyncs(
    player: *const SkidpadPlayer,
    out: *mut u64,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        unsafe { write(out, borrow(player, "player")?.player.desyncs(), "out") }
    })
}

/// The first mismatch so far, field by field, as text to free with
/// `skidpad_buffer_free`; NULL is written when every keyframe matched.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_player_first_desync(
    player: *const SkidpadPlayer,
    out: *mut *mut SkidpadBuffer,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let player = unsafe { borrow(player, "player") }?;
        check_out(out, "out")?;
        match player.player.first_desync() {
            // SAFETY: checked above.
            Some(desync) => unsafe {
                let bytes = desync.to_string().into_bytes();
                hand_out(out, SkidpadBuffer { bytes }, "out")
            },
            // SAFETY: checked above.
            None => unsafe { write(out, std::ptr::null_mut(), "out") },
        }
    })
}

/// The world id of the replay's car number `index` (0-based, in the
/// replay's order), for the world functions.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_player_car_id(
    player: *const SkidpadPlayer,
    index: u32,
    out: *mut u32,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let player = unsafe { borrow(player, "player") }?;
        let id = player.player.car_id(index as usize).ok_or_else(|| {
            Failure::invalid(format!(
                "car index {index} is not below the replay's {} cars",
                player.player.car_ids().len()
            ))
        })?;
        // SAFETY: the caller's pointer.
        unsafe { write(out, id.to_raw(), "out") }
    })
}

/// The world being played, for the reading functions (`skidpad_world_pose`,
/// `skidpad_world_channel`, `skidpad_world_hash`, …); owned by the player
/// and valid until it is freed. NULL for a NULL player.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_player_world(player: *const SkidpadPlayer) -> *const SkidpadWorld {
    quietly(std::ptr::null(), || {
        // SAFETY: NULL or a live player from this library.
        unsafe { player.as_ref() }
            .map_or(std::ptr::null(), |p| SkidpadWorld::lend(p.player.world()))
    })
}

/// Frees a player; NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_player_free(player: *mut SkidpadPlayer) {
    // SAFETY: NULL or a player from this library, not used again.
    unsafe { drop_handle(player) }
}
