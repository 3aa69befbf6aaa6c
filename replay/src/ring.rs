//! `InstantReplayRing`: the last seconds of a race, always at hand for an
//! instant replay or a kill-cam.
//!
//! It records like a [`ReplayRecorder`] but keeps only recent parts: every
//! `part_steps` steps the steps since the previous part are cut off as a
//! standalone replay (from one keyframe to the next), encoded, and pushed
//! into a ring that drops its oldest parts once it holds more than
//! `max_seconds` of racing or `max_bytes` of encoded parts. [`extract`]
//! joins the newest parts, plus the steps since the last one (ending with a
//! keyframe of the world now), into one replay that plays bit for bit from
//! its first keyframe. Cars that join the race are taken through the ring
//! ([`add_car`], [`adopt_car`]): an extract holds those that came before
//! it as cars of its start, and those that came during it as arrivals.
//!
//! [`extract`]: InstantReplayRing::extract
//! [`add_car`]: InstantReplayRing::add_car
//! [`adopt_car`]: InstantReplayRing::adopt_car

use std::collections::VecDeque;

use skidpad_core::{CarDefinition, CarId, InitialPose, World};

use crate::format::StreamArrival;
use crate::join::Joiner;
use crate::recorder::{RecorderOptions, ReplayRecorder};
use crate::replay::Replay;
use crate::{ReplayError, Result, decode_replay_with, encode_replay};

/// How much an [`InstantReplayRing`] keeps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RingOptions {
    /// Steps per part (the granularity of what is dropped), at least 1.
    pub part_steps: u32,
    /// Simulated seconds kept (at least this much once recorded, plus up to
    /// one part).
    pub max_seconds: f64,
    /// Encoded bytes of parts kept, at most; the oldest go first, but the
    /// newest part always stays.
    pub max_bytes: usize,
}

impl Default for RingOptions {
    fn default() -> Self {
        RingOptions {
            part_steps: 60,
            max_seconds: 30.0,
            max_bytes: 16 << 20,
        }
    }
}

struct Part {
    seconds: f64,
    bytes: Vec<u8>,
}

/// A rolling recording of the last seconds of a world.
///
/// ```
/// use skidpad_replay::{InstantReplayRing, Limits, NoHooks, RecorderOptions, RingOptions, encode_replay, verify};
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
/// let ring_options = RingOptions { part_steps: 60, max_seconds: 3.0, ..RingOptions::default() };
/// let mut ring = InstantReplayRing::new(&world, RecorderOptions::default(), ring_options)?;
/// for _ in 0..600 {
///     ring.step(&mut world, 1.0 / 60.0)?;
/// }
/// // "Replay that!": the last two seconds, playable on their own.
/// let clip = ring.extract(&world, 2.0)?;
/// assert!((clip.duration() - 2.0).abs() < 1e-9);
/// let report = verify(&encode_replay(&clip)?, NoHooks, &Limits::default())?;
/// assert!(report.is_valid());
/// assert_eq!(report.final_hash, world.world_hash());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct InstantReplayRing<'a> {
    recorder: ReplayRecorder<'a>,
    options: RingOptions,
    parts: VecDeque<Part>,
    seconds: f64,
    bytes: usize,
    /// Every car that joined, as an extract's joiner is told of it.
    arrivals: Vec<StreamArrival>,
}

impl<'a> InstantReplayRing<'a> {
    /// Starts recording `world` as it is now. `recorder.keyframe_every` is
    /// replaced by `ring.part_steps`; ghosts cannot be kept in a ring.
    pub fn new(world: &World, recorder: RecorderOptions<'a>, ring: RingOptions) -> Result<Self> {
        if ring.part_steps == 0
            || ring.max_seconds.is_nan()
            || ring.max_seconds <= 0.0
            || ring.max_bytes == 0
        {
            return Err(ReplayError::InvalidArgument {
                what: "ring options",
                reason: "part_steps, max_seconds and max_bytes must be positive".into(),
            });
        }
        if recorder.embed_ghosts {
            return Err(ReplayError::InvalidArgument {
                what: "embed_ghosts",
                reason: "a ring does not keep ghosts".into(),
            });
        }
        let recorder = ReplayRecorder::new(
            world,
            RecorderOptions {
                keyframe_every: ring.part_steps,
                ..recorder
            },
        )?;
        Ok(InstantReplayRing {
            recorder,
            options: ring,
            parts: VecDeque::new(),
            seconds: 0.0,
            bytes: 0,
            arrivals: Vec::new(),
        })
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
            self.keep(&part)?;
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

    /// Adds a car to the world and to the ring
    /// ([`ReplayRecorder::add_car`]): extracts from now on hold it.
    pub fn add_car(
        &mut self,
        world: &mut World,
        definition: &CarDefinition,
        pose: InitialPose,
    ) -> Result<CarId> {
        let car = self.recorder.add_car(world, definition, pose)?;
        self.arrivals.push(self.recorder.announcement(world, car)?);
        Ok(car)
    }

    /// Takes a car the caller has just put in the world itself
    /// ([`ReplayRecorder::adopt_car`]).
    pub fn adopt_car(&mut self, world: &World, car: CarId) -> Result<()> {
        self.recorder.adopt_car(world, car)?;
        self.arrivals.push(self.recorder.announcement(world, car)?);
        Ok(())
    }

    /// Adds a part and drops the oldest ones beyond the limits.
    fn keep(&mut self, part: &Replay) -> Result<()> {
        let bytes = encode_replay(part)?;
        let seconds = part.duration();
        self.seconds += seconds;
        self.bytes += bytes.len();
        self.parts.push_back(Part { seconds, bytes });
        while self.parts.len() > 1 {
            let oldest = &self.parts[0];
            let enough_time = self.seconds - oldest.seconds >= self.options.max_seconds;
            if !enough_time && self.bytes <= self.options.max_bytes {
                break;
            }
            self.seconds -= oldest.seconds;
            self.bytes -= oldest.bytes.len();
            self.parts.pop_front();
        }
        Ok(())
    }

    /// Simulated seconds held (whole parts, not the steps since the last).
    #[must_use]
    pub fn seconds(&self) -> f64 {
        self.seconds
    }

    /// Encoded bytes held.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// A standalone replay of at least the last `last_seconds` (or all the
    /// ring holds, if less), ending at the world's current step: the
    /// newest parts that cover it, from a part boundary, then the steps
    /// since the last part. `world` must be as the last recorded step left
    /// it. Recording is not disturbed.
    pub fn extract(&mut self, world: &World, last_seconds: f64) -> Result<Replay> {
        let tail = self.recorder.tail(world)?;
        let mut covered = tail.duration();
        let mut first = self.parts.len();
        while first > 0 && covered < last_seconds {
            first -= 1;
            covered += self.parts[first].seconds;
        }
        let kept = self.parts.range(first..).map(|part| {
            // Encoded by this ring: trusted, decoded without budgets.
            decode_replay_with(&part.bytes, &crate::Limits::UNLIMITED)
        });
        let tail = (tail.header.step_count > 0 || first == self.parts.len()).then_some(Ok(tail));
        let mut joiner: Option<Joiner> = None;
        for part in kept.chain(tail) {
            let part = part?;
            let joiner = joiner.get_or_insert_with(|| self.joiner_from(&part));
            // Cars the part holds that the extract has not had yet came
            // inside it or right before it.
            for car in joiner.car_count()..part.header.car_count {
                let arrival = self.arrivals.iter().find(|a| a.car == car).cloned().ok_or(
                    ReplayError::NothingRecorded("an arrival the ring did not keep"),
                )?;
                joiner
                    .arrive(arrival)
                    .map_err(ReplayError::PartsDoNotJoin)?;
            }
            joiner.push(part).map_err(ReplayError::PartsDoNotJoin)?;
        }
        let mut whole = joiner
            .and_then(Joiner::finish)
            .ok_or(ReplayError::NothingRecorded("the ring holds no part yet"))?;
        whole.ground = self.recorder.carried_ground().cloned();
        Ok(whole)
    }

    /// A joiner for an extract that begins with `opening`: the recording's
    /// header and definitions as of its start, with the cars there then
    /// (those that arrive inside it are announced to the joiner).
    fn joiner_from(&self, opening: &Replay) -> Joiner {
        let cars = opening
            .cars
            .iter()
            .take_while(|c| c.arrival.is_none())
            .count();
        let mut header = self.recorder.header().clone();
        header.car_count = cars as u32;
        header.source_cars.truncate(cars);
        header.start_step = opening.header.start_step;
        let mut definitions = self.recorder.definitions().to_vec();
        definitions.truncate(cars);
        Joiner::new(header, definitions, None)
    }
}
