//! Racing a ghost lap (the best lap, a friend's record): the car's live
//! gap to the ghost after every step and a split at each sector boundary
//! and the line, measured as the ghost crate measures them
//! (`LapReference`, `SplitTracker`), on the simulation's clock. This is
//! what a time trial's HUD shows.

use std::sync::Arc;

use bevy_ecs::prelude::*;
use skidpad_core::Track;
use skidpad_ghost::{Ghost, LapReference, SplitTracker};

use crate::cars::{CarMotion, SkidpadCar};
use crate::plugin::{SimulationRate, SkidpadWorld};

/// Put this on a car to race it against a ghost lap, from the step the
/// component is added (the lap's start: put it on as the car crosses the
/// line, or on the grid before a standing lap). Distances run from the
/// ghost's first frame, so a ghost cut at the line pairs with a lap
/// started there.
#[derive(Component, Debug, Clone)]
pub struct GhostRival {
    track: Arc<Track>,
    /// Shared: a flashback keeps copies of the rival, not of the ghost.
    reference: Arc<LapReference>,
    splits: SplitTracker,
    /// World time the rival began (the split tracker's clock starts
    /// there), s.
    origin: Option<f64>,
    /// World time the current lap began, s.
    lap_start: f64,
    /// The player's time minus the ghost's at the car's place now, s
    /// (positive: behind); `None` before the first step or off the
    /// ghost's path.
    pub gap: Option<f64>,
}

impl GhostRival {
    /// Races against `ghost` on `track`, with splits at the track's
    /// sector boundaries and the line.
    #[must_use]
    pub fn new(ghost: &Ghost, track: Arc<Track>) -> Self {
        let reference = Arc::new(LapReference::new(ghost, &track));
        let mut checkpoints = track.sectors().to_vec();
        checkpoints.push(reference.lap_length());
        let splits = SplitTracker::new(&reference, &checkpoints, 0.0);
        GhostRival {
            track,
            reference,
            splits,
            origin: None,
            lap_start: 0.0,
            gap: None,
        }
    }
}

/// A car passed a sector boundary (or the line) racing its ghost.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct GhostSplit {
    /// The car's entity.
    pub entity: Entity,
    /// Which boundary: the sectors' in order, then the line.
    pub checkpoint: usize,
    /// The car's time since its lap began, s.
    pub time: f64,
    /// The car's time minus the ghost's there, s (positive: slower);
    /// `None` where the ghost did not reach.
    pub delta: Option<f64>,
}

impl GhostRival {
    /// The same rival, not started yet: its lap begins at the next step.
    pub(crate) fn started_afresh(&self) -> GhostRival {
        GhostRival {
            splits: SplitTracker::new(&self.reference, self.splits.checkpoints(), 0.0),
            origin: None,
            lap_start: 0.0,
            gap: None,
            ..self.clone()
        }
    }

    /// Takes the car's place `(x, y)` after the step that ended at world
    /// time `now`, s (each `dt` long): updates the gap and returns the
    /// boundaries passed, as (checkpoint, lap time, delta).
    pub(crate) fn observe(
        &mut self,
        x: f64,
        y: f64,
        now: f64,
        dt: f64,
    ) -> Vec<(usize, f64, Option<f64>)> {
        let origin = match self.origin {
            Some(origin) => origin,
            None => {
                // First seen after its first step: the lap began one step
                // ago, when the car was where the ghost's frame 0 is.
                let began = now - dt;
                self.lap_start = began;
                *self.origin.insert(began)
            }
        };
        let events = self
            .splits
            .update(&self.reference, &self.track, x, y, now - origin);
        let line = self.splits.checkpoints().len() - 1;
        let mut passed = Vec::with_capacity(events.len());
        for event in events {
            passed.push((event.checkpoint, event.player_time, event.delta()));
            // The split tracker's times run from its lap's start: at the
            // line the next lap starts.
            if event.checkpoint == line {
                self.lap_start += event.player_time;
            }
        }
        self.gap = self.reference.gap(&self.track, x, y, now - self.lap_start);
        passed
    }
}

/// Each rival's gap and splits after the step the world took.
pub(crate) fn race_ghosts(
    mut rivals: Query<(Entity, &CarMotion, &mut GhostRival), With<SkidpadCar>>,
    world: Res<SkidpadWorld>,
    rate: Res<SimulationRate>,
    mut splits: MessageWriter<GhostSplit>,
) {
    let now = world.step_count() as f64 * rate.dt;
    for (entity, motion, mut rival) in &mut rivals {
        if motion.step != world.step_count() {
            continue;
        }
        let (x, y) = (motion.pose.position.x, motion.pose.position.y);
        for (checkpoint, time, delta) in rival.observe(x, y, now, rate.dt) {
            splits.write(GhostSplit {
                entity,
                checkpoint,
                time,
                delta,
            });
        }
    }
}
