//! Who drove while a player was away: each stretch the built-in AI
//! drove a car whose link dropped, from the drop to the player's return
//! or the car's removal, so the race's recording can say which laps were
//! not the player's (metadata `ai_stints`, netplay/FORMAT.md).

use skidpad_core::CarId;

use super::RaceServer;
use crate::race_config::AiStint;

impl RaceServer {
    /// Every AI stint of the race so far, in the order they began.
    #[must_use]
    pub fn ai_stints(&self) -> &[AiStint] {
        &self.ai_stints
    }

    /// The AI takes `car` from the next step on.
    pub(super) fn stint_begins(&mut self, car: CarId) {
        self.ai_stints.push(AiStint {
            car,
            from_tick: self.tick,
            to_tick: None,
        });
    }

    /// The player is back in `car`, or the car left: its open stint ends
    /// before the next step.
    pub(super) fn stint_ends(&mut self, car: CarId) {
        let next = self.tick;
        if let Some(open) = self
            .ai_stints
            .iter_mut()
            .rev()
            .find(|s| s.car == car && s.to_tick.is_none())
        {
            open.to_tick = Some(next);
        }
    }
}
