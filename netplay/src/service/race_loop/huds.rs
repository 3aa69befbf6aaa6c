//! What each page shows beside the cars, sent only on change (seed
//! 001): the HUD panel's keys (race time, lap, position, gap) for a
//! player or for the player a spectator follows, the standings rows, and
//! the finish game inform.

use std::collections::BTreeMap;

use serde_json::json;
use tokio::sync::mpsc;

use super::{Links, Outbound, SeatLink, next_followed};
use crate::messages::Channel;
use crate::payloads::json_message;
use crate::race_config::SeatStanding;
use crate::server::RaceServer;

/// Each connection's panel keys that changed, and the standings rows that
/// changed, to everyone (seed 001: only on change).
pub(super) fn send_huds(race: &RaceServer, links: &mut Links) {
    let standings = race.standings();
    let mut changed_rows = Vec::new();
    for standing in &standings {
        let Some(link) = links.seats.get_mut(&standing.seat.0) else {
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
        let panel = panel(race, Some(standing));
        send_panel(&link.queue, &mut link.panel, panel);
    }
    let seated: Vec<u8> = links.seats.keys().copied().collect();
    for link in links.spectators.values_mut() {
        // The followed player may have left: follow the next one.
        if link.following.is_none_or(|s| !seated.contains(&s)) {
            link.following = next_followed(&seated, link.following, true);
        }
        let followed = standings.iter().find(|s| Some(s.seat.0) == link.following);
        let mut panel = panel(race, followed);
        panel.insert("f", link.following.map_or(String::new(), |s| s.to_string()));
        send_panel(&link.queue, &mut link.panel, panel);
    }
    if !changed_rows.is_empty() {
        links.broadcast(&json_message(Channel::Stat, &json!([changed_rows, []])));
    }
}

/// The keys of `panel` that differ from what was `sent`, if any.
fn send_panel(
    queue: &mpsc::Sender<Outbound>,
    sent: &mut BTreeMap<&'static str, String>,
    panel: BTreeMap<&'static str, String>,
) {
    let changes: Vec<String> = panel
        .iter()
        .filter(|(k, v)| sent.get(*k) != Some(v))
        .map(|(k, v)| format!("{k}:{v}"))
        .collect();
    if !changes.is_empty() {
        *sent = panel;
        let _ = queue.try_send(Outbound::Message(json_message(Channel::Panel, &changes)));
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
/// Without a standing (a spectator following no one) the keys are sent
/// empty, as seed 001's spectator panel.
fn panel(race: &RaceServer, s: Option<&SeatStanding>) -> BTreeMap<&'static str, String> {
    let mut panel = BTreeMap::new();
    panel.insert("t", format!("{}", race.race_time() as u64));
    let value = |f: &dyn Fn(&SeatStanding) -> String| s.map_or(String::new(), f);
    panel.insert(
        "lap",
        value(&|s| format!("{}", (s.laps + 1).min(race.config().laps))),
    );
    panel.insert("pos", value(&|s| s.position.to_string()));
    panel.insert(
        "gap",
        value(&|s| s.gap.map_or(String::new(), |g| format!("{g:.3}"))),
    );
    panel
}
