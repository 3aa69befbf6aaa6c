//! A player's reset: the seat asks (seed 001's command `reset`, on key
//! down) and the next tick puts its car back on the track, on the centre
//! line level with it, facing along the track, at rest
//! ([`skidpad_core::Track::rejoin_point`], the AI's own reset). The world
//! makes it as it makes any reset, so the server's recording replays it
//! and the race layer voids the lap it falls in. The player block counts
//! the seat's resets, so its client corrects its prediction across the
//! jump without calling it a miss.

use skidpad_core::InitialPose;
use skidpad_core::glam::DVec2;

use super::RaceServer;
#[cfg(doc)]
use crate::race_config::RaceConfig;
use crate::race_config::SeatId;

impl RaceServer {
    /// Asks for a reset of the seat's car at the next tick. Returns
    /// whether it was taken; an empty seat, a reset already asked, or one
    /// within the race's reset interval of the car's last is dropped and
    /// changes nothing ([`RaceConfig::reset_interval_s`]).
    pub fn ask_reset(&mut self, seat: SeatId) -> bool {
        // Checked finite and within 0 to 600 s when the race was made.
        let interval = (self.config.reset_interval_s * f64::from(self.config.tick_hz)) as u32;
        let tick = self.tick;
        let Some(seat) = self
            .seats
            .get_mut(usize::from(seat.0))
            .and_then(Option::as_mut)
        else {
            return false;
        };
        if seat.reset_asked || seat.last_reset.is_some_and(|at| tick - at < interval) {
            return false;
        }
        seat.reset_asked = true;
        true
    }

    /// The resets asked since the last tick, made before the next one is
    /// stepped.
    pub(super) fn make_asked_resets(&mut self) {
        let next = self.tick + 1;
        for seat in self.seats.iter_mut().flatten() {
            if !std::mem::take(&mut seat.reset_asked) {
                continue;
            }
            let Ok(pose) = self.world.pose(seat.car) else {
                continue;
            };
            let (point, yaw) = self
                .track
                .rejoin_point(DVec2::new(pose.position.x, pose.position.y));
            let at = InitialPose {
                x: point.x,
                y: point.y,
                yaw,
                speed: 0.0,
            };
            // The world refuses a pose only off its ground, and the centre
            // line is on it; a refusal would leave the car as it is.
            if self.world.reset_car(seat.car, at).is_ok() {
                seat.resets = seat.resets.saturating_add(1);
                seat.last_reset = Some(next);
            }
        }
    }
}
