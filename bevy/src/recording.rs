//! Recording the world the plugin steps: a replay file, a crash-safe
//! stream written chunk by chunk, and an instant-replay ring of the last
//! seconds, each taking every step the plugin takes (with the exact
//! timestep the world ran) and every car that joins or leaves. Any of the
//! three may run at once. They live in one non-send resource (a game's
//! keyframe callback need not be `Send`), so the systems that touch it run
//! on the main thread.

use std::fs::File;
use std::path::Path;

use bevy_ecs::world::World as BevyWorld;
use skidpad_core::{CarId, World};
use skidpad_replay::{
    InstantReplayRing, RecorderOptions, Replay, ReplayError, ReplayRecorder, RingOptions,
    StreamRecorder, SyncPolicy,
};

use crate::plugin::SkidpadWorld;

/// What every recorder the plugin runs does after a step and when a car
/// joins.
trait Observer {
    fn after_step(&mut self, world: &World) -> Result<(), ReplayError>;
    fn adopt(&mut self, world: &World, car: CarId) -> Result<(), ReplayError>;
}

impl Observer for ReplayRecorder<'static> {
    fn after_step(&mut self, world: &World) -> Result<(), ReplayError> {
        ReplayRecorder::after_step(self, world)
    }
    fn adopt(&mut self, world: &World, car: CarId) -> Result<(), ReplayError> {
        self.adopt_car(world, car)
    }
}

impl Observer for StreamRecorder<'static, File> {
    fn after_step(&mut self, world: &World) -> Result<(), ReplayError> {
        StreamRecorder::after_step(self, world)
    }
    fn adopt(&mut self, world: &World, car: CarId) -> Result<(), ReplayError> {
        self.adopt_car(world, car)
    }
}

impl Observer for InstantReplayRing<'static> {
    fn after_step(&mut self, world: &World) -> Result<(), ReplayError> {
        InstantReplayRing::after_step(self, world)
    }
    fn adopt(&mut self, world: &World, car: CarId) -> Result<(), ReplayError> {
        self.adopt_car(world, car)
    }
}

type Start<T> = Box<dyn FnOnce(&World) -> Result<T, ReplayError>>;

/// One kind of recording.
enum Slot<T> {
    Off,
    /// Started on a world with no car yet: the recorder begins when the
    /// first cars join, before the step they first take.
    Waiting(Start<T>),
    Running(Box<T>),
}

impl<T: Observer> Slot<T> {
    fn start(world: &World, start: Start<T>) -> Result<Slot<T>, ReplayError> {
        Ok(if world.car_count() == 0 {
            Slot::Waiting(start)
        } else {
            Slot::Running(Box::new(start(world)?))
        })
    }

    fn is_off(&self) -> bool {
        matches!(self, Slot::Off)
    }

    fn after_step(&mut self, world: &World) -> Result<(), ReplayError> {
        match self {
            Slot::Running(recorder) => recorder.after_step(world),
            Slot::Off | Slot::Waiting(_) => Ok(()),
        }
    }

    fn adopt(&mut self, world: &World, car: CarId) -> Result<(), ReplayError> {
        match std::mem::replace(self, Slot::Off) {
            Slot::Running(mut recorder) => {
                let adopted = recorder.adopt(world, car);
                *self = Slot::Running(recorder);
                adopted
            }
            Slot::Waiting(start) => {
                *self = Slot::Running(Box::new(start(world)?));
                Ok(())
            }
            Slot::Off => Ok(()),
        }
    }

    fn take(&mut self) -> Result<T, RecordingError> {
        match std::mem::replace(self, Slot::Off) {
            Slot::Running(recorder) => Ok(*recorder),
            Slot::Waiting(_) => Err(RecordingError::NoCars),
            Slot::Off => Err(RecordingError::NotRecording),
        }
    }
}

/// The recordings in progress, while any runs: a replay
/// ([`start_recording`]), a stream ([`start_stream`]) and an
/// instant-replay ring ([`start_ring`]).
pub struct SkidpadRecording {
    replay: Slot<ReplayRecorder<'static>>,
    stream: Slot<StreamRecorder<'static, File>>,
    ring: Slot<InstantReplayRing<'static>>,
}

impl SkidpadRecording {
    /// Steps the replay recording holds so far (0 while none runs).
    #[must_use]
    pub fn step_count(&self) -> u64 {
        match &self.replay {
            Slot::Running(recorder) => recorder.step_count(),
            Slot::Off | Slot::Waiting(_) => 0,
        }
    }

    /// Seconds the ring holds now (0 while none runs).
    #[must_use]
    pub fn ring_seconds(&self) -> f64 {
        match &self.ring {
            Slot::Running(ring) => ring.seconds(),
            Slot::Off | Slot::Waiting(_) => 0.0,
        }
    }

    /// The replay recorder, while one runs.
    pub(crate) fn replay_recorder(&mut self) -> Option<&mut ReplayRecorder<'static>> {
        match &mut self.replay {
            Slot::Running(recorder) => Some(recorder),
            Slot::Off | Slot::Waiting(_) => None,
        }
    }

    /// Any recording runs or waits for its first cars.
    pub(crate) fn any_running(&self) -> bool {
        !(self.replay.is_off() && self.stream.is_off() && self.ring.is_off())
    }

    /// A stream or a ring is running (their steps are out of the
    /// recorder's hands: a rewind could not take them back).
    pub(crate) fn streams_or_ring(&self) -> bool {
        !(self.stream.is_off() && self.ring.is_off())
    }

    pub(crate) fn after_step(&mut self, world: &World) -> Result<(), ReplayError> {
        self.replay.after_step(world)?;
        self.stream.after_step(world)?;
        self.ring.after_step(world)
    }

    /// Takes `car`, just added to the world, as an arrival in every
    /// recording; one waiting for its first cars begins instead.
    pub(crate) fn adopt(&mut self, world: &World, car: CarId) -> Result<(), ReplayError> {
        self.replay.adopt(world, car)?;
        self.stream.adopt(world, car)?;
        self.ring.adopt(world, car)
    }
}

/// Why a recording could not start or end.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    /// The app has no [`SkidpadWorld`] (the plugin was not added).
    #[error("no skidpad world: add SkidpadPlugin first")]
    NoWorld,
    /// A recording of this kind is already running.
    #[error("a recording of this kind is already running: finish it first")]
    AlreadyRecording,
    /// No recording of this kind is running.
    #[error("no recording of this kind is running")]
    NotRecording,
    /// The recording ended before any car joined the world: nothing was
    /// recorded.
    #[error("no car joined the world while recording: there is nothing to replay")]
    NoCars,
    /// The stream's file could not be made.
    #[error("the stream's file: {0}")]
    File(#[from] std::io::Error),
    /// The recorder refused.
    #[error(transparent)]
    Replay(#[from] ReplayError),
}

/// Starts one kind of recording on the plugin's world.
fn start<T: Observer>(
    world: &mut BevyWorld,
    slot: fn(&mut SkidpadRecording) -> &mut Slot<T>,
    begin: Start<T>,
) -> Result<(), RecordingError> {
    if let Some(mut running) = world.get_non_send_mut::<SkidpadRecording>()
        && !slot(&mut running).is_off()
    {
        return Err(RecordingError::AlreadyRecording);
    }
    let sim = world
        .get_resource::<SkidpadWorld>()
        .ok_or(RecordingError::NoWorld)?;
    let started = Slot::start(&sim.0, begin)?;
    if world.get_non_send::<SkidpadRecording>().is_none() {
        world.insert_non_send(SkidpadRecording {
            replay: Slot::Off,
            stream: Slot::Off,
            ring: Slot::Off,
        });
    }
    let mut recording = world
        .get_non_send_mut::<SkidpadRecording>()
        .expect("inserted above");
    *slot(&mut recording) = started;
    Ok(())
}

/// Ends one kind of recording, handing its recorder and the world to
/// `end`.
fn end<T: Observer, R>(
    world: &mut BevyWorld,
    slot: fn(&mut SkidpadRecording) -> &mut Slot<T>,
    end: impl FnOnce(T, &World) -> Result<R, ReplayError>,
) -> Result<R, RecordingError> {
    let recorder = {
        let mut recording = world
            .get_non_send_mut::<SkidpadRecording>()
            .ok_or(RecordingError::NotRecording)?;
        slot(&mut recording).take()?
    };
    let sim = world
        .get_resource::<SkidpadWorld>()
        .ok_or(RecordingError::NoWorld)?;
    Ok(end(recorder, sim)?)
}

/// Starts recording a replay of the world as it is now (its keyframe 0):
/// from here every step the plugin takes is recorded, and cars spawned
/// later are recorded as arrivals. On a world with no car yet (the game
/// has spawned its cars, but the plugin has not stepped), the recording
/// begins with the cars that join first. Call it from an exclusive
/// system, a command, or the app's world before `run`.
pub fn start_recording(
    world: &mut BevyWorld,
    options: RecorderOptions<'static>,
) -> Result<(), RecordingError> {
    start(
        world,
        |r| &mut r.replay,
        Box::new(move |w| ReplayRecorder::new(w, options)),
    )
}

/// Ends the replay recording: adds the final keyframe and returns the
/// replay (`skidpad_replay::encode_replay` writes its bytes).
pub fn finish_recording(world: &mut BevyWorld) -> Result<Replay, RecordingError> {
    end(world, |r| &mut r.replay, |recorder, w| recorder.finish(w))
}

/// Starts streaming the race into a new file at `path` (a `.sks`), chunk
/// by chunk (`options.keyframe_every` steps each), synced to disk after
/// every chunk: a crash loses at most the chunk in progress
/// (`skidpad recover` turns what is there into a replay), and a spectator
/// can follow the file live.
pub fn start_stream(
    world: &mut BevyWorld,
    path: &Path,
    options: RecorderOptions<'static>,
) -> Result<(), RecordingError> {
    let file = File::create(path)?;
    start(
        world,
        |r| &mut r.stream,
        Box::new(move |w| StreamRecorder::new(w, options, file, SyncPolicy::EveryChunk)),
    )
}

/// Ends the stream with its end record and returns the file.
pub fn finish_stream(world: &mut BevyWorld) -> Result<File, RecordingError> {
    end(world, |r| &mut r.stream, |stream, w| stream.finish(w))
}

/// Starts keeping the last seconds of the race in memory, in parts of
/// `ring.part_steps` steps, for an instant replay ([`extract_ring`]).
pub fn start_ring(
    world: &mut BevyWorld,
    options: RecorderOptions<'static>,
    ring: RingOptions,
) -> Result<(), RecordingError> {
    start(
        world,
        |r| &mut r.ring,
        Box::new(move |w| InstantReplayRing::new(w, options, ring)),
    )
}

/// The last `seconds` of the race as a replay (at least what the ring
/// holds, from a part's start); the ring keeps running.
pub fn extract_ring(world: &mut BevyWorld, seconds: f64) -> Result<Replay, RecordingError> {
    if !world.contains_resource::<SkidpadWorld>() {
        return Err(RecordingError::NoWorld);
    }
    world.resource_scope(
        |world, sim: bevy_ecs::change_detection::Mut<SkidpadWorld>| {
            let mut recording = world
                .get_non_send_mut::<SkidpadRecording>()
                .ok_or(RecordingError::NotRecording)?;
            match &mut recording.ring {
                Slot::Running(ring) => Ok(ring.extract(&sim, seconds)?),
                Slot::Waiting(_) => Err(RecordingError::NoCars),
                Slot::Off => Err(RecordingError::NotRecording),
            }
        },
    )
}

/// Stops the ring and drops what it holds.
pub fn stop_ring(world: &mut BevyWorld) -> Result<(), RecordingError> {
    end(world, |r| &mut r.ring, |_, _| Ok(()))
}
