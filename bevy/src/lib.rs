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
//! [`CarMotion`] (what the game reads: pose, speed, gear, rpm of the last
//! step). Despawning the entity removes the car. `Transform`s follow the
//! cars in `PostUpdate` before transform propagation, snapped to the last
//! step or, opt-in per car, interpolated ([`PoseInterpolation`]) or
//! extrapolated ([`PoseExtrapolation`]) by the fixed clock's overstep.
//!
//! Laps, finishes and retirements arrive as Bevy messages once a
//! [`SkidpadRace`] resource times the race; [`start_recording`] and
//! [`finish_recording`] record every step into a replay that
//! `skidpad verify` accepts.
//!
//! Systems return Bevy's `Result`: a refused step (a car's input that is
//! not a number, say) goes to the app's error handler and changes nothing.

// Public items are the SDK's contract; each must say what it is.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod axes;
mod cars;
mod plugin;
mod race;
mod recording;
mod transform_sync;

pub use axes::{bevy_rotation, bevy_translation};
pub use cars::{CarControls, CarMotion, CarRegistry, CarSpawn, SkidpadCar};
pub use plugin::{SimulationPaused, SimulationRate, SkidpadPlugin, SkidpadSystems, SkidpadWorld};
pub use race::{CarFinished, CarRetired, LapCompleted, SkidpadRace};
pub use recording::{RecordingError, SkidpadRecording, finish_recording, start_recording};
pub use transform_sync::{PoseExtrapolation, PoseInterpolation};
