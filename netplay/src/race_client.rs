//! The client that runs the whole race: [`RaceClient`] holds every car,
//! steps them all ahead of the server with the inputs it knows (its own,
//! as sent) and guesses (every other car holds the input the server last
//! confirmed for it), and when a frame confirms a stretch of ticks
//! (`confirmed.rs`) it goes back to the first tick it guessed wrong and
//! steps again from there. The server's hash of every car then checks the
//! confirmed state: a difference is a desync, which must never happen
//! (the core gives the same bits everywhere), and is reported.
//!
//! A correction moves the physics at once; each car's drawn pose eases
//! toward it ([`RaceClient::drawn_offset`]). A car put down (joined or
//! reset) is drawn where it now is.

mod confirming;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use skidpad_core::glam::DVec3;
use skidpad_core::{CarDefinition, CarId, CarInput, Ground, InitialPose, World, WorldConfig};
use skidpad_replay::FieldDiff;

use crate::client::player_row;
use crate::confirmed::{Confirmation, PlacedCar, Placement};
use crate::error::{NetError, Result, frame_error};
use crate::frame::Frame;
use crate::messages::InputMessage;
use crate::own_inputs::OwnInputs;
use crate::race_config::{HELD_INPUT, RaceConfig, held_at};

/// Most ticks the client runs ahead of the newest confirmed tick; past
/// this it refuses to predict (the link is gone). Each predicted tick
/// keeps a copy of the race to go back to.
pub const MAX_RACE_AHEAD: u32 = 180;

/// Drawn-pose easing: the share of a correction left after one second.
const EASE_LEFT_PER_SECOND: f64 = 0.001;

/// The share of a drawn offset eased away in one tick of `dt`.
fn eased_per_tick(dt: f64) -> f64 {
    1.0 - libm::pow(EASE_LEFT_PER_SECOND, dt)
}

/// Centimetre buckets of the corrections' histogram; the last holds
/// everything from 10 m on.
const CORRECTION_BUCKETS: usize = 1001;

fn core(e: skidpad_core::CoreError) -> NetError {
    NetError::Refused {
        reason: e.to_string(),
    }
}

/// The confirmed state differed from the client's.
#[derive(Clone, Debug, PartialEq)]
pub struct Desync {
    /// The confirmed tick.
    pub tick: u32,
    /// The seats whose car's hash differed (or that one side lacks).
    pub seats: Vec<u8>,
    /// The player's own car's fields that differed (the player block
    /// carries its full state), as the replay crate names them:
    /// `recorded` the server's, `simulated` the client's.
    pub fields: Vec<FieldDiff>,
}

/// How the whole-race prediction fares.
#[derive(Clone, Debug, PartialEq)]
pub struct RaceStats {
    /// Frames whose confirmations were taken.
    pub frames: u64,
    /// Ticks confirmed since the first shot.
    pub confirmed_ticks: u64,
    /// Of those, ticks whose guessed inputs (or cars) differed from the
    /// confirmed ones.
    pub wrong_ticks: u64,
    /// Frames that sent the race back to a tick guessed wrong.
    pub rollbacks: u64,
    /// Ticks stepped again by those rollbacks.
    pub resimulated_ticks: u64,
    /// Frames that found the player's own input late at the server.
    pub late_frames: u64,
    /// Resets of the player's own car the confirmations brought (its
    /// `reset` command, or the AI's while the player was away).
    pub own_resets: u64,
    /// Confirmed states whose hashes differed from the server's.
    pub desyncs: u64,
    /// The most recent desync.
    pub last_desync: Option<Desync>,
    /// How far a rollback moved a car's physics position, each time it
    /// moved one.
    pub corrections: Centimetres,
    /// For each of those, how far the car's drawn position moves at the
    /// next tick because of it and the corrections before it still being
    /// eased: the largest step of the drawn car a correction causes, what
    /// the player sees of it.
    pub drawn_corrections: Centimetres,
    /// Largest correction of a physics position, m.
    pub largest_correction: f64,
}

/// Distances counted by whole centimetres, the last bucket holding 10 m
/// and more: a bounded record of millions of corrections.
#[derive(Clone, Debug, PartialEq)]
pub struct Centimetres {
    counts: Vec<u64>,
}

impl Default for Centimetres {
    fn default() -> Self {
        Centimetres {
            counts: vec![0; CORRECTION_BUCKETS],
        }
    }
}

impl Centimetres {
    /// Counts a distance, m.
    pub fn add(&mut self, metres: f64) {
        let cm = libm::floor(metres.abs() * 100.0) as usize;
        let last = self.counts.len() - 1;
        self.counts[cm.min(last)] += 1;
    }

    /// Distances counted.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The distance (m) that share `q` (0…1) of those counted do not
    /// exceed, to the centimetre above; 0 with none counted.
    #[must_use]
    pub fn quantile(&self, q: f64) -> f64 {
        let total = self.count();
        if total == 0 {
            return 0.0;
        }
        let needed = (libm::ceil(q.clamp(0.0, 1.0) * total as f64) as u64).max(1);
        let mut seen = 0;
        for (cm, count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= needed {
                return (cm + 1) as f64 / 100.0;
            }
        }
        self.counts.len() as f64 / 100.0
    }
}

impl Default for RaceStats {
    fn default() -> Self {
        RaceStats {
            frames: 0,
            confirmed_ticks: 0,
            wrong_ticks: 0,
            rollbacks: 0,
            resimulated_ticks: 0,
            late_frames: 0,
            own_resets: 0,
            desyncs: 0,
            last_desync: None,
            corrections: Centimetres::default(),
            drawn_corrections: Centimetres::default(),
            largest_correction: 0.0,
        }
    }
}

/// Every car of the race at one tick, by seat.
#[derive(Clone)]
struct Race {
    world: World,
    cars: BTreeMap<u8, CarId>,
}

/// A predicted tick: the race before it and the inputs it ran.
struct Stepped {
    tick: u32,
    before: Race,
    inputs: BTreeMap<u8, CarInput>,
}

/// The whole race, predicted.
pub struct RaceClient {
    def: CarDefinition,
    dt: f64,
    ticks_per_frame: u32,
    seat: u8,
    now: Race,
    /// The tick `now` is at.
    tick: u32,
    /// Each tick stepped after the confirmed one, oldest first.
    history: VecDeque<Stepped>,
    /// The newest confirmed tick, and each car's input in force there.
    confirmed_tick: u32,
    confirmed: BTreeMap<u8, CarInput>,
    own: OwnInputs,
    start_tick: Option<u32>,
    max_ahead: u32,
    /// Each car's drawn position's offset from the physics, m.
    offsets: BTreeMap<u8, DVec3>,
    stats: RaceStats,
}

impl RaceClient {
    /// A client for a race of `def` cars on `ground`, whose frames come
    /// every `ticks_per_frame` ticks of `dt`, from its first shot: its
    /// player block names the seat, its states block holds every car.
    pub fn new(
        config: WorldConfig,
        ground: Arc<dyn Ground>,
        def: &CarDefinition,
        dt: f64,
        ticks_per_frame: u32,
        first_shot: &Frame,
    ) -> Result<RaceClient> {
        if ticks_per_frame == 0 {
            return Err(NetError::Refused {
                reason: "ticks_per_frame is at least 1".into(),
            });
        }
        let mut world = World::new(config).map_err(core)?;
        let player = player_row(first_shot)?
            .ok_or_else(|| frame_error(0, "the first shot has no player block"))?;
        let seat = own_seat(first_shot)?;
        let confirmation = Confirmation::of(first_shot)?;
        if confirmation.states.is_empty() {
            return Err(frame_error(0, "the first shot has no states block"));
        }
        let mut cars = BTreeMap::new();
        let mut confirmed = BTreeMap::new();
        // In the server's stepping order, so contacts pair up alike.
        for (car_seat, state) in &confirmation.states {
            let car = world.add_car(def, InitialPose::default()).map_err(core)?;
            world.restore(car, state).map_err(core)?;
            if cars.insert(*car_seat, car).is_some() {
                return Err(frame_error(0, format!("seat {car_seat} has two states")));
            }
            confirmed.insert(*car_seat, world.input(car).map_err(core)?);
        }
        if !cars.contains_key(&seat) {
            return Err(frame_error(
                0,
                "the first shot has no state of the player's car",
            ));
        }
        // The cars were put down at the origin on the plane (the race's
        // ground need not reach it) and given their states; cars that join
        // later are put down on the race's ground where the server put them.
        world.set_ground(ground).map_err(core)?;
        let tick = first_shot.tick;
        Ok(RaceClient {
            def: def.clone(),
            dt,
            ticks_per_frame,
            seat,
            now: Race { world, cars },
            tick,
            history: VecDeque::new(),
            confirmed_tick: tick,
            confirmed,
            own: OwnInputs::new(player.late_inputs),
            start_tick: Some(0),
            max_ahead: RaceConfig::default().max_input_lead,
            offsets: BTreeMap::new(),
            stats: RaceStats::default(),
        })
    }

    /// The tick the prediction has reached.
    #[must_use]
    pub fn tick(&self) -> u32 {
        self.tick
    }

    /// The newest tick the server confirmed.
    #[must_use]
    pub fn confirmed_tick(&self) -> u32 {
        self.confirmed_tick
    }

    /// The player's seat.
    #[must_use]
    pub fn seat(&self) -> u8 {
        self.seat
    }

    /// The predicted race.
    #[must_use]
    pub fn world(&self) -> &World {
        &self.now.world
    }

    /// The car of a seat in [`RaceClient::world`], if it is in the race.
    #[must_use]
    pub fn car_of(&self, seat: u8) -> Option<CarId> {
        self.now.cars.get(&seat).copied()
    }

    /// Every seat's car, in seat order.
    pub fn cars(&self) -> impl Iterator<Item = (u8, CarId)> + '_ {
        self.now.cars.iter().map(|(s, c)| (*s, *c))
    }

    /// The player's own car; `None` once the server took it out of the
    /// race (the player left or was kicked, and frames still come).
    #[must_use]
    pub fn car(&self) -> Option<CarId> {
        self.car_of(self.seat)
    }

    /// The prediction's record.
    #[must_use]
    pub fn stats(&self) -> &RaceStats {
        &self.stats
    }

    /// Where to draw a seat's car relative to its physics position, m.
    #[must_use]
    pub fn drawn_offset(&self, seat: u8) -> DVec3 {
        self.offsets.get(&seat).copied().unwrap_or(DVec3::ZERO)
    }

    /// Tells the client the race's start tick (`None`: it waits for
    /// seats); until then every car runs [`HELD_INPUT`], as on the server.
    pub fn set_start_tick(&mut self, start_tick: Option<u32>) {
        self.start_tick = start_tick;
    }

    /// The race's start tick as the client knows it.
    #[must_use]
    pub fn start_tick(&self) -> Option<u32> {
        self.start_tick
    }

    /// Tells the client the server's `max_input_lead`.
    pub fn set_max_input_lead(&mut self, ticks: u32) {
        self.max_ahead = ticks;
    }

    /// Sets the lead's safety margin, ticks (see `NetClient`).
    pub fn set_lead_safety(&mut self, ticks: u32) -> Result<()> {
        self.own.set_lead_safety(ticks)
    }

    /// How many ticks to predict now (see `NetClient::ticks_due`).
    pub fn ticks_due(&mut self) -> u32 {
        if self.tick.saturating_sub(self.confirmed_tick) >= self.max_ahead {
            return 0;
        }
        self.own.ticks_due()
    }

    /// Predicts one tick with the player's `input` and returns the
    /// message that asks the server for the same.
    pub fn drive(&mut self, input: CarInput) -> Result<InputMessage> {
        self.check_room()?;
        let (message, _) = self.own.send(self.tick + 1, input)?;
        self.predict_next()?;
        Ok(message)
    }

    /// Predicts up to `tick` without new input (the car holds its last),
    /// for a client that starts ahead of the server.
    pub fn advance_to(&mut self, tick: u32) -> Result<()> {
        while self.tick < tick {
            self.check_room()?;
            self.predict_next()?;
        }
        Ok(())
    }

    fn check_room(&self) -> Result<()> {
        if self.tick - self.confirmed_tick >= MAX_RACE_AHEAD {
            return Err(NetError::Refused {
                reason: format!("{MAX_RACE_AHEAD} ticks ahead of the last confirmed tick"),
            });
        }
        Ok(())
    }

    fn predict_next(&mut self) -> Result<()> {
        let tick = self.tick + 1;
        let inputs = self.guessed(tick);
        self.step_one(tick, inputs, &[])?;
        let keep = 1.0 - eased_per_tick(self.dt);
        for offset in self.offsets.values_mut() {
            *offset *= keep;
        }
        Ok(())
    }

    /// The inputs the client guesses for `tick`: its own as sent, every
    /// other car holding its last confirmed input; the held input for all
    /// before the start.
    fn guessed(&self, tick: u32) -> BTreeMap<u8, CarInput> {
        let held = held_at(self.start_tick, tick);
        self.now
            .cars
            .keys()
            .filter_map(|&seat| {
                let input = if held {
                    Some(HELD_INPUT)
                } else if seat == self.seat {
                    self.own
                        .in_force_at(tick)
                        .or_else(|| self.confirmed.get(&seat).copied())
                } else {
                    self.confirmed.get(&seat).copied()
                };
                input.map(|i| (seat, i))
            })
            .collect()
    }

    /// Steps `tick` after `placed`, with `inputs`, keeping the race before
    /// it to go back to.
    fn step_one(
        &mut self,
        tick: u32,
        inputs: BTreeMap<u8, CarInput>,
        placed: &[PlacedCar],
    ) -> Result<()> {
        let before = self.now.clone();
        let race = &mut self.now;
        let missing = |seat: u8| frame_error(0, format!("seat {seat} has no car at tick {tick}"));
        // As the server: joins and leaves between ticks, then the inputs,
        // then the resets, then the step.
        for p in placed {
            match p.placement {
                Placement::Joined(pose) => {
                    if race.cars.contains_key(&p.seat) {
                        return Err(frame_error(0, format!("seat {} joined twice", p.seat)));
                    }
                    let car = race.world.add_car(&self.def, pose).map_err(core)?;
                    race.cars.insert(p.seat, car);
                }
                Placement::Left => {
                    let car = race.cars.remove(&p.seat).ok_or_else(|| missing(p.seat))?;
                    race.world.remove_car(car).map_err(core)?;
                }
                Placement::Reset(_) => {}
            }
        }
        for (seat, input) in &inputs {
            let car = *race.cars.get(seat).ok_or_else(|| missing(*seat))?;
            race.world.set_input(car, *input).map_err(core)?;
        }
        for p in placed {
            if let Placement::Reset(pose) = p.placement {
                let car = *race.cars.get(&p.seat).ok_or_else(|| missing(p.seat))?;
                race.world.reset_car(car, pose).map_err(core)?;
            }
        }
        race.world.step(self.dt).map_err(core)?;
        self.tick = tick;
        self.history.push_back(Stepped {
            tick,
            before,
            inputs,
        });
        Ok(())
    }
}

/// The seat the frame's player block is for.
fn own_seat(frame: &Frame) -> Result<u8> {
    let Some((_, crate::frame::Block::Indexed(rows))) = frame
        .blocks
        .iter()
        .find(|(k, _)| *k == crate::race_schema::PLAYER_KEY)
    else {
        return Err(frame_error(0, "no player block"));
    };
    let seat = rows.first().map_or(u32::MAX, |r| r.0);
    u8::try_from(seat).map_err(|_| frame_error(0, "the player block names no seat"))
}
