//! `GhostRecorder`: samples a car's pose after each step.
//!
//! A frame's time is the time at the end of the step it follows. `restart`
//! turns the last sampled pose into frame 0 at t = 0 of the next lap, so
//! that ghost time t is exactly t / dt steps into the lap.

use skidpad_core::{CarId, World};

use crate::{Ghost, GhostError, GhostFrame, GhostPose, Result};

/// Options of a [`GhostRecorder`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GhostRecorderOptions {
    /// Keep one sample every `every` steps (1 = every step).
    pub every: u32,
}

impl Default for GhostRecorderOptions {
    fn default() -> Self {
        GhostRecorderOptions { every: 1 }
    }
}

/// Records one car's poses.
///
/// ```
/// use skidpad_ghost::{GhostRecorder, encode_ghost, decode_ghost};
/// # use std::sync::Arc;
/// # use skidpad_core::{CarId, InitialPose, Track, World, WorldConfig, preset};
/// # fn race() -> Result<(World, CarId), Box<dyn std::error::Error>> {
/// #     let track = Arc::new(Track::builtin("brandwood")?);
/// #     let mut world = World::new(WorldConfig::default())?;
/// #     let car = world.add_car(&preset("rwd_sports")?, InitialPose { speed: 10.0, ..InitialPose::default() })?;
/// #     world.set_driver(car, Some(track))?;
/// #     Ok((world, car))
/// # }
/// let (mut world, car) = race()?;
/// let mut recorder = GhostRecorder::new(car);
/// for _ in 0..120 {
///     world.step(1.0 / 60.0)?;
///     recorder.after_step(&world)?; // after the step: its end pose
/// }
/// let ghost = recorder.finish()?;
/// assert_eq!(ghost.len(), 120);
/// assert_eq!(decode_ghost(&encode_ghost(&ghost)?)?, ghost);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct GhostRecorder {
    car: CarId,
    every: u32,
    /// Steps since the last kept sample.
    pending_steps: u32,
    /// Seconds since the current recording's time zero.
    elapsed: f64,
    frames: Vec<GhostFrame>,
    /// The most recent pose sampled, kept or not: `restart` makes it frame 0.
    latest: Option<GhostPose>,
    /// Times [`restart`](Self::restart) ran: a mark from before a restart
    /// is no place to go back to.
    restarts: u64,
}

/// Where a [`GhostRecorder`] stood ([`GhostRecorder::mark`]): a flashback
/// that takes the world back takes the ghost being recorded back to the
/// mark made at the same step, then on step by step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GhostMark {
    frames: usize,
    elapsed: f64,
    pending_steps: u32,
    latest: Option<GhostPose>,
    restarts: u64,
}

impl GhostRecorder {
    /// A recorder for `car`, sampling every step.
    #[must_use]
    pub fn new(car: CarId) -> Self {
        Self::with_options(car, GhostRecorderOptions::default()).expect("every = 1 is valid")
    }

    /// A recorder with options; `every` must be at least 1.
    pub fn with_options(car: CarId, options: GhostRecorderOptions) -> Result<Self> {
        if options.every == 0 {
            return Err(GhostError::InvalidArgument {
                what: "sampling interval",
                reason: "every must be at least 1".into(),
            });
        }
        Ok(GhostRecorder {
            car,
            every: options.every,
            pending_steps: 0,
            elapsed: 0.0,
            frames: Vec::new(),
            latest: None,
            restarts: 0,
        })
    }

    /// The car being recorded.
    #[must_use]
    pub fn car(&self) -> CarId {
        self.car
    }

    /// Frames recorded so far.
    #[must_use]
    pub fn frames(&self) -> &[GhostFrame] {
        &self.frames
    }

    /// Frame 0 is the car's pose now, at t = 0: a recording that begins
    /// before the first step.
    pub fn start_at(&mut self, world: &World) -> Result<()> {
        self.latest = Some(pose_of(world, self.car)?);
        self.restart();
        Ok(())
    }

    /// Call after each step the world takes: the step's timestep is the
    /// one the world ran ([`World::last_timestep`]); keeps a frame every
    /// `every`-th call.
    pub fn after_step(&mut self, world: &World) -> Result<()> {
        let dt = world
            .last_timestep()
            .ok_or_else(|| GhostError::InvalidArgument {
                what: "world",
                reason: "it has not stepped since its step count was set: no step to record".into(),
            })?;
        self.record(world, dt)
    }

    /// [`after_step`](Self::after_step), handed the step's `dt` again.
    #[deprecated(note = "use after_step, which reads the timestep from the world")]
    pub fn sample(&mut self, world: &World, dt: f64) -> Result<()> {
        self.record(world, dt)
    }

    fn record(&mut self, world: &World, dt: f64) -> Result<()> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(GhostError::InvalidArgument {
                what: "dt",
                reason: format!("must be finite and positive, got {dt}"),
            });
        }
        let pose = pose_of(world, self.car)?;
        self.elapsed += dt;
        self.pending_steps += 1;
        self.latest = Some(pose);
        if self.pending_steps >= self.every {
            self.pending_steps = 0;
            self.push(self.elapsed as f32, pose);
        }
        Ok(())
    }

    fn push(&mut self, t: f32, pose: GhostPose) {
        // f32 time can stop rising on very long recordings (beyond about
        // 10^5 s at 60 Hz); such a sample would break the ghost's ordering.
        if self.frames.last().is_none_or(|last| t > last.t) {
            self.frames.push(GhostFrame { t, pose });
        }
    }

    /// The ghost recorded so far, re-timed so the first frame is at t = 0.
    /// The recorder keeps its frames; call [`restart`](Self::restart) to
    /// begin the next lap.
    pub fn finish(&self) -> Result<Ghost> {
        let t0 = self.frames.first().ok_or(GhostError::Empty)?.t;
        let frames = self
            .frames
            .iter()
            .map(|f| GhostFrame {
                t: f.t - t0,
                pose: f.pose,
            })
            .collect();
        Ghost::from_frames(frames)
    }

    /// Where the recorder stands now, to [`go_back`](Self::go_back) to.
    #[must_use]
    pub fn mark(&self) -> GhostMark {
        GhostMark {
            frames: self.frames.len(),
            elapsed: self.elapsed,
            pending_steps: self.pending_steps,
            latest: self.latest,
            restarts: self.restarts,
        }
    }

    /// Forgets every frame since `mark`, so the recorder is exactly as it
    /// was then. Refused, changing nothing, for a mark made before the
    /// last [`restart`](Self::restart) or one ahead of the recorder.
    pub fn go_back(&mut self, mark: &GhostMark) -> Result<()> {
        if mark.restarts != self.restarts || mark.frames > self.frames.len() {
            return Err(GhostError::InvalidArgument {
                what: "ghost mark",
                reason: "made before the recorder restarted, or ahead of it".into(),
            });
        }
        self.frames.truncate(mark.frames);
        self.elapsed = mark.elapsed;
        self.pending_steps = mark.pending_steps;
        self.latest = mark.latest;
        Ok(())
    }

    /// Starts the next lap: the latest sampled pose becomes frame 0 at
    /// t = 0, and time counts from there.
    pub fn restart(&mut self) {
        self.restarts += 1;
        self.frames.clear();
        self.elapsed = 0.0;
        self.pending_steps = 0;
        if let Some(pose) = self.latest {
            self.frames.push(GhostFrame { t: 0.0, pose });
        }
    }
}

/// Refuses a timestep `dt` other than the one the world's last step ran
/// (bit for bit): for an API that is handed the step's `dt` again.
pub fn check_timestep(world: &World, dt: f64) -> Result<()> {
    match world.last_timestep() {
        Some(ran) if ran.to_bits() == dt.to_bits() => Ok(()),
        ran => Err(GhostError::InvalidArgument {
            what: "dt",
            reason: format!(
                "{dt} s is not the step the world ran ({}): the world's own timestep is recorded",
                ran.map_or_else(|| "it has not stepped".to_owned(), |r| format!("{r} s"))
            ),
        }),
    }
}

/// A car's pose as a ghost stores it (f32).
pub fn pose_of(world: &World, car: CarId) -> Result<GhostPose> {
    let p = world.pose(car)?;
    Ok(GhostPose {
        x: p.position.x as f32,
        y: p.position.y as f32,
        z: p.position.z as f32,
        yaw: p.yaw as f32,
        pitch: p.pitch as f32,
        roll: p.roll as f32,
        steer: p.steer_angle as f32,
        speed: p.speed as f32,
    })
}
