//! What a client that predicts every car needs to run the race exactly as
//! the server did (`confirmed.rs` has the blocks): after each step, every
//! car's input that changed and every reset, read from what the world
//! says the step ran with (the AI's inputs and resets included, so an
//! away player's car needs no AI on the client); the joins and leaves
//! between steps; at each frame, every car's state hash, and for a
//! predicting client's first shot every car's full state.

use skidpad_core::InitialPose;

use super::RaceServer;
use crate::confirmed::{
    Confirmation, HASHES_KEY, INPUTS_KEY, InputChange, PLACED_KEY, PlacedCar, Placement,
    same_input, state_hash, state_row,
};
use crate::error::{NetError, Result};
use crate::frame::Block;
use crate::race_config::SeatId;

fn core(e: skidpad_core::CoreError) -> NetError {
    NetError::Refused {
        reason: e.to_string(),
    }
}

/// A frame's confirmation blocks (keyed), and the states block a first
/// shot adds.
pub(super) type ConfirmationBlocks = (Vec<(u8, Block)>, Option<Block>);

impl RaceServer {
    /// Makes the seat's client one that predicts every car (or, with
    /// `false`, only its own, the default): its frames carry the
    /// confirmation blocks, and its next frame is a first shot with every
    /// car's state. Refused for an empty seat.
    pub fn set_predicts_all(&mut self, seat: SeatId, all: bool) -> Result<()> {
        let taken = self.taken_mut(seat)?;
        taken.predicts_all = all;
        taken.needs_first_shot = true;
        Ok(())
    }

    /// Whether the seat's client predicts every car.
    #[must_use]
    pub fn predicts_all(&self, seat: SeatId) -> bool {
        self.seat(seat).is_some_and(|s| s.predicts_all)
    }

    /// Makes the seat's next frame a first shot: for a client that lost a
    /// frame (a predicting client cannot go on past a gap in the
    /// confirmed ticks) or whose prediction went wrong. Refused for an
    /// empty seat.
    pub fn resend_first_shot(&mut self, seat: SeatId) -> Result<()> {
        self.taken_mut(seat)?.needs_first_shot = true;
        Ok(())
    }

    /// A car joined: it steps from the next tick on, put down at `pose`.
    pub(super) fn confirm_join(&mut self, seat: u8, pose: InitialPose) {
        self.placed.push(
            PlacedCar {
                seat,
                tick: self.tick + 1,
                placement: Placement::Joined(pose),
            }
            .to_row(),
        );
    }

    /// A car left: the next tick steps without it.
    pub(super) fn confirm_leave(&mut self, seat: u8, car: skidpad_core::CarId) {
        self.in_force.remove(&car);
        self.placed.push(
            PlacedCar {
                seat,
                tick: self.tick + 1,
                placement: Placement::Left,
            }
            .to_row(),
        );
    }

    /// After a step: each car's reset, and its input where it changed.
    pub(super) fn confirm_step(&mut self) {
        let records = self.world.last_step_records();
        for (car, record) in self.world.car_ids().zip(records) {
            let Some(seat) = self.seat_of_car(car) else {
                continue;
            };
            if let Some(pose) = record.reset {
                self.placed.push(
                    PlacedCar {
                        seat,
                        tick: self.tick,
                        placement: Placement::Reset(pose),
                    }
                    .to_row(),
                );
            }
            if self
                .in_force
                .get(&car)
                .is_none_or(|held| !same_input(held, &record.input))
            {
                self.in_force.insert(car, record.input);
                self.confirmed_inputs.push(
                    InputChange {
                        seat,
                        tick: self.tick,
                        input: record.input,
                    }
                    .to_row(),
                );
            }
        }
    }

    /// The blocks a predicting client's frame adds (the rows since the
    /// last frame, handed out once, and every car's hash), and the states
    /// block its first shot adds. Both empty when no seat predicts every
    /// car, and the rows are then dropped.
    pub(super) fn confirmation_blocks(&mut self) -> Result<ConfirmationBlocks> {
        let inputs = std::mem::take(&mut self.confirmed_inputs);
        let placed = std::mem::take(&mut self.placed);
        let seats = self.seats.iter().flatten();
        if !seats.clone().any(|s| s.predicts_all) {
            return Ok((Vec::new(), None));
        }
        let mut hashes = Vec::new();
        for car in self.world.car_ids() {
            if let Some(seat) = self.seat_of_car(car) {
                let hash = state_hash(&self.world, car).map_err(core)?;
                hashes.push((u32::from(seat), Some(Confirmation::hash_row(hash))));
            }
        }
        let blocks = vec![
            (INPUTS_KEY, Block::List(inputs)),
            (PLACED_KEY, Block::List(placed)),
            (HASHES_KEY, Block::Indexed(hashes)),
        ];
        let first_shot = seats.clone().any(|s| s.predicts_all && s.needs_first_shot);
        if !first_shot {
            return Ok((blocks, None));
        }
        let mut states = Vec::new();
        for car in self.world.car_ids() {
            if let Some(seat) = self.seat_of_car(car) {
                let row = state_row(&self.world.snapshot(car).map_err(core)?)?;
                states.push((u32::from(seat), Some(row)));
            }
        }
        Ok((blocks, Some(Block::Indexed(states))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::race_config::RaceConfig;

    #[test]
    fn a_first_shot_confirms_the_join_and_an_unchanged_input_once() {
        let mut race = RaceServer::new(RaceConfig {
            seat_tokens: vec!["a".into(), "b".into()],
            ..RaceConfig::default()
        })
        .unwrap();
        let seat = race.join("a", "ann").unwrap();
        race.join("b", "bob").unwrap();
        race.set_predicts_all(seat, true).unwrap();
        assert!(race.step().unwrap().is_empty(), "tick 1 is no frame tick");
        let frames = race.step().unwrap();
        let read = |seat: u8| {
            let out = frames.iter().find(|o| o.seat.0 == seat).unwrap();
            let frame = crate::frame::decode_frame(race.schema(), &out.frame).unwrap();
            Confirmation::of(&frame).unwrap()
        };
        let mine = read(0);
        // Both cars' held input from tick 1, unchanged at tick 2.
        let ticks: Vec<_> = mine.inputs.iter().map(|c| (c.seat, c.tick)).collect();
        assert_eq!(ticks, [(0, 1), (1, 1)]);
        let joins: Vec<_> = mine.placed.iter().map(|p| (p.seat, p.tick)).collect();
        assert_eq!(joins, [(0, 1), (1, 1)]);
        assert!(matches!(mine.placed[1].placement, Placement::Joined(_)));
        let seats = |rows: &[(u8, u64)]| rows.iter().map(|r| r.0).collect::<Vec<_>>();
        assert_eq!(seats(&mine.hashes), [0, 1]);
        assert_eq!(mine.states.len(), 2, "a first shot has every car's state");
        assert_eq!(
            read(1),
            Confirmation::default(),
            "seat 1 predicts its own car only"
        );
    }
}
