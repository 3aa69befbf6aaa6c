//! Recording the world the plugin steps into a replay: every step the
//! plugin takes, every car that joins or leaves, with the exact timestep
//! the world ran. The recorder is a non-send resource (a game's keyframe
//! callback need not be `Send`), so the systems that touch it run on the
//! main thread.

use bevy_ecs::world::World as BevyWorld;
use skidpad_core::{CarId, World};
use skidpad_replay::{RecorderOptions, Replay, ReplayError, ReplayRecorder};

use crate::plugin::SkidpadWorld;

/// The recording in progress, while there is one: made by
/// [`start_recording`], ended by [`finish_recording`].
pub struct SkidpadRecording {
    state: State,
}

enum State {
    /// Started on a world with no car yet: the recorder begins when the
    /// first cars join, before the step they first take.
    Waiting(RecorderOptions<'static>),
    Running(Box<ReplayRecorder<'static>>),
    /// Only while a call moves the options into a recorder.
    Moving,
}

impl SkidpadRecording {
    /// Steps recorded so far.
    #[must_use]
    pub fn step_count(&self) -> u64 {
        match &self.state {
            State::Running(recorder) => recorder.step_count(),
            State::Waiting(_) | State::Moving => 0,
        }
    }

    pub(crate) fn after_step(&mut self, world: &World) -> Result<(), ReplayError> {
        match &mut self.state {
            State::Running(recorder) => recorder.after_step(world),
            State::Waiting(_) | State::Moving => Ok(()),
        }
    }

    /// Takes `car`, just added to the world, as an arrival; a recording
    /// waiting for its first cars begins instead, with every car there.
    pub(crate) fn adopt(&mut self, world: &World, car: CarId) -> Result<(), ReplayError> {
        match std::mem::replace(&mut self.state, State::Moving) {
            State::Running(mut recorder) => {
                let adopted = recorder.adopt_car(world, car);
                self.state = State::Running(recorder);
                adopted
            }
            State::Waiting(options) => {
                self.state = State::Running(Box::new(ReplayRecorder::new(world, options)?));
                Ok(())
            }
            State::Moving => unreachable!("the state is put back before each return"),
        }
    }
}

/// Why a recording could not start or end.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    /// The app has no [`SkidpadWorld`] (the plugin was not added).
    #[error("no skidpad world: add SkidpadPlugin first")]
    NoWorld,
    /// A recording is already running.
    #[error("a recording is already running: finish it first")]
    AlreadyRecording,
    /// No recording is running.
    #[error("no recording is running")]
    NotRecording,
    /// The recording ended before any car joined the world: nothing was
    /// recorded.
    #[error("no car joined the world while recording: there is nothing to replay")]
    NoCars,
    /// The recorder refused.
    #[error(transparent)]
    Replay(#[from] ReplayError),
}

/// Starts recording the world as it is now (its keyframe 0): from here
/// every step the plugin takes is recorded, and cars spawned later are
/// recorded as arrivals. On a world with no car yet (the game has spawned
/// its cars, but the plugin has not stepped), the recording begins with
/// the cars that join first. Call it from an exclusive system, a command,
/// or the app's world before `run`.
pub fn start_recording(
    world: &mut BevyWorld,
    options: RecorderOptions<'static>,
) -> Result<(), RecordingError> {
    if world.get_non_send::<SkidpadRecording>().is_some() {
        return Err(RecordingError::AlreadyRecording);
    }
    let sim = world
        .get_resource::<SkidpadWorld>()
        .ok_or(RecordingError::NoWorld)?;
    let state = if sim.car_count() == 0 {
        State::Waiting(options)
    } else {
        State::Running(Box::new(ReplayRecorder::new(sim, options)?))
    };
    world.insert_non_send(SkidpadRecording { state });
    Ok(())
}

/// Ends the recording: adds the final keyframe and returns the replay
/// (`skidpad_replay::encode_replay` writes its bytes).
pub fn finish_recording(world: &mut BevyWorld) -> Result<Replay, RecordingError> {
    let recording = world
        .remove_non_send::<SkidpadRecording>()
        .ok_or(RecordingError::NotRecording)?;
    let sim = world
        .get_resource::<SkidpadWorld>()
        .ok_or(RecordingError::NoWorld)?;
    match recording.state {
        State::Running(recorder) => Ok(recorder.finish(sim)?),
        State::Waiting(_) | State::Moving => Err(RecordingError::NoCars),
    }
}
