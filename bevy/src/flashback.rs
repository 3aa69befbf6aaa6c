//! Flashback in Bevy: [`rewind`] takes the world the plugin steps back to
//! an earlier step and goes on from there, and the replay being recorded
//! with it (the replay notes each rewind, so it still verifies and a
//! leaderboard sees them). What the plugin keeps beside the world goes
//! back too: the race's timing ([`SkidpadRace`]), the ghosts being
//! recorded ([`GhostTrail`]), the ghost rivals' gaps ([`GhostRival`]), a
//! take-over's followers ([`TakeOverRun`]) and the cars' motion.
//!
//! The recorder puts the world back from its last keyframe at or before
//! the step and re-simulates the recorded inputs from there; the plugin
//! keeps a copy of its own state at each keyframe within the rewind window
//! (a few hundred bytes a car) and feeds it the same re-simulated steps.

use std::collections::VecDeque;

use bevy_ecs::prelude::*;
use bevy_ecs::system::{Command, RunSystemOnce};
use bevy_ecs::world::World as BevyWorld;
use skidpad_ghost::GhostMark;
use skidpad_replay::ReplayError;

use crate::cars::{CarControls, SkidpadCar, snap_motion};
use crate::ghosts::GhostTrail;
use crate::plugin::{SimulationRate, SkidpadWorld};
use crate::race::SkidpadRace;
use crate::recording::SkidpadRecording;
use crate::rival::GhostRival;
use crate::take_over::TakeOverRun;

/// The plugin's own state as it was at one of the recorder's keyframes.
struct Point {
    /// Recorded steps (since the recording began).
    step: u64,
    race: Option<SkidpadRace>,
    trails: Vec<(Entity, (GhostMark, u64))>,
    rivals: Vec<(Entity, GhostRival)>,
}

/// The plugin's state at each keyframe within the rewind window, oldest
/// first, while a replay recording runs.
#[derive(Resource, Default)]
pub(crate) struct FlashbackPoints(VecDeque<Point>);

/// The world went back in time ([`rewind`]): a HUD drops what it showed of
/// the abandoned steps (laps, splits, contacts after `to_step`).
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct Rewound {
    /// The world's step count it went back to.
    pub to_step: u64,
    /// Steps abandoned.
    pub steps: u64,
    /// Simulated seconds abandoned.
    pub seconds: f64,
}

/// Why a rewind was refused; nothing changed.
#[derive(Debug, thiserror::Error)]
pub enum FlashbackError {
    /// The app has no [`SkidpadWorld`] (the plugin was not added).
    #[error("no skidpad world: add SkidpadPlugin first")]
    NoWorld,
    /// No replay recording runs: its keyframes and inputs are what a
    /// rewind goes back through.
    #[error("a rewind needs a replay recording running (start_recording)")]
    NotRecording,
    /// A stream or an instant-replay ring runs: their steps are out of
    /// the recorder's hands.
    #[error(
        "a stream or an instant-replay ring is running: a rewind could not take their steps back"
    )]
    OtherRecording,
    /// The step is before the recording began.
    #[error("step {to} is before the recording began (step {start})")]
    BeforeRecording {
        /// The step asked for.
        to: u64,
        /// The world's step count when the recording began.
        start: u64,
    },
    /// The plugin kept no state at the keyframe the rewind would restart
    /// from (the recording began, or a car joined, after it).
    #[error("nothing kept at step {step}, where this rewind would restart")]
    NoPoint {
        /// The world's step count of that keyframe.
        step: u64,
    },
    /// The recorder refused (outside the window, a car that joined, …).
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The world and the recording went back, but what the plugin keeps
    /// beside them could not follow (a race's car missing from the world):
    /// not expected, since the recorder refuses a rewind past a car that
    /// joined or left.
    #[error("the world went back, but the plugin's state could not follow: {0}")]
    Follow(String),
}

/// Keeps the plugin's state at the recorder's keyframes: runs at the end
/// of `Prepare` (the recording's first keyframe, before its first step)
/// and of `Writeback` (after every step).
pub(crate) fn keep_points(
    mut recording: Option<NonSendMut<SkidpadRecording>>,
    race: Option<Res<SkidpadRace>>,
    trails: Query<(Entity, &GhostTrail)>,
    rivals: Query<(Entity, &GhostRival)>,
    mut points: ResMut<FlashbackPoints>,
) {
    let Some(recorder) = recording.as_deref_mut().and_then(|r| r.replay_recorder()) else {
        points.0.clear();
        return;
    };
    let step = recorder.step_count();
    let every = u64::from(recorder.keyframe_every());
    if !step.is_multiple_of(every) || recorder.rewind_window() == 0 {
        return;
    }
    let point = Point {
        step,
        race: race.map(|r| r.clone()),
        trails: trails
            .iter()
            .filter_map(|(e, t)| t.mark().map(|m| (e, m)))
            .collect(),
        rivals: rivals.iter().map(|(e, r)| (e, r.clone())).collect(),
    };
    // Paused or joined since: the newest state at this step wins.
    if points.0.back().is_some_and(|p| p.step >= step) {
        points.0.pop_back();
    }
    points.0.push_back(point);
    let oldest = step.saturating_sub(recorder.rewind_window() + every);
    while points.0.front().is_some_and(|p| p.step < oldest) {
        points.0.pop_front();
    }
}

/// Takes the world back to its step count `to_step` (within the replay
/// recorder's `rewind_window` of now) and the recording, the race, the
/// ghost trails and rivals and a take-over's followers with it; the game
/// then steps on as usual. Writes a [`Rewound`] message. Refused, changing
/// nothing, as [`FlashbackError`] says. Call it from an exclusive system
/// or a command, between steps (a game holding a rewind key calls it once
/// a frame with the step a little further back, paused or not).
///
/// ```
/// use bevy_app::{App, TaskPoolPlugin};
/// use bevy_time::{TimePlugin, TimeUpdateStrategy};
/// use skidpad_bevy::{CarSpawn, SkidpadPlugin, SkidpadWorld, finish_recording, rewind, start_recording};
/// use skidpad_core::{InitialPose, preset};
///
/// let mut app = App::new();
/// app.add_plugins((TaskPoolPlugin::default(), TimePlugin, SkidpadPlugin::default()))
///     .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
/// let rolling = InitialPose { speed: 20.0, ..InitialPose::default() };
/// app.world_mut().spawn(CarSpawn::new(preset("kart")?, rolling));
/// start_recording(app.world_mut(), Default::default())?;
/// for _ in 0..300 {
///     app.update();
/// }
/// rewind(app.world_mut(), 120)?; // three seconds back
/// assert_eq!(app.world().resource::<SkidpadWorld>().step_count(), 120);
/// let replay = finish_recording(app.world_mut())?;
/// assert_eq!(replay.rewinds.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn rewind(world: &mut BevyWorld, to_step: u64) -> Result<Rewound, FlashbackError> {
    let mut recording = world
        .remove_non_send::<SkidpadRecording>()
        .ok_or(FlashbackError::NotRecording)?;
    let rewound = rewind_recorded(world, &mut recording, to_step);
    world.insert_non_send(recording);
    let rewound = rewound?;
    world.write_message(rewound);
    // The controls the game holds now drive the next step, whatever input
    // the cars had at `to_step`.
    let mut controls = world.query::<&mut CarControls>();
    for mut control in controls.iter_mut(world) {
        control.set_changed();
    }
    match world.run_system_once(snap_motion) {
        Ok(Ok(())) => Ok(rewound),
        Ok(Err(e)) => Err(FlashbackError::Follow(e.to_string())),
        Err(e) => Err(FlashbackError::Follow(e.to_string())),
    }
}

/// [`rewind`] as a command, for a system that holds `Commands` (a rewind
/// key's system): `commands.queue(RewindTo(step))` goes back before the
/// next step, and a refusal goes to the app's error handler.
///
/// ```
/// use bevy_app::{App, TaskPoolPlugin, Update};
/// use bevy_ecs::prelude::*;
/// use bevy_time::{TimePlugin, TimeUpdateStrategy};
/// use skidpad_bevy::{CarSpawn, RewindTo, SkidpadPlugin, SkidpadWorld, start_recording};
/// use skidpad_core::{InitialPose, preset};
///
/// /// Two seconds back whenever the world reaches step 300.
/// fn flashback(world: Res<SkidpadWorld>, mut commands: Commands) {
///     if world.step_count() == 300 {
///         commands.queue(RewindTo(180));
///     }
/// }
///
/// let mut app = App::new();
/// app.add_plugins((TaskPoolPlugin::default(), TimePlugin, SkidpadPlugin::default()))
///     .insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
///     .add_systems(Update, flashback);
/// let rolling = InitialPose { speed: 20.0, ..InitialPose::default() };
/// app.world_mut().spawn(CarSpawn::new(preset("kart")?, rolling));
/// start_recording(app.world_mut(), Default::default())?;
/// for _ in 0..302 {
///     app.update();
/// }
/// assert!(app.world().resource::<SkidpadWorld>().step_count() < 300);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RewindTo(pub u64);

impl Command for RewindTo {
    type Out = Result<(), FlashbackError>;

    fn apply(self, world: &mut BevyWorld) -> Result<(), FlashbackError> {
        rewind(world, self.0).map(|_| ())
    }
}

fn rewind_recorded(
    world: &mut BevyWorld,
    recording: &mut SkidpadRecording,
    to_step: u64,
) -> Result<Rewound, FlashbackError> {
    if recording.streams_or_ring() {
        return Err(FlashbackError::OtherRecording);
    }
    let recorder = recording
        .replay_recorder()
        .ok_or(FlashbackError::NotRecording)?;
    let sim = world
        .get_resource::<SkidpadWorld>()
        .ok_or(FlashbackError::NoWorld)?;
    // A world not where the recording left it is refused by check_rewind.
    let start = sim.step_count().saturating_sub(recorder.step_count());
    let to = to_step
        .checked_sub(start)
        .ok_or(FlashbackError::BeforeRecording { to: to_step, start })?;
    let from = recorder.check_rewind(sim, to)?;
    let steps = recorder.step_count() - to;
    let dt = world.resource::<SimulationRate>().dt;
    let mut points = world
        .remove_resource::<FlashbackPoints>()
        .unwrap_or_default();
    let Some(point) = points.0.iter().position(|p| p.step == from) else {
        world.insert_resource(points);
        return Err(FlashbackError::NoPoint { step: start + from });
    };
    points.0.truncate(point + 1);
    let kept = points.0.back().expect("kept above");

    // The plugin's state as at the keyframe, then on through the steps the
    // recorder re-simulates.
    let mut race = kept.race.clone();
    let mut trails: Vec<(Entity, GhostTrail)> = Vec::new();
    for (entity, trail) in world.query::<(Entity, &GhostTrail)>().iter(world) {
        let mark = kept
            .trails
            .iter()
            .find(|(e, _)| *e == entity)
            .map(|(_, m)| m);
        let mut restored = trail.clone();
        restored
            .go_back(mark)
            .map_err(|e| FlashbackError::Follow(e.to_string()))?;
        trails.push((entity, restored));
    }
    let mut rivals: Vec<(Entity, SkidpadCar, GhostRival)> = Vec::new();
    for (entity, car, rival) in world
        .query::<(Entity, &SkidpadCar, &GhostRival)>()
        .iter(world)
    {
        let restored = match kept.rivals.iter().find(|(e, _)| *e == entity) {
            Some((_, kept)) => kept.clone(),
            None => rival.started_afresh(),
        };
        rivals.push((entity, *car, restored));
    }

    let mut sim = world.resource_mut::<SkidpadWorld>();
    let mut failure = None;
    let outcome = recorder.rewind_observed(&mut sim, to, |w| {
        let now = w.step_count() as f64 * dt;
        if let Some(race) = &mut race
            && let Err(e) = race.retake_step(w)
        {
            failure.get_or_insert(e.to_string());
        }
        for (_, trail) in &mut trails {
            if let Err(e) = trail.retake_step(w) {
                failure.get_or_insert(e.to_string());
            }
        }
        for (_, car, rival) in &mut rivals {
            match w.car(car.id()) {
                Ok(view) => {
                    let p = view.pose().position;
                    rival.observe(p.x, p.y, now, dt);
                }
                Err(e) => {
                    failure.get_or_insert(e.to_string());
                }
            }
        }
    });
    world.insert_resource(points);
    outcome?;
    if let Some(reason) = failure {
        return Err(FlashbackError::Follow(reason));
    }
    if let Some(race) = race {
        world.insert_resource(race);
    }
    for (entity, trail) in trails {
        world.entity_mut(entity).insert(trail);
    }
    for (entity, _, rival) in rivals {
        world.entity_mut(entity).insert(rival);
    }
    if let Some(mut run) = world.get_resource_mut::<TakeOverRun>() {
        run.rewound_to(to_step);
    }
    Ok(Rewound {
        to_step,
        steps,
        seconds: steps as f64 * dt,
    })
}
