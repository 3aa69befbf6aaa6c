//! A frame's confirmations taken into the prediction: the ticks it
//! confirms are laid out with the inputs and placements the server ran,
//! compared with what the client guessed, stepped again from the first
//! wrong one, and the confirmed state checked against the server's hashes.

use std::collections::BTreeMap;

use skidpad_core::CarInput;
use skidpad_core::glam::DVec3;

use super::{Desync, Race, RaceClient, core};
use crate::client::player_row;
use crate::confirmed::{Confirmation, PlacedCar, Placement, same_input, state_hash};
use crate::error::{NetError, Result, frame_error};
use crate::frame::Frame;
use skidpad_replay::{FieldDiff, diff_car};

/// The confirmed ticks of one frame, each with the inputs every car ran
/// and the placements made before it.
struct Confirmed {
    from: u32,
    inputs: Vec<BTreeMap<u8, CarInput>>,
    placed: Vec<Vec<PlacedCar>>,
}

impl Confirmed {
    fn at(&self, tick: u32) -> (&BTreeMap<u8, CarInput>, &[PlacedCar]) {
        let i = (tick - self.from) as usize;
        (&self.inputs[i], &self.placed[i])
    }
}

fn same_inputs(a: &BTreeMap<u8, CarInput>, b: &BTreeMap<u8, CarInput>) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((sa, ia), (sb, ib))| sa == sb && same_input(ia, ib))
}

impl RaceClient {
    /// Takes a frame: its confirmations correct the prediction (going
    /// back to the first tick guessed wrong), and the confirmed state is
    /// checked against the server's hashes. Returns the desync, if the
    /// check found one. A frame that is not the next one (a frame was
    /// lost) is refused: ask the server for a first shot.
    pub fn on_frame(&mut self, frame: &Frame) -> Result<Option<Desync>> {
        if frame.tick <= self.confirmed_tick {
            return Ok(None); // Out of date.
        }
        let expected = self.confirmed_tick + self.ticks_per_frame;
        if frame.tick != expected {
            return Err(NetError::Refused {
                reason: format!(
                    "a frame at tick {} where {expected} was next: frames were lost, \
                     the race needs a first shot",
                    frame.tick
                ),
            });
        }
        let player = player_row(frame)?
            .ok_or_else(|| frame_error(0, "a predicting client's frame has no player block"))?;
        let confirmation = Confirmation::of(frame)?;
        if self.own.acknowledge(&player, frame.tick) {
            self.stats.late_frames += 1;
        }
        let confirmed = self.lay_out(frame.tick, &confirmation)?;
        self.stats.frames += 1;
        self.stats.own_resets += confirmation
            .placed
            .iter()
            .filter(|p| p.seat == self.seat && matches!(p.placement, Placement::Reset(_)))
            .count() as u64;
        self.stats.confirmed_ticks += u64::from(frame.tick - self.confirmed_tick);
        // The first tick guessed wrong; every wrong one is counted.
        let mut wrong = None;
        for stepped in &self.history {
            if stepped.tick > frame.tick {
                break;
            }
            let (inputs, placed) = confirmed.at(stepped.tick);
            if !placed.is_empty() || !same_inputs(&stepped.inputs, inputs) {
                wrong = wrong.or(Some(stepped.tick));
                self.stats.wrong_ticks += 1;
            }
        }
        let predicted_to = self.tick;
        let redo_from = wrong.or((predicted_to < frame.tick).then_some(predicted_to + 1));
        if let Some(from) = redo_from {
            self.step_again(from, frame.tick, &confirmed)?;
            if wrong.is_some() {
                self.stats.rollbacks += 1;
                self.stats.resimulated_ticks += u64::from(predicted_to.max(frame.tick) - from + 1);
            }
        }
        self.confirmed_tick = frame.tick;
        self.confirmed = confirmed.inputs.last().cloned().unwrap_or_default();
        while self.history.front().is_some_and(|s| s.tick <= frame.tick) {
            self.history.pop_front();
        }
        let desync = self.check(frame.tick, &confirmation, &player.state)?;
        if let Some(desync) = &desync {
            self.stats.desyncs += 1;
            self.stats.last_desync = Some(desync.clone());
        }
        Ok(desync)
    }

    /// After a desync, the field-level report of every car: takes the
    /// first shot the client asked for (with `resync`; it is the frame
    /// after the last one taken) as any frame, then names the fields of
    /// each car whose state differs from the first shot's full state (a
    /// desync persists, so its fields still differ there). A car one side
    /// lacks is named with no fields. Build a new client from the first
    /// shot afterwards: this one has gone wrong.
    pub fn desync_fields(&mut self, first_shot: &Frame) -> Result<Vec<(u8, Vec<FieldDiff>)>> {
        let states = Confirmation::of(first_shot)?.states;
        if states.is_empty() {
            return Err(frame_error(0, "a first shot has every car's state"));
        }
        self.on_frame(first_shot)?;
        let race: &Race = self.history.front().map_or(&self.now, |s| &s.before);
        let mut report = Vec::new();
        for (seat, state) in &states {
            let fields = match race.cars.get(seat) {
                Some(car) => {
                    let mine = race.world.snapshot(*car).map_err(core)?;
                    let fields = diff_car(*car, state, &mine);
                    if fields.is_empty() {
                        continue;
                    }
                    fields
                }
                None => Vec::new(),
            };
            report.push((*seat, fields));
        }
        let servers: Vec<u8> = states.iter().map(|s| s.0).collect();
        report.extend(
            race.cars
                .keys()
                .filter(|s| !servers.contains(s))
                .map(|s| (*s, Vec::new())),
        );
        Ok(report)
    }

    /// The ticks after the confirmed one up to `to`, each with every
    /// car's input and the placements before it.
    fn lay_out(&self, to: u32, confirmation: &Confirmation) -> Result<Confirmed> {
        let from = self.confirmed_tick + 1;
        let mut running = self.confirmed.clone();
        let mut out = Confirmed {
            from,
            inputs: Vec::new(),
            placed: Vec::new(),
        };
        let outside = |tick: u32| {
            frame_error(
                0,
                format!("a confirmation for tick {tick}, outside ticks {from} to {to}"),
            )
        };
        if let Some(tick) = confirmation
            .inputs
            .iter()
            .map(|c| c.tick)
            .chain(confirmation.placed.iter().map(|p| p.tick))
            .find(|t| !(from..=to).contains(t))
        {
            return Err(outside(tick));
        }
        for tick in from..=to {
            let placed: Vec<PlacedCar> = confirmation
                .placed
                .iter()
                .filter(|p| p.tick == tick)
                .copied()
                .collect();
            for p in &placed {
                if p.placement == Placement::Left {
                    running.remove(&p.seat);
                }
            }
            for change in confirmation.inputs.iter().filter(|c| c.tick == tick) {
                running.insert(change.seat, change.input);
            }
            out.inputs.push(running.clone());
            out.placed.push(placed);
        }
        Ok(out)
    }

    /// Goes back to `from` (or on from the newest tick) and steps to the
    /// prediction's tick again: confirmed inputs up to `to`, guesses after.
    fn step_again(&mut self, from: u32, to: u32, confirmed: &Confirmed) -> Result<()> {
        let drawn_before = self.positions()?;
        let end = self.tick.max(to);
        if from <= self.tick {
            let index = self
                .history
                .iter()
                .position(|s| s.tick == from)
                .ok_or_else(|| frame_error(0, format!("no predicted tick {from} to go back to")))?;
            let back = self.history.drain(index..).next().map(|s| s.before);
            self.now = back.ok_or_else(|| frame_error(0, "nothing to go back to"))?;
            self.tick = from - 1;
        }
        let mut put_down = Vec::new();
        while self.tick < end {
            let tick = self.tick + 1;
            if tick <= to {
                let (inputs, placed) = confirmed.at(tick);
                put_down.extend(
                    placed
                        .iter()
                        .filter(|p| p.placement != Placement::Left)
                        .map(|p| p.seat),
                );
                self.step_one(tick, inputs.clone(), placed)?;
            } else {
                let inputs = self.guessed(tick);
                self.step_one(tick, inputs, &[])?;
            }
        }
        // Each car's drawn pose keeps where it was and eases over; a car
        // put down is drawn where it now is.
        let after = self.positions()?;
        let eased = super::eased_per_tick(self.dt);
        for (seat, position) in &after {
            let offset = self.offsets.entry(*seat).or_insert(DVec3::ZERO);
            match drawn_before.get(seat) {
                Some(before) if !put_down.contains(seat) => {
                    let moved = *before - *position;
                    *offset += moved;
                    let length = moved.length();
                    if length > 0.0 {
                        self.stats.corrections.add(length);
                        self.stats.drawn_corrections.add(offset.length() * eased);
                        self.stats.largest_correction = self.stats.largest_correction.max(length);
                    }
                }
                _ => *offset = DVec3::ZERO,
            }
        }
        self.offsets.retain(|seat, _| after.contains_key(seat));
        Ok(())
    }

    /// Every car's physics position, by seat.
    fn positions(&self) -> Result<BTreeMap<u8, DVec3>> {
        self.now
            .cars
            .iter()
            .map(|(seat, car)| Ok((*seat, self.now.world.pose(*car).map_err(core)?.position)))
            .collect()
    }

    /// Checks the race at the confirmed tick `tick` against the server's
    /// hashes (and the player's car against its full state).
    fn check(
        &self,
        tick: u32,
        confirmation: &Confirmation,
        own_state: &[u8],
    ) -> Result<Option<Desync>> {
        // The race after `tick`: before the next predicted tick, or now.
        let race: &Race = self.history.front().map_or(&self.now, |s| &s.before);
        let mut seats = Vec::new();
        for (seat, hash) in &confirmation.hashes {
            let same = match race.cars.get(seat) {
                Some(car) => state_hash(&race.world, *car).map_err(core)? == *hash,
                None => false,
            };
            if !same {
                seats.push(*seat);
            }
        }
        let servers: Vec<u8> = confirmation.hashes.iter().map(|h| h.0).collect();
        seats.extend(race.cars.keys().filter(|s| !servers.contains(s)));
        if seats.is_empty() {
            return Ok(None);
        }
        let fields = match race.cars.get(&self.seat) {
            Some(car) if seats.contains(&self.seat) => {
                let mine = race.world.snapshot(*car).map_err(core)?;
                diff_car(*car, own_state, &mine)
            }
            _ => Vec::new(),
        };
        Ok(Some(Desync {
            tick,
            seats,
            fields,
        }))
    }
}
