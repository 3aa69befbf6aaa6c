//! Replays: recording a world's steps, encoding and decoding `.skr` bytes
//! within limits, and verifying them by re-simulation.

use std::sync::Arc;

use skidpad_replay::{
    Limits, NoHooks, RecorderOptions, Replay, ReplayRecorder, decode_replay_with, encode_replay,
    verify,
};

use crate::args::{
    borrow, borrow_mut, borrow_optional, check_out, drop_handle, hand_out, slice, write,
};
use crate::buffer::SkidpadBuffer;
use crate::ground::{SkidpadGround, SkidpadTrack};
use crate::status::{Failure, SkidpadStatus, guard};
use crate::values::{SkidpadHash, SkidpadLimits};
use crate::world::SkidpadWorld;

/// What a recorder records besides every car's inputs.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SkidpadRecorderOptions {
    /// Steps between keyframes (the points a verifier compares and a
    /// player seeks from), at least 1; 60 by default.
    pub keyframe_every: u32,
    /// The ground the world is on, carried in the replay so that a machine
    /// without the game can verify it; NULL for the flat ground, a built-in
    /// track's surface, or the track named below.
    pub carried_ground: *const SkidpadGround,
    /// The track the race is run on, named in the replay so laps can be
    /// timed on it (a game's own track is carried, its surface too); NULL
    /// for none.
    pub track: *const SkidpadTrack,
}

/// A recorder: step the world through it and every step is kept.
pub struct SkidpadRecorder {
    /// `None` once finished.
    recorder: Option<ReplayRecorder<'static>>,
}

/// A replay, recorded or decoded. Read-only; players share it.
pub struct SkidpadReplay {
    pub(crate) replay: Arc<Replay>,
}

/// What verification found.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SkidpadVerifyReport {
    /// The simulation version the replay was recorded with (this library's).
    pub simulation_version: u32,
    /// Keyframes compared.
    pub keyframes: u32,
    /// Steps re-simulated.
    pub steps: u64,
    /// Simulated seconds.
    pub duration: f64,
    /// Keyframes whose hash did not match; 0 for a valid replay.
    pub desyncs: u64,
    /// The step of the first keyframe that did not match; 0 when none did.
    pub first_desync_step: u64,
    /// The world hash after the last step.
    pub final_hash: SkidpadHash,
    /// Rewinds the player used (`skidpad_recorder_rewind`); 0 for a run
    /// lived straight through.
    pub rewinds: u64,
    /// Simulated seconds those rewinds took back.
    pub rewound_seconds: f64,
}

/// Fills `out` with the defaults: a keyframe every 60 steps, nothing carried.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_recorder_options_default(
    out: *mut SkidpadRecorderOptions,
) -> SkidpadStatus {
    guard(|| {
        let options = SkidpadRecorderOptions {
            keyframe_every: RecorderOptions::default().keyframe_every,
            carried_ground: std::ptr::null(),
            track: std::ptr::null(),
        };
        // SAFETY: the caller's pointer.
        unsafe { write(out, options, "out") }
    })
}

/// Starts recording every car of `world` (keyframe 0 is taken now). Then
/// step the world only through `skidpad_recorder_step`. `options` may be
/// NULL for the defaults.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_recorder_new(
    world: *const SkidpadWorld,
    options: *const SkidpadRecorderOptions,
    out: *mut *mut SkidpadRecorder,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        let (world, options) = unsafe {
            (
                borrow(world, "world")?,
                borrow_optional(options, "options")?,
            )
        };
        check_out(out, "out")?;
        let mut chosen = RecorderOptions::default();
        if let Some(options) = options {
            chosen.keyframe_every = options.keyframe_every;
            // SAFETY: the options' handles are NULL or live, by the caller's contract.
            let (ground, track) = unsafe {
                (
                    borrow_optional(options.carried_ground, "options.carried_ground")?,
                    borrow_optional(options.track, "options.track")?,
                )
            };
            chosen.ground = ground.map(SkidpadGround::source);
            chosen.track = track.map(|t| t.track.clone());
        }
        let recorder = ReplayRecorder::new(&world.world, chosen)?;
        // SAFETY: checked above.
        unsafe {
            hand_out(
                out,
                SkidpadRecorder {
                    recorder: Some(recorder),
                },
                "out",
            )
        }
    })
}

fn unfinished(recorder: &mut SkidpadRecorder) -> Result<&mut ReplayRecorder<'static>, Failure> {
    recorder
        .recorder
        .as_mut()
        .ok_or_else(|| Failure::invalid("the recorder is finished"))
}

/// Steps `world` by `dt` and records the step.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_recorder_step(
    recorder: *mut SkidpadRecorder,
    world: *mut SkidpadWorld,
    dt: f64,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handles.
        let (recorder, world) = unsafe {
            (
                borrow_mut(recorder, "recorder")?,
                borrow_mut(world, "world")?,
            )
        };
        Ok(unfinished(recorder)?.step(&mut world.world, dt)?)
    })
}

/// Takes `world` back to recorded step `step` (steps since the recording
/// began, within the last 600) and the recording with it: the cars are bit
/// for bit where they were then, the later steps are dropped, and the
/// replay notes the rewind. Refused, changing nothing, past the window.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_recorder_rewind(
    recorder: *mut SkidpadRecorder,
    world: *mut SkidpadWorld,
    step: u64,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handles.
        let (recorder, world) = unsafe {
            (
                borrow_mut(recorder, "recorder")?,
                borrow_mut(world, "world")?,
            )
        };
        Ok(unfinished(recorder)?.rewind(&mut world.world, step)?)
    })
}

/// Ends the recording with a last keyframe and hands over the replay. The
/// recorder is spent (free it); on failure it is spent too.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_recorder_finish(
    recorder: *mut SkidpadRecorder,
    world: *const SkidpadWorld,
    out: *mut *mut SkidpadReplay,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handles.
        let (recorder, world) =
            unsafe { (borrow_mut(recorder, "recorder")?, borrow(world, "world")?) };
        check_out(out, "out")?;
        unfinished(recorder)?;
        let finished = recorder.recorder.take().expect("checked above");
        let replay = Arc::new(finished.finish(&world.world)?);
        // SAFETY: checked above.
        unsafe { hand_out(out, SkidpadReplay { replay }, "out") }
    })
}

/// Frees a recorder; NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_recorder_free(recorder: *mut SkidpadRecorder) {
    // SAFETY: NULL or a recorder from this library, not used again.
    unsafe { drop_handle(recorder) }
}

/// Fills `out` with the default limits (what a leaderboard accepts from a
/// stranger: 64 cars, 4 hours at 60 Hz, 256 MiB decoded, …).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_limits_default(out: *mut SkidpadLimits) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointer.
        unsafe { write(out, Limits::default().into(), "out") }
    })
}

/// The limits a call was given: the defaults for NULL.
///
/// # Safety
/// `limits` is NULL or points at limits.
unsafe fn limits_or_default(limits: *const SkidpadLimits) -> Result<Limits, Failure> {
    // SAFETY: the caller's contract.
    Ok(unsafe { borrow_optional(limits, "limits") }?.map_or_else(Limits::default, |l| (*l).into()))
}

/// Encodes a replay as `.skr` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_replay_encode(
    replay: *const SkidpadReplay,
    out: *mut *mut SkidpadBuffer,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let replay = unsafe { borrow(replay, "replay") }?;
        check_out(out, "out")?;
        let bytes = encode_replay(&replay.replay)?;
        // SAFETY: checked above.
        unsafe { hand_out(out, SkidpadBuffer { bytes }, "out") }
    })
}

/// Decodes `.skr` bytes (plain or gzip) within `limits` (NULL: the
/// defaults). Every declared size is checked before anything is allocated
/// for it; corrupt, truncated and over-limit files are refused with a status
/// and a message naming what is wrong.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_replay_decode(
    bytes: *const u8,
    len: usize,
    limits: *const SkidpadLimits,
    out: *mut *mut SkidpadReplay,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        let (bytes, limits) = unsafe { (slice(bytes, len, "bytes")?, limits_or_default(limits)?) };
        check_out(out, "out")?;
        let replay = Arc::new(decode_replay_with(bytes, &limits)?);
        // SAFETY: checked above.
        unsafe { hand_out(out, SkidpadReplay { replay }, "out") }
    })
}

/// Recorded host steps.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_replay_step_count(
    replay: *const SkidpadReplay,
    out: *mut u64,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        unsafe {
            write(
                out,
                borrow(replay, "replay")?.replay.header.step_count,
                "out",
            )
        }
    })
}

/// Recorded cars.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_replay_car_count(
    replay: *const SkidpadReplay,
    out: *mut u32,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        unsafe {
            write(
                out,
                borrow(replay, "replay")?.replay.header.car_count,
                "out",
            )
        }
    })
}

/// The world hash the recording ended with (its last keyframe's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_replay_final_hash(
    replay: *const SkidpadReplay,
    out: *mut SkidpadHash,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's handle.
        let replay = unsafe { borrow(replay, "replay") }?;
        let last = replay
            .replay
            .keyframes
            .last()
            .ok_or_else(|| Failure::invalid("the replay holds no keyframe"))?;
        // SAFETY: the caller's pointer.
        unsafe {
            write(
                out,
                SkidpadHash {
                    bytes: last.world_hash,
                },
                "out",
            )
        }
    })
}

/// Frees a replay; NULL is ignored. Players made from it keep their share.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_replay_free(replay: *mut SkidpadReplay) {
    // SAFETY: NULL or a replay from this library, not used again.
    unsafe { drop_handle(replay) }
}

/// Verifies `.skr` bytes as a leaderboard does: decodes them within
/// `limits` (NULL: the defaults), refuses another simulation version and
/// any declared work over the limits before simulating, re-simulates every
/// step and compares every keyframe. A replay that desyncs is a success
/// with `desyncs` > 0 in the report; `desync_text` (may be NULL) then gets
/// the first mismatch field by field, as text, to free with
/// `skidpad_buffer_free` (NULL is written when there was none).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_verify(
    bytes: *const u8,
    len: usize,
    limits: *const SkidpadLimits,
    out: *mut SkidpadVerifyReport,
    desync_text: *mut *mut SkidpadBuffer,
) -> SkidpadStatus {
    guard(|| {
        // SAFETY: the caller's pointers.
        let (bytes, limits) = unsafe { (slice(bytes, len, "bytes")?, limits_or_default(limits)?) };
        check_out(out, "out")?;
        if !desync_text.is_null() {
            check_out(desync_text, "desync_text")?;
        }
        let report = verify(bytes, NoHooks, &limits)?;
        let summary = SkidpadVerifyReport {
            simulation_version: report.simulation_version,
            keyframes: u32::try_from(report.keyframes).unwrap_or(u32::MAX),
            steps: report.steps,
            duration: report.duration,
            desyncs: report.desyncs,
            first_desync_step: report.first_desync.as_ref().map_or(0, |d| d.step),
            final_hash: SkidpadHash {
                bytes: report.final_hash,
            },
            rewinds: report.rewinds.count,
            rewound_seconds: report.rewinds.seconds,
        };
        if !desync_text.is_null() {
            match &report.first_desync {
                // SAFETY: checked above.
                Some(desync) => unsafe {
                    let bytes = desync.to_string().into_bytes();
                    hand_out(desync_text, SkidpadBuffer { bytes }, "desync_text")?;
                },
                // SAFETY: checked above.
                None => unsafe { desync_text.write(std::ptr::null_mut()) },
            }
        }
        // SAFETY: checked above.
        unsafe { write(out, summary, "out") }
    })
}
