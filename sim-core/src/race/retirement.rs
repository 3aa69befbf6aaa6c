//! When a car is out of a race without finishing: on its side or roof, or
//! standing still for a minute. One set of rules for every tool that runs
//! a race (the demo's DNF lines, the traffic table, a game's own race), so
//! two tools never disagree about the same car.

use glam::DVec3;

use crate::CarPose;

/// Below this speed a car is standing still, m/s.
pub const STANDING_SPEED: f64 = 1.0;

/// A car that has stood still this long is out of the race, s.
pub const STUCK_AFTER_S: f64 = 60.0;

/// Whether `pose` has its car on its side or roof: the body's up axis at
/// or below the horizon, which is past 90° of roll or of pitch. (A car
/// tipped less than that may still fall back onto its wheels.)
#[must_use]
pub fn rolled_over(pose: &CarPose) -> bool {
    (pose.orientation * DVec3::Z).z <= 0.0
}

/// How long each car of a race has stood still, counted in steps so that
/// the minute is exact at any fixed timestep.
#[derive(Clone, Debug)]
pub struct StandingClock {
    still_steps: Vec<u64>,
    stuck_steps: u64,
    dt: f64,
}

impl StandingClock {
    /// A clock for `cars` cars stepped by `dt` seconds (positive), every car
    /// moving.
    #[must_use]
    pub fn new(cars: usize, dt: f64) -> Self {
        StandingClock {
            still_steps: vec![0; cars],
            // Rounded: 1/60 s sixty times a second is a minute, not one
            // step more or less for the last bit of 1/60.
            stuck_steps: libm::round(STUCK_AFTER_S / dt).max(1.0) as u64,
            dt,
        }
    }

    /// After a step: car `k` (its index in the race) now moves at `speed`.
    pub fn observe(&mut self, k: usize, speed: f64) {
        if let Some(still) = self.still_steps.get_mut(k) {
            *still = if speed >= STANDING_SPEED {
                0
            } else {
                *still + 1
            };
        }
    }

    /// Car `k` was put back on the track (a reset): it starts again as
    /// moving.
    pub fn restart(&mut self, k: usize) {
        if let Some(still) = self.still_steps.get_mut(k) {
            *still = 0;
        }
    }

    /// Seconds car `k` has stood still until now.
    #[must_use]
    pub fn still_for(&self, k: usize) -> f64 {
        self.still_steps.get(k).copied().unwrap_or(0) as f64 * self.dt
    }

    /// Whether car `k` has stood still for [`STUCK_AFTER_S`].
    #[must_use]
    pub fn stuck(&self, k: usize) -> bool {
        self.still_steps.get(k).copied().unwrap_or(0) >= self.stuck_steps
    }
}

/// Why a car that did not finish is out, read from how the race left it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Retirement {
    /// On its side or roof ([`rolled_over`]), with its roll, rad.
    RolledOver {
        /// Roll about the body's x axis, rad.
        roll: f64,
    },
    /// Standing still for [`STUCK_AFTER_S`] or more (wedged or stopped).
    Stuck {
        /// Seconds it had stood still.
        still_s: f64,
    },
    /// Still racing when the race was called.
    Running,
}

impl Retirement {
    /// The reason for car `k` of `clock`'s race, whose pose is `pose`:
    /// rolled over first, then stuck, else running.
    #[must_use]
    pub fn of(pose: &CarPose, clock: &StandingClock, k: usize) -> Retirement {
        if rolled_over(pose) {
            Retirement::RolledOver { roll: pose.roll }
        } else if clock.stuck(k) {
            Retirement::Stuck {
                still_s: clock.still_for(k),
            }
        } else {
            Retirement::Running
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::DQuat;

    use super::*;

    fn pose(roll: f64, pitch: f64) -> CarPose {
        let orientation = DQuat::from_rotation_y(pitch) * DQuat::from_rotation_x(roll);
        CarPose {
            position: DVec3::ZERO,
            orientation,
            yaw: 0.0,
            pitch,
            roll,
            steer_angle: 0.0,
            speed: 0.0,
        }
    }

    #[test]
    fn past_ninety_degrees_of_roll_or_pitch_is_rolled_over() {
        assert!(!rolled_over(&pose(1.2, 0.0)), "69° may still fall back");
        assert!(rolled_over(&pose(1.6, 0.0)));
        assert!(rolled_over(&pose(3.1, 0.0)), "on its roof");
        assert!(rolled_over(&pose(0.0, -1.6)), "on its nose");
        assert!(!rolled_over(&pose(0.3, 0.2)));
    }

    #[test]
    fn a_minute_standing_still_is_stuck_exactly_at_sixty_hertz() {
        let mut clock = StandingClock::new(2, 1.0 / 60.0);
        for _ in 0..3599 {
            clock.observe(0, 0.2);
            clock.observe(1, 5.0);
        }
        assert!(!clock.stuck(0));
        clock.observe(0, 0.2);
        assert!(clock.stuck(0));
        assert!(!clock.stuck(1));
        assert!((clock.still_for(0) - 60.0).abs() < 1e-9);
        assert_eq!(
            Retirement::of(&pose(0.1, 0.0), &clock, 0),
            Retirement::Stuck {
                still_s: clock.still_for(0)
            }
        );
        clock.restart(0);
        assert!(!clock.stuck(0));
        assert_eq!(
            Retirement::of(&pose(3.0, 0.0), &clock, 0),
            Retirement::RolledOver { roll: 3.0 }
        );
        assert_eq!(
            Retirement::of(&pose(0.0, 0.0), &clock, 1),
            Retirement::Running
        );
    }
}
