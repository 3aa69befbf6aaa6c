//! skidpad-bevy: skidpad's cars in a Bevy game.
//!
//! [`SkidpadPlugin`] steps a skidpad [`World`](skidpad_core::World) (the
//! resource [`SkidpadWorld`]) once per run of a fixed schedule
//! (`FixedPostUpdate` by default, as avian does), always with the exact
//! timestep `1 / rate_hz` as an `f64`: Bevy's `Time<Fixed>` counts in
//! `Duration`s, which cannot hold 1/60 s, so it only decides *how many*
//! steps a frame runs, never their length. A recording made at 30, 60 or
//! 144 frames a second is therefore the same bytes.
//!
//! A car is an entity: spawn a [`CarSpawn`] and the plugin adds the car
//! to the world at the next step, giving the entity a [`SkidpadCar`] (its
//! id), [`CarControls`] (what the game writes: the driver's input) and
//! [`CarMotion`] (what the game reads: pose and speed after the last step;
//! telemetry channels through [`CarTelemetry`], opt-in). Despawning the entity removes the car. `Transform`s follow the
//! cars in `PostUpdate` before transform propagation, snapped to the last
//! step or, opt-in per car, interpolated ([`PoseInterpolation`]) or
//! extrapolated ([`PoseExtrapolation`]) by the fixed clock's overstep.
//!
//! Laps, finishes and retirements arrive as Bevy messages once a
//! [`SkidpadRace`] resource times the race; [`start_recording`] and
//! [`finish_recording`] record every step into a replay that
//! `skidpad verify` accepts. [`bake_ground`] turns a level's mesh into a
//! ground the replay carries, so a server verifies a run on the game's own
//! level without the game.
//!
//! Systems return Bevy's `Result`: a refused step (a car's input that is
//! not a number, say) goes to the app's error handler and changes nothing.
//!
//! A headless app (a game adds `DefaultPlugins` instead of the first three
//! plugins, and draws the car's entity):
//!
//! ```
//! use std::time::Duration;
//! use bevy_app::{App, TaskPoolPlugin};
//! use bevy_time::{TimePlugin, TimeUpdateStrategy};
//! use bevy_transform::TransformPlugin;
//! use skidpad_bevy::{CarControls, CarMotion, CarSpawn, SkidpadPlugin, SkidpadWorld, start_recording, finish_recording};
//! use skidpad_core::{CarInput, InitialPose, preset};
//!
//! let mut app = App::new();
//! app.add_plugins((TaskPoolPlugin::default(), TimePlugin, TransformPlugin, SkidpadPlugin::default()))
//!     // Frames of 1/144 s for the example; a game leaves Bevy's clock alone.
//!     .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / 144.0)));
//! let throttle = CarControls(CarInput { throttle: 1.0, ..CarInput::default() });
//! let car = app.world_mut().spawn((CarSpawn::new(preset("fwd_hatchback")?, InitialPose::default()), throttle)).id();
//! start_recording(app.world_mut(), Default::default())?;
//! for _ in 0..288 {
//!     app.update(); // two seconds of frames
//! }
//! let motion = app.world().get::<CarMotion>(car).unwrap();
//! assert!(motion.speed > 5.0);
//! let replay = finish_recording(app.world_mut())?;
//! assert_eq!(replay.header.step_count, app.world().resource::<SkidpadWorld>().step_count());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Public items are the SDK's contract; each must say what it is.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod axes;
mod cars;
mod events;
mod flashback;
mod ghosts;
mod input;
mod level;
mod playback;
mod plugin;
mod race;
mod recording;
mod rival;
#[cfg(feature = "rollback")]
mod rollback;
mod take_over;
mod transform_sync;
mod wheels;

pub use axes::{bevy_rotation, bevy_translation};
pub use cars::{
    CarControls, CarMotion, CarRegistry, CarSpawn, CarTelemetry, SkidpadCar, join_spawned_cars,
};
pub use events::{CarContact, ResetCar};
pub use flashback::{FlashbackError, RewindTo, Rewound, rewind};
pub use ghosts::{GhostCar, GhostTrail};
pub use input::{KeyBindings, PlayerInput, standard_reading};
pub use level::{BakeError, BakedGround, bake_ground};
pub use playback::{ReplayCar, ReplayPlayback};
pub use plugin::{SimulationPaused, SimulationRate, SkidpadPlugin, SkidpadSystems, SkidpadWorld};
pub use race::{CarFinished, CarRetired, LapCompleted, SectorPassed, SkidpadRace};
pub use recording::{
    RecordingError, SkidpadRecording, extract_ring, finish_recording, finish_stream,
    start_recording, start_ring, start_stream, stop_ring,
};
pub use rival::{GhostRival, GhostSplit};
#[cfg(feature = "rollback")]
pub use rollback::{SkidpadRollback, world_checksum};
pub use take_over::{StartTakeOver, TakeOverError, TakeOverRun, TakeOverStart, take_over};
pub use transform_sync::{PoseExtrapolation, PoseInterpolation};
pub use wheels::{CarWheel, CarWheels};
