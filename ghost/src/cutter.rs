//! `LapCutter`: cuts a car's laps into ghosts while a run plays, lap by lap,
//! at each crossing of the line where the car started (a crossing that only
//! undoes a backward one, after a spin or a push, ends no lap).

use std::sync::Arc;

use skidpad_core::{CarId, Track, World};

use crate::{Ghost, GhostError, GhostRecorder, Result};

/// A completed lap.
#[derive(Clone, Debug, PartialEq)]
pub struct CutLap {
    /// 1 for the first lap.
    pub lap: u32,
    /// Lap time, s (the ghost's duration).
    pub time: f32,
    /// The lap as a ghost, frame 0 at the line.
    pub ghost: Ghost,
}

/// Cuts one car's laps. Lap 1 starts with the first sample; every later
/// lap starts at the crossing pose (the recorder's `restart`).
#[derive(Clone, Debug)]
pub struct LapCutter {
    car: CarId,
    track: Arc<Track>,
    recorder: GhostRecorder,
    /// Track distance of the car's starting line.
    start: Option<f64>,
    /// Distance past the line after the previous sample.
    last: f64,
    laps: u32,
    /// Forward crossings of the line minus backward ones: a car pushed
    /// (or reversing) back over the line must cross it forward again
    /// before its next crossing can end a lap.
    net_crossings: i64,
}

impl LapCutter {
    /// A cutter for `car` on `track`; the line is where the car is at its
    /// first sample.
    #[must_use]
    pub fn new(car: CarId, track: Arc<Track>) -> Self {
        LapCutter {
            car,
            track,
            recorder: GhostRecorder::new(car),
            start: None,
            last: 0.0,
            laps: 0,
            net_crossings: 0,
        }
    }

    /// Laps completed so far.
    #[must_use]
    pub fn laps(&self) -> u32 {
        self.laps
    }

    /// Call after every step of `dt`; returns the lap the step completed.
    pub fn observe(&mut self, world: &World, dt: f64) -> Result<Option<CutLap>> {
        self.recorder.sample(world, dt)?;
        let p = world.pose(self.car).map_err(GhostError::World)?.position;
        let s = self.track.locate(p.truncate()).distance;
        let start = *self.start.get_or_insert(s);
        let length = self.track.length();
        let along = (s - start).rem_euclid(length);
        // The car moves a few metres a step, so a change of more than half
        // a lap is a crossing of the line, forward or backward.
        if along < self.last - length / 2.0 {
            self.net_crossings += 1;
        } else if along > self.last + length / 2.0 {
            self.net_crossings -= 1;
        }
        self.last = along;
        if self.net_crossings <= i64::from(self.laps) {
            return Ok(None);
        }
        self.laps += 1;
        let ghost = self.recorder.finish()?;
        self.recorder.restart();
        Ok(Some(CutLap {
            lap: self.laps,
            time: ghost.duration(),
            ghost,
        }))
    }
}
