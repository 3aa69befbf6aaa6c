//! Either client, for a program that lets its player choose (the bot's
//! `--predict`): [`NetClient`] predicts the player's car and draws the
//! others from the cars block; [`RaceClient`] predicts every car from the
//! server's confirmations. Both number and send inputs the same way.

use std::sync::Arc;

use skidpad_core::{CarDefinition, CarId, CarInput, Ground, World, WorldConfig};

use crate::client::NetClient;
use crate::error::Result;
use crate::frame::Frame;
use crate::messages::InputMessage;
use crate::payloads::Prediction;
use crate::race_client::RaceClient;

/// A client of the kind the player chose.
pub enum Predictor {
    /// The player's car only (boxed, as the other: both keep a world).
    Own(Box<NetClient>),
    /// Every car (boxed: it keeps a world and its history).
    All(Box<RaceClient>),
}

impl Predictor {
    /// A client of kind `prediction` from its first shot (see
    /// [`NetClient::new`], [`RaceClient::new`]).
    pub fn new(
        prediction: Prediction,
        ground: Arc<dyn Ground>,
        def: &CarDefinition,
        dt: f64,
        ticks_per_frame: u32,
        first_shot: &Frame,
    ) -> Result<Predictor> {
        let config = WorldConfig::default();
        Ok(match prediction {
            Prediction::Own => Predictor::Own(Box::new(NetClient::new(
                config, ground, def, dt, first_shot,
            )?)),
            Prediction::All => Predictor::All(Box::new(RaceClient::new(
                config,
                ground,
                def,
                dt,
                ticks_per_frame,
                first_shot,
            )?)),
        })
    }

    /// The predicted world (the player's car alone, or every car).
    #[must_use]
    pub fn world(&self) -> &World {
        match self {
            Predictor::Own(c) => c.world(),
            Predictor::All(c) => c.world(),
        }
    }

    /// The player's car in [`Predictor::world`] (`None`: the whole race
    /// no longer has it).
    #[must_use]
    pub fn car(&self) -> Option<CarId> {
        match self {
            Predictor::Own(c) => Some(c.car()),
            Predictor::All(c) => c.car(),
        }
    }

    /// The tick the prediction has reached.
    #[must_use]
    pub fn tick(&self) -> u32 {
        match self {
            Predictor::Own(c) => c.tick(),
            Predictor::All(c) => c.tick(),
        }
    }

    /// The race's start tick as the client knows it.
    #[must_use]
    pub fn start_tick(&self) -> Option<u32> {
        match self {
            Predictor::Own(c) => c.start_tick(),
            Predictor::All(c) => c.start_tick(),
        }
    }

    /// Tells the client the race's start tick.
    pub fn set_start_tick(&mut self, start_tick: Option<u32>) {
        match self {
            Predictor::Own(c) => c.set_start_tick(start_tick),
            Predictor::All(c) => c.set_start_tick(start_tick),
        }
    }

    /// Tells the client the server's `max_input_lead`.
    pub fn set_max_input_lead(&mut self, ticks: u32) {
        match self {
            Predictor::Own(c) => c.set_max_input_lead(ticks),
            Predictor::All(c) => c.set_max_input_lead(ticks),
        }
    }

    /// How many ticks to predict now.
    pub fn ticks_due(&mut self) -> u32 {
        match self {
            Predictor::Own(c) => c.ticks_due(),
            Predictor::All(c) => c.ticks_due(),
        }
    }

    /// Predicts up to `tick` without new input.
    pub fn advance_to(&mut self, tick: u32) -> Result<()> {
        match self {
            Predictor::Own(c) => c.advance_to(tick),
            Predictor::All(c) => c.advance_to(tick),
        }
    }

    /// Predicts one tick with `input`; the message asks the server for it.
    pub fn drive(&mut self, input: CarInput) -> Result<InputMessage> {
        match self {
            Predictor::Own(c) => c.drive(input),
            Predictor::All(c) => c.drive(input),
        }
    }

    /// Takes a frame (its findings are kept in the client's stats).
    /// Returns true when the whole race went wrong (a desync, which must
    /// never happen): the client cannot go on and needs a first shot.
    pub fn on_frame(&mut self, frame: &Frame) -> Result<bool> {
        match self {
            Predictor::Own(c) => c.on_frame(frame).map(|_| false),
            Predictor::All(c) => c.on_frame(frame).map(|d| d.is_some()),
        }
    }
}
