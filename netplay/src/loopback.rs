//! A whole online race in one process on a virtual clock: the
//! [`RaceServer`], one [`NetClient`] and [`AiPilot`] per player, and a
//! seeded [`Link`] each way between them. Nothing waits on a real clock,
//! so a race of minutes runs in a second and repeats exactly; the
//! prediction tests and the figures (`examples/netplay_figures.rs`) use it.
//! The same pieces run over real sockets in `service/` and `bot.rs`.

use std::collections::VecDeque;

use skidpad_core::WorldConfig;

use crate::client::NetClient;
use crate::error::Result;
use crate::frame::decode_frame;
use crate::link::{Link, LinkModel};
use crate::messages::{Channel, InputMessage, start_tick_of};
use crate::pilot::AiPilot;
use crate::race_client::RaceClient;
use crate::race_config::{RaceConfig, SeatId};
use crate::race_schema::PlayerRow;
use crate::server::RaceServer;

/// How one player behaves.
#[derive(Clone, Copy, Debug)]
pub struct PlayerPlan {
    /// The server tick it signs in at.
    pub join_at_tick: u32,
    /// Ticks its prediction starts ahead of its first shot.
    pub lead_ticks: u32,
    /// Let the client steer its lead ([`NetClient::ticks_due`]); off, it
    /// predicts exactly one tick per server tick.
    pub adaptive_lead: bool,
    /// Steering added to the AI's at a tick.
    pub nudge: fn(u32) -> f64,
    /// Predict every car with a [`RaceClient`] (the server sends this
    /// player the confirmations); off, only its own with a [`NetClient`].
    pub predict_all: bool,
}

fn no_nudge(_: u32) -> f64 {
    0.0
}

impl Default for PlayerPlan {
    fn default() -> Self {
        PlayerPlan {
            join_at_tick: 0,
            lead_ticks: 17,
            adaptive_lead: false,
            nudge: no_nudge,
            predict_all: false,
        }
    }
}

/// One player of a loopback race.
pub struct LoopbackPlayer {
    plan: PlayerPlan,
    token: String,
    seat: Option<SeatId>,
    client: Option<(NetClient, AiPilot)>,
    race_client: Option<(RaceClient, AiPilot)>,
    up: Link<Vec<u8>>,
    down: Link<(Channel, Vec<u8>)>,
    /// Inputs sent and not yet acknowledged: (seq, virtual ms sent).
    unacked: VecDeque<(u32, f64)>,
    /// Time from sending an input to the frame that acknowledged it, ms.
    pub ack_latencies_ms: Vec<f64>,
    /// Frames received and their bytes.
    pub frames: u64,
    /// Bytes of the frames received.
    pub frame_bytes: u64,
    /// The race's start tick as the last start inform told this player.
    start_tick: Option<u32>,
}

impl LoopbackPlayer {
    /// The seat, once signed in.
    #[must_use]
    pub fn seat(&self) -> Option<SeatId> {
        self.seat
    }

    /// The player's client, once it has its first shot.
    #[must_use]
    pub fn client(&self) -> Option<&NetClient> {
        self.client.as_ref().map(|(c, _)| c)
    }

    /// The player's whole-race client, once it has its first shot (with
    /// [`PlayerPlan::predict_all`]).
    #[must_use]
    pub fn race_client(&self) -> Option<&RaceClient> {
        self.race_client.as_ref().map(|(c, _)| c)
    }
}

/// A race, its players and their links, on a virtual clock.
pub struct LoopbackRace {
    server: RaceServer,
    players: Vec<LoopbackPlayer>,
}

impl LoopbackRace {
    /// A race with one player per plan, the `i`th on seat token `i`, each
    /// link direction seeded apart from `link.seed`.
    pub fn new(config: RaceConfig, link: LinkModel, plans: &[PlayerPlan]) -> Result<LoopbackRace> {
        let server = RaceServer::new(config)?;
        let players = plans
            .iter()
            .enumerate()
            .map(|(i, plan)| {
                let seeded = |k: u64| LinkModel {
                    seed: link.seed.wrapping_add(k),
                    ..link
                };
                LoopbackPlayer {
                    plan: *plan,
                    token: server
                        .config()
                        .seat_tokens
                        .get(i)
                        .cloned()
                        .unwrap_or_default(),
                    seat: None,
                    client: None,
                    race_client: None,
                    up: Link::new(seeded(2 * i as u64 + 1)),
                    down: Link::new(seeded(2 * i as u64 + 2)),
                    unacked: VecDeque::new(),
                    ack_latencies_ms: Vec::new(),
                    frames: 0,
                    frame_bytes: 0,
                    start_tick: Some(0),
                }
            })
            .collect();
        Ok(LoopbackRace { server, players })
    }

    /// The server.
    #[must_use]
    pub fn server(&self) -> &RaceServer {
        &self.server
    }

    /// The players.
    #[must_use]
    pub fn players(&self) -> &[LoopbackPlayer] {
        &self.players
    }

    /// The player's `reset` command, as the server takes it: whether the
    /// server will reset its car at the next tick
    /// ([`RaceServer::ask_reset`]).
    pub fn ask_reset(&mut self, player: usize) -> bool {
        self.players
            .get(player)
            .and_then(|p| p.seat)
            .is_some_and(|seat| self.server.ask_reset(seat))
    }

    /// Virtual time now, ms.
    #[must_use]
    pub fn now_ms(&self) -> f64 {
        self.server.race_time() * 1000.0
    }

    /// Seats the players whose time has come and hands the server the
    /// inputs that have arrived.
    pub fn deliver_inputs(&mut self) -> Result<()> {
        let now = self.now_ms();
        for index in 0..self.players.len() {
            let player = &mut self.players[index];
            if player.seat.is_none() && self.server.tick() >= player.plan.join_at_tick {
                let waiting = self.server.start_tick().is_none();
                let seat = self.server.join(&player.token, "bot")?;
                player.seat = Some(seat);
                if player.plan.predict_all {
                    self.server.set_predicts_all(seat, true)?;
                }
                // As the service does: the newcomer's welcome says where
                // the start stands, and a join that starts the countdown
                // tells everyone seated.
                let started = waiting && self.server.start_tick().is_some();
                self.send_start_inform(|p, i| i == index || (started && p.seat.is_some()), now);
            }
            let player = &mut self.players[index];
            if let Some(seat) = player.seat {
                while let Some(bytes) = player.up.receive(now) {
                    // A refusal is the server's business; it counts them.
                    let _ = self.server.input(seat, InputMessage::decode(&bytes)?);
                }
            }
        }
        Ok(())
    }

    /// Puts the start's game inform on the down links of the players
    /// `to` picks (by player and index).
    fn send_start_inform(&mut self, to: impl Fn(&LoopbackPlayer, usize) -> bool, now: f64) {
        let inform = self.server.start_inform();
        for (index, player) in self.players.iter_mut().enumerate() {
            if to(player, index) {
                player
                    .down
                    .send(now, (Channel::GameInform, inform.clone().into_bytes()));
            }
        }
    }

    /// Steps the server one tick and puts its frames on the links.
    pub fn step_server(&mut self) -> Result<()> {
        let outgoing = self.server.step()?;
        let now = self.now_ms();
        for out in outgoing {
            if let Some(player) = self.players.iter_mut().find(|p| p.seat == Some(out.seat)) {
                let channel = if out.first_shot {
                    Channel::FirstShot
                } else {
                    Channel::Shot
                };
                player.down.send(now, (channel, out.frame));
            }
        }
        Ok(())
    }

    /// Every player takes its frames, then predicts and sends its tick.
    pub fn run_clients(&mut self) -> Result<()> {
        let now = self.now_ms();
        let server = &self.server;
        for player in &mut self.players {
            while let Some((channel, bytes)) = player.down.receive(now) {
                if channel == Channel::GameInform {
                    if let Some(start) = start_tick_of(&bytes) {
                        player.start_tick = start;
                        if let Some((client, _)) = &mut player.client {
                            client.set_start_tick(start);
                        }
                        if let Some((client, _)) = &mut player.race_client {
                            client.set_start_tick(start);
                        }
                    }
                    continue;
                }
                let frame = decode_frame(server.schema(), &bytes)?;
                player.frames += 1;
                player.frame_bytes += bytes.len() as u64 + 1;
                if let Some(acked) =
                    crate::client::player_row(&frame)?.map(|p: PlayerRow| p.last_input_seq)
                {
                    while player.unacked.front().is_some_and(|(seq, _)| *seq <= acked) {
                        let (_, sent) = player.unacked.pop_front().unwrap_or_default();
                        player.ack_latencies_ms.push(now - sent);
                    }
                }
                if player.plan.predict_all {
                    take_whole_race_frame(server, player, channel, &frame)?;
                    continue;
                }
                match (channel, &mut player.client) {
                    (Channel::FirstShot, None) => {
                        let def = server.config().car_definition().map_err(|e| {
                            crate::NetError::Refused {
                                reason: e.to_string(),
                            }
                        })?;
                        let ground = server.world().ground().clone();
                        let mut client = NetClient::new(
                            WorldConfig::default(),
                            ground.clone(),
                            &def,
                            server.dt(),
                            &frame,
                        )?;
                        client.set_max_input_lead(server.config().max_input_lead);
                        client.set_start_tick(player.start_tick);
                        client.advance_to(frame.tick + player.plan.lead_ticks)?;
                        let pilot = AiPilot::new(ground, &def, server.track().clone())?
                            .with_nudge(player.plan.nudge);
                        player.client = Some((client, pilot));
                    }
                    (Channel::Shot, Some((client, _))) => {
                        client.on_frame(&frame)?;
                    }
                    _ => {}
                }
            }
            if let Some((client, pilot)) = &mut player.client {
                let ticks = if player.plan.adaptive_lead {
                    client.ticks_due()
                } else {
                    1
                };
                for _ in 0..ticks {
                    let input = pilot.input(client, server.dt())?;
                    let message = client.drive(input)?;
                    player.unacked.push_back((message.seq, now));
                    player.up.send(now, message.encode().to_vec());
                }
            }
            if let Some((client, pilot)) = &mut player.race_client {
                let ticks = if player.plan.adaptive_lead {
                    client.ticks_due()
                } else {
                    1
                };
                for _ in 0..ticks {
                    // The player's car left the race: nothing to drive.
                    let Some(car) = client.car() else { break };
                    let input = pilot.input_for(client.world(), car, client.tick(), server.dt())?;
                    let message = client.drive(input)?;
                    player.unacked.push_back((message.seq, now));
                    player.up.send(now, message.encode().to_vec());
                }
            }
        }
        Ok(())
    }

    /// One tick of everything.
    pub fn tick(&mut self) -> Result<()> {
        self.deliver_inputs()?;
        self.step_server()?;
        self.run_clients()
    }

    /// Ticks until every player has done `laps` laps or `max_ticks` pass;
    /// true when they all finished.
    pub fn run_laps(&mut self, laps: usize, max_ticks: u32) -> Result<bool> {
        for _ in 0..max_ticks {
            self.tick()?;
            if self.all_done(laps) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn all_done(&self, laps: usize) -> bool {
        self.players.iter().all(|p| {
            p.seat
                .and_then(|s| self.server.car_of(s))
                .and_then(|car| self.server.laps_of(car))
                .is_some_and(|done| done >= laps)
        })
    }
}

/// A whole-race client's frame: its first shot builds the client, the
/// others confirm (a desync is kept in the client's stats).
fn take_whole_race_frame(
    server: &RaceServer,
    player: &mut LoopbackPlayer,
    channel: Channel,
    frame: &crate::Frame,
) -> Result<()> {
    match (channel, &mut player.race_client) {
        (Channel::FirstShot, None) => {
            let def = server
                .config()
                .car_definition()
                .map_err(|e| crate::NetError::Refused {
                    reason: e.to_string(),
                })?;
            let ground = server.world().ground().clone();
            let mut client = RaceClient::new(
                WorldConfig::default(),
                ground.clone(),
                &def,
                server.dt(),
                server.config().ticks_per_frame,
                frame,
            )?;
            client.set_max_input_lead(server.config().max_input_lead);
            client.set_start_tick(player.start_tick);
            client.advance_to(frame.tick + player.plan.lead_ticks)?;
            let pilot =
                AiPilot::new(ground, &def, server.track().clone())?.with_nudge(player.plan.nudge);
            player.race_client = Some((client, pilot));
        }
        (Channel::Shot, Some((client, _))) => {
            client.on_frame(frame)?;
        }
        _ => {}
    }
    Ok(())
}
