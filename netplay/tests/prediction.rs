//! Prediction against the authoritative server, in one process, through
//! the seeded link emulator at 100 ms ± 20 ms each way: with the cars kept
//! apart every checked tick of every client equals the server's bits; with
//! contact between two players the mispredictions are counted and named,
//! the corrections stay bounded and the race goes on.
//!
//! The bots drive as the AI would (`AiPilot`: the AI driving a copy of
//! the prediction), one input a tick with a fixed lead.

use skidpad_core::race::GridLayout;
use skidpad_core::{CarId, WorldConfig};
use skidpad_netplay::{
    AiPilot, Channel, Frame, InputMessage, Link, LinkModel, NetClient, Outgoing, RaceConfig,
    RaceServer, SeatId, decode_frame,
};

const MS_PER_TICK: f64 = 1000.0 / 60.0;
/// Ticks the client runs ahead of the first shot it receives: two worst
/// one-way delays (120 ms) in ticks, and two to spare.
const LEAD_TICKS: u32 = 17;

/// Steering a bot adds to the AI's at a tick.
type Nudge = fn(u32) -> f64;

struct Bot {
    token: String,
    join_at_tick: u32,
    seat: Option<SeatId>,
    client: Option<(NetClient, AiPilot)>,
    /// Steering added to the AI's, for the contact test.
    nudge: Nudge,
    up: Link<Vec<u8>>,
    down: Link<(Channel, Vec<u8>)>,
}

impl Bot {
    fn new(server: &RaceServer, index: usize, join_at_tick: u32, nudge: Nudge) -> Bot {
        let link = |seed: u64| LinkModel {
            seed,
            ..LinkModel::default()
        };
        Bot {
            token: server.config().seat_tokens[index].clone(),
            join_at_tick,
            seat: None,
            client: None,
            nudge,
            up: Link::new(link(2 * index as u64 + 1)),
            down: Link::new(link(2 * index as u64 + 2)),
        }
    }

    /// Takes the frames due, then (once seated) predicts and sends a tick.
    fn frame_tick(&mut self, server: &RaceServer, now: f64) {
        while let Some((channel, bytes)) = self.down.receive(now) {
            let frame: Frame = decode_frame(server.schema(), &bytes).unwrap();
            match (channel, &mut self.client) {
                (Channel::FirstShot, None) => {
                    let def = skidpad_core::preset(&server.config().car).unwrap();
                    let ground = server.world().ground().clone();
                    let mut client =
                        NetClient::new(WorldConfig::default(), ground, &def, server.dt(), &frame)
                            .unwrap();
                    client.advance_to(frame.tick + LEAD_TICKS).unwrap();
                    let pilot = AiPilot::new(
                        server.world().ground().clone(),
                        &def,
                        server.track().clone(),
                    )
                    .unwrap()
                    .with_nudge(self.nudge);
                    self.client = Some((client, pilot));
                }
                (Channel::Shot, Some((client, _))) => {
                    client.on_frame(&frame).unwrap();
                }
                (channel, _) => panic!("unexpected {channel:?}"),
            }
        }
        if let Some((client, pilot)) = &mut self.client {
            let input = pilot.input(client, server.dt()).unwrap();
            let message = client.drive(input).unwrap();
            assert!(self.up.send(now, message.encode().to_vec()));
        }
    }
}

struct RaceOutcome {
    server: RaceServer,
    bots: Vec<Bot>,
}

/// Runs a race until every seated car has done `laps` laps (or `max_ticks`).
fn race(config: RaceConfig, joins: &[(u32, Nudge)], laps: usize, max_ticks: u32) -> RaceOutcome {
    let mut server = RaceServer::new(config).unwrap();
    let mut bots: Vec<Bot> = joins
        .iter()
        .enumerate()
        .map(|(i, &(at, nudge))| Bot::new(&server, i, at, nudge))
        .collect();
    for _ in 0..max_ticks {
        let now = f64::from(server.tick()) * MS_PER_TICK;
        for bot in &mut bots {
            if bot.seat.is_none() && server.tick() >= bot.join_at_tick {
                bot.seat = Some(server.join(&bot.token, "bot").unwrap());
            }
            if let Some(seat) = bot.seat {
                while let Some(bytes) = bot.up.receive(now) {
                    server
                        .input(seat, InputMessage::decode(&bytes).unwrap())
                        .unwrap();
                }
            }
        }
        let outgoing: Vec<Outgoing> = server.step().unwrap();
        let now = f64::from(server.tick()) * MS_PER_TICK;
        for out in outgoing {
            let bot = bots.iter_mut().find(|b| b.seat == Some(out.seat)).unwrap();
            let channel = if out.first_shot {
                Channel::FirstShot
            } else {
                Channel::Shot
            };
            assert!(bot.down.send(now, (channel, out.frame)));
        }
        for bot in &mut bots {
            bot.frame_tick(&server, now);
        }
        let done = bots.iter().all(|b| {
            b.seat
                .and_then(|s| server.car_of(s))
                .is_some_and(|car| server_laps(&server, car) >= laps)
        });
        if done {
            break;
        }
    }
    RaceOutcome { server, bots }
}

fn server_laps(server: &RaceServer, car: CarId) -> usize {
    server.laps_of(car).unwrap_or(0)
}

fn tokens(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("seat-token-{i}")).collect()
}

fn no_nudge(_: u32) -> f64 {
    0.0
}

#[test]
fn apart_every_checked_tick_equals_the_servers_bits() {
    // One car per row, 60 m apart: the same car and AI keep the gap.
    let config = RaceConfig {
        seat_tokens: tokens(2),
        grid: GridLayout {
            columns: 1,
            row_spacing: 60.0,
            ..GridLayout::default()
        },
        laps: 3,
        ..RaceConfig::default()
    };
    // The second player joins a running race, two seconds in.
    let outcome = race(config, &[(0, no_nudge), (120, no_nudge)], 3, 60 * 400);
    let server = &outcome.server;
    for bot in &outcome.bots {
        let car = server.car_of(bot.seat.unwrap()).unwrap();
        assert!(server_laps(server, car) >= 3, "the race did not finish");
        let stats = bot.client.as_ref().unwrap().0.stats();
        assert!(
            stats.checked > 3 * 60 * 30 / 2,
            "only {} states checked",
            stats.checked
        );
        assert_eq!(stats.mispredicted, 0, "mispredicted: {:?}", stats.last);
    }
    assert_eq!(server.stats().late_inputs, 0);
    assert_eq!(server.stats().refused_inputs, 0);
    assert!(server.world().contacts().is_empty());
}

/// Bot 1 (on the right of the front row) steers left into bot 0 for a
/// second and a half after the start, then races on. (A negative steer
/// input turns left: `CarInput::steer` is positive to the right.)
fn into_the_neighbour(tick: u32) -> f64 {
    if (30..120).contains(&tick) { -0.6 } else { 0.0 }
}

#[test]
fn with_contact_mispredictions_are_counted_and_named_and_the_race_goes_on() {
    let config = RaceConfig {
        seat_tokens: tokens(2),
        grid: GridLayout {
            column_spacing: 3.0,
            ..GridLayout::default()
        },
        laps: 1,
        ..RaceConfig::default()
    };
    let outcome = race(
        config,
        &[(0, no_nudge), (0, into_the_neighbour)],
        1,
        60 * 200,
    );
    let server = &outcome.server;
    let mut mispredicted = 0;
    for bot in &outcome.bots {
        let car = server.car_of(bot.seat.unwrap()).unwrap();
        assert!(
            server_laps(server, car) >= 1,
            "a car did not finish its lap after the contact"
        );
        let stats = bot.client.as_ref().unwrap().0.stats();
        mispredicted += stats.mispredicted;
        eprintln!(
            "seat {:?}: {} checked, {} mispredicted, largest correction {:.3} m, last {:?}",
            bot.seat,
            stats.checked,
            stats.mispredicted,
            stats.largest_correction,
            stats
                .last
                .as_ref()
                .map(|m| (m.tick, m.fields.iter().map(|f| f.field).collect::<Vec<_>>()))
        );
        if let Some(miss) = &stats.last {
            assert!(!miss.fields.is_empty(), "a misprediction names its fields");
            assert!(
                miss.fields
                    .iter()
                    .any(|f| f.field.starts_with("velocity") || f.field.starts_with("position")),
                "{miss:?}"
            );
            // Contact only happens early: the prediction is exact again
            // long before the end.
            assert!(
                miss.tick < 60 * 20,
                "still mispredicting at tick {}",
                miss.tick
            );
        }
        assert!(
            stats.largest_correction < 3.0,
            "a correction of {} m",
            stats.largest_correction
        );
    }
    assert!(server.stats().contacts > 0, "the cars never touched");
    assert!(mispredicted > 0, "contact must show as mispredictions");
}
