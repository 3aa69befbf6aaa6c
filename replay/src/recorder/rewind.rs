//! Flashback: [`ReplayRecorder::rewind`] takes a live world back to an
//! earlier recorded step and the recording with it, so the run goes on
//! from there and the file holds it as it ended, with a note of each
//! rewind (`Replay::rewinds`, section 13 of `replay/FORMAT.md`).
//!
//! The world is put back from the last keyframe at or before the step and
//! re-simulated from there with the recorded inputs: memory is the
//! recording's own keyframes, and a rewind costs at most `keyframe_every`
//! steps of simulation however far it goes.

use skidpad_core::World;

use super::ReplayRecorder;
use crate::input_chunks::{drop_last_inputs, last_inputs};
use crate::replay::Rewind;
use crate::{ReplayError, Result};

fn refused(reason: String) -> ReplayError {
    ReplayError::InvalidArgument {
        what: "rewind",
        reason,
    }
}

impl ReplayRecorder<'_> {
    /// Takes `world` back to recorded step `to` (steps since the recording
    /// began; within [`RecorderOptions::rewind_window`] of now) and drops
    /// the steps after it from the recording, noting the rewind: how many
    /// steps and seconds it abandoned. The game then sets its inputs and
    /// steps on as usual; the cars are bit for bit where they were at `to`.
    ///
    /// Refused, changing nothing, for a step outside the window, a world
    /// with cars the recording does not hold, a car that joined, left or
    /// has a reset pending since the keyframe it would restart from, a
    /// recording that embeds ghosts or keeps the game's own keyframe state
    /// (the game's state would not go back with the world).
    ///
    /// [`RecorderOptions::rewind_window`]: crate::RecorderOptions::rewind_window
    pub fn rewind(&mut self, world: &mut World, to: u64) -> Result<()> {
        self.rewind_observed(world, to, |_| {})
    }

    /// [`rewind`](Self::rewind), showing `each_step` the world after every
    /// step it re-simulates (from the keyframe [`check_rewind`] names to
    /// `to`), for a game whose own state follows the world step by step (a
    /// race's timing, a ghost being recorded): it puts that state back as
    /// it was at the keyframe, then feeds it these steps. Not called when
    /// the rewind is refused.
    ///
    /// [`check_rewind`]: Self::check_rewind
    pub fn rewind_observed(
        &mut self,
        world: &mut World,
        to: u64,
        mut each_step: impl FnMut(&World),
    ) -> Result<()> {
        let from = self.check_rewind(world, to)?;
        let now = self.replay.header.step_count;
        let key = self
            .replay
            .keyframes
            .iter()
            .rposition(|k| k.step == from)
            .ok_or(ReplayError::NoKeyframe { step: to })?;
        let present = self.cars_in_step_since(world, from)?;

        // Inputs are kept step by step for the cars present: those of steps
        // `from..now` are the last `(now - from) × cars` kept.
        let cars = present.len();
        let tail = last_inputs(&self.inputs, (now - from) as usize * cars);
        let seconds: f64 = (to..now).filter_map(|s| self.replay.dt.at(s)).sum();

        let keyframe = &self.replay.keyframes[key];
        for (&k, car) in present.iter().zip(&keyframe.cars) {
            world.restore(self.cars[k], &car.snapshot)?;
        }
        world.set_step_count(self.replay.header.start_step + from);
        for step in from..to {
            let row = (step - from) as usize * cars;
            for (j, &k) in present.iter().enumerate() {
                self.replay.cars[k].apply_step_with_input(
                    world,
                    self.cars[k],
                    step,
                    tail[row + j],
                )?;
            }
            let dt = self
                .replay
                .dt
                .at(step)
                .ok_or(ReplayError::StreamTooShort { stream: "dt", step })?;
            world.step(dt)?;
            each_step(world);
        }

        drop_last_inputs(
            &mut self.inputs,
            &mut self.spare_inputs,
            (now - to) as usize * cars,
        );
        self.replay.dt.truncate(to);
        for &k in &present {
            let track = &mut self.replay.cars[k];
            let own = to - track.arrived_at();
            track.lod.truncate(own);
            for runs in &mut track.surfaces {
                runs.truncate(own);
            }
            track.resets.retain(|r| r.step < to);
        }
        self.replay.keyframes.retain(|k| k.step <= to);
        self.replay.header.step_count = to;
        self.note_rewind(Rewind {
            at: to,
            count: 1,
            steps: now - to,
            seconds,
        });
        Ok(())
    }

    /// Whether `world` may go back to recorded step `to`: the recorded
    /// step the rewind would restart from (its last keyframe at or before
    /// `to`), or why it would be refused. Changes nothing a rewind would
    /// not keep.
    pub fn check_rewind(&mut self, world: &World, to: u64) -> Result<u64> {
        self.check_position(world, 0)?;
        self.check_no_pending_reset(world)?;
        self.note_removals(world);
        let now = self.replay.header.step_count;
        if to >= now {
            return Err(refused(format!(
                "step {to} is not before the recording's step {now}"
            )));
        }
        if now - to > self.rewind_window {
            return Err(refused(format!(
                "step {to} is {} steps back, past the rewind window of {} (RecorderOptions::rewind_window)",
                now - to,
                self.rewind_window
            )));
        }
        if self.ghosts.is_some() || self.keyframe_state.is_some() {
            return Err(refused(
                "a recording that embeds ghosts or keeps the game's own keyframe state cannot rewind".into(),
            ));
        }
        let from = self
            .replay
            .keyframes
            .iter()
            .rev()
            .map(|k| k.step)
            .find(|&step| step <= to)
            .ok_or(ReplayError::NoKeyframe { step: to })?;
        self.cars_in_step_since(world, from)?;
        Ok(from)
    }

    /// How many steps back a rewind may go
    /// ([`RecorderOptions::rewind_window`](crate::RecorderOptions::rewind_window)).
    #[must_use]
    pub fn rewind_window(&self) -> u64 {
        self.rewind_window
    }

    /// The recorded cars (by index) present since step `from`, when they
    /// are every car of `world` and none joined or left since.
    fn cars_in_step_since(&self, world: &World, from: u64) -> Result<Vec<usize>> {
        let mut present = Vec::new();
        for (k, track) in self.replay.cars.iter().enumerate() {
            let since_from = track.present_at(from);
            let left_since = track.removed_at.is_some_and(|r| r > from);
            if track.arrived_at() > from || left_since {
                return Err(refused(format!(
                    "car {} joined or left the race after step {from}, the keyframe a rewind would restart from",
                    self.cars[k]
                )));
            }
            if since_from {
                present.push(k);
            }
        }
        if present.len() != world.car_count() {
            return Err(refused(format!(
                "the world holds {} cars and the recording {}: every car must go back with the world",
                world.car_count(),
                present.len()
            )));
        }
        Ok(present)
    }

    /// Notes a rewind: rewinds to a later step than this one are folded in
    /// (their steps are gone with the ones this abandons), and one to the
    /// same step adds to its count.
    fn note_rewind(&mut self, mut rewind: Rewind) {
        while let Some(last) = self.replay.rewinds.last().copied()
            && last.at >= rewind.at
        {
            rewind.count += last.count;
            rewind.steps += last.steps;
            rewind.seconds += last.seconds;
            self.replay.rewinds.pop();
        }
        self.replay.rewinds.push(rewind);
    }
}
