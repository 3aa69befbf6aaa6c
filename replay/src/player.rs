//! `ReplayPlayer`: plays a replay back into a world, checks every keyframe,
//! re-syncs on a mismatch, and seeks (SPEC §5).

use skidpad_core::{CarId, RemovedCar, SNAPSHOT_LEN, World, hex};

use crate::cache::{CachedPoint, DEFAULT_CACHE_BUDGET, SnapshotCache};
use crate::desync::{DesyncReport, diff_car};
use crate::hooks::ReplayHooks;
use crate::limits::Limits;
use crate::replay::{Keyframe, ReplayHeader};
use crate::source::ReplaySource;
use crate::{ReplayError, Result};

/// Playback settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayerOptions {
    /// Set the world's step counter on every restore, so `world_hash`
    /// matches the recording's.
    pub follow_step_count: bool,
    /// Memory for cached intermediate points, bytes (0 turns the cache
    /// off).
    pub cache_budget: usize,
    /// Work the replay may declare; checked before the first restore.
    pub limits: Limits,
}

impl Default for PlayerOptions {
    fn default() -> Self {
        PlayerOptions {
            follow_step_count: true,
            cache_budget: DEFAULT_CACHE_BUDGET,
            limits: Limits::default(),
        }
    }
}

/// Plays a [`Replay`](crate::Replay) into a [`World`] that holds the
/// recorded cars (the world's cars in id order are the replay's cars in
/// playback order), for example one made by
/// [`create_replay_world`](crate::create_replay_world).
///
/// Cars the recording removed are removed from the world at the same step
/// and put back (`World::reinstate_car`) when seeking to before it, so the
/// world holds at every step the cars the recording's world held.
///
/// ```
/// use skidpad_replay::{NoHooks, RecorderOptions, ReplayPlayer, ReplayRecorder, create_replay_world};
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
/// let mut recorder = ReplayRecorder::new(&world, RecorderOptions::default())?;
/// for _ in 0..120 {
///     recorder.step(&mut world, 1.0 / 60.0)?;
/// }
/// let replay = recorder.finish(&world)?;
/// let mut player = ReplayPlayer::new(create_replay_world(&replay)?, &replay, NoHooks)?;
/// player.seek(90)?; // from the nearest keyframe
/// player.play_to_end()?;
/// assert_eq!((player.step(), player.desyncs()), (120, 0));
/// assert_eq!(player.world().world_hash(), world.world_hash());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ReplayPlayer<'r, H: ReplayHooks> {
    world: World,
    /// The world's id of each replay car, in playback order.
    ids: Vec<CarId>,
    /// Per replay car, the car while the player has it out of the world.
    removed: Vec<Option<RemovedCar>>,
    replay: ReplaySource<'r>,
    hooks: H,
    options: PlayerOptions,
    /// Steps played since the recording's start.
    step: u64,
    desyncs: u64,
    first_desync: Option<DesyncReport>,
    cache: SnapshotCache,
}

impl<'r, H: ReplayHooks> ReplayPlayer<'r, H> {
    /// A player with default options, positioned at step 0 (keyframe 0
    /// restored, `on_restore` called).
    pub fn new(world: World, replay: impl Into<ReplaySource<'r>>, hooks: H) -> Result<Self> {
        Self::with_options(world, replay, hooks, PlayerOptions::default())
    }

    /// A player with options.
    pub fn with_options(
        world: World,
        replay: impl Into<ReplaySource<'r>>,
        hooks: H,
        options: PlayerOptions,
    ) -> Result<Self> {
        let replay = replay.into();
        replay.header.check_simulation_version()?;
        if world.car_count() != replay.cars.len() {
            return Err(ReplayError::CarCount {
                world: world.car_count(),
                replay: replay.cars.len(),
            });
        }
        check_ground(&replay.header, &world)?;
        let rates = world
            .car_ids()
            .map(|car| world.definition(car).map(|d| d.substep_rate))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        options.limits.check_replay(&replay, &rates)?;
        let point_bytes = replay.cars.len() * (SNAPSHOT_LEN + 24) + 64;
        let cache = SnapshotCache::new(options.cache_budget, replay.header.step_count, point_bytes);
        let ids: Vec<CarId> = world.car_ids().collect();
        let mut player = ReplayPlayer {
            removed: ids.iter().map(|_| None).collect(),
            ids,
            world,
            replay,
            hooks,
            options,
            step: 0,
            desyncs: 0,
            first_desync: None,
            cache,
        };
        player.hooks.on_start(&player.ids);
        // A second handle (a pointer copy or an Arc count): restoring
        // borrows the player mutably.
        let replay = player.replay.clone();
        let first = replay
            .keyframes
            .first()
            .filter(|k| k.step == 0)
            .ok_or(ReplayError::NoKeyframe { step: 0 })?;
        player.restore_keyframe(first)?;
        Ok(player)
    }

    /// Steps played since the recording's start.
    #[must_use]
    pub fn step(&self) -> u64 {
        self.step
    }

    /// True when every recorded step has been played.
    #[must_use]
    pub fn at_end(&self) -> bool {
        self.step >= self.replay.header.step_count
    }

    /// Keyframes whose hashes did not match (each was restored).
    #[must_use]
    pub fn desyncs(&self) -> u64 {
        self.desyncs
    }

    /// The first mismatch, field by field.
    #[must_use]
    pub fn first_desync(&self) -> Option<&DesyncReport> {
        self.first_desync.as_ref()
    }

    /// The playback world.
    #[must_use]
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The world's id of the replay's car `index` (playback order). The
    /// id stays valid while the car is removed: the world answers
    /// `UnknownCar` for it until seeking brings the car back.
    #[must_use]
    pub fn car_id(&self, index: usize) -> Option<CarId> {
        self.ids.get(index).copied()
    }

    /// The world's ids of every replay car, in playback order.
    #[must_use]
    pub fn car_ids(&self) -> &[CarId] {
        &self.ids
    }

    /// The hooks.
    #[must_use]
    pub fn hooks(&self) -> &H {
        &self.hooks
    }

    /// The hooks, mutably.
    pub fn hooks_mut(&mut self) -> &mut H {
        &mut self.hooks
    }

    /// Steps between cached points, and how many are cached and their
    /// bytes: for tuning and benchmarks.
    #[must_use]
    pub fn cache_stats(&self) -> (u64, usize, usize) {
        (
            self.cache.interval(),
            self.cache.len(),
            self.cache.used_bytes(),
        )
    }

    /// Gives back the world and hooks.
    pub fn into_parts(self) -> (World, H) {
        (self.world, self.hooks)
    }

    /// Plays one recorded step; `Ok(false)` at the end.
    pub fn advance(&mut self) -> Result<bool> {
        if self.at_end() {
            return Ok(false);
        }
        let step = self.step;
        let dt = self.replay.dt.at(step).ok_or_else(|| corrupt("dt", step))?;
        for (&car, track) in self.ids.iter().zip(&self.replay.cars) {
            track.apply_step(&mut self.world, car, step)?;
        }
        self.hooks.before_step(step, &mut self.world);
        self.world.step(dt)?;
        self.step += 1;
        self.match_removals(self.step)?;
        self.place_arrivals(self.step)?;
        let replay = self.replay.clone();
        if let Some(keyframe) = replay.keyframe_at(self.step) {
            self.check_keyframe(keyframe)?;
        } else if self.cache.wants(self.step) {
            self.cache_point();
        }
        self.hooks.after_step(self.step, &self.world);
        Ok(true)
    }

    /// Plays to the end.
    pub fn play_to_end(&mut self) -> Result<()> {
        while self.advance()? {}
        Ok(())
    }

    /// Moves to `target` (0 ..= step count), forward or backward: restores
    /// the latest keyframe or cached point at or before it, unless playing
    /// on from the current step is shorter, then re-simulates.
    pub fn seek(&mut self, target: u64) -> Result<()> {
        let end = self.replay.header.step_count;
        if target > end {
            return Err(ReplayError::InvalidArgument {
                what: "seek step",
                reason: format!("{target} is past the replay's last step {end}"),
            });
        }
        let keyframe = self.replay.keyframe_at_or_before(target).map(|k| k.step);
        let cached = self.cache.at_or_before(target).map(|(s, _)| s);
        let best = keyframe.max(cached).unwrap_or(0);
        let play_on = self.step <= target && self.step >= best;
        if !play_on {
            if cached.is_some_and(|c| Some(c) > keyframe) {
                self.restore_cached(best)?;
            } else {
                let replay = self.replay.clone();
                let k = replay
                    .keyframe_at_or_before(target)
                    .ok_or(ReplayError::NoKeyframe { step: target })?;
                self.restore_keyframe(k)?;
            }
        }
        while self.step < target {
            self.advance()?;
        }
        Ok(())
    }

    /// Removes from the world the replay cars not present at `step`
    /// (removed by then, or not arrived yet) and puts back the ones
    /// present at it.
    fn match_removals(&mut self, step: u64) -> Result<()> {
        for ((&car, track), removed) in self
            .ids
            .iter()
            .zip(&self.replay.cars)
            .zip(&mut self.removed)
        {
            if track.present_at(step) {
                if let Some(back) = removed.take() {
                    self.world.reinstate_car(back)?;
                }
            } else if removed.is_none() {
                *removed = Some(self.world.remove_car(car)?);
            }
        }
        Ok(())
    }

    /// Puts the cars that arrive at `step` in the state they arrived in
    /// (`match_removals` brought them into the world).
    fn place_arrivals(&mut self, step: u64) -> Result<()> {
        for (&car, track) in self.ids.iter().zip(&self.replay.cars) {
            if let Some(arrival) = track.arrival.as_ref().filter(|a| a.step == step) {
                self.world.restore(car, &arrival.snapshot)?;
            }
        }
        Ok(())
    }

    /// The world's ids of the cars a keyframe at `step` holds, in its
    /// order; an error when the keyframe holds another number of cars.
    fn keyframe_cars(&self, step: u64, held: usize) -> Result<Vec<CarId>> {
        let cars: Vec<CarId> = self.replay.present_at(step).map(|i| self.ids[i]).collect();
        if cars.len() != held {
            return Err(ReplayError::KeyframeCars {
                step,
                held,
                racing: cars.len(),
            });
        }
        Ok(cars)
    }

    fn check_keyframe(&mut self, keyframe: &Keyframe) -> Result<()> {
        let cars = self.keyframe_cars(keyframe.step, keyframe.cars.len())?;
        let mut diverged = Vec::new();
        for (&car, recorded) in cars.iter().zip(&keyframe.cars) {
            if self.world.car_hash(car)? != recorded.hash {
                diverged.push(car);
            }
        }
        if diverged.is_empty() {
            return Ok(());
        }
        self.desyncs += 1;
        if self.first_desync.is_none() {
            let mut fields = Vec::new();
            for (&car, recorded) in cars.iter().zip(&keyframe.cars) {
                if diverged.contains(&car) {
                    let now = self.world.snapshot(car)?;
                    fields.extend(diff_car(car, &recorded.snapshot, &now));
                }
            }
            self.first_desync = Some(DesyncReport {
                step: keyframe.step,
                cars: diverged,
                fields,
            });
        }
        self.restore_keyframe(keyframe)
    }

    fn restore_keyframe(&mut self, keyframe: &Keyframe) -> Result<()> {
        let cars = self.keyframe_cars(keyframe.step, keyframe.cars.len())?;
        self.match_removals(keyframe.step)?;
        for (car, recorded) in cars.into_iter().zip(&keyframe.cars) {
            self.world.restore(car, &recorded.snapshot)?;
        }
        self.finish_restore(keyframe.step, &keyframe.game_state);
        Ok(())
    }

    fn restore_cached(&mut self, step: u64) -> Result<()> {
        let Some((_, point)) = self.cache.at_or_before(step) else {
            return Err(ReplayError::NoKeyframe { step });
        };
        // Clone out of the cache: restoring borrows the world mutably.
        let point = point.clone();
        let cars = self.keyframe_cars(step, point.snapshots.len())?;
        self.match_removals(step)?;
        for (car, snapshot) in cars.into_iter().zip(&point.snapshots) {
            self.world.restore(car, snapshot)?;
        }
        self.finish_restore(step, &point.game_state);
        Ok(())
    }

    fn finish_restore(&mut self, step: u64, game_state: &[u8]) {
        self.step = step;
        if self.options.follow_step_count {
            self.world
                .set_step_count(self.replay.header.start_step + step);
        }
        self.hooks.on_restore(step, game_state);
    }

    fn cache_point(&mut self) {
        let Some(game_state) = self.hooks.save_state(self.step) else {
            return;
        };
        let snapshots: Option<Vec<Vec<u8>>> = self
            .world
            .car_ids()
            .map(|c| self.world.snapshot(c).ok())
            .collect();
        if let Some(snapshots) = snapshots {
            self.cache.insert(
                self.step,
                CachedPoint {
                    snapshots,
                    game_state,
                },
            );
        }
    }
}

pub(crate) fn corrupt(stream: &'static str, step: u64) -> ReplayError {
    ReplayError::StreamTooShort { stream, step }
}

/// Refuses a world whose ground is not the one the replay was recorded on:
/// the same inputs on another ground are another race.
fn check_ground(header: &ReplayHeader, world: &World) -> Result<()> {
    let (recorded, description) = header.ground()?;
    let ground = world.ground();
    if ground.fingerprint() == recorded {
        return Ok(());
    }
    let name = |description: String, fingerprint: &[u8; 32]| {
        format!("the {description} (ground {})", &hex(fingerprint)[..12])
    };
    Err(ReplayError::GroundMismatch {
        recorded: name(description, &recorded),
        world: name(ground.describe(), &ground.fingerprint()),
    })
}
