//! `StreamRecorder`: records a world into a chunked stream (`.sks`) as the
//! race runs, so a crash loses at most the chunk being recorded.
//!
//! It is a [`ReplayRecorder`] whose keyframe interval is the chunk length:
//! at every keyframe the steps since the previous one are cut off, written
//! as one sealed chunk (a standalone `.skr` inside a checksummed record)
//! and dropped from memory. Memory therefore stays at one chunk's steps
//! plus one keyframe however long the race runs.
//!
//! **Durability.** Each chunk goes to the writer in one `write_all`,
//! followed by `flush` and, with [`SyncPolicy::EveryChunk`], by
//! [`StreamSink::sync`] (`File::sync_data` for a file): once `capture`
//! returns after a chunk boundary, that chunk survives a crash of the
//! process (and, when synced, of the machine). Steps after the last chunk
//! are lost; a shorter chunk length loses less and costs two keyframes
//! (each car's snapshot) per chunk.

use std::io::Write;

use skidpad_core::{CarDefinition, CarId, InitialPose, World};

use crate::format::{arrival_record, chunk_record, end_record, header_record, stream_preamble};
use crate::recorder::{RecorderOptions, ReplayRecorder};
use crate::replay::Replay;
use crate::{ReplayError, Result};

/// Default steps per chunk: 2 s at 60 Hz.
pub const DEFAULT_CHUNK_STEPS: u32 = 120;

/// Where a stream goes: any writer that can also be asked to make what it
/// holds durable.
pub trait StreamSink: Write {
    /// Makes everything written so far durable (fsync for a file).
    fn sync(&mut self) -> std::io::Result<()>;
}

impl StreamSink for std::fs::File {
    fn sync(&mut self) -> std::io::Result<()> {
        self.sync_data()
    }
}

impl StreamSink for Vec<u8> {
    fn sync(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// When the recorder asks its sink for durability.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SyncPolicy {
    /// After every chunk (and the header and end records).
    #[default]
    EveryChunk,
    /// Never: flush only, and leave durability to the sink or the OS.
    Never,
}

/// Records a world's steps into a chunked stream.
///
/// ```
/// use skidpad_replay::{Limits, RecorderOptions, StreamRecorder, SyncPolicy, read_stream};
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
/// // A game writes to a `File` (synced chunk by chunk); a Vec works too.
/// let options = RecorderOptions { keyframe_every: 60, ..RecorderOptions::default() };
/// let mut stream = StreamRecorder::new(&world, options, Vec::new(), SyncPolicy::EveryChunk)?;
/// for _ in 0..150 {
///     stream.step(&mut world, 1.0 / 60.0)?;
/// }
/// let bytes = stream.finish(&world)?;
/// // Read it back, as `skidpad recover` would after a crash.
/// let contents = read_stream(&bytes, &Limits::default())?;
/// assert!(contents.complete);
/// assert_eq!(contents.replay.header.step_count, 150);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct StreamRecorder<'a, W: StreamSink> {
    recorder: ReplayRecorder<'a>,
    sink: W,
    sync: SyncPolicy,
    chunks: u64,
    /// A car arrived since the last chunk: `finish` writes a chunk that
    /// holds it even when no step came after it.
    arrived_since_chunk: bool,
}

impl<'a, W: StreamSink> StreamRecorder<'a, W> {
    /// Starts recording `world` as it is now into `sink`: writes the
    /// stream's preamble and header record at once. `options.keyframe_every`
    /// is the chunk length in steps; ghosts cannot be embedded in a stream.
    /// A carried ground (`options.ground`) is written once, in the header
    /// record, which every spectator fetches first.
    pub fn new(
        world: &World,
        options: RecorderOptions<'a>,
        sink: W,
        sync: SyncPolicy,
    ) -> Result<Self> {
        if options.embed_ghosts {
            return Err(ReplayError::InvalidArgument {
                what: "embed_ghosts",
                reason: "a stream does not carry ghosts; record them with a GhostRecorder".into(),
            });
        }
        let recorder = ReplayRecorder::new(world, options)?;
        let mut out = StreamRecorder {
            sink,
            sync,
            chunks: 0,
            arrived_since_chunk: false,
            recorder,
        };
        let mut head = stream_preamble();
        head.extend(header_record(
            out.recorder.header(),
            out.recorder.definitions(),
            out.recorder.carried_ground(),
        )?);
        out.write(&head)?;
        Ok(out)
    }

    /// Steps the world by `dt` and records the step.
    pub fn step(&mut self, world: &mut World, dt: f64) -> Result<()> {
        world.step(dt)?;
        self.after_step(world)
    }

    /// Records the step the caller has just taken with `world.step(dt)`,
    /// with the timestep the world ran (as [`ReplayRecorder::after_step`]).
    pub fn after_step(&mut self, world: &World) -> Result<()> {
        if let Some(part) = self.recorder.capture_parts(world)? {
            self.write_part(&part)?;
        }
        Ok(())
    }

    /// [`after_step`](Self::after_step), handed the timestep again: it must
    /// be the one the world ran, bit for bit.
    #[deprecated(note = "use after_step, which reads the timestep from the world")]
    pub fn capture(&mut self, world: &World, dt: f64) -> Result<()> {
        crate::recorder::timestep_ran(world, Some(dt))?;
        self.after_step(world)
    }

    /// Adds a car to the world and to the recording
    /// ([`ReplayRecorder::add_car`]), and writes its arrival record at once
    /// (its definition and id, which no chunk carries), so a spectator has
    /// it before the chunk that holds the car.
    pub fn add_car(
        &mut self,
        world: &mut World,
        definition: &CarDefinition,
        pose: InitialPose,
    ) -> Result<CarId> {
        let car = self.recorder.add_car(world, definition, pose)?;
        self.announce(world, car)?;
        Ok(car)
    }

    /// Takes a car the caller has just put in the world itself
    /// ([`ReplayRecorder::adopt_car`]), and writes its arrival record.
    pub fn adopt_car(&mut self, world: &World, car: CarId) -> Result<()> {
        self.recorder.adopt_car(world, car)?;
        self.announce(world, car)
    }

    fn announce(&mut self, world: &World, car: CarId) -> Result<()> {
        let arrival = self.recorder.announcement(world, car)?;
        self.arrived_since_chunk = true;
        self.write(&arrival_record(&arrival)?)
    }

    fn write_part(&mut self, part: &Replay) -> Result<()> {
        self.write(&chunk_record(part)?)?;
        self.chunks += 1;
        self.arrived_since_chunk = false;
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.sink.write_all(bytes).map_err(io_error)?;
        self.sink.flush().map_err(io_error)?;
        if self.sync == SyncPolicy::EveryChunk {
            self.sink.sync().map_err(io_error)?;
        }
        Ok(())
    }

    /// Chunks written so far.
    #[must_use]
    pub fn chunks(&self) -> u64 {
        self.chunks
    }

    /// Ends the stream: writes the steps since the last chunk as a shorter
    /// chunk (with a keyframe at the world's current step), or a chunk of
    /// no step when nothing was recorded at all or when the game removed or
    /// added a car after the last chunk (so the stream records it as a
    /// replay would), then the end record, and gives the sink back.
    pub fn finish(mut self, world: &World) -> Result<W> {
        if self.recorder.step_count() > 0
            || self.chunks == 0
            || self.arrived_since_chunk
            || self.recorder.removed_unnoticed(world)
        {
            let part = self.recorder.cut(world)?;
            self.write_part(&part)?;
        }
        self.write(&end_record())?;
        Ok(self.sink)
    }
}

fn io_error(e: std::io::Error) -> ReplayError {
    ReplayError::Io(e.into())
}
