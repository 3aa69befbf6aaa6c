//! The authoritative race, without sockets: [`RaceServer`] owns the one
//! `World`, seats players by token, schedules their numbered inputs at the
//! ticks they name, steps at a fixed rate and builds each player's frame.
//! The network shell feeds it messages and sends what it returns; tests
//! drive it directly.
//!
//! **Input timing.** A client sends each input for a tick ahead of the
//! server (`InputMessage::tick`). The server applies it just before
//! stepping that tick, or before the next tick it steps if it came late,
//! and reports the seq and the tick it was applied at in the player block.
//! A car holds its last input until a newer one applies, so a client that
//! knows which of its inputs applied at which ticks can re-simulate its car
//! exactly (`client.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use skidpad_core::race::{RaceRules, RaceTiming, grid_pose};
use skidpad_core::{CarDefinition, CarId, CarInput, Track, World, WorldConfig};

use crate::confirmed::STATES_KEY;
use crate::error::{NetError, Result};
use crate::frame::{Block, Frame, Row, Value, encode_frame};
use crate::race_config::{
    AiStint, DriverToken, HELD_INPUT, Outgoing, RaceConfig, SeatId, SeatStanding, SeatStats,
    ServerStats, held_at,
};
use crate::race_schema::{
    CARS_KEY, CONTACT_KEY, LAP_KEY, PLAYER_KEY, PlayerRow, REMOVED_KEY, RemovalReason, race_schema,
};
use crate::schema::Schema;

mod away;
mod blocks;
mod confirm;
mod inputs;
mod resets;
mod start;

/// An input waiting for its tick.
#[derive(Clone, Copy, Debug)]
struct Scheduled {
    seq: u32,
    input: CarInput,
    /// The first tick it could have applied at (the one after its arrival).
    arrived: u32,
}

#[derive(Clone, Debug)]
struct Seat {
    name: String,
    car: CarId,
    /// The newest seq received; seqs must increase.
    last_received: Option<u32>,
    /// The newest seq applied, the tick it applied at, and the ticks it
    /// waited.
    applied: Option<(u32, u32, u32)>,
    /// Inputs waiting for their tick (a later one for the same tick
    /// replaces the earlier).
    scheduled: BTreeMap<u32, Scheduled>,
    /// Inputs of this seat that arrived after their tick.
    late_inputs: u32,
    /// Inputs of this seat refused.
    refused_inputs: u32,
    /// Resets of this seat's car so far, and whether the player asked for
    /// one that the next tick makes (see `resets.rs`).
    resets: u32,
    reset_asked: bool,
    /// The tick of the car's last reset, if any.
    last_reset: Option<u32>,
    /// Inputs the seat may still send now (see `RaceConfig::input_burst`).
    input_allowance: u32,
    /// The tick its player's link dropped at, while it waits for them to
    /// come back (`drop_link`); the AI drives the car meanwhile.
    away_since: Option<u32>,
    needs_first_shot: bool,
    /// Its client predicts every car (`confirm.rs`).
    predicts_all: bool,
}

/// The authoritative race.
pub struct RaceServer {
    config: RaceConfig,
    /// The race's own ground as the map message carries it (base64 of its
    /// ground file), encoded once.
    map_ground: Option<String>,
    schema: Schema,
    track: Arc<Track>,
    def: CarDefinition,
    world: World,
    timing: RaceTiming,
    seats: Vec<Option<Seat>>,
    tick: u32,
    /// The tick the race starts at; `None` while it waits for seats.
    start_tick: Option<u32>,
    /// Events since the last frame, as rows of their blocks.
    contacts: Vec<Row>,
    /// The seat pairs (lower seat first) in contact at the last tick: a
    /// contact event goes out when a pair starts touching, once per
    /// episode, not once per tick it lasts.
    touching: BTreeSet<(u8, u8)>,
    laps: Vec<Row>,
    removed: Vec<Row>,
    /// Seats whose car left since the last frame (hasData 0 in `cars`).
    gone: Vec<u8>,
    /// The last frame without a player block, for spectators, made only
    /// while `watched`.
    watch_frame: Option<Vec<u8>>,
    watched: bool,
    stats: ServerStats,
    /// Stretches the AI drove a car whose player was away (`away.rs`).
    ai_stints: Vec<AiStint>,
    /// Since the last frame, for clients that predict every car
    /// (`confirm.rs`): input changes and placements, as rows.
    confirmed_inputs: Vec<Row>,
    placed: Vec<Row>,
    /// The input each car ran with at the last tick, as confirmed.
    in_force: BTreeMap<CarId, CarInput>,
}

impl RaceServer {
    /// A race with no players yet, at tick 0.
    pub fn new(config: RaceConfig) -> Result<RaceServer> {
        let refuse = |reason: String| Err(NetError::Refused { reason });
        if config.seat_tokens.is_empty() || config.seat_tokens.len() > 255 {
            return refuse(format!(
                "a race has 1 to 255 seats, not {}",
                config.seat_tokens.len()
            ));
        }
        if !(1..=1000).contains(&config.tick_hz) || config.ticks_per_frame == 0 {
            return refuse("tick_hz is 1 to 1000 and ticks_per_frame at least 1".into());
        }
        for (name, seconds) in [
            ("reset_interval_s", config.reset_interval_s),
            ("reconnect_grace_s", config.reconnect_grace_s),
        ] {
            if !(0.0..=600.0).contains(&seconds) {
                return refuse(format!("{name} is 0 to 600, not {seconds}"));
            }
        }
        let core = |e: skidpad_core::CoreError| NetError::Refused {
            reason: e.to_string(),
        };
        let track = Arc::new(config.build_track().map_err(core)?);
        let def = config.car_definition().map_err(core)?;
        let mut world = World::new(WorldConfig::default()).map_err(core)?;
        world
            .set_ground(
                crate::race_config::race_ground(&track, config.ground.as_ref()).map_err(core)?,
            )
            .map_err(core)?;
        let map_ground = config
            .ground
            .as_ref()
            .map(|source| {
                use base64::Engine as _;
                crate::race_config::map_ground_file(source)
                    .map(|bytes| base64::engine::general_purpose::STANDARD.encode(bytes))
            })
            .transpose()
            .map_err(core)?;
        let rules = RaceRules {
            laps: Some(config.laps),
            ..RaceRules::default()
        };
        let timing = RaceTiming::new(track.clone(), rules, &world);
        let seats = vec![None; config.seat_tokens.len()];
        start::check(&config)?;
        let start_tick = (config.start_seats == 0).then_some(0);
        Ok(RaceServer {
            config,
            map_ground,
            schema: race_schema(),
            track,
            def,
            world,
            timing,
            seats,
            tick: 0,
            start_tick,
            contacts: Vec::new(),
            touching: BTreeSet::new(),
            laps: Vec::new(),
            removed: Vec::new(),
            gone: Vec::new(),
            watch_frame: None,
            watched: true,
            stats: ServerStats::default(),
            ai_stints: Vec::new(),
            confirmed_inputs: Vec::new(),
            placed: Vec::new(),
            in_force: BTreeMap::new(),
        })
    }

    /// The newest frame without a player block (what a spectator takes),
    /// made at every frame tick while the race is watched; `None` before
    /// the first.
    #[must_use]
    pub fn watch_frame(&self) -> Option<&[u8]> {
        self.watch_frame.as_deref()
    }

    /// Whether frames for spectators are made (the default): a server
    /// with no spectator turns it off and saves one encoding a frame.
    /// Turned off, the last one is dropped, so a spectator who comes
    /// later never gets a stale frame.
    pub fn set_watched(&mut self, watched: bool) {
        self.watched = watched;
        if !watched {
            self.watch_frame = None;
        }
    }

    /// The race's settings.
    #[must_use]
    pub fn config(&self) -> &RaceConfig {
        &self.config
    }

    /// The schema frames are encoded with.
    #[must_use]
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The authoritative world.
    #[must_use]
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The race's own ground as the map message carries it (base64 of its
    /// ground file); `None` on the track's generated ground.
    #[must_use]
    pub fn map_ground(&self) -> Option<&String> {
        self.map_ground.as_ref()
    }

    /// The track.
    #[must_use]
    pub fn track(&self) -> &Arc<Track> {
        &self.track
    }

    /// Ticks stepped.
    #[must_use]
    pub fn tick(&self) -> u32 {
        self.tick
    }

    /// Seconds per tick.
    #[must_use]
    pub fn dt(&self) -> f64 {
        1.0 / f64::from(self.config.tick_hz)
    }

    /// Counts of late and refused inputs.
    #[must_use]
    pub fn stats(&self) -> ServerStats {
        self.stats
    }

    /// A taken seat's own counts.
    #[must_use]
    pub fn seat_stats(&self, seat: SeatId) -> Option<SeatStats> {
        self.seat(seat).map(|s| SeatStats {
            late_inputs: s.late_inputs,
            refused_inputs: s.refused_inputs,
            resets: s.resets,
        })
    }

    /// The car of a seat, if taken.
    #[must_use]
    pub fn car_of(&self, seat: SeatId) -> Option<CarId> {
        self.seat(seat).map(|s| s.car)
    }

    /// Laps a car has completed, by the server's race timing.
    #[must_use]
    pub fn laps_of(&self, car: CarId) -> Option<usize> {
        self.timing.laps(car).map(<[_]>::len)
    }

    /// Race time, s (ticks × dt).
    #[must_use]
    pub fn race_time(&self) -> f64 {
        f64::from(self.tick) * self.dt()
    }

    /// The seated players in race order.
    #[must_use]
    pub fn standings(&self) -> Vec<SeatStanding> {
        self.timing
            .standings()
            .into_iter()
            .filter_map(|s| {
                let seat = self.seat_of_car(s.car)?;
                Some(SeatStanding {
                    seat: SeatId(seat),
                    position: 0,
                    laps: s.laps,
                    gap: s.gap,
                    best_lap: s.best_lap,
                    finished: matches!(s.status, skidpad_core::race::CarStatus::Finished(_)),
                })
            })
            .enumerate()
            .map(|(i, s)| SeatStanding {
                position: i as u32 + 1,
                ..s
            })
            .collect()
    }

    fn seat(&self, seat: SeatId) -> Option<&Seat> {
        self.seats.get(usize::from(seat.0))?.as_ref()
    }

    /// A taken seat, to change; an empty one is refused.
    fn taken_mut(&mut self, seat: SeatId) -> Result<&mut Seat> {
        self.seats
            .get_mut(usize::from(seat.0))
            .and_then(Option::as_mut)
            .ok_or_else(|| NetError::Refused {
                reason: format!("seat {} is empty", seat.0),
            })
    }

    /// Seats a player: the token names the seat, whose car is added on its
    /// grid slot. A token no seat has, or a seat already taken, is refused.
    pub fn join(&mut self, token: &str, name: &str) -> Result<SeatId> {
        let refuse = |reason: &str| {
            Err(NetError::Refused {
                reason: reason.into(),
            })
        };
        let Some(index) = self.config.seat_tokens.iter().position(|t| t == token) else {
            return refuse("no seat has this token");
        };
        if let Some(held) = self.seats[index].as_mut() {
            if held.away_since.is_none() {
                return refuse("the seat is taken");
            }
            // Back within the grace: the car where the AI brought it, the
            // player's inputs counted afresh, a full snapshot first.
            held.away_since = None;
            held.name = name.chars().take(32).collect();
            held.last_received = None;
            held.applied = None;
            held.scheduled.clear();
            held.input_allowance = self.config.input_burst;
            held.needs_first_shot = true;
            let car = held.car;
            self.stint_ends(car);
            self.world
                .set_driver(car, None)
                .map_err(|e| NetError::Refused {
                    reason: e.to_string(),
                })?;
            return Ok(SeatId(u8::try_from(index).expect("at most 255 seats")));
        }
        let pose = grid_pose(&self.track, index, &self.config.grid);
        let car = self
            .world
            .add_car(&self.def, pose)
            .map_err(|e| NetError::Refused {
                reason: e.to_string(),
            })?;
        self.timing
            .join(car, skidpad_core::glam::DVec2::new(pose.x, pose.y));
        self.seats[index] = Some(Seat {
            name: name.chars().take(32).collect(),
            car,
            last_received: None,
            applied: None,
            scheduled: BTreeMap::new(),
            input_allowance: self.config.input_burst,
            late_inputs: 0,
            refused_inputs: 0,
            resets: 0,
            reset_asked: false,
            last_reset: None,
            needs_first_shot: true,
            away_since: None,
            predicts_all: false,
        });
        let seat = u8::try_from(index).expect("at most 255 seats");
        self.confirm_join(seat, pose);
        self.gone.retain(|&s| s != seat);
        self.count_towards_start();
        Ok(SeatId(seat))
    }

    /// The name of the player driving each of the world's cars, in car
    /// order (a recording's car order): what the recording's `drivers`
    /// metadata holds, so a replay of an online race says who drove what.
    #[must_use]
    pub fn drivers(&self) -> Vec<String> {
        self.world
            .car_ids()
            .map(|car| {
                self.seat_of_car(car)
                    .and_then(|seat| self.name_of(SeatId(seat)))
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect()
    }

    /// Each of the world's cars' driver and the token of the seat they
    /// hold, in car order (cars without a seat left out): who may collect
    /// which car's leaderboard entry once the race is recorded.
    #[must_use]
    pub fn driver_tokens(&self) -> Vec<DriverToken> {
        self.world
            .car_ids()
            .filter_map(|car| {
                let seat = self.seat_of_car(car)?;
                Some(DriverToken {
                    name: self.name_of(SeatId(seat))?.to_owned(),
                    token: self.config.seat_tokens.get(usize::from(seat))?.clone(),
                })
            })
            .collect()
    }

    /// Seats nobody holds.
    #[must_use]
    pub fn free_seats(&self) -> usize {
        self.seats.iter().filter(|s| s.is_none()).count()
    }

    /// The player's name in a seat.
    #[must_use]
    pub fn name_of(&self, seat: SeatId) -> Option<&str> {
        self.seat(seat).map(|s| s.name.as_str())
    }

    /// Takes a player's car out of the race.
    pub fn leave(&mut self, seat: SeatId, reason: RemovalReason) -> Result<()> {
        let Some(taken) = self
            .seats
            .get_mut(usize::from(seat.0))
            .and_then(Option::take)
        else {
            return Err(NetError::Refused {
                reason: format!("seat {} is empty", seat.0),
            });
        };
        self.world
            .remove_car(taken.car)
            .map_err(|e| NetError::Refused {
                reason: e.to_string(),
            })?;
        self.stint_ends(taken.car);
        self.confirm_leave(seat.0, taken.car);
        self.removed
            .push(vec![Value::U8(seat.0), Value::U8(reason as u8)]);
        self.gone.push(seat.0);
        Ok(())
    }

    /// Steps one tick: applies the inputs due, steps the world, collects
    /// contacts and laps. Returns the frames to send when this tick is a
    /// frame tick (every `ticks_per_frame`), else nothing.
    pub fn step(&mut self) -> Result<Vec<Outgoing>> {
        let next = self.tick + 1;
        let burst = self.config.input_burst;
        let core = |e: skidpad_core::CoreError| NetError::Refused {
            reason: e.to_string(),
        };
        let held = held_at(self.start_tick, next);
        for seat in self.seats.iter_mut().flatten() {
            seat.input_allowance = (seat.input_allowance + 2).min(burst);
            let mut due = None;
            while let Some(entry) = seat.scheduled.first_entry() {
                if *entry.key() > next {
                    break;
                }
                due = Some(entry.remove());
            }
            if let Some(Scheduled {
                seq,
                input,
                arrived,
            }) = due
            {
                self.world.set_input(seat.car, input).map_err(core)?;
                seat.applied = Some((seq, next, next - arrived));
            }
            if held {
                self.world.set_input(seat.car, HELD_INPUT).map_err(core)?;
            } else if seat.away_since.is_some()
                && self.world.driver(seat.car).map_err(core)?.is_none()
            {
                // The player is away: the built-in AI drives from the
                // start on (never through the hold).
                self.world
                    .set_driver(seat.car, Some(self.track.clone()))
                    .map_err(core)?;
            }
        }
        self.make_asked_resets();
        let dt = self.dt();
        self.world.step(dt).map_err(core)?;
        self.tick = next;
        self.confirm_step();
        self.collect_events().map_err(core)?;
        if self.tick.is_multiple_of(self.config.ticks_per_frame) {
            self.frames()
        } else {
            Ok(Vec::new())
        }
    }

    /// Each seat's frame for this tick; events are handed out once.
    fn frames(&mut self) -> Result<Vec<Outgoing>> {
        let cars = self.cars_block()?;
        let mut shared = vec![(CARS_KEY, cars)];
        for (key, rows) in [
            (CONTACT_KEY, std::mem::take(&mut self.contacts)),
            (LAP_KEY, std::mem::take(&mut self.laps)),
            (REMOVED_KEY, std::mem::take(&mut self.removed)),
        ] {
            shared.push((key, Block::List(rows)));
        }
        self.gone.clear();
        let (confirmation, states) = self.confirmation_blocks()?;
        let server_time_ms = (u64::from(self.tick) * 1000 / u64::from(self.config.tick_hz)) as u32;
        // Spectators take the frame every player takes, less the player
        // block: the same cars and events, and nothing to predict.
        if self.watched {
            self.watch_frame = Some(encode_frame(
                &self.schema,
                &Frame {
                    tick: self.tick,
                    server_time_ms,
                    blocks: shared.clone(),
                },
            )?);
        }
        let mut out = Vec::new();
        for index in 0..self.seats.len() {
            // An away player has no link to send to.
            let Some(seat) = self.seats[index]
                .as_ref()
                .filter(|s| s.away_since.is_none())
            else {
                continue;
            };
            let (last_input_seq, input_tick, input_wait) = seat.applied.unwrap_or((0, 0, 0));
            let player = PlayerRow {
                last_input_seq,
                input_tick,
                input_wait,
                late_inputs: seat.late_inputs,
                resets: seat.resets,
                state: self
                    .world
                    .snapshot(seat.car)
                    .map_err(|e| NetError::Refused {
                        reason: e.to_string(),
                    })?,
            };
            let mut blocks = shared.clone();
            blocks.insert(
                1,
                (
                    PLAYER_KEY,
                    Block::Indexed(vec![(index as u32, Some(player.to_row()?))]),
                ),
            );
            if seat.predicts_all {
                blocks.extend(confirmation.iter().cloned());
                if seat.needs_first_shot
                    && let Some(states) = &states
                {
                    blocks.push((STATES_KEY, states.clone()));
                }
            }
            let frame = Frame {
                tick: self.tick,
                server_time_ms,
                blocks,
            };
            out.push(Outgoing {
                seat: SeatId(index as u8),
                first_shot: seat.needs_first_shot,
                frame: encode_frame(&self.schema, &frame)?,
            });
        }
        for seat in self.seats.iter_mut().flatten() {
            seat.needs_first_shot = false;
        }
        Ok(out)
    }
}
