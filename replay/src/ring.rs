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
//! its first keyframe.
//!
//! [`extract`]: InstantReplayRing::extract

use std::collections::VecDeque;

use skidpad_core::World;

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
        })
    }

    /// Steps the world by `dt` and records the step.
    pub fn step(&mut self, world: &mut World, dt: f64) -> Result<()> {
        world.step(dt)?;
        self.capture(world, dt)
    }

    /// Records a step the caller has just taken with `world.step(dt)`.
    pub fn capture(&mut self, world: &World, dt: f64) -> Result<()> {
        if let Some(part) = self.recorder.capture_parts(world, dt)? {
            self.keep(&part)?;
        }
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
        let header = self.recorder.header().clone();
        let definitions = self.recorder.definitions().to_vec();
        let mut joiner = Joiner::new(header, definitions, None);
        let mut push = |part: Replay| joiner.push(part).map_err(ReplayError::PartsDoNotJoin);
        for part in self.parts.range(first..) {
            // Encoded by this ring: trusted, decoded without budgets.
            push(decode_replay_with(&part.bytes, &crate::Limits::UNLIMITED)?)?;
        }
        if tail.header.step_count > 0 || first == self.parts.len() {
            push(tail)?;
        }
        let mut whole = joiner
            .finish()
            .ok_or(ReplayError::NothingRecorded("the ring holds no part yet"))?;
        whole.ground = self.recorder.carried_ground().cloned();
        Ok(whole)
    }
}
