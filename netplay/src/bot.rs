//! A bot player over a real WebSocket: signs in, predicts its car with
//! [`NetClient`](crate::NetClient) (or every car with
//! [`RaceClient`](crate::RaceClient): `predict`), drives it with
//! [`AiPilot`], answers pings, and reports what the prediction and the
//! server did. The tests race bots against the
//! real server process, and `skidpad-netplay bot` runs one by hand.
//!
//! Known limit: without `preloaded`, the bot builds the race's track and
//! ground when its first shot arrives, on its event loop. A large own
//! track in a debug build takes seconds; the prediction then starts from a
//! first shot that old, and its inputs stay late for the rest of the race.
//! A game loads its track before it joins (`preloaded`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use skidpad_core::Track;

use tokio_tungstenite::tungstenite::Message;

use crate::client::Misprediction;
use crate::error::{NetError, Result};
use crate::frame::{Block, decode_frame};
use crate::interpolation::{InterpolationSettings, Interpolator};
use crate::messages::{Channel, start_tick_of};
use crate::payloads::{AuthAnswer, ClientConfig, MapData, Prediction, message};
use crate::pilot::AiPilot;
use crate::predictor::Predictor;
use crate::race_client::RaceStats;
use crate::race_config::held_at;
use crate::race_schema::{CARS_KEY, LAP_KEY};
use crate::schema::Schema;

/// What a bot does.
#[derive(Clone, Debug)]
pub struct BotOptions {
    /// The race's WebSocket URL (`ws://127.0.0.1:PORT/race`).
    pub url: String,
    /// Seat token.
    pub token: String,
    /// Name to race under.
    pub name: String,
    /// Laps to drive before leaving.
    pub laps: u32,
    /// Ticks the prediction runs ahead of the first frame: enough to cover
    /// the round trip, or inputs arrive late.
    pub lead_ticks: u32,
    /// Simulated seconds per wall-clock second; the server's pace.
    pub pace: f64,
    /// Answer pings (off: a test of the missed-ping kick).
    pub answer_pings: bool,
    /// Steering added to the AI's at a tick (a test's way to force
    /// contact).
    pub nudge: fn(u32) -> f64,
    /// Gives up after this long.
    pub timeout: Duration,
    /// Sends the `reset` command once, when its prediction reaches this
    /// tick (a test's).
    pub reset_at_tick: Option<u32>,
    /// Sends the `reset` command when its car has been slower than 1 m/s
    /// this long, s (a car wedged in a pack or a barrier).
    pub reset_when_stuck_s: Option<f64>,
    /// A track and its ground built before joining, as a game loads the
    /// race's track from its lobby: used when it is the track the race
    /// names (by fingerprint), so joining builds nothing.
    pub preloaded: Option<(Arc<Track>, Arc<dyn skidpad_core::Ground>)>,
    /// How long the bot tries to sign in again (once a second) after its
    /// connection ends without a close frame while it races, to take its
    /// seat back within the server's grace (netplay/FORMAT.md, "a dropped
    /// link"); zero gives up at once.
    pub reconnect_for: Duration,
    /// Which cars it predicts: its own (the default) or every car from
    /// the server's confirmations.
    pub predict: Prediction,
}

fn no_nudge(_: u32) -> f64 {
    0.0
}

impl Default for BotOptions {
    fn default() -> Self {
        BotOptions {
            url: "ws://127.0.0.1:8789/race".into(),
            token: String::new(),
            name: "bot".into(),
            laps: 3,
            lead_ticks: 20,
            pace: 1.0,
            answer_pings: true,
            nudge: no_nudge,
            timeout: Duration::from_secs(600),
            reset_at_tick: None,
            reset_when_stuck_s: None,
            preloaded: None,
            reconnect_for: Duration::from_secs(25),
            predict: Prediction::Own,
        }
    }
}

/// How a bot's race went.
#[derive(Clone, Debug, Default)]
pub struct BotReport {
    /// Its seat.
    pub seat: u8,
    /// Laps it completed, by the server's lap events.
    pub laps: u32,
    /// Server states compared with the prediction.
    pub checked: u64,
    /// Of those, how many differed with the same inputs at the same ticks.
    pub mispredicted: u64,
    /// States corrected because an input came late.
    pub late_corrections: u64,
    /// `reset` commands it sent.
    pub resets_sent: u32,
    /// States corrected because the server reset its car.
    pub reset_corrections: u64,
    /// The last misprediction.
    pub last_miss: Option<Misprediction>,
    /// Largest correction of the drawn position, m.
    pub largest_correction: f64,
    /// Frames received.
    pub frames: u64,
    /// Bytes of frames received.
    pub frame_bytes: u64,
    /// The close code and reason, if the server closed the connection.
    pub closed: Option<(u16, String)>,
    /// The last tech inform, if any.
    pub tech_inform: Option<String>,
    /// Server time of its first shot, ms.
    pub first_shot_ms: Option<u32>,
    /// Server time of the newest frame it took, ms.
    pub last_frame_ms: Option<u32>,
    /// For each other seat, the server time at which this bot first drew
    /// its car (interpolated at server time − delay), ms.
    pub first_drawn_ms: BTreeMap<u8, f64>,
    /// The longest wall-clock wait between two frames this bot received,
    /// ms: how late a frame can have come by the clock the bot draws
    /// with, which a busy machine stretches.
    pub longest_frame_gap_ms: f64,
    /// The game informs (channel 7) received, as JSON text.
    pub game_informs: Vec<String>,
    /// The chat lines (channel 15) received, as JSON text.
    pub chat: Vec<String>,
    /// Times the bot signed in again after a dropped link. The prediction
    /// figures above are those of the last connection (each starts from
    /// its own first shot), and laps the AI drove while the bot was away
    /// are not counted: their events went to no one.
    pub reconnects: u32,
    /// With `predict` all: how the whole-race prediction fared (the last
    /// connection's, up to the bot's last lap).
    pub race: Option<RaceStats>,
    /// With `predict` all: first shots it asked for again after a frame
    /// it could not take (a lost frame) or a desync.
    pub resyncs: u32,
    /// With `predict` all: desyncs found, over every connection (each
    /// followed by a resync).
    pub desyncs: u32,
    /// With `predict` all: each desynced car's fields that differed from
    /// the first shot after the desync (`RaceClient::desync_fields`).
    pub desync_fields: Vec<(u8, Vec<skidpad_replay::FieldDiff>)>,
}

fn io(e: impl std::fmt::Display) -> NetError {
    NetError::Refused {
        reason: format!("connection: {e}"),
    }
}

/// Races one bot to its laps (or until the server closes the connection,
/// or the timeout).
pub async fn run_bot(options: BotOptions) -> Result<BotReport> {
    match tokio::time::timeout(options.timeout, race(&options)).await {
        Ok(report) => report,
        Err(_) => Err(io(format!("no result within {:?}", options.timeout))),
    }
}

/// Signs in again after a dropped link: tries once a second for
/// `options.reconnect_for`.
async fn reconnect(options: &BotOptions) -> Option<(Sink, Stream)> {
    let until = Instant::now() + options.reconnect_for;
    while Instant::now() < until {
        tokio::time::sleep(Duration::from_secs(1)).await;
        if let Ok((ws, _)) = tokio_tungstenite::connect_async(options.url.as_str()).await {
            return Some(ws.split());
        }
    }
    None
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;
type Sink = futures_util::stream::SplitSink<Socket, Message>;
type Stream = futures_util::stream::SplitStream<Socket>;

async fn race(options: &BotOptions) -> Result<BotReport> {
    let (ws, _) = tokio_tungstenite::connect_async(options.url.as_str())
        .await
        .map_err(io)?;
    let (mut sink, mut stream) = ws.split();
    let mut report = BotReport::default();
    let mut schema: Option<Schema> = None;
    let mut map: Option<MapData> = None;
    let mut client: Option<(Predictor, AiPilot)> = None;
    // A whole-race client that desynced, until the first shot it asked for.
    let mut gone_wrong: Option<Predictor> = None;
    let mut ticks_per_frame = 2;
    // The race's start as the last countdown inform told it.
    let mut start_tick = Some(0);
    let mut dt = 1.0 / 60.0;
    let mut max_input_lead = crate::RaceConfig::default().max_input_lead;
    let mut drawn: Option<Interpolator> = None;
    // The newest frame's server time and when it came: the bot's clock of
    // the server's time.
    let mut clock: Option<(f64, Instant)> = None;
    // Once its laps are done the bot stays for the finish's game inform,
    // a second at most, then leaves.
    let mut finished_at: Option<Instant> = None;
    let mut last_frame_at: Option<Instant> = None;
    let mut ticker = tokio::time::interval(Duration::from_secs_f64(dt / options.pace));
    // Ticks its predicted car has been slower than 1 m/s.
    let mut stuck_ticks = 0_u32;
    loop {
        if let Some(at) = finished_at
            && (report.game_informs.iter().any(|g| g.starts_with("[2"))
                || at.elapsed() > Duration::from_secs(1))
        {
            let _ = sink.send(Message::Close(None)).await;
            return Ok(report);
        }
        tokio::select! {
            incoming = stream.next() => {
                let bytes = match incoming {
                    Some(Ok(Message::Binary(bytes))) => bytes,
                    Some(Ok(Message::Close(frame))) => {
                        report.closed = frame.map(|f| (u16::from(f.code), f.reason.to_string()));
                        return Ok(report);
                    }
                    Some(Ok(_)) => continue,
                    // The link dropped (no close frame) while racing: the
                    // seat is held for the server's grace, so sign in again;
                    // the prediction starts afresh from the new first shot.
                    ended if client.is_some() && finished_at.is_none() && !options.reconnect_for.is_zero() => {
                        match reconnect(options).await {
                            Some((again_sink, again_stream)) => {
                                (sink, stream) = (again_sink, again_stream);
                                client = None;
                                report.reconnects += 1;
                                continue;
                            }
                            None => match ended {
                                Some(Err(e)) => return Err(io(e)),
                                _ => return Ok(report),
                            },
                        }
                    }
                    Some(Err(e)) => return Err(io(e)),
                    None => return Ok(report),
                };
                let (&channel, payload) = bytes.split_first().ok_or_else(|| io("an empty message"))?;
                match Channel::from_byte(channel) {
                    Some(Channel::Config) => {
                        let config: ClientConfig = serde_json::from_slice(payload).map_err(io)?;
                        schema = Some(Schema::from_json(&config.schema.to_string())?);
                        dt = 1.0 / f64::from(config.tick_hz);
                        max_input_lead = config.max_input_lead;
                        ticks_per_frame = config.ticks_per_frame;
                        ticker = tokio::time::interval(Duration::from_secs_f64(dt / options.pace));
                        let settings = InterpolationSettings {
                            delay_ms: config.interpolation_delay_ms,
                            max_frame_age_ms: config.max_frame_age_ms,
                        };
                        drawn = schema.clone().map(|s| Interpolator::new(s, settings));
                    }
                    Some(Channel::Auth) => {
                        let answer = AuthAnswer { token: options.token.clone(), name: options.name.clone(), predict: options.predict };
                        let m = message(Channel::Auth, serde_json::to_string(&answer).map_err(io)?.as_bytes());
                        let _ = sink.send(Message::Binary(m.into())).await;
                    }
                    Some(Channel::Map) => map = Some(serde_json::from_slice(payload).map_err(io)?),
                    Some(Channel::FirstShot) => {
                        let (Some(schema), Some(map)) = (&schema, &map) else {
                            return Err(io("a first shot before the config and the map"));
                        };
                        let frame = decode_frame(schema, payload)?;
                        if let Some(Predictor::All(mut old)) = gone_wrong.take() {
                            for (seat, fields) in old.desync_fields(&frame).unwrap_or_default() {
                                let named: Vec<&str> = fields.iter().map(|f| f.field).collect();
                                tracing::error!(seat, ?named, "a desync: the car's fields that differ");
                                report.desync_fields.push((seat, fields));
                            }
                        }
                        let core = |e: skidpad_core::CoreError| NetError::Refused { reason: e.to_string() };
                        let track = Arc::new(map.race_track().map_err(core)?);
                        let (track, ground): (Arc<Track>, Arc<dyn skidpad_core::Ground>) = match &options.preloaded {
                            Some((loaded, ground)) if loaded.fingerprint() == track.fingerprint() => (loaded.clone(), ground.clone()),
                            _ => {
                                let ground = map.race_ground(&track).map_err(core)?;
                                (track, ground)
                            }
                        };
                        let def = map.race_car().map_err(core)?;
                        let mut c = Predictor::new(options.predict, ground.clone(), &def, dt, ticks_per_frame, &frame)?;
                        c.set_max_input_lead(max_input_lead);
                        c.set_start_tick(start_tick);
                        c.advance_to(frame.tick + options.lead_ticks)?;
                        let pilot = AiPilot::new(ground, &def, track)?.with_nudge(options.nudge);
                        report.seat = map.seat.ok_or_else(|| io("signed in as a spectator, not a player"))?;
                        report.first_shot_ms = Some(frame.server_time_ms);
                        if let Some(drawn) = &mut drawn {
                            drawn.first_shot(&frame);
                        }
                        clock = Some((f64::from(frame.server_time_ms), Instant::now()));
                        client = Some((c, pilot));
                        ticker.reset();
                    }
                    Some(Channel::Shot) => {
                        let (Some(schema), Some((c, _))) = (&schema, &mut client) else { continue };
                        let frame = match decode_frame(schema, payload) {
                            Ok(frame) => frame,
                            // Seed 001: a frame of another format version is dropped.
                            Err(NetError::Version { .. }) => continue,
                            Err(e) => return Err(e),
                        };
                        report.frames += 1;
                        if let Some(previous) = last_frame_at.replace(Instant::now()) {
                            let gap = previous.elapsed().as_secs_f64() * 1000.0;
                            report.longest_frame_gap_ms = report.longest_frame_gap_ms.max(gap);
                        }
                        report.frame_bytes += bytes.len() as u64;
                        report.last_frame_ms = Some(frame.server_time_ms);
                        // A lost frame or a desync: the whole race starts
                        // again from a first shot, which the command asks for.
                        let mut desynced = false;
                        let went_wrong = match c.on_frame(&frame) {
                            Ok(true) => {
                                report.desyncs += 1;
                                desynced = true;
                                Some("a desync".to_owned())
                            }
                            Ok(false) => None,
                            Err(e) if matches!(c, Predictor::All(_)) => Some(e.to_string()),
                            Err(e) => return Err(e),
                        };
                        if let Some(why) = went_wrong {
                            tracing::warn!("asking for a first shot again: {why}");
                            report.resyncs += 1;
                            let command = format!("{}:down:resync", report.resets_sent + report.resyncs);
                            let _ = sink.send(Message::Binary(message(Channel::Shot, command.as_bytes()).into())).await;
                            // A client that desynced names the fields from
                            // the first shot that comes.
                            gone_wrong = client.take().filter(|_| desynced).map(|(c, _)| c);
                            continue;
                        }
                        if drawn.as_mut().is_some_and(|d| d.push(&frame)) {
                            clock = Some((f64::from(frame.server_time_ms), Instant::now()));
                        }
                        if let Some((_, Block::List(laps))) = frame.blocks.iter().find(|(k, _)| *k == LAP_KEY) {
                            let mine = laps.iter().filter(|row| row[0] == crate::Value::U8(report.seat)).count();
                            report.laps += mine as u32;
                        }
                        if report.laps >= options.laps && finished_at.is_none() {
                            finished_at = Some(Instant::now());
                            let c = match c {
                                Predictor::Own(c) => c,
                                Predictor::All(c) => {
                                    report.race = Some(c.stats().clone());
                                    continue;
                                }
                            };
                            let stats = c.stats();
                            report.checked = stats.checked;
                            report.mispredicted = stats.mispredicted;
                            report.late_corrections = stats.late_corrections;
                            report.reset_corrections = stats.reset_corrections;
                            report.last_miss = stats.last.clone();
                            report.largest_correction = stats.largest_correction;
                        }
                    }
                    Some(Channel::GameInform) => {
                        if let Some(start) = start_tick_of(payload) {
                            start_tick = start;
                            if let Some((c, _)) = &mut client {
                                c.set_start_tick(start);
                            }
                        }
                        report.game_informs.push(String::from_utf8_lossy(payload).into_owned());
                    }
                    Some(Channel::Chat) => report.chat.push(String::from_utf8_lossy(payload).into_owned()),
                    Some(Channel::Ping) if options.answer_pings => {
                        let _ = sink.send(Message::Binary(message(Channel::Pong, payload).into())).await;
                    }
                    Some(Channel::TechInform) => report.tech_inform = Some(String::from_utf8_lossy(payload).into_owned()),
                    Some(Channel::AuthResult) if payload != b"null" => {
                        report.tech_inform = Some(String::from_utf8_lossy(payload).into_owned());
                    }
                    _ => {}
                }
            }
            _ = ticker.tick() => {
                let Some((c, pilot)) = &mut client else { continue };
                if let (Some(drawn), Some((at_ms, at))) = (&drawn, clock) {
                    let now_ms = at_ms + at.elapsed().as_secs_f64() * 1000.0 * options.pace;
                    let drawn_at = now_ms - drawn.settings().delay_ms;
                    for (key, id) in drawn.sample(now_ms).keys() {
                        if *key == CARS_KEY && *id != u32::from(report.seat) {
                            report.first_drawn_ms.entry(*id as u8).or_insert(drawn_at);
                        }
                    }
                }
                if wants_reset(options, c, &mut stuck_ticks, report.resets_sent, dt) {
                    report.resets_sent += 1;
                    // Seed 001's command string; its seq counts the bot's commands.
                    let command = format!("{}:down:reset", report.resets_sent + report.resyncs);
                    let _ = sink.send(Message::Binary(message(Channel::Shot, command.as_bytes()).into())).await;
                }
                for _ in 0..c.ticks_due() {
                    let Some(car) = c.car() else { break };
                    let input = pilot.input_for(c.world(), car, c.tick(), dt)?;
                    let m = c.drive(input)?;
                    let bytes = message(Channel::Input, &m.encode());
                    // A failed send ends nothing by itself: the stream then
                    // yields the server's close frame, which the report keeps.
                    let _ = sink.send(Message::Binary(bytes.into())).await;
                }
            }
        }
    }
}

/// Whether the bot asks for a reset now: at its `reset_at_tick` (once), or
/// stuck for `reset_when_stuck_s` (counted from its predicted car, and
/// counted again from zero after asking).
fn wants_reset(
    options: &BotOptions,
    client: &Predictor,
    stuck_ticks: &mut u32,
    sent: u32,
    dt: f64,
) -> bool {
    let speed = client
        .car()
        .and_then(|car| client.world().pose(car).ok())
        .map_or(0.0, |p| p.speed.abs());
    // A car held on the grid before the start is not stuck.
    let held = held_at(client.start_tick(), client.tick());
    *stuck_ticks = if speed < 1.0 && !held {
        *stuck_ticks + 1
    } else {
        0
    };
    let at_tick = options
        .reset_at_tick
        .is_some_and(|t| sent == 0 && client.tick() >= t);
    let stuck = options
        .reset_when_stuck_s
        .is_some_and(|s| f64::from(*stuck_ticks) * dt >= s);
    if at_tick || stuck {
        *stuck_ticks = 0;
    }
    at_tick || stuck
}
