//! The race's own thread: takes commands from the connections, steps the
//! [`RaceServer`] at its tick rate against an absolute schedule (so no
//! drift builds up), and hands each seat its frames, HUD panel and
//! standings. Physics never waits on a socket: a seat whose queue is full
//! misses that frame.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::{mpsc, oneshot};

use crate::messages::{Channel, InputMessage};
use crate::race_config::{SeatId, SeatStanding};
use crate::race_schema::RemovalReason;
use crate::server::RaceServer;
use crate::service::payloads::{MapData, json_message, message};
use crate::service::recording::Recording;

/// Messages waiting for one connection; a slow reader beyond this misses
/// frames rather than holding memory.
const OUTBOUND_QUEUE: usize = 256;

/// Ticks the race may run back to back to catch up with its schedule.
const MAX_CATCH_UP_TICKS: u32 = 5;

/// What a connection asks of the race.
pub(crate) enum RaceCommand {
    Join {
        token: String,
        name: String,
        reply: oneshot::Sender<std::result::Result<Joined, JoinRefusal>>,
    },
    Chat {
        seat: SeatId,
        text: String,
    },
    Leave {
        seat: SeatId,
        reason: RemovalReason,
    },
    Input {
        seat: SeatId,
        message: InputMessage,
    },
    Latency {
        seat: SeatId,
        ms: f64,
    },
}

/// Why a sign-in was turned away.
pub(crate) enum JoinRefusal {
    /// Every seat is taken (4002).
    Full,
    /// The token, or its seat (4001).
    Denied(String),
}

/// A seat taken: its queue of messages and the race it joined.
pub(crate) struct Joined {
    pub seat: SeatId,
    pub outbound: mpsc::Receiver<Outbound>,
    pub map: MapData,
}

/// What the race sends a connection.
pub(crate) enum Outbound {
    /// A whole message, channel byte included.
    Message(Vec<u8>),
    /// An input the race refused, and why.
    Refused(String),
}

struct SeatLink {
    name: String,
    queue: mpsc::Sender<Outbound>,
    latency_ms: Option<f64>,
    /// The HUD as last sent.
    panel: BTreeMap<&'static str, String>,
    /// The standings row as last sent.
    stat_row: Option<serde_json::Value>,
    /// The finish was announced.
    finish_sent: bool,
}

/// Runs the race until every command sender is gone. `pace` is simulated
/// seconds per wall-clock second.
pub(crate) fn run(
    mut race: RaceServer,
    mut commands: mpsc::Receiver<RaceCommand>,
    pace: f64,
    mut recording: Option<Recording>,
    stop: Arc<AtomicBool>,
) {
    let mut seats: BTreeMap<u8, SeatLink> = BTreeMap::new();
    let tick_wall = Duration::from_secs_f64(race.dt() / pace);
    let mut start = Instant::now();
    let mut ticks: u32 = 0;
    loop {
        loop {
            match commands.try_recv() {
                Ok(command) => handle(&mut race, &mut seats, &mut recording, command),
                Err(mpsc::error::TryRecvError::Empty) => break,
                Err(mpsc::error::TryRecvError::Disconnected) => {
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
            }
        }
        if stop.load(Ordering::Relaxed) {
            if let Some(recording) = &mut recording {
                recording.finish(&race);
            }
            return;
        }
        match race.step() {
            Ok(frames) => {
                let frame_tick = !frames.is_empty();
                for out in frames {
                    if let Some(link) = seats.get(&out.seat.0) {
                        let channel = if out.first_shot {
                            Channel::FirstShot
                        } else {
                            Channel::Shot
                        };
                        let _ = link
                            .queue
                            .try_send(Outbound::Message(message(channel, &out.frame)));
                    }
                }
                if frame_tick {
                    send_huds(&race, &mut seats);
                }
                if let Some(recording) = &mut recording {
                    recording.capture(&race);
                }
            }
            Err(e) => {
                tracing::error!("the race stopped: {e}");
                return;
            }
        }
        ticks += 1;
        let (due, now) = (tick_wall * ticks, start.elapsed());
        if let Some(wait) = due.checked_sub(now) {
            std::thread::sleep(wait);
        } else if now - due > tick_wall * MAX_CATCH_UP_TICKS {
            // Too far behind (a slow machine, a paused process): drop the
            // debt instead of racing through it, which would make every
            // client's inputs late at once.
            start += now - due;
        }
    }
}

fn handle(
    race: &mut RaceServer,
    seats: &mut BTreeMap<u8, SeatLink>,
    recording: &mut Option<Recording>,
    command: RaceCommand,
) {
    match command {
        RaceCommand::Join { token, name, reply } => {
            if race.free_seats() == 0 {
                let _ = reply.send(Err(JoinRefusal::Full));
                return;
            }
            // A segment ends with the cars it started with; the next one
            // starts with the newcomer.
            if let Some(recording) = recording {
                recording.finish(race);
            }
            let joined = match race.join(&token, &name) {
                Ok(seat) => seat_link(race, seats, seat),
                Err(e) => Err(JoinRefusal::Denied(e.to_string())),
            };
            if let Some(recording) = recording {
                recording.restart(race);
            }
            let _ = reply.send(joined);
        }
        RaceCommand::Chat { seat, text } => {
            if let Some(name) = seats.get(&seat.0).map(|l| l.name.clone()) {
                let line = json_message(Channel::Chat, &json!([text, name, 0]));
                for link in seats.values() {
                    let _ = link.queue.try_send(Outbound::Message(line.clone()));
                }
            }
        }
        RaceCommand::Leave { seat, reason } => {
            if race.leave(seat, reason).is_ok() {
                if race.world().car_count() == 0
                    && let Some(recording) = recording
                {
                    recording.finish(race);
                }
                let stats = race.stats();
                tracing::info!(
                    seat = seat.0,
                    ?reason,
                    late_inputs = stats.late_inputs,
                    refused_inputs = stats.refused_inputs,
                    contacts = stats.contacts,
                    "a player left"
                );
                seats.remove(&seat.0);
                let gone = json!([[[seat.0, 0, null, 0]], []]);
                for link in seats.values() {
                    let _ = link
                        .queue
                        .try_send(Outbound::Message(json_message(Channel::Stat, &gone)));
                }
            }
        }
        RaceCommand::Input { seat, message } => {
            if let Err(e) = race.input(seat, message)
                && let Some(link) = seats.get(&seat.0)
            {
                let _ = link.queue.try_send(Outbound::Refused(e.to_string()));
            }
        }
        RaceCommand::Latency { seat, ms } => {
            if let Some(link) = seats.get_mut(&seat.0) {
                link.latency_ms = Some(ms);
            }
        }
    }
}

/// Opens a seated player's queue with the standings so far and the race's
/// state (seed 001's game code 1: on).
fn seat_link(
    race: &RaceServer,
    seats: &mut BTreeMap<u8, SeatLink>,
    seat: SeatId,
) -> std::result::Result<Joined, JoinRefusal> {
    let (queue, outbound) = mpsc::channel(OUTBOUND_QUEUE);
    let config = race.config();
    let map = MapData {
        track: config.track.clone(),
        car: config.car.clone(),
        laps: config.laps,
        seat: seat.0,
    };
    let name = race.name_of(seat).unwrap_or_default().to_owned();
    // The standings' head and every current row, then deltas.
    let head = json!([[0, ["name", "position", "laps", "best", "latency"], 0]]);
    let rows: Vec<_> = seats.values().filter_map(|s| s.stat_row.clone()).collect();
    for m in [
        json_message(Channel::Stat, &json!([rows, head, true])),
        json_message(Channel::GameInform, &json!([1])),
    ] {
        let _ = queue.try_send(Outbound::Message(m));
    }
    seats.insert(
        seat.0,
        SeatLink {
            name,
            queue,
            latency_ms: None,
            panel: BTreeMap::new(),
            stat_row: None,
            finish_sent: false,
        },
    );
    Ok(Joined {
        seat,
        outbound,
        map,
    })
}

/// Each seat's panel keys that changed, and the standings rows that
/// changed, to everyone (seed 001: only on change).
fn send_huds(race: &RaceServer, seats: &mut BTreeMap<u8, SeatLink>) {
    let standings = race.standings();
    let mut changed_rows = Vec::new();
    for standing in &standings {
        let Some(link) = seats.get_mut(&standing.seat.0) else {
            continue;
        };
        if standing.finished && !link.finish_sent {
            // Seed 001's game code 2: over (for this player).
            link.finish_sent = true;
            let done = json!([2, { "position": standing.position, "laps": standing.laps }]);
            let _ = link
                .queue
                .try_send(Outbound::Message(json_message(Channel::GameInform, &done)));
        }
        let row = stat_row(standing, link);
        if link.stat_row.as_ref() != Some(&row) {
            link.stat_row = Some(row.clone());
            changed_rows.push(row);
        }
        let panel = panel(race, standing);
        let changes: Vec<String> = panel
            .iter()
            .filter(|(k, v)| link.panel.get(*k) != Some(v))
            .map(|(k, v)| format!("{k}:{v}"))
            .collect();
        if !changes.is_empty() {
            link.panel = panel;
            let _ = link
                .queue
                .try_send(Outbound::Message(json_message(Channel::Panel, &changes)));
        }
    }
    if !changed_rows.is_empty() {
        let update = json_message(Channel::Stat, &json!([changed_rows, []]));
        for link in seats.values() {
            let _ = link.queue.try_send(Outbound::Message(update.clone()));
        }
    }
}

/// A standings row: `[row id, table, cells, tbody]`, cells as the head.
fn stat_row(s: &SeatStanding, link: &SeatLink) -> serde_json::Value {
    let best = s.best_lap.map(|t| (t * 1000.0).round() as u64);
    let latency = link.latency_ms.map(|ms| ms.round() as u64);
    json!([
        s.seat.0,
        0,
        [link.name, s.position, s.laps, best, latency],
        0
    ])
}

/// The HUD: `t` race time (whole seconds, the seed's one engine key),
/// `lap` the lap being driven, `pos`, `gap` to the leader (s, 3 decimals).
fn panel(race: &RaceServer, s: &SeatStanding) -> BTreeMap<&'static str, String> {
    let mut panel = BTreeMap::new();
    panel.insert("t", format!("{}", race.race_time() as u64));
    panel.insert("lap", format!("{}", (s.laps + 1).min(race.config().laps)));
    panel.insert("pos", s.position.to_string());
    panel.insert("gap", s.gap.map_or(String::new(), |g| format!("{g:.3}")));
    panel
}
