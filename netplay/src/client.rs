//! The client's prediction, without sockets: [`NetClient`] runs the
//! player's own car ahead of the server with the same core, sends each
//! input numbered and aimed at a tick, and when a frame's player block
//! arrives compares its prediction for that tick with the server's state
//! bit for bit, then re-simulates from the server's state.
//!
//! Only the player's car is in the client's world: a car's step reads its
//! own state, the ground and the world's settings, so apart from contact
//! with another car the prediction is exact. A misprediction is counted
//! only where the states differ, and named field by field.
//!
//! A correction moves the physics state at once; the drawn pose eases
//! toward it ([`NetClient::drawn_offset`]), so the screen never jumps.

use std::collections::VecDeque;
use std::sync::Arc;

use skidpad_core::glam::DVec3;
use skidpad_core::{CarDefinition, CarId, CarInput, Ground, World, WorldConfig};
use skidpad_replay::{FieldDiff, diff_car};

use crate::error::{NetError, Result, frame_error};
use crate::frame::{Block, Frame};
use crate::messages::InputMessage;
use crate::own_inputs::OwnInputs;
use crate::race_config::{HELD_INPUT, RaceConfig, held_at};
use crate::race_schema::{PLAYER_KEY, PlayerRow};

/// Most ticks a client predicts ahead of the newest server state; past
/// this it stops sending (the link is gone, or the client is far ahead).
pub const MAX_PREDICTED_TICKS: usize = 600;

/// A tick whose prediction differed from the server's state.
#[derive(Clone, Debug, PartialEq)]
pub struct Misprediction {
    /// The server tick.
    pub tick: u32,
    /// Every field that differed, as the replay crate's desync report
    /// names them: `recorded` is the server's value, `simulated` the
    /// prediction's.
    pub fields: Vec<FieldDiff>,
}

/// How the prediction fares.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PredictionStats {
    /// Server states compared with a prediction.
    pub checked: u64,
    /// Of those, states that differed with the server having run the same
    /// inputs at the same ticks as the prediction: the model's mistakes
    /// (contact with another car, or a bug).
    pub mispredicted: u64,
    /// States that differed because an input came late and the server ran
    /// it later than predicted (the lead was too short); corrected the same
    /// way, but not a misprediction.
    pub late_corrections: u64,
    /// States that differed because the server reset the car (the
    /// player's `reset` command): corrected with a cut, not eased, and not
    /// a misprediction.
    pub reset_corrections: u64,
    /// The most recent misprediction.
    pub last: Option<Misprediction>,
    /// Largest correction of the drawn position, m.
    pub largest_correction: f64,
}

/// Drawn-pose easing: the share of a correction left after one second.
const EASE_LEFT_PER_SECOND: f64 = 0.001;

/// The player's predicted car.
pub struct NetClient {
    world: World,
    car: CarId,
    dt: f64,
    /// The tick the world is at.
    tick: u32,
    /// Inputs sent that the newest server state does not hold yet.
    inputs: OwnInputs,
    /// Predicted snapshots by tick, oldest first.
    predicted: VecDeque<(u32, Vec<u8>)>,
    /// The newest server tick seen.
    server_tick: u32,
    /// A late input was counted and no prediction has matched since.
    late_pending: bool,
    /// The server's count of this car's resets, as last seen, and whether
    /// one was counted that no correction has taken yet.
    resets: u32,
    reset_pending: bool,
    /// The drawn position's offset from the physics, m.
    offset: DVec3,
    stats: PredictionStats,
    /// Ticks past the newest server state the client predicts at most:
    /// the server's `max_input_lead`.
    max_ahead: u32,
    /// The race's start tick, as the server last told it (`None`: not yet
    /// known); the car is held before it.
    start_tick: Option<u32>,
}

impl NetClient {
    /// A client for `def` on `ground`, starting from its first shot's
    /// player block (which must be there).
    pub fn new(
        config: WorldConfig,
        ground: Arc<dyn Ground>,
        def: &CarDefinition,
        dt: f64,
        first_shot: &Frame,
    ) -> Result<NetClient> {
        let core = |e: skidpad_core::CoreError| NetError::Refused {
            reason: e.to_string(),
        };
        let mut world = World::new(config).map_err(core)?;
        // Put down at the origin, on the plane (a game's ground need not
        // reach it), then given the server's state on the race's ground.
        let car = world
            .add_car(def, skidpad_core::InitialPose::default())
            .map_err(core)?;
        world.set_ground(ground).map_err(core)?;
        let player = player_row(first_shot)?
            .ok_or_else(|| frame_error(0, "the first shot has no player block"))?;
        world.restore(car, &player.state).map_err(core)?;
        let tick = first_shot.tick;
        Ok(NetClient {
            world,
            car,
            dt,
            tick,
            inputs: OwnInputs::new(player.late_inputs),
            predicted: VecDeque::from([(tick, player.state)]),
            server_tick: tick,
            late_pending: false,
            resets: player.resets,
            reset_pending: false,
            offset: DVec3::ZERO,
            stats: PredictionStats::default(),
            max_ahead: RaceConfig::default().max_input_lead,
            start_tick: Some(0),
        })
    }

    /// The tick the prediction has reached.
    #[must_use]
    pub fn tick(&self) -> u32 {
        self.tick
    }

    /// The newest server tick seen.
    #[must_use]
    pub fn server_tick(&self) -> u32 {
        self.server_tick
    }

    /// The prediction's record.
    #[must_use]
    pub fn stats(&self) -> &PredictionStats {
        &self.stats
    }

    /// The predicted world (one car).
    #[must_use]
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The car in [`NetClient::world`].
    #[must_use]
    pub fn car(&self) -> CarId {
        self.car
    }

    /// Where to draw the car relative to its physics position, m: the
    /// remains of the last corrections, easing to zero.
    #[must_use]
    pub fn drawn_offset(&self) -> DVec3 {
        self.offset
    }

    /// How many ticks to predict (and send) now, for a client that predicts
    /// once per server tick of wall time: 1 normally; more when its inputs
    /// arrive too close to (or after) their ticks; 0 when they arrive far
    /// earlier than needed. A client that always predicts one tick per
    /// tick keeps the lead it started with.
    ///
    /// It is 0, whatever the lead control says, while the prediction is
    /// the server's `max_input_lead` ticks past the newest server state:
    /// the server is at that state's tick at least, so an input for a
    /// later tick would be refused. This holds a client whose server has
    /// stalled or fallen behind its schedule (an overloaded machine drops
    /// the debt) instead of letting it run away and be kicked for a flood
    /// of refused inputs.
    pub fn ticks_due(&mut self) -> u32 {
        if self.tick.saturating_sub(self.server_tick) >= self.max_ahead {
            return 0;
        }
        self.inputs.ticks_due()
    }

    /// Tells the client the race's start tick (the map message and the
    /// countdown inform carry it; `None`: the race waits for seats). Until
    /// then its car runs [`HELD_INPUT`], as on the server. A new client
    /// predicts a race that has started (0).
    pub fn set_start_tick(&mut self, start_tick: Option<u32>) {
        self.start_tick = start_tick;
    }

    /// The race's start tick as the client knows it.
    #[must_use]
    pub fn start_tick(&self) -> Option<u32> {
        self.start_tick
    }

    /// Tells the client the server's `max_input_lead` (its config message
    /// carries it; by default `RaceConfig`'s).
    pub fn set_max_input_lead(&mut self, ticks: u32) {
        self.max_ahead = ticks;
    }

    /// Sets the margin, in ticks, the lead control keeps between an
    /// input's arrival and its tick (default
    /// [`DEFAULT_LEAD_SAFETY`](crate::DEFAULT_LEAD_SAFETY); at most
    /// [`MAX_LEAD_SAFETY`](crate::MAX_LEAD_SAFETY)).
    pub fn set_lead_safety(&mut self, ticks: u32) -> Result<()> {
        self.inputs.set_lead_safety(ticks)
    }

    /// Predicts one tick with `input` and returns the message that asks
    /// the server for the same.
    pub fn drive(&mut self, input: CarInput) -> Result<InputMessage> {
        if self.predicted.len() >= MAX_PREDICTED_TICKS {
            return Err(NetError::Refused {
                reason: format!("{MAX_PREDICTED_TICKS} ticks ahead of the server's last state"),
            });
        }
        // What the server will run: the message's grid values.
        let (message, sent) = self.inputs.send(self.tick + 1, input)?;
        self.step_predicted(Some(sent))?;
        Ok(message)
    }

    /// Predicts up to `tick` without new input (the car holds its last),
    /// for a client that starts ahead of the server.
    pub fn advance_to(&mut self, tick: u32) -> Result<()> {
        while self.tick < tick {
            self.step_predicted(None)?;
        }
        Ok(())
    }

    fn step_predicted(&mut self, input: Option<CarInput>) -> Result<()> {
        let core = |e: skidpad_core::CoreError| NetError::Refused {
            reason: e.to_string(),
        };
        // Before the start the server runs the held input instead.
        let input = if held_at(self.start_tick, self.tick + 1) {
            Some(HELD_INPUT)
        } else {
            input
        };
        if let Some(input) = input {
            self.world.set_input(self.car, input).map_err(core)?;
        }
        self.world.step(self.dt).map_err(core)?;
        self.tick += 1;
        self.offset *= libm::pow(EASE_LEFT_PER_SECOND, self.dt);
        self.predicted
            .push_back((self.tick, self.world.snapshot(self.car).map_err(core)?));
        Ok(())
    }

    /// Takes a frame: when it has this player's block, checks the
    /// prediction for its tick and re-simulates from the server's state.
    /// Returns the misprediction, if this frame found one (a difference
    /// the server explains by a late input is corrected and counted in
    /// `late_corrections` instead).
    pub fn on_frame(&mut self, frame: &Frame) -> Result<Option<Misprediction>> {
        let Some(player) = player_row(frame)? else {
            return Ok(None);
        };
        if frame.tick <= self.server_tick {
            return Ok(None); // Out of date: a newer state was already taken.
        }
        self.server_tick = frame.tick;
        // A late input applies at the tick after it arrived, so the first
        // frame that counts it already shows its effect; the correction may
        // take more than one frame (later inputs of the same burst), so the
        // flag holds until a prediction matches again.
        if self.inputs.acknowledge(&player, frame.tick) {
            self.late_pending = true;
        }
        if player.resets != self.resets {
            self.reset_pending = true;
        }
        self.resets = player.resets;
        while self.predicted.front().is_some_and(|(t, _)| *t < frame.tick) {
            self.predicted.pop_front();
        }
        let miss = match self.predicted.front() {
            Some((t, mine)) if *t == frame.tick => {
                self.stats.checked += 1;
                let miss = (mine != &player.state).then(|| Misprediction {
                    tick: frame.tick,
                    fields: diff_car(self.car, &player.state, mine),
                });
                // A prediction that matches has taken a reset into
                // account (else a later, unrelated miss would be excused
                // as the reset's cut).
                if miss.is_none() {
                    self.reset_pending = false;
                }
                miss
            }
            _ => None,
        };
        let Some(miss) = miss else {
            self.late_pending = false;
            return Ok(None);
        };
        if std::mem::take(&mut self.reset_pending) {
            // The car jumped back onto the track: drawn where it is now.
            self.resimulate(frame.tick, &player.state, Correction::Cut)?;
            self.stats.reset_corrections += 1;
            return Ok(None);
        }
        self.resimulate(frame.tick, &player.state, Correction::Eased)?;
        if self.late_pending {
            self.stats.late_corrections += 1;
            return Ok(None);
        }
        self.stats.mispredicted += 1;
        self.stats.last = Some(miss.clone());
        Ok(Some(miss))
    }

    /// Restores the server's state at `from` and steps to the current
    /// tick again with the inputs in force at each tick.
    fn resimulate(&mut self, from: u32, state: &[u8], correction: Correction) -> Result<()> {
        let core = |e: skidpad_core::CoreError| NetError::Refused {
            reason: e.to_string(),
        };
        let before = self.world.pose(self.car).map_err(core)?.position;
        let to = self.tick;
        self.world.restore(self.car, state).map_err(core)?;
        self.tick = from;
        self.predicted.clear();
        self.predicted.push_back((from, state.to_vec()));
        let offset = self.offset;
        while self.tick < to {
            let next = self.tick + 1;
            // The restored state carries the input in force; a sent input
            // replaces it from its tick on.
            let input = self.inputs.starting_at(next);
            self.step_predicted(input)?;
        }
        let after = self.world.pose(self.car).map_err(core)?.position;
        if correction == Correction::Cut {
            self.offset = DVec3::ZERO;
            return Ok(());
        }
        self.offset = offset + (before - after);
        self.stats.largest_correction =
            self.stats.largest_correction.max((before - after).length());
        Ok(())
    }
}

/// How a correction is drawn.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Correction {
    /// The drawn car glides from where it was to the corrected pose.
    Eased,
    /// The drawn car jumps to the corrected pose (a reset).
    Cut,
}

/// The frame's player block, if it has one.
pub(crate) fn player_row(frame: &Frame) -> Result<Option<PlayerRow>> {
    let Some((_, Block::Indexed(rows))) = frame.blocks.iter().find(|(k, _)| *k == PLAYER_KEY)
    else {
        return Ok(None);
    };
    match rows.first() {
        Some((_, Some(row))) => PlayerRow::from_row(row).map(Some),
        _ => Ok(None),
    }
}
