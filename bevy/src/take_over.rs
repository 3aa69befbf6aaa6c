//! Take-over in Bevy: [`take_over`] starts a new run at any step of any
//! replay (the player's own, a leaderboard's record, a spectated race):
//! the world becomes the replay's at that step, every car in it an entity,
//! one of them the player's, and the others follow their recordings (or
//! the AI) from the [`TakeOverRun`] resource. The new run is recorded from
//! its first step, and its replay verifies on its own and says where it
//! began.

use std::sync::Arc;

use bevy_ecs::prelude::*;
use bevy_ecs::system::Command;
use bevy_ecs::world::World as BevyWorld;
use bevy_transform::components::Transform;
use skidpad_core::Track;
use skidpad_replay::{
    Followers, Limits, RecorderOptions, Replay, ReplayError, TakeOver, TakeOverFollowers,
    TakeOverOrigin,
};

use crate::axes::{bevy_rotation, bevy_translation};
use crate::cars::{CarControls, CarMotion, CarRegistry, SkidpadCar};
use crate::plugin::{SimulationPaused, SkidpadWorld};
use crate::recording::{RecordingError, SkidpadRecording, start_recording};

/// What a take-over starts from: a replay, a step of it and a car.
pub struct TakeOverStart {
    /// The replay taken over.
    pub source: Arc<Replay>,
    /// The source's step (since its start) the new run begins at.
    pub step: u64,
    /// The car the player takes, by index in the source.
    pub car: usize,
    /// What the other cars do.
    pub followers: Followers,
    /// The work the source may cost to reach `step` (a downloaded replay
    /// is untrusted).
    pub limits: Limits,
    /// Steps between the new run's keyframes (a rewind re-simulates at
    /// most this many).
    pub keyframe_every: u32,
}

impl TakeOverStart {
    /// Car `car` of `source` at step `step`, the others following their
    /// recordings, within the default limits.
    #[must_use]
    pub fn new(source: Arc<Replay>, step: u64, car: usize) -> Self {
        TakeOverStart {
            source,
            step,
            car,
            followers: Followers::Recorded,
            limits: Limits::default(),
            keyframe_every: RecorderOptions::default().keyframe_every,
        }
    }
}

/// The run a [`take_over`] started: its cars' entities, and the followers
/// it drives before every step.
#[derive(Resource)]
pub struct TakeOverRun {
    followers: TakeOverFollowers,
    /// Entities by the source's car order (`None`: not in the world at
    /// the take-over).
    entities: Vec<Option<Entity>>,
    /// The world's step count at the take-over.
    start_step: u64,
}

impl TakeOverRun {
    /// The player's car.
    #[must_use]
    pub fn player(&self) -> Entity {
        let index = self.followers.origin().car;
        self.entities[index].expect("the player's car is in the world")
    }

    /// The entity of the source's car `index`, if it was in the world at
    /// the take-over.
    #[must_use]
    pub fn entity(&self, index: usize) -> Option<Entity> {
        self.entities.get(index).copied().flatten()
    }

    /// Where the run began (the source's final hash, step and car), as
    /// its replay says.
    #[must_use]
    pub fn origin(&self) -> &TakeOverOrigin {
        self.followers.origin()
    }

    /// The source's track, when it names one (a race on it times the run).
    #[must_use]
    pub fn track(&self) -> Option<&Arc<Track>> {
        self.followers.track()
    }

    /// The world's step count at the take-over.
    #[must_use]
    pub fn start_step(&self) -> u64 {
        self.start_step
    }

    /// A flashback took the world back to its step count `to_step`.
    pub(crate) fn rewound_to(&mut self, to_step: u64) {
        self.followers
            .rewound_to(to_step.saturating_sub(self.start_step));
    }
}

/// Why a take-over could not start; nothing changed.
#[derive(Debug, thiserror::Error)]
pub enum TakeOverError {
    /// The app has no [`SkidpadWorld`] (the plugin was not added).
    #[error("no skidpad world: add SkidpadPlugin first")]
    NoWorld,
    /// The world holds cars, or cars are joining: a take-over replaces the
    /// world, so despawn them first.
    #[error("the world holds cars: despawn them before a take-over")]
    CarsPresent,
    /// A recording runs: the new run's recording starts at the take-over.
    #[error("a recording is running: finish it before a take-over")]
    Recording,
    /// The source, the step or the car was refused.
    #[error(transparent)]
    Replay(#[from] ReplayError),
}

/// Starts a run at `start.step` of `start.source` with car `start.car`
/// the player's: replaces the plugin's world with the source's there,
/// spawns an entity per car (the player's with [`CarControls`] for the
/// game to write), inserts the [`TakeOverRun`] and starts recording the
/// new run (finish it with [`finish_recording`](crate::finish_recording)).
/// Returns the player's entity. A [`SkidpadRace`](crate::SkidpadRace)
/// made on the new world times laps from the first crossing after the
/// take-over.
///
/// ```
/// use std::sync::Arc;
/// use bevy_app::{App, TaskPoolPlugin};
/// use bevy_time::{TimePlugin, TimeUpdateStrategy};
/// use skidpad_bevy::{CarControls, SkidpadPlugin, TakeOverStart, finish_recording, take_over};
/// use skidpad_core::CarInput;
/// use skidpad_replay::{Limits, NoHooks, encode_replay, verify};
/// # fn a_recorded_race() -> Result<skidpad_replay::Replay, Box<dyn std::error::Error>> {
/// #     use skidpad_core::{InitialPose, Track, World, WorldConfig, preset};
/// #     use skidpad_replay::{RecorderOptions, ReplayRecorder};
/// #     let track = Arc::new(Track::builtin("brandwood")?);
/// #     let mut world = World::new(WorldConfig::default())?;
/// #     for k in 0..2 {
/// #         let pose = InitialPose { x: 40.0 - 10.0 * k as f64, speed: 10.0, ..InitialPose::default() };
/// #         let car = world.add_car(&preset("fwd_hatchback")?, pose)?;
/// #         world.set_driver(car, Some(track.clone()))?;
/// #     }
/// #     let options = RecorderOptions { track: Some(track), ..RecorderOptions::default() };
/// #     let mut recorder = ReplayRecorder::new(&world, options)?;
/// #     for _ in 0..300 { recorder.step(&mut world, 1.0 / 60.0)?; }
/// #     Ok(recorder.finish(&world)?)
/// # }
///
/// let source = Arc::new(a_recorded_race()?); // two AI cars, 300 steps
/// let mut app = App::new();
/// app.add_plugins((TaskPoolPlugin::default(), TimePlugin, SkidpadPlugin::default()))
///     .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
/// // From step 150 car 1 is the player's; car 0 drives on as recorded.
/// let me = take_over(app.world_mut(), TakeOverStart::new(source, 150, 1))?;
/// app.world_mut().entity_mut(me).insert(CarControls(CarInput { brake: 1.0, ..CarInput::default() }));
/// for _ in 0..120 {
///     app.update();
/// }
/// let run = finish_recording(app.world_mut())?;
/// assert_eq!(run.header.take_over()?.map(|t| t.step), Some(150));
/// assert!(verify(&encode_replay(&run)?, NoHooks, &Limits::default())?.is_valid());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn take_over(world: &mut BevyWorld, start: TakeOverStart) -> Result<Entity, TakeOverError> {
    if !world.contains_resource::<SkidpadWorld>() {
        return Err(TakeOverError::NoWorld);
    }
    let occupied = world.resource::<SkidpadWorld>().car_count() > 0
        || !world.resource::<CarRegistry>().is_empty();
    if occupied {
        return Err(TakeOverError::CarsPresent);
    }
    if world
        .get_non_send::<SkidpadRecording>()
        .is_some_and(SkidpadRecording::any_running)
    {
        return Err(TakeOverError::Recording);
    }
    let run = TakeOver::with_followers(
        start.source.clone(),
        start.step,
        start.car,
        start.followers,
        &start.limits,
    )?;
    let (sim, followers) = run.into_parts();
    let start_step = sim.step_count();
    let mut entities = Vec::with_capacity(start.source.cars.len());
    for index in 0..start.source.cars.len() {
        let Some(car) = followers.car_id(index).filter(|&c| sim.contains_car(c)) else {
            entities.push(None);
            continue;
        };
        let motion = CarMotion::read(&sim, car).map_err(ReplayError::from)?;
        let placed = Transform::from_translation(bevy_translation(motion.pose.position))
            .with_rotation(bevy_rotation(motion.pose.orientation));
        let mut entity = world.spawn((SkidpadCar(car), motion, placed));
        if index == start.car {
            entity.insert(CarControls::default());
        }
        let entity = entity.id();
        world.resource_mut::<CarRegistry>().insert(entity, car);
        entities.push(Some(entity));
    }
    let options = RecorderOptions {
        keyframe_every: start.keyframe_every,
        ..followers.recorder_options()
    };
    world.insert_resource(SkidpadWorld(sim));
    world.insert_resource(TakeOverRun {
        followers,
        entities,
        start_step,
    });
    start_recording(world, options).map_err(|e| match e {
        RecordingError::Replay(e) => TakeOverError::Replay(e),
        other => TakeOverError::Replay(ReplayError::InvalidArgument {
            what: "take-over recording",
            reason: other.to_string(),
        }),
    })?;
    Ok(world.resource::<TakeOverRun>().player())
}

/// [`take_over`] as a command, for a system that holds `Commands` (a
/// menu's "drive from here"): `commands.queue(StartTakeOver(start))`;
/// the player's car is then [`TakeOverRun::player`], and a refusal goes
/// to the app's error handler.
pub struct StartTakeOver(pub TakeOverStart);

impl Command for StartTakeOver {
    type Out = Result<(), TakeOverError>;

    fn apply(self, world: &mut BevyWorld) -> Result<(), TakeOverError> {
        take_over(world, self.0).map(|_| ())
    }
}

/// The followers' inputs for the step about to run (after the game's
/// controls, so a follower's recording wins over anything written to it).
pub(crate) fn drive_followers(
    run: Option<ResMut<TakeOverRun>>,
    paused: Res<SimulationPaused>,
    mut world: ResMut<SkidpadWorld>,
) -> Result {
    if let Some(mut run) = run
        && !paused.0
    {
        run.followers.prepare(&mut world)?;
    }
    Ok(())
}
