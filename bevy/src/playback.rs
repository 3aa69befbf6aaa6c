//! Watching a replay in Bevy: a [`ReplayPlayback`] resource plays a
//! recording (re-simulated by skidpad's `ReplayPlayer`, so every pose is
//! the recorded run's own) at any speed, forwards, backwards or paused,
//! and drives one entity per recorded car ([`ReplayCar`]) whose
//! `Transform` is interpolated between the two steps around the playhead.
//! The live world is untouched: a game can show a replay beside a race.

use std::sync::Arc;

use bevy_ecs::prelude::*;
use bevy_time::Time;
use bevy_transform::components::Transform;
use skidpad_core::{CarPose, World};
use skidpad_replay::{NoHooks, Replay, ReplayError, ReplayPlayer};

use crate::axes::{bevy_rotation, bevy_translation};
use crate::plugin::SimulationRate;

/// Every recorded car's pose at one step (`None`: not in the world).
type StepPoses = Vec<Option<CarPose>>;

/// A replay being watched. Insert one and the plugin spawns a
/// [`ReplayCar`] entity per recorded car (give them meshes as they
/// appear); remove it and they are despawned.
///
/// ```
/// use std::sync::Arc;
/// use bevy_app::{App, TaskPoolPlugin};
/// use bevy_time::{TimePlugin, TimeUpdateStrategy};
/// use skidpad_bevy::{ReplayCar, ReplayPlayback, SkidpadPlugin};
/// use skidpad_replay::{create_replay_world, decode_replay};
///
/// # use skidpad_core::{InitialPose, World, WorldConfig, preset};
/// # use skidpad_replay::{RecorderOptions, ReplayRecorder, encode_replay};
/// # let mut world = World::new(WorldConfig::default())?;
/// # world.add_car(&preset("kart")?, InitialPose { speed: 8.0, ..InitialPose::default() })?;
/// # let mut recorder = ReplayRecorder::new(&world, RecorderOptions::default())?;
/// # for _ in 0..120 {
/// #     recorder.step(&mut world, 1.0 / 60.0)?;
/// # }
/// # let bytes = encode_replay(&recorder.finish(&world)?)?;
/// // `bytes`: a .skr file the game saved (two seconds of one car here).
/// let replay = Arc::new(decode_replay(&bytes)?);
/// let mut app = App::new();
/// app.add_plugins((TaskPoolPlugin::default(), TimePlugin, SkidpadPlugin::default()))
///     .insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
///     .insert_resource(ReplayPlayback::new(create_replay_world(&replay)?, replay)?);
/// for _ in 0..60 {
///     app.update();
/// }
/// app.world_mut().resource_mut::<ReplayPlayback>().speed = -0.5; // slow motion, backwards
/// app.update();
/// let cars = app.world_mut().query::<&ReplayCar>().iter(app.world()).count();
/// assert_eq!(cars, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Resource)]
pub struct ReplayPlayback {
    player: ReplayPlayer<'static, NoHooks>,
    /// Where the playhead is, in steps since the recording's start.
    position: f64,
    /// Playback speed: 1 is real time, 0.25 slow motion, −1 backwards, 0
    /// paused.
    pub speed: f64,
    /// The poses at the step before the playhead and the one after
    /// (`None` for a car not in the world there).
    around: Option<(u64, StepPoses, StepPoses)>,
    /// The recording's length, steps.
    steps: u64,
    spawned: bool,
}

impl ReplayPlayback {
    /// Plays `replay` in `world` (one holding the recorded cars, as
    /// `skidpad_replay::create_replay_world` makes), from its start, at
    /// real time.
    pub fn new(world: World, replay: Arc<Replay>) -> Result<Self, ReplayError> {
        let steps = replay.header.step_count;
        Ok(ReplayPlayback {
            steps,
            player: ReplayPlayer::new(world, replay, NoHooks)?,
            position: 0.0,
            speed: 1.0,
            around: None,
            spawned: false,
        })
    }

    /// The playhead, in steps since the recording's start (fractional
    /// between steps).
    #[must_use]
    pub fn position(&self) -> f64 {
        self.position
    }

    /// The recording's length, steps.
    #[must_use]
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Moves the playhead to `step` (clamped to the recording).
    pub fn seek(&mut self, step: f64) {
        self.position = step.clamp(0.0, self.steps as f64);
    }

    /// The re-simulated world at the step before the playhead, for
    /// telemetry and the like.
    #[must_use]
    pub fn world(&self) -> &World {
        self.player.world()
    }

    /// Keyframes that did not match while playing (a desync: the replay
    /// was made by another core, or altered).
    #[must_use]
    pub fn desyncs(&self) -> u64 {
        self.player.desyncs()
    }

    /// Every car's pose now (`None`: not in the world at this step).
    fn poses(&self) -> StepPoses {
        let world = self.player.world();
        self.player
            .car_ids()
            .iter()
            .map(|&id| world.pose(id).ok())
            .collect()
    }

    /// Has the poses at step `n` and `n + 1` ready; the player is left at
    /// `n + 1` (or the end), so playing forward costs one step per step.
    fn load_around(&mut self, n: u64) -> Result<(), ReplayError> {
        if self.around.as_ref().is_some_and(|(at, _, _)| *at == n) {
            return Ok(());
        }
        self.player.seek(n)?;
        let before = self.poses();
        let after = if self.player.advance()? {
            self.poses()
        } else {
            before.clone()
        };
        self.around = Some((n, before, after));
        Ok(())
    }
}

/// A recorded car drawn by the [`ReplayPlayback`]: its `Transform`
/// follows the replay. `present` is false while the car is not in the
/// recording's world (before it arrived, after it left).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
#[require(Transform)]
pub struct ReplayCar {
    /// The car's index in the recording (playback order).
    pub index: usize,
    /// The car is in the recorded world at the playhead.
    pub present: bool,
}

/// Moves the playhead by the frame's time at the playback's speed and
/// draws every recorded car there.
pub(crate) fn play_replay(
    mut commands: Commands,
    playback: Option<ResMut<ReplayPlayback>>,
    mut cars: Query<(Entity, &mut ReplayCar, &mut Transform)>,
    time: Res<Time>,
    rate: Res<SimulationRate>,
) -> Result {
    let Some(mut playback) = playback else {
        // The replay was put away: its cars go with it.
        for (entity, _, _) in &cars {
            commands.entity(entity).despawn();
        }
        return Ok(());
    };
    if !playback.spawned {
        playback.spawned = true;
        for index in 0..playback.player.car_ids().len() {
            commands.spawn(ReplayCar {
                index,
                present: false,
            });
        }
    }
    let end = playback.steps as f64;
    let moved = playback.speed * time.delta_secs_f64() * f64::from(rate.hz);
    playback.position = (playback.position + moved).clamp(0.0, end);
    let n = playback.position.floor() as u64;
    playback.load_around(n)?;
    let between = (playback.position - n as f64) as f32;
    let Some((_, before, after)) = &playback.around else {
        return Ok(());
    };
    for (_, mut car, mut transform) in &mut cars {
        let (Some(Some(a)), Some(b)) = (before.get(car.index), after.get(car.index)) else {
            car.present = false;
            continue;
        };
        car.present = true;
        let b = b.unwrap_or(*a);
        transform.translation =
            bevy_translation(a.position).lerp(bevy_translation(b.position), between);
        transform.rotation =
            bevy_rotation(a.orientation).slerp(bevy_rotation(b.orientation), between);
    }
    Ok(())
}
