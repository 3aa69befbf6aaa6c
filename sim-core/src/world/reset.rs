//! Putting a car back on the track: a game's answer to a car rolled onto
//! its roof or wedged against a barrier, made so a replay can make it
//! again at the same step.

use glam::{DVec2, DVec3};

use super::World;
use super::car::Car;
use crate::Result;
use crate::ground::Ground;
use crate::ids::CarId;
use crate::track::driver::STUCK_SPEED;
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

/// A car whose body's up axis is this far from the vertical or more (its
/// z component below cos 60°) lies on its side or roof.
const ON_ITS_SIDE_UP_Z: f64 = 0.5;

/// The AI drivers' own resets, at the start of a step: each car whose
/// driver resets it (`DriverStyle::resets_after`) and that has been stuck
/// that long goes back on the track. A car the ground cannot take there
/// stays as it is (deterministically: the same state refuses again).
pub(super) fn reset_stuck_cars(cars: &mut [Car], ground: &dyn Ground) {
    for car in cars.iter_mut() {
        let Some(driver) = &car.driver else { continue };
        if driver.resets_after().is_some_and(|t| car.stuck_for >= t) {
            let p = car.state.position;
            let (point, yaw) = driver.reset_point(DVec2::new(p.x, p.y));
            let pose = InitialPose {
                x: point.x,
                y: point.y,
                yaw,
                speed: 0.0,
            };
            // An error leaves the car untouched; it tries again next step.
            let _ = car.reset(pose, ground);
        }
    }
}

/// After a step of `dt`: the time each car that a driver may reset has
/// been stuck (slower than [`STUCK_SPEED`] or on its side or roof).
pub(super) fn time_stuck(car: &mut Car, dt: f64) {
    if car.driver.as_ref().and_then(|d| d.resets_after()).is_none() {
        return;
    }
    let s = &car.state;
    let planar = DVec2::new(s.velocity.x, s.velocity.y).length();
    let up = s.orientation * DVec3::Z;
    if planar < STUCK_SPEED || up.z < ON_ITS_SIDE_UP_Z {
        car.stuck_for += dt;
    } else {
        car.stuck_for = 0.0;
    }
}
