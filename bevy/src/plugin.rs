//! The plugin: where in Bevy's frame the world steps, at what rate, and
//! the system sets a game orders its own systems against.

use bevy_app::{
    App, FixedFirst, FixedLast, FixedPostUpdate, FixedPreUpdate, FixedUpdate, Plugin, PostUpdate,
};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy_time::{Fixed, Time};
use bevy_transform::TransformSystems;
use skidpad_core::{World, WorldConfig};

use crate::cars::{self, CarRegistry};
use crate::events::{self, CarContact, ResetCar};
use crate::flashback::{self, FlashbackPoints, Rewound};
use crate::ghosts;
use crate::input;
use crate::playback;
use crate::race::{self, CarFinished, CarRetired, LapCompleted, SectorPassed};
use crate::rival::{self, GhostSplit};
use crate::take_over;
use crate::transform_sync;
use crate::wheels;

/// Steps skidpad's world in a Bevy app. See the crate's documentation.
///
/// ```
/// use bevy_app::{App, PostUpdate};
/// use skidpad_bevy::{SimulationRate, SkidpadPlugin};
///
/// // 120 steps a second, once per frame in PostUpdate (a game that runs
/// // its own fixed-rate loop): each step is still exactly 1/120 s.
/// let mut app = App::new();
/// app.add_plugins(SkidpadPlugin::default().with_rate(120).in_schedule(PostUpdate));
/// let rate = app.world().resource::<SimulationRate>();
/// assert_eq!((rate.dt, rate.fixed_schedule), (1.0 / 120.0, false));
/// ```
#[derive(Debug, Clone)]
pub struct SkidpadPlugin {
    /// Simulation steps per second; each step is exactly `1 / rate_hz` s.
    pub rate_hz: u32,
    /// The schedule that steps the world once per run. A fixed schedule
    /// (the default, `FixedPostUpdate`) steps as often as `Time<Fixed>`
    /// says, which the plugin sets to `rate_hz`; another schedule
    /// (`PostUpdate`, say) steps once per frame, still by exactly
    /// `1 / rate_hz`.
    pub schedule: InternedScheduleLabel,
}

impl Default for SkidpadPlugin {
    fn default() -> Self {
        SkidpadPlugin {
            rate_hz: 60,
            schedule: FixedPostUpdate.intern(),
        }
    }
}

impl SkidpadPlugin {
    /// The plugin stepping in `schedule` instead of `FixedPostUpdate`.
    #[must_use]
    pub fn in_schedule(self, schedule: impl ScheduleLabel) -> Self {
        SkidpadPlugin {
            schedule: schedule.intern(),
            ..self
        }
    }

    /// The plugin stepping `rate_hz` times a simulated second.
    #[must_use]
    pub fn with_rate(self, rate_hz: u32) -> Self {
        SkidpadPlugin { rate_hz, ..self }
    }
}

/// The skidpad world the plugin steps. Insert one before adding the
/// plugin to choose the ground and settings; otherwise the plugin makes
/// one on flat ground with the default settings.
#[derive(Resource, Clone)]
pub struct SkidpadWorld(pub World);

impl std::ops::Deref for SkidpadWorld {
    type Target = World;
    fn deref(&self) -> &World {
        &self.0
    }
}

impl std::ops::DerefMut for SkidpadWorld {
    fn deref_mut(&mut self) -> &mut World {
        &mut self.0
    }
}

/// The simulation's rate, as the plugin was built with it.
#[derive(Resource, Debug, Clone, Copy, PartialEq)]
pub struct SimulationRate {
    /// Steps per simulated second.
    pub hz: u32,
    /// Each step's timestep, s: exactly `1 / hz` as an `f64`.
    pub dt: f64,
    /// The world steps in one of Bevy's fixed schedules, so a frame can
    /// fall between two steps (what transform smoothing uses).
    pub fixed_schedule: bool,
}

/// While true, the plugin's schedule runs without stepping the world:
/// cars spawned or despawned and controls written meanwhile take effect
/// at the next step. A pause menu sets it; so does a test that must stop
/// on an exact step.
#[derive(Resource, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SimulationPaused(pub bool);

/// The plugin's system sets, in the order they run.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SkidpadSystems {
    /// In the plugin's schedule: players' devices become their cars'
    /// [`CarControls`](crate::CarControls) ([`PlayerInput`](crate::PlayerInput)).
    Input,
    /// In the plugin's schedule: spawned cars join the world, despawned
    /// ones leave it, and every car's [`CarControls`](crate::CarControls)
    /// become its input. Write controls before this set.
    Prepare,
    /// In the plugin's schedule: one step of the world, then the race
    /// timing and the recording observe it.
    Step,
    /// In the plugin's schedule: each car's [`CarMotion`](crate::CarMotion)
    /// is written from the step. Read it after this set.
    Writeback,
    /// In `PostUpdate`, before transform propagation: `Transform`s follow
    /// the cars.
    SyncTransforms,
}

impl Plugin for SkidpadPlugin {
    fn build(&self, app: &mut App) {
        assert!(
            self.rate_hz > 0,
            "SkidpadPlugin::rate_hz must be at least 1"
        );
        let hz = self.rate_hz;
        let fixed_schedules = [
            FixedFirst.intern(),
            FixedPreUpdate.intern(),
            FixedUpdate.intern(),
            FixedPostUpdate.intern(),
            FixedLast.intern(),
        ];
        app.insert_resource(SimulationRate {
            hz,
            dt: 1.0 / f64::from(hz),
            fixed_schedule: fixed_schedules.contains(&self.schedule),
        })
        .insert_resource(Time::<Fixed>::from_hz(f64::from(hz)))
        .init_resource::<SimulationPaused>()
        .init_resource::<CarRegistry>()
        .init_resource::<FlashbackPoints>()
        .add_message::<LapCompleted>()
        .add_message::<SectorPassed>()
        .add_message::<CarFinished>()
        .add_message::<CarRetired>()
        .add_message::<CarContact>()
        .add_message::<GhostSplit>()
        .add_message::<ResetCar>()
        .add_message::<Rewound>()
        .add_observer(cars::note_removal);
        if !app.world().contains_resource::<SkidpadWorld>() {
            let world =
                World::new(WorldConfig::default()).expect("the default world settings are valid");
            app.insert_resource(SkidpadWorld(world));
        }
        let schedule = self.schedule;
        app.configure_sets(
            schedule,
            (
                SkidpadSystems::Input,
                SkidpadSystems::Prepare,
                SkidpadSystems::Step,
                SkidpadSystems::Writeback,
            )
                .chain(),
        )
        .add_systems(
            schedule,
            (
                input::read_devices.in_set(SkidpadSystems::Input),
                (
                    cars::leave_world,
                    cars::join_world,
                    cars::apply_controls,
                    take_over::drive_followers,
                    events::apply_resets,
                    ghosts::start_trails,
                    flashback::keep_points,
                )
                    .chain()
                    .in_set(SkidpadSystems::Prepare),
                (
                    step_world,
                    race::time_step,
                    ghosts::record_trails,
                    events::report_contacts,
                )
                    .chain()
                    .in_set(SkidpadSystems::Step),
                (
                    cars::write_motion,
                    wheels::spawn_wheels,
                    wheels::turn_wheels,
                    rival::race_ghosts,
                    flashback::keep_points,
                )
                    .chain()
                    .in_set(SkidpadSystems::Writeback),
            ),
        )
        .configure_sets(
            PostUpdate,
            SkidpadSystems::SyncTransforms.before(TransformSystems::Propagate),
        )
        .add_systems(
            PostUpdate,
            (
                transform_sync::sync_transforms,
                ghosts::draw_ghosts,
                playback::play_replay,
            )
                .in_set(SkidpadSystems::SyncTransforms),
        );
    }
}

/// One step of the world by exactly the simulation's timestep, recorded
/// when a recording runs.
fn step_world(
    mut world: ResMut<SkidpadWorld>,
    rate: Res<SimulationRate>,
    paused: Res<SimulationPaused>,
    recording: Option<NonSendMut<crate::SkidpadRecording>>,
) -> Result {
    if paused.0 {
        return Ok(());
    }
    world.step(rate.dt)?;
    if let Some(mut recording) = recording {
        recording.after_step(&world)?;
    }
    Ok(())
}
