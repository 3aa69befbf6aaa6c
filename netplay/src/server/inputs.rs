//! Players' inputs: each checked (seat, seq, tick window, wire range,
//! allowance) and scheduled for the tick it names (module docs of
//! `server` on input timing).

use skidpad_core::CarInput;

use super::{RaceServer, Scheduled};
use crate::error::{NetError, Result};
use crate::messages::InputMessage;
use crate::race_config::SeatId;

impl RaceServer {
    /// Schedules a seat's input. Refused: an empty seat, seq 0 (it means
    /// "none"), a seq not above the last, a tick beyond `max_input_lead`,
    /// an analog field past the wire's ±2 ([`InputMessage::WIRE_LIMIT`]),
    /// more than the seat's allowance (`input_burst`). A refusal changes
    /// nothing.
    pub fn input(&mut self, seat: SeatId, message: InputMessage) -> Result<()> {
        let next = self.tick + 1;
        let lead = self.config.max_input_lead;
        let top_gear = i32::try_from(self.def.gearbox.ratios.len()).unwrap_or(i32::MAX);
        let refused = |reason: String| NetError::Refused { reason };
        let outcome = (|| {
            let Some(s) = self
                .seats
                .get_mut(usize::from(seat.0))
                .and_then(Option::as_mut)
            else {
                return Err(refused(format!("seat {} is empty", seat.0)));
            };
            if message.seq == 0 {
                return Err(refused(
                    "input seq 0 means none: inputs count from 1".into(),
                ));
            }
            let fields = message.input.to_array();
            if let Some((name, value)) = CarInput::FIELD_NAMES[..5]
                .iter()
                .zip(fields)
                .find(|(_, v)| v.abs() > InputMessage::WIRE_LIMIT)
            {
                return Err(refused(format!(
                    "input {name} {value} is past the wire's ±{}: not a number an input takes",
                    InputMessage::WIRE_LIMIT
                )));
            }
            if s.last_received.is_some_and(|last| message.seq <= last) {
                return Err(refused(format!(
                    "input seq {} does not follow {}",
                    message.seq,
                    s.last_received.unwrap_or(0)
                )));
            }
            if message.tick > next.saturating_add(lead) {
                return Err(refused(format!(
                    "input for tick {} is more than {lead} ticks ahead of {next}",
                    message.tick
                )));
            }
            if s.input_allowance == 0 {
                return Err(refused("inputs faster than two a tick: a flood".into()));
            }
            let input = message
                .input
                .sanitized(top_gear)
                .map_err(|e| refused(e.to_string()))?;
            let at = message.tick.max(next);
            let arrived = next;
            s.scheduled.insert(
                at,
                Scheduled {
                    seq: message.seq,
                    input,
                    arrived,
                },
            );
            s.last_received = Some(message.seq);
            s.input_allowance -= 1;
            if at > message.tick {
                s.late_inputs = s.late_inputs.saturating_add(1);
            }
            Ok(at > message.tick)
        })();
        match outcome {
            Ok(late) => {
                self.stats.late_inputs += u64::from(late);
                Ok(())
            }
            Err(e) => {
                self.stats.refused_inputs += 1;
                if let Some(s) = self
                    .seats
                    .get_mut(usize::from(seat.0))
                    .and_then(Option::as_mut)
                {
                    s.refused_inputs = s.refused_inputs.saturating_add(1);
                }
                Err(e)
            }
        }
    }
}
