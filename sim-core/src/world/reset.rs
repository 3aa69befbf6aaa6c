//! Putting a car back on the track: a game's answer to a car rolled onto
//! its roof or wedged against a barrier, made so a replay can make it
//! again at the same step.

use super::World;
use crate::Result;
use crate::ids::CarId;
use crate::world::car::InitialPose;

impl World {
    /// Puts car `id` down at `pose` as [`add_car`](Self::add_car) would put
    /// a new car of its definition (level with the ground there, at rest or
    /// rolling at `pose.speed`, first gear, engine at idle, every motion of
    /// the old state gone), keeping its id, input, level of detail, AI
    /// driver and clock. The next step starts from there, and its
    /// [`StepRecord`](super::StepRecord) carries the pose so a replay resets
    /// the car again before playing that step. A second reset before the
    /// step replaces the first. An error (nothing changes) for an unknown
    /// car, a pose out of bounds or no ground under it.
    pub fn reset_car(&mut self, id: CarId, pose: InitialPose) -> Result<()> {
        let index = self.index_of(id)?;
        let ground = self.ground.clone();
        self.cars[index].reset(pose, ground.as_ref())
    }

    /// The pose of a reset made on car `id` since the last step, which
    /// the next step will record; `None` when there is none. A recorder
    /// asked to end before that step refuses, since the replay could not
    /// make the reset again.
    pub fn pending_reset(&self, id: CarId) -> Result<Option<InitialPose>> {
        Ok(self.cars[self.index_of(id)?].pending_reset)
    }
}
