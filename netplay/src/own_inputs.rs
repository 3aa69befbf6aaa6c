//! A client's own inputs on their way to the server: numbered and aimed at
//! a tick, kept until a frame shows them applied, moved to the tick the
//! server ran them at when they came late, and the lead over the server
//! they need steered by how early they come. Both clients
//! ([`NetClient`](crate::NetClient), [`RaceClient`](crate::RaceClient))
//! keep theirs here.

use std::collections::VecDeque;

use skidpad_core::CarInput;

use crate::error::{NetError, Result};
use crate::messages::InputMessage;
use crate::race_schema::PlayerRow;

/// Ticks of margin the client keeps its inputs arriving ahead of their
/// tick, by default: the jitter eats into it, so the minimum over a window
/// is kept at least this. A client whose own ticks are irregular (a
/// browser page that draws on the same thread) sets more
/// ([`NetClient::set_lead_safety`](crate::NetClient::set_lead_safety)).
pub const DEFAULT_LEAD_SAFETY: u32 = 3;
/// Most lead safety a client may ask for, ticks.
pub const MAX_LEAD_SAFETY: u32 = 30;
/// Margin beyond the safety the client gives back (one tick at a time).
const LEAD_SLACK: i64 = 4;
/// Acknowledgements a decision waits for, all of inputs sent after the
/// last change of lead, so a change is judged by its own effect.
const LEAD_SAMPLES: u32 = 30;
/// Most ticks a lead grows by at once.
const LEAD_MAX_GROWTH: i64 = 10;

/// Keeps the client's inputs arriving a little before their ticks: a
/// client ahead of the server by too little sends late inputs (the server
/// applies them later than predicted), by too much it shows the player's
/// own input late and holds more to re-simulate.
#[derive(Clone, Debug)]
struct LeadControl {
    /// Margins of inputs from this seq on count.
    since_seq: u32,
    samples: u32,
    min_margin: i64,
    /// Ticks still to give back, one per call.
    skip: u32,
    /// The margin kept, ticks.
    safety: i64,
}

impl LeadControl {
    fn note(&mut self, seq: u32, margin: i64) {
        if seq >= self.since_seq {
            self.samples += 1;
            self.min_margin = self.min_margin.min(margin);
        }
    }

    /// Ticks to predict now (normally 1): more to grow the lead, 0 to give
    /// one back. `next_seq` is the seq the next input will carry.
    fn ticks_due(&mut self, next_seq: u32) -> u32 {
        if self.skip > 0 {
            self.skip -= 1;
            return 0;
        }
        if self.samples < LEAD_SAMPLES {
            return 1;
        }
        let (margin, safety) = (self.min_margin, self.safety);
        *self = LeadControl {
            since_seq: next_seq,
            samples: 0,
            min_margin: i64::MAX,
            skip: 0,
            safety,
        };
        if margin < safety {
            1 + (safety - margin).min(LEAD_MAX_GROWTH) as u32
        } else if margin > safety + LEAD_SLACK {
            // Half the way back to the middle of the band: a lead far too
            // long shrinks quickly, one near it a tick at a time.
            let excess = margin - (safety + LEAD_SLACK / 2);
            self.skip = (excess / 2).max(1) as u32 - 1;
            0
        } else {
            1
        }
    }
}

/// The inputs a client sent that the newest server state does not hold
/// yet, and the lead they need.
#[derive(Clone, Debug)]
pub(crate) struct OwnInputs {
    next_seq: u32,
    /// Sent inputs (tick they apply from, seq, input) that start after
    /// the newest server state, oldest first.
    pending: VecDeque<(u32, u32, CarInput)>,
    lead: LeadControl,
    /// The server's count of this player's late inputs, as last seen.
    late_inputs: u32,
}

impl OwnInputs {
    /// None sent yet; `late_inputs` is the server's count so far.
    pub(crate) fn new(late_inputs: u32) -> OwnInputs {
        OwnInputs {
            next_seq: 1,
            pending: VecDeque::new(),
            lead: LeadControl {
                since_seq: 1,
                samples: 0,
                min_margin: i64::MAX,
                skip: 0,
                safety: i64::from(DEFAULT_LEAD_SAFETY),
            },
            late_inputs,
        }
    }

    /// Numbers `input` for `tick` and keeps it; returns the message and
    /// the input as the server will run it (the message's grid values).
    pub(crate) fn send(&mut self, tick: u32, input: CarInput) -> Result<(InputMessage, CarInput)> {
        let message = InputMessage {
            seq: self.next_seq,
            tick,
            input,
        };
        let sent = InputMessage::decode(&message.encode())?.input;
        self.next_seq += 1;
        self.pending.push_back((tick, message.seq, sent));
        Ok((message, sent))
    }

    /// The sent input that starts at `tick`, if one does.
    pub(crate) fn starting_at(&self, tick: u32) -> Option<CarInput> {
        self.pending
            .iter()
            .rev()
            .find(|(t, _, _)| *t == tick)
            .map(|e| e.2)
    }

    /// The sent input in force at `tick`: the newest that starts at or
    /// before it, if any is still pending.
    pub(crate) fn in_force_at(&self, tick: u32) -> Option<CarInput> {
        self.pending
            .iter()
            .rev()
            .find(|(t, _, _)| *t <= tick)
            .map(|e| e.2)
    }

    /// Ticks to predict now (see `NetClient::ticks_due`).
    pub(crate) fn ticks_due(&mut self) -> u32 {
        self.lead.ticks_due(self.next_seq)
    }

    /// Sets the lead's safety margin, ticks (at most [`MAX_LEAD_SAFETY`]).
    pub(crate) fn set_lead_safety(&mut self, ticks: u32) -> Result<()> {
        if ticks > MAX_LEAD_SAFETY {
            return Err(NetError::Refused {
                reason: format!("a lead safety of {ticks} ticks is over {MAX_LEAD_SAFETY}"),
            });
        }
        self.lead.safety = i64::from(ticks);
        Ok(())
    }

    /// Takes a frame's player block at `frame_tick`: notes how early the
    /// acknowledged input came, moves inputs the server ran (or will run)
    /// later than they asked to those ticks, and drops the inputs the
    /// server's state at `frame_tick` already holds. Returns whether an
    /// input came late (the server's count grew, or one still on its way
    /// is past its tick).
    pub(crate) fn acknowledge(&mut self, player: &PlayerRow, frame_tick: u32) -> bool {
        let mut late = player.late_inputs != self.late_inputs;
        self.late_inputs = player.late_inputs;
        // The inputs the server had applied by then: an acknowledged input
        // may have applied later than it asked (it came late).
        if player.last_input_seq > 0
            && let Some(entry) = self
                .pending
                .iter_mut()
                .find(|(_, seq, _)| *seq == player.last_input_seq)
        {
            // How early it came, in ticks; negative when late.
            let margin = if player.input_tick > entry.0 {
                -i64::from(player.input_tick - entry.0)
            } else {
                i64::from(player.input_wait)
            };
            self.lead.note(player.last_input_seq, margin);
            entry.0 = player.input_tick;
            // Older inputs are applied or replaced; newer ones that asked
            // for earlier ticks than this one ran at can only run later.
            let (acked, ran_at) = (player.last_input_seq, player.input_tick);
            self.pending.retain(|(_, seq, _)| *seq >= acked);
            for entry in &mut self.pending {
                entry.0 = entry.0.max(ran_at);
            }
        }
        // An input the server has not applied although its tick is past
        // is late (still on its way): it will run at a later tick, the
        // next one at the earliest.
        let acked = player.last_input_seq;
        for entry in &mut self.pending {
            if entry.1 > acked && entry.0 <= frame_tick {
                entry.0 = frame_tick + 1;
                late = true;
            }
        }
        // The server's state holds the input in force at its tick; keep
        // the inputs that start after it.
        while self
            .pending
            .front()
            .is_some_and(|(t, _, _)| *t <= frame_tick)
        {
            self.pending.pop_front();
        }
        late
    }
}
