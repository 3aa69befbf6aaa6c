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

use crate::messages::{Channel, Command, InputMessage, KeyAction};
use crate::payloads::{MapData, json_message, message};
use crate::race_config::SeatId;
use crate::race_schema::RemovalReason;
use crate::server::RaceServer;
use crate::service::connection::Ending;
use crate::service::entry_desk::{self, EntryDesk};
use crate::service::recording::Recording;

mod huds;
use huds::send_huds;

/// Messages waiting for one connection; a slow reader beyond this misses
/// frames rather than holding memory.
const OUTBOUND_QUEUE: usize = 256;

/// How far behind its schedule the race still catches up, in ticks (a
/// second at 60 Hz): a loaded machine's stalls are made up, so the race's
/// time keeps to the wall clock (a run under load average 7 on 2 cores,
/// dropping every debt past 5 ticks, fell 0.7 s behind in 40 s). A longer
/// stall (a paused process) is forgiven: racing through it would make every
/// client's inputs late at once.
const MAX_CATCH_UP_TICKS: u32 = 60;

/// What the loop does after a tick.
#[derive(Debug, PartialEq, Eq)]
enum Pace {
    /// Sleep until the next tick is due.
    Wait(Duration),
    /// Behind: run the next tick at once.
    CatchUp,
    /// Too far behind: move the schedule on by this much.
    Forgive(Duration),
}

/// The pace after a tick `due` on the schedule, at `now` (both since the
/// schedule's start), ticks `tick_wall` apart.
fn pace_after(due: Duration, now: Duration, tick_wall: Duration) -> Pace {
    match due.checked_sub(now) {
        Some(wait) => Pace::Wait(wait),
        None if now - due > tick_wall * MAX_CATCH_UP_TICKS => Pace::Forgive(now - due),
        None => Pace::CatchUp,
    }
}

/// Who a connection is in the race: a player in a seat, or a spectator
/// (numbered by the service, in sign-in order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Member {
    Seat(SeatId),
    Spectator(u32),
}

/// What a connection asks of the race.
pub(crate) enum RaceCommand {
    Join {
        token: String,
        name: String,
        /// The client predicts every car (the sign-in's `predict`).
        predict_all: bool,
        reply: oneshot::Sender<std::result::Result<Joined, JoinRefusal>>,
    },
    Chat {
        who: Member,
        text: String,
    },
    Leave {
        who: Member,
        ending: Ending,
    },
    Input {
        seat: SeatId,
        message: InputMessage,
    },
    /// A key command (seed 001's `seq:action:name`): a spectator's
    /// `nextPlayer`, `prevPlayer`; a player's `reset`.
    Command {
        who: Member,
        command: Command,
    },
    Latency {
        seat: SeatId,
        ms: f64,
    },
}

/// Who may watch: the spectator tokens and how many may watch at once.
#[derive(Clone, Debug, Default)]
pub(crate) struct Watching {
    pub tokens: Vec<String>,
    pub most: usize,
}

/// Why a sign-in was turned away.
pub(crate) enum JoinRefusal {
    /// Every seat is taken (4002).
    Full,
    /// The token, or its seat (4001).
    Denied(String),
}

/// A place taken: its queue of messages and the race it joined.
pub(crate) struct Joined {
    pub who: Member,
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

/// A spectator's connection: whom it follows and what it was last sent.
struct SpectatorLink {
    name: String,
    queue: mpsc::Sender<Outbound>,
    /// The seat followed, if any player is seated.
    following: Option<u8>,
    /// The HUD as last sent (the followed player's, with `f`).
    panel: BTreeMap<&'static str, String>,
    /// Its first frame is still to come (channel `FirstShot`).
    needs_first_shot: bool,
}

/// Everyone connected to the race.
#[derive(Default)]
struct Links {
    seats: BTreeMap<u8, SeatLink>,
    spectators: BTreeMap<u32, SpectatorLink>,
    next_spectator: u32,
}

impl Links {
    /// Every connection's queue, players first.
    fn queues(&self) -> impl Iterator<Item = &mpsc::Sender<Outbound>> {
        let seats = self.seats.values().map(|l| &l.queue);
        seats.chain(self.spectators.values().map(|l| &l.queue))
    }

    fn broadcast(&self, m: &[u8]) {
        for queue in self.queues() {
            let _ = queue.try_send(Outbound::Message(m.to_vec()));
        }
    }
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
    watching: &Watching,
    mut recording: Option<Recording>,
    entries: &Arc<EntryDesk>,
    stop: Arc<AtomicBool>,
) {
    let mut links = Links::default();
    let tick_wall = Duration::from_secs_f64(race.dt() / pace);
    let mut start = Instant::now();
    let mut ticks: u32 = 0;
    loop {
        loop {
            match commands.try_recv() {
                Ok(command) => handle(
                    &mut race,
                    &mut links,
                    watching,
                    (&mut recording, entries),
                    command,
                ),
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
        // A frame for spectators is encoded only while one watches.
        race.set_watched(!links.spectators.is_empty());
        match race.step() {
            Ok(frames) => {
                let frame_tick = race.tick().is_multiple_of(race.config().ticks_per_frame);
                for out in frames {
                    if let Some(link) = links.seats.get(&out.seat.0) {
                        let sent = link
                            .queue
                            .try_send(Outbound::Message(shot(out.first_shot, &out.frame)));
                        // A predicting client cannot go on past a lost
                        // frame: its next one is a first shot.
                        if sent.is_err() && race.predicts_all(out.seat) {
                            let _ = race.resend_first_shot(out.seat);
                        }
                    }
                }
                if frame_tick {
                    send_watch_frames(&race, &mut links);
                    send_huds(&race, &mut links);
                }
                if let Some(recording) = &mut recording {
                    recording.capture(&race);
                }
                if frame_tick {
                    // After the step is recorded: the segment ends on it.
                    entry_desk::close_finished_race(&race, &mut recording, entries);
                }
                if race.tick() > 0 && race.start_tick() == Some(race.tick()) {
                    links.broadcast(&start_message(&race));
                }
                for seat in race.expired_seats() {
                    seat_gone(
                        &mut race,
                        &mut links,
                        (&mut recording, entries),
                        seat,
                        RemovalReason::Left,
                    );
                }
            }
            Err(e) => {
                tracing::error!("the race stopped: {e}");
                return;
            }
        }
        ticks += 1;
        match pace_after(tick_wall * ticks, start.elapsed(), tick_wall) {
            Pace::Wait(wait) => std::thread::sleep(wait),
            Pace::CatchUp => {}
            Pace::Forgive(debt) => start += debt,
        }
    }
}

/// Takes a seat's car out of the race (its player left, was kicked or
/// retired, or stayed away past the grace) and tells everyone.
fn seat_gone(
    race: &mut RaceServer,
    links: &mut Links,
    (recording, entries): (&mut Option<Recording>, &Arc<EntryDesk>),
    seat: SeatId,
    reason: RemovalReason,
) {
    // The seat's own figures, read before the seat is emptied.
    let figures = race.seat_stats(seat).unwrap_or_default();
    if race.leave(seat, reason).is_err() {
        return;
    }
    // Everyone left: the race is over for all of them.
    if race.world().car_count() == 0
        && let Some(finished) = recording.as_mut().and_then(|r| r.finish(race))
    {
        entries.publish(finished);
    }
    tracing::info!(
        seat = seat.0,
        ?reason,
        late_inputs = figures.late_inputs,
        refused_inputs = figures.refused_inputs,
        resets = figures.resets,
        "a player left"
    );
    links.seats.remove(&seat.0);
    links.broadcast(&json_message(
        Channel::Stat,
        &json!([[[seat.0, 0, null, 0]], []]),
    ));
}

/// The game inform of the race's start as it stands.
fn start_message(race: &RaceServer) -> Vec<u8> {
    message(Channel::GameInform, race.start_inform().as_bytes())
}

/// A frame message: on `FirstShot` for a connection's first frame.
fn shot(first: bool, frame: &[u8]) -> Vec<u8> {
    let channel = if first {
        Channel::FirstShot
    } else {
        Channel::Shot
    };
    message(channel, frame)
}

/// The frame without a player block to every spectator.
fn send_watch_frames(race: &RaceServer, links: &mut Links) {
    let Some(frame) = race.watch_frame() else {
        return;
    };
    for link in links.spectators.values_mut() {
        let _ = link
            .queue
            .try_send(Outbound::Message(shot(link.needs_first_shot, frame)));
        link.needs_first_shot = false;
    }
}

fn handle(
    race: &mut RaceServer,
    links: &mut Links,
    watching: &Watching,
    (recording, entries): (&mut Option<Recording>, &Arc<EntryDesk>),
    command: RaceCommand,
) {
    match command {
        RaceCommand::Join {
            token,
            name,
            predict_all,
            reply,
        } => {
            if watching.tokens.contains(&token) {
                let _ = reply.send(spectator_link(race, links, watching, name));
                return;
            }
            // A player whose link dropped takes their held seat back.
            let back = race.holds_for(&token);
            if race.free_seats() == 0 && !back {
                let _ = reply.send(Err(JoinRefusal::Full));
                return;
            }
            let waiting = race.start_tick().is_none();
            let joined = race.join(&token, &name).and_then(|seat| {
                race.set_predicts_all(seat, predict_all)?;
                Ok(seat)
            });
            let joined = match joined {
                Ok(seat) if back => {
                    tracing::info!(seat = seat.0, "a player came back to their seat");
                    Ok(seat_link(race, links, seat))
                }
                Ok(seat) => {
                    // This join took the seats the race waited for: the
                    // others learn the start tick (the newcomer from its
                    // welcome).
                    if waiting && race.start_tick().is_some() {
                        links.broadcast(&start_message(race));
                    }
                    if let Some(recording) = recording {
                        recording.seat_joined(race, seat);
                    }
                    Ok(seat_link(race, links, seat))
                }
                Err(e) => Err(JoinRefusal::Denied(e.to_string())),
            };
            let _ = reply.send(joined);
        }
        RaceCommand::Chat { who, text } => {
            let name = match who {
                Member::Seat(seat) => links.seats.get(&seat.0).map(|l| l.name.clone()),
                Member::Spectator(id) => links.spectators.get(&id).map(|l| l.name.clone()),
            };
            if let Some(name) = name {
                links.broadcast(&json_message(Channel::Chat, &json!([text, name, 0])));
            }
        }
        RaceCommand::Leave {
            who: Member::Spectator(id),
            ..
        } => {
            links.spectators.remove(&id);
        }
        RaceCommand::Leave {
            who: Member::Seat(seat),
            ending,
        } => {
            let finished = race
                .standings()
                .iter()
                .any(|s| s.seat == seat && s.finished);
            if ending == Ending::Dropped && !finished && race.config().reconnect_grace_s > 0.0 {
                if race.drop_link(seat).is_ok() {
                    tracing::info!(
                        seat = seat.0,
                        grace_s = race.config().reconnect_grace_s,
                        "a player's link dropped: the seat waits, the AI drives"
                    );
                    links.seats.remove(&seat.0);
                }
            } else {
                seat_gone(race, links, (recording, entries), seat, ending.reason());
            }
        }
        RaceCommand::Input { seat, message } => {
            if let Err(e) = race.input(seat, message)
                && let Some(link) = links.seats.get(&seat.0)
            {
                let _ = link.queue.try_send(Outbound::Refused(e.to_string()));
            }
        }
        // Commands act on key down; other names are checked and dropped.
        RaceCommand::Command { who, command } if command.action == KeyAction::Down => match who {
            Member::Seat(seat) => {
                match command.name.as_str() {
                    "reset" => {
                        race.ask_reset(seat);
                    }
                    // A predicting client that lost a frame (or whose
                    // race went wrong) starts again from a first shot.
                    "resync" if race.predicts_all(seat) => {
                        let _ = race.resend_first_shot(seat);
                    }
                    _ => {}
                }
            }
            Member::Spectator(spectator) => {
                let seated: Vec<u8> = links.seats.keys().copied().collect();
                if let Some(link) = links.spectators.get_mut(&spectator) {
                    match command.name.as_str() {
                        "nextPlayer" => {
                            link.following = next_followed(&seated, link.following, true)
                        }
                        "prevPlayer" => {
                            link.following = next_followed(&seated, link.following, false)
                        }
                        _ => {}
                    }
                }
            }
        },
        RaceCommand::Command { .. } => {}
        RaceCommand::Latency { seat, ms } => {
            if let Some(link) = links.seats.get_mut(&seat.0) {
                link.latency_ms = Some(ms);
            }
        }
    }
}

/// The seat a spectator follows after `nextPlayer` (`forward`) or
/// `prevPlayer`: the next seated seat after (or before) `current` in seat
/// order, wrapping around; the first (or last) when `current` is none or
/// has left; none when no one is seated.
pub(crate) fn next_followed(seated: &[u8], current: Option<u8>, forward: bool) -> Option<u8> {
    let (first, last) = (seated.first().copied()?, seated.last().copied()?);
    let Some(current) = current else {
        return Some(if forward { first } else { last });
    };
    if forward {
        Some(
            seated
                .iter()
                .copied()
                .find(|&s| s > current)
                .unwrap_or(first),
        )
    } else {
        Some(
            seated
                .iter()
                .rev()
                .copied()
                .find(|&s| s < current)
                .unwrap_or(last),
        )
    }
}

/// The race's description for a newcomer, and the standings so far with
/// the race's state (seed 001's game code 1: on).
fn welcome(
    race: &RaceServer,
    links: &Links,
    seat: Option<u8>,
) -> (MapData, mpsc::Sender<Outbound>, mpsc::Receiver<Outbound>) {
    let (queue, outbound) = mpsc::channel(OUTBOUND_QUEUE);
    let map = MapData::of(race.config(), race.map_ground(), seat);
    // The standings' head and every current row, then deltas.
    let head = json!([[0, ["name", "position", "laps", "best", "latency"], 0]]);
    let rows: Vec<_> = links
        .seats
        .values()
        .filter_map(|s| s.stat_row.clone())
        .collect();
    for m in [
        json_message(Channel::Stat, &json!([rows, head, true])),
        start_message(race),
    ] {
        let _ = queue.try_send(Outbound::Message(m));
    }
    (map, queue, outbound)
}

/// Opens a seated player's queue.
fn seat_link(race: &RaceServer, links: &mut Links, seat: SeatId) -> Joined {
    let (map, queue, outbound) = welcome(race, links, Some(seat.0));
    let name = race.name_of(seat).unwrap_or_default().to_owned();
    links.seats.insert(
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
    Joined {
        who: Member::Seat(seat),
        outbound,
        map,
    }
}

/// Opens a spectator's queue, following the first seated player, if the
/// race has room for another.
fn spectator_link(
    race: &RaceServer,
    links: &mut Links,
    watching: &Watching,
    name: String,
) -> std::result::Result<Joined, JoinRefusal> {
    if links.spectators.len() >= watching.most {
        return Err(JoinRefusal::Full);
    }
    let (map, queue, outbound) = welcome(race, links, None);
    let id = links.next_spectator;
    links.next_spectator += 1;
    let seated: Vec<u8> = links.seats.keys().copied().collect();
    links.spectators.insert(
        id,
        SpectatorLink {
            name: name.chars().take(32).collect(),
            queue,
            following: next_followed(&seated, None, true),
            panel: BTreeMap::new(),
            needs_first_shot: true,
        },
    );
    Ok(Joined {
        who: Member::Spectator(id),
        outbound,
        map,
    })
}

#[cfg(test)]
mod tests {
    use super::next_followed;

    #[test]
    fn next_and_previous_player_cycle_over_the_seated_seats() {
        let seated = [0, 3, 7];
        assert_eq!(next_followed(&seated, None, true), Some(0));
        assert_eq!(next_followed(&seated, None, false), Some(7));
        assert_eq!(next_followed(&seated, Some(0), true), Some(3));
        assert_eq!(next_followed(&seated, Some(7), true), Some(0));
        assert_eq!(next_followed(&seated, Some(0), false), Some(7));
        assert_eq!(next_followed(&seated, Some(3), false), Some(0));
        // A followed seat that left: the next one after where it was.
        assert_eq!(next_followed(&seated, Some(5), true), Some(7));
        assert_eq!(next_followed(&seated, Some(5), false), Some(3));
        assert_eq!(next_followed(&[], Some(1), true), None);
        assert_eq!(next_followed(&[4], Some(4), true), Some(4));
    }
}
