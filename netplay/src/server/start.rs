//! The start: a race may wait for its seats, then count down. Until the
//! start tick every car runs [`HELD_INPUT`](crate::HELD_INPUT) whatever its
//! player sends, so the cars stand on their grid slots and every segment
//! recorded before the start begins with all its cars at rest (the
//! leaderboard ranks a car from a standing start).

use super::RaceServer;
use crate::error::{NetError, Result};
use crate::messages::start_inform;
use crate::race_config::RaceConfig;

/// Longest countdown, s.
const MAX_COUNTDOWN_S: u32 = 600;

/// Refuses a start rule the race cannot meet.
pub(super) fn check(config: &RaceConfig) -> Result<()> {
    let seats = config.seat_tokens.len();
    if config.start_seats as usize > seats {
        return Err(NetError::Refused {
            reason: format!(
                "the race waits for {} seats but has {seats}",
                config.start_seats
            ),
        });
    }
    if config.countdown_ticks > MAX_COUNTDOWN_S * config.tick_hz {
        return Err(NetError::Refused {
            reason: format!(
                "a countdown of {} ticks is over {MAX_COUNTDOWN_S} s",
                config.countdown_ticks
            ),
        });
    }
    Ok(())
}

impl RaceServer {
    /// The tick the race starts at (0 for a race on from the first join);
    /// `None` while it waits for `start_seats` players. Cars are held
    /// before it.
    #[must_use]
    pub fn start_tick(&self) -> Option<u32> {
        self.start_tick
    }

    /// Whether the race has started: the last tick stepped was not held.
    #[must_use]
    pub fn started(&self) -> bool {
        self.start_tick.is_some_and(|start| self.tick >= start)
    }

    /// The game inform of the start as it stands now
    /// ([`start_inform`](crate::start_inform)): what a player gets when
    /// seated, and everyone when the countdown begins and at the start.
    #[must_use]
    pub fn start_inform(&self) -> String {
        let seated = self.seats.iter().flatten().count();
        start_inform(
            self.start_tick,
            self.started(),
            seated,
            self.config.start_seats,
        )
    }

    /// After a join: the countdown begins when the seats the race waits
    /// for are taken.
    pub(super) fn count_towards_start(&mut self) {
        if self.start_tick.is_some() {
            return;
        }
        let seated = self.seats.iter().flatten().count();
        if seated >= self.config.start_seats as usize {
            self.start_tick = Some(self.tick + 1 + self.config.countdown_ticks);
        }
    }
}
