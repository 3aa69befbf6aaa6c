//! Leaderboard verification: re-simulate replay bytes headless and report.

use std::sync::Arc;

use skidpad_core::Ground;

use crate::Result;
use crate::desync::DesyncReport;
use crate::format::decode_replay_with;
use crate::hooks::ReplayHooks;
use crate::limits::Limits;
use crate::player::{PlayerOptions, ReplayPlayer};
use crate::replay::Replay;
use crate::world::{create_replay_world_on, known_ground};

/// What verification found.
#[derive(Clone, Debug, PartialEq)]
pub struct VerifyReport {
    /// The replay's simulation version (equal to this core's, or
    /// verification would have been refused).
    pub simulation_version: u32,
    /// The core version that recorded it.
    pub recorded_by: String,
    /// Steps re-simulated.
    pub steps: u64,
    /// Simulated seconds.
    pub duration: f64,
    /// Keyframes compared.
    pub keyframes: usize,
    /// Keyframes that did not match.
    pub desyncs: u64,
    /// The first mismatch, field by field.
    pub first_desync: Option<DesyncReport>,
    /// World hash after the last step.
    pub final_hash: [u8; 32],
    /// The player's rewinds in the run ([`Replay::rewinds`]): how many,
    /// and the steps and simulated seconds they took back. Zero for a run
    /// lived straight through.
    pub rewinds: RewindTotals,
}

/// What a run's rewinds add up to.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RewindTotals {
    /// Rewinds used.
    pub count: u64,
    /// Steps they abandoned.
    pub steps: u64,
    /// Simulated seconds they abandoned.
    pub seconds: f64,
}

impl RewindTotals {
    /// The totals of `replay`'s rewinds.
    #[must_use]
    pub fn of(replay: &Replay) -> RewindTotals {
        replay
            .rewinds
            .iter()
            .fold(RewindTotals::default(), |t, r| RewindTotals {
                count: t.count + u64::from(r.count),
                steps: t.steps + r.steps,
                seconds: t.seconds + r.seconds,
            })
    }
}

impl VerifyReport {
    /// True when every keyframe matched.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.desyncs == 0
    }
}

/// Decodes replay bytes (plain or gzip) within `limits`, refuses another
/// simulation version, rebuilds the world from the embedded definitions and
/// plays every step with `hooks` (which see the game-state bytes and, in
/// `after_step`, the re-simulated world, so they can compute the game's
/// result, such as lap times). No intermediate cache is kept. A replay over
/// a limit is refused from its declared sizes, before any step is
/// simulated.
///
/// ```
/// use skidpad_replay::{Limits, NoHooks, RecorderOptions, ReplayRecorder, decode_replay, encode_replay, verify};
/// # use std::sync::Arc;
/// # use skidpad_core::{InitialPose, Track, World, WorldConfig, preset};
/// # fn race() -> Result<World, Box<dyn std::error::Error>> {
/// #     let track = Arc::new(Track::builtin("brandwood")?);
/// #     let mut world = World::new(WorldConfig::default())?;
/// #     for k in 0..2 {
/// #         let pose = InitialPose { x: 40.0 - 10.0 * k as f64, speed: 10.0, ..InitialPose::default() };
/// #         let car = world.add_car(&preset("fwd_hatchback")?, pose)?;
/// #         world.set_driver(car, Some(track.clone()))?;
/// #     }
/// #     Ok(world)
/// # }
/// let mut world = race()?;
/// let mut recorder = ReplayRecorder::new(&world, RecorderOptions { keyframe_every: 30, ..RecorderOptions::default() })?;
/// for _ in 0..120 {
///     recorder.step(&mut world, 1.0 / 60.0)?;
/// }
/// let bytes = encode_replay(&recorder.finish(&world)?)?;
/// assert!(verify(&bytes, NoHooks, &Limits::default())?.is_valid());
///
/// // A submitted run with edited inputs re-simulates differently.
/// let mut cheat = decode_replay(&bytes)?;
/// for input in &mut cheat.cars[0].inputs[10..60] {
///     (input.throttle, input.brake) = (0.0, 1.0);
/// }
/// let report = verify(&encode_replay(&cheat)?, NoHooks, &Limits::default())?;
/// assert!(!report.is_valid() && report.first_desync.is_some());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn verify<H: ReplayHooks>(bytes: &[u8], hooks: H, limits: &Limits) -> Result<VerifyReport> {
    verify_replay(&decode_replay_with(bytes, limits)?, hooks, limits)
}

/// [`verify`] for a replay already decoded (a service that reads the
/// header and metadata before re-simulating decodes once). The work
/// limits are checked again here, as the player checks any replay. It
/// plays on the ground the replay names when this build can make it (the
/// plane or a built-in track's surface); for any other ground use
/// [`verify_replay_on`].
pub fn verify_replay<H: ReplayHooks>(
    replay: &Replay,
    hooks: H,
    limits: &Limits,
) -> Result<VerifyReport> {
    verify_replay_on(replay, known_ground(replay)?, hooks, limits)
}

/// [`verify_replay`] in a world on `ground`: for a replay recorded on a
/// heightfield, a mesh or a game's own ground (the one it names in
/// [`ReplayHeader::ground`](crate::ReplayHeader::ground)).
pub fn verify_replay_on<H: ReplayHooks>(
    replay: &Replay,
    ground: Arc<dyn Ground>,
    hooks: H,
    limits: &Limits,
) -> Result<VerifyReport> {
    // The player refuses another simulation version and work over the
    // limits, for every caller alike.
    let world = create_replay_world_on(replay, ground)?;
    let options = PlayerOptions {
        follow_step_count: true,
        cache_budget: 0,
        limits: *limits,
    };
    let mut player = ReplayPlayer::with_options(world, replay, hooks, options)?;
    player.play_to_end()?;
    Ok(VerifyReport {
        simulation_version: replay.header.simulation_version,
        recorded_by: replay.header.core_version.clone(),
        steps: player.step(),
        duration: replay.duration(),
        keyframes: replay.keyframes.len(),
        desyncs: player.desyncs(),
        first_desync: player.first_desync().cloned(),
        final_hash: player.world().world_hash(),
        rewinds: RewindTotals::of(replay),
    })
}
