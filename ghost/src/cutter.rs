//! `LapCutter`: cuts a car's laps into ghosts while a run plays, lap by lap,
//! at the crossings the race layer (`skidpad_core::race`) times, so a
//! ghost's lap is the lap every other tool reports.

use std::sync::Arc;

use skidpad_core::race::{Lap, LapTimer, RaceRules};
use skidpad_core::{CarId, Track, World};

use crate::{Ghost, GhostError, GhostRecorder, Result};

/// A completed lap.
#[derive(Clone, Debug, PartialEq)]
pub struct CutLap {
    /// The lap as the race layer timed it: number, crossing times,
    /// validity.
    pub lap: Lap,
    /// The lap as a ghost: frame 0 is the first sample of the lap (the
    /// sample after the start, or after the step that crossed the line),
    /// the last the sample after the step that ended it.
    pub ghost: Ghost,
}

/// Cuts one car's laps into ghosts. Frames before the lap in progress
/// began (an out-lap) are dropped.
#[derive(Clone, Debug)]
pub struct LapCutter {
    car: CarId,
    recorder: GhostRecorder,
    timer: LapTimer,
    /// Race time, s: the sum of the observed steps.
    time: f64,
    /// Whether a lap was in progress at the last sample.
    timing: bool,
}

impl LapCutter {
    /// A cutter for `car` on `track`, starting now: the car's position in
    /// `world` is its start (see the race layer's rules for lap 1).
    pub fn new(car: CarId, track: Arc<Track>, world: &World) -> Result<Self> {
        let position = world.pose(car).map_err(GhostError::World)?.position;
        let mut timer = LapTimer::new(track, RaceRules::default());
        timer.observe(0.0, position.truncate());
        Ok(LapCutter {
            car,
            recorder: GhostRecorder::new(car),
            timing: timer.lap_in_progress().is_some(),
            timer,
            time: 0.0,
        })
    }

    /// Laps completed so far.
    #[must_use]
    pub fn laps(&self) -> u32 {
        self.timer.laps().len() as u32
    }

    /// The race layer's timer behind the cuts.
    #[must_use]
    pub fn timer(&self) -> &LapTimer {
        &self.timer
    }

    /// The game reset the car before the step about to be observed: the
    /// lap in progress does not count (`LapTimer::note_reset`).
    pub fn note_reset(&mut self) {
        self.timer.note_reset(self.time);
    }

    /// Call after every step the world takes (its timestep is the one the
    /// world ran, [`World::last_timestep`]); returns the lap the step
    /// completed.
    pub fn after_step(&mut self, world: &World) -> Result<Option<CutLap>> {
        let dt = world
            .last_timestep()
            .ok_or_else(|| GhostError::InvalidArgument {
                what: "world",
                reason: "it has not stepped since its step count was set: no step to observe"
                    .into(),
            })?;
        #[allow(deprecated)]
        self.observe(world, dt)
    }

    /// [`after_step`](Self::after_step), handed the step's `dt` again.
    #[deprecated(note = "use after_step, which reads the timestep from the world")]
    pub fn observe(&mut self, world: &World, dt: f64) -> Result<Option<CutLap>> {
        self.time += dt;
        let position = world.pose(self.car).map_err(GhostError::World)?.position;
        let lap = self.timer.observe(self.time, position.truncate());
        #[allow(deprecated)]
        self.recorder.sample(world, dt)?;
        let timing = self.timer.lap_in_progress().is_some();
        if timing && !self.timing {
            // The out-lap ended at the line: the first lap starts here.
            self.recorder.restart();
        }
        self.timing = timing;
        let Some(lap) = lap else {
            return Ok(None);
        };
        let ghost = self.recorder.finish()?;
        self.recorder.restart();
        Ok(Some(CutLap { lap, ghost }))
    }
}
