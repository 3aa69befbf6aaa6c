//! A pilot that drives a predicted car as the AI would: each tick a shadow
//! world holding a copy of the car's predicted state, with the AI driver
//! on, takes one step, and the input the AI chose there is the input to
//! send. Bots and load tests drive with it; it reads only the prediction,
//! as a player reads only the screen.

use std::sync::Arc;

use skidpad_core::{
    CarDefinition, CarId, CarInput, DriverStyle, Ground, InitialPose, Track, World, WorldConfig,
};

use crate::client::NetClient;
use crate::error::{NetError, Result};

/// The AI at the wheel of a [`NetClient`]'s car.
pub struct AiPilot {
    shadow: World,
    car: CarId,
    /// Steering added to the AI's at a tick: a test's way to force contact.
    nudge: fn(u32) -> f64,
}

fn no_nudge(_: u32) -> f64 {
    0.0
}

impl AiPilot {
    /// A pilot for `def` on `track` (whose surface `ground` is).
    pub fn new(ground: Arc<dyn Ground>, def: &CarDefinition, track: Arc<Track>) -> Result<AiPilot> {
        let core = |e: skidpad_core::CoreError| NetError::Refused {
            reason: e.to_string(),
        };
        let mut shadow = World::new(WorldConfig::default()).map_err(core)?;
        // Put down on the plane (the race's ground need not reach the
        // origin); the pilot gives it the real car's state before each use.
        let car = shadow.add_car(def, InitialPose::default()).map_err(core)?;
        shadow.set_ground(ground).map_err(core)?;
        // The race is on the track's own surface: a car pushed into a
        // barrier reverses out of it instead of pressing on.
        let style = DriverStyle {
            backs_out: true,
            ..DriverStyle::default()
        };
        shadow
            .set_driver_with_style(car, Some(track), style)
            .map_err(core)?;
        Ok(AiPilot {
            shadow,
            car,
            nudge: no_nudge,
        })
    }

    /// The same pilot, adding `nudge(tick)` to the AI's steering.
    #[must_use]
    pub fn with_nudge(self, nudge: fn(u32) -> f64) -> AiPilot {
        AiPilot { nudge, ..self }
    }

    /// The input for the client's next tick.
    pub fn input(&mut self, client: &NetClient, dt: f64) -> Result<CarInput> {
        self.input_for(client.world(), client.car(), client.tick(), dt)
    }

    /// The input for `car` of a predicted `world` at `tick`, for its next
    /// tick (a [`RaceClient`](crate::RaceClient)'s world holds every car;
    /// the AI here sees only this one).
    pub fn input_for(&mut self, world: &World, car: CarId, tick: u32, dt: f64) -> Result<CarInput> {
        let core = |e: skidpad_core::CoreError| NetError::Refused {
            reason: e.to_string(),
        };
        let state = world.snapshot(car).map_err(core)?;
        self.shadow.restore(self.car, &state).map_err(core)?;
        self.shadow.step(dt).map_err(core)?;
        let mut input = self.shadow.last_step_record(self.car).map_err(core)?.input;
        input.steer = (input.steer + (self.nudge)(tick + 1)).clamp(-1.0, 1.0);
        Ok(input)
    }
}
