//! Players away: a seat whose link dropped is held for the grace while
//! the built-in AI drives its car (`drop_link`, `holds_for`,
//! `expired_seats`; `join` takes it back), and each stretch the AI drove
//! is kept, so the race's recording can say which laps were not the
//! player's (metadata `ai_stints`, netplay/FORMAT.md).

use skidpad_core::CarId;

use super::RaceServer;
use crate::error::Result;
use crate::race_config::{AiStint, SeatId};
use crate::race_schema::RemovalReason;

impl RaceServer {
    /// A player's link dropped (not a kick, not a finish): the seat stays
    /// theirs for `reconnect_grace_s`, the built-in AI driving the car
    /// from the start on (recorded like any input), and [`join`] with the
    /// seat's token takes it back. A grace of 0 takes the car out at once,
    /// as [`leave`] does.
    ///
    /// [`join`]: Self::join
    /// [`leave`]: Self::leave
    pub fn drop_link(&mut self, seat: SeatId) -> Result<()> {
        if self.config.reconnect_grace_s <= 0.0 {
            return self.leave(seat, RemovalReason::Left);
        }
        let tick = self.tick;
        let held = self.taken_mut(seat)?;
        held.away_since = Some(tick);
        held.scheduled.clear();
        let car = held.car;
        self.stint_begins(car);
        Ok(())
    }

    /// True when `token`'s seat waits for its player to come back.
    #[must_use]
    pub fn holds_for(&self, token: &str) -> bool {
        self.config
            .seat_tokens
            .iter()
            .position(|t| t == token)
            .and_then(|index| self.seats.get(index)?.as_ref())
            .is_some_and(|s| s.away_since.is_some())
    }

    /// Seats whose player has been away longer than the grace: the
    /// service takes their cars out ([`leave`](Self::leave)).
    #[must_use]
    pub fn expired_seats(&self) -> Vec<SeatId> {
        let grace =
            libm::ceil(self.config.reconnect_grace_s * f64::from(self.config.tick_hz)) as u32;
        self.seats
            .iter()
            .enumerate()
            .filter_map(|(index, seat)| {
                let since = seat.as_ref()?.away_since?;
                (self.tick.saturating_sub(since) > grace)
                    .then(|| SeatId(u8::try_from(index).expect("at most 255 seats")))
            })
            .collect()
    }

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
