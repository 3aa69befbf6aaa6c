//! `skidpad export REPLAY --json`: a dense per-step state track with
//! events, for external tools (plotting, analysis, other engines).
//!
//! The JSON object is `{ "cars", "channels", "steps": [ {"step", "t",
//! "cars": [[value per channel], …]} … ], "events": [ … ] }`, written as it
//! is produced so a long replay never sits in memory as one JSON value.
//! Cars are named by their index in the replay; a car the recording
//! removed has `null` rows from the step it was removed at.
//! Events: `lap` (car, lap, time, valid: the race layer's timing; none
//! for a replay that names no track, `ReplayHeader::TRACK_KEY`),
//! `contact` (car, other: a car or
//! `"ground"`, impulse in N·s, point; one per contact and step),
//! `removed` (car), `keyframe`, `desync`.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use anyhow::Result;
use indicatif::ProgressBar;
use serde::Serialize;
use skidpad_core::CarId;
use skidpad_core::race::{RaceEvent, RaceRules, RaceTiming};
use skidpad_replay::Limits;

use crate::files::{self, GameLogic};

/// Telemetry channels exported per car and step.
pub const CHANNELS: [&str; 13] = [
    "x",
    "y",
    "z",
    "yaw",
    "pitch",
    "roll",
    "speed",
    "steer_angle",
    "gear",
    "engine_rpm",
    "input_steer",
    "input_throttle",
    "input_brake",
];

#[derive(Serialize)]
struct Event {
    step: u64,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    car: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lap: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    time: Option<f64>,
    /// Whether a lap counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    valid: Option<bool>,
    /// A contact's other party: a car index, or `"ground"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    other: Option<serde_json::Value>,
    /// A contact's normal impulse, N·s.
    #[serde(skip_serializing_if = "Option::is_none")]
    impulse: Option<f64>,
    /// A contact's point, world frame, m.
    #[serde(skip_serializing_if = "Option::is_none")]
    point: Option<[f64; 3]>,
}

impl Event {
    fn at(step: u64, kind: &'static str) -> Event {
        Event {
            step,
            kind,
            car: None,
            lap: None,
            time: None,
            valid: None,
            other: None,
            impulse: None,
            point: None,
        }
    }
}

/// Writes the export of `replay_path`, played with `game_logic`, to `out`;
/// returns the steps written. Work is bounded by `limits`; `progress`
/// counts steps (hidden when not on a terminal).
pub fn export_json(
    replay_path: &Path,
    out: &mut dyn Write,
    limits: &Limits,
    game_logic: GameLogic,
    progress: &ProgressBar,
) -> Result<u64> {
    let replay = files::load_replay(replay_path, limits)?;
    progress.set_length(replay.header.step_count);
    // No track named: no line, so no lap events (the key's rule).
    let track = replay.header.track()?.map(Arc::new);
    let mut player = files::straight_player(&replay, limits, game_logic)?;
    // The playback world's id of each replay car, in replay order: rows
    // and events name cars by their replay index.
    let ids: Vec<CarId> = player.car_ids().to_vec();
    let index_of = |id: CarId| ids.iter().position(|&c| c == id).map(|i| i as u32);
    let mut race = track.map(|t| RaceTiming::new(t, RaceRules::default(), player.world()));
    let mut events = Vec::new();
    let names: Vec<&str> = replay.definitions.iter().map(|d| d.name.as_str()).collect();
    write!(
        out,
        "{{\"cars\":{},\"channels\":{},\"steps\":[",
        serde_json::to_string(&names)?,
        serde_json::to_string(&CHANNELS)?
    )?;
    let mut time = 0.0;
    let mut desyncs = 0;
    while let Some((step, dt)) = files::next_step(&mut player, &replay)? {
        progress.inc(1);
        time += dt;
        let world = player.world();
        let race_events = race
            .as_mut()
            .map(|r| r.observe(world, dt))
            .unwrap_or_default();
        for event in race_events {
            if let RaceEvent::Lap { car, lap } = event {
                events.push(Event {
                    car: index_of(car),
                    lap: Some(lap.number),
                    time: Some(lap.time()),
                    valid: Some(lap.is_valid()),
                    ..Event::at(step, "lap")
                });
            }
        }
        let mut rows = Vec::with_capacity(ids.len());
        for (c, &id) in ids.iter().enumerate() {
            if !world.contains_car(id) {
                // Removed: a null row from the step it was removed at.
                // (One event, at the first row without the car.)
                if let Some(at) = replay.cars[c].removed_at
                    && at.max(1) == step
                {
                    events.push(Event {
                        car: Some(c as u32),
                        ..Event::at(at, "removed")
                    });
                }
                rows.push(None);
                continue;
            }
            let row = CHANNELS
                .iter()
                .map(|name| world.channel(id, name))
                .collect::<Result<Vec<f64>, _>>()?;
            rows.push(Some(row));
        }
        if step > 1 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(
            &mut *out,
            &serde_json::json!({ "step": step, "t": time, "cars": rows }),
        )?;
        for contact in world.contacts() {
            events.push(Event {
                car: index_of(contact.first),
                other: Some(match contact.second.and_then(index_of) {
                    Some(car) => car.into(),
                    None => "ground".into(),
                }),
                impulse: Some(contact.impulse),
                point: Some(contact.point.to_array()),
                ..Event::at(step, "contact")
            });
        }
        if replay.keyframe_at(step).is_some() {
            events.push(Event::at(step, "keyframe"));
        }
        if player.desyncs() > desyncs {
            desyncs = player.desyncs();
            events.push(Event::at(step, "desync"));
        }
    }
    write!(out, "],\"events\":{}}}", serde_json::to_string(&events)?)?;
    out.flush()?;
    Ok(player.step())
}
