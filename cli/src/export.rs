//! `skidpad export REPLAY`: a per-step state track with events, for
//! external tools (plotting, analysis, other engines); `--channels` picks
//! the telemetry (default: pose, speed, steer, gear, rpm, inputs; `all`)
//! and `--stride` writes a row every N-th step (events stay per step).
//!
//! The JSON object is `{ "cars", "channels", "steps": [ {"step", "t",
//! "cars": [[value per channel], …], "order"} … ], "events": [ … ] }`
//! (`order`: the cars' indices in race order, the race layer's standings,
//! for a replay that names a track), written as it
//! is produced so a long replay never sits in memory as one JSON value.
//! Cars are named by their index in the replay; a car not in the world at
//! a step has a `null` row there: one the recording removed from the step
//! it was removed at, one that joined late before its arrival.
//! Events: `lap` (car, lap, time, valid: the race layer's timing; none
//! for a replay that names no track, `ReplayHeader::TRACK_KEY`),
//! `contact` (car, other: a car or
//! `"ground"`, impulse in N·s, point; one per contact and step),
//! `removed` (car), `arrived` (car: one that joined the recording late,
//! in the world from this step's row on), `reset` (car, pose: x, y, yaw,
//! speed, made before the event's step), `keyframe`, `desync`, and the
//! highlights the viewer shows (`skidpad_replay::HighlightFinder`):
//! `overtake` (car passed other), `slide` (car, angle at its start),
//! `record` (car, time: the fastest valid lap yet) and `hard_contact`
//! (car, other, impulse at its start).

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Result, bail};
use indicatif::ProgressBar;
use serde::Serialize;
use skidpad_core::race::{Lap, RaceEvent, RaceRules, RaceTiming};
use skidpad_core::{CarId, World};
use skidpad_replay::{HighlightFinder, HighlightKind, HighlightOptions, Limits};

use crate::beside::Beside;
use crate::files::{self, GameLogic};

/// Telemetry channels exported per car and step unless others are
/// chosen.
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

/// What an export holds: which channels (by name, in this order) and
/// every how many steps a row is written (events are kept at every step).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportOptions {
    pub channels: Vec<&'static str>,
    pub stride: u64,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            channels: CHANNELS.to_vec(),
            stride: 1,
        }
    }
}

impl ExportOptions {
    /// Options from the command line: `channels` is a comma-separated
    /// list of names from `CHANNELS.md`, or `all`; None keeps the default
    /// set.
    pub fn parse(channels: Option<&str>, stride: u64) -> Result<ExportOptions> {
        if stride == 0 {
            bail!("--stride must be at least 1");
        }
        let channels = match channels.map(str::trim) {
            None => CHANNELS.to_vec(),
            Some("all") => skidpad_core::CHANNELS.iter().map(|c| c.name).collect(),
            Some(list) => list
                .split(',')
                .map(|name| {
                    let name = name.trim();
                    skidpad_core::channel_index(name)
                        .map(|i| skidpad_core::CHANNELS[i].name)
                        .ok_or_else(|| {
                            anyhow::anyhow!(
                                "unknown channel `{name}` (CHANNELS.md lists them; `all` takes every one)"
                            )
                        })
                })
                .collect::<Result<Vec<_>>>()?,
        };
        if channels.is_empty() {
            bail!("--channels names no channel");
        }
        Ok(ExportOptions { channels, stride })
    }
}

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
    /// A reset's pose: x, y (m), yaw (rad), speed (m/s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pose: Option<[f64; 4]>,
    /// A slide's body slip at its start, rad.
    #[serde(skip_serializing_if = "Option::is_none")]
    angle: Option<f64>,
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
            pose: None,
            angle: None,
        }
    }
}

/// Writes the export of `replay_path`, played with `game_logic`, to `out`,
/// with `options`' channels and stride; returns the steps played. Work is bounded by `limits`; `progress`
/// counts steps (hidden when not on a terminal).
pub fn export_json(
    replay_path: &Path,
    out: &mut dyn Write,
    options: &ExportOptions,
    (limits, beside): (&Limits, &Beside),
    game_logic: GameLogic,
    progress: &ProgressBar,
) -> Result<u64> {
    let replay = files::load_replay(replay_path, limits, beside)?;
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
    let mut highlights = HighlightFinder::new(HighlightOptions::default())?;
    let names: Vec<&str> = replay.definitions.iter().map(|d| d.name.as_str()).collect();
    write!(
        out,
        "{{\"cars\":{},\"channels\":{},\"steps\":[",
        serde_json::to_string(&names)?,
        serde_json::to_string(&options.channels)?
    )?;
    let columns: Vec<usize> = options
        .channels
        .iter()
        .filter_map(|name| skidpad_core::channel_index(name))
        .collect();
    let mut first_row = true;
    let mut time = 0.0;
    let mut desyncs = 0;
    while let Some((step, dt)) = files::next_step(&mut player, &replay)? {
        progress.inc(1);
        time += dt;
        let world = player.world();
        let race_events = race
            .as_mut()
            .map(|r| r.after_step(world))
            .transpose()?
            .unwrap_or_default();
        let mut laps = Vec::new();
        for event in race_events {
            if let RaceEvent::Lap { car, lap } = event {
                events.push(Event {
                    car: index_of(car),
                    lap: Some(lap.number),
                    time: Some(lap.time()),
                    valid: Some(lap.is_valid()),
                    ..Event::at(step, "lap")
                });
                laps.push((car, lap));
            }
        }
        highlight_events(
            &mut highlights,
            step,
            world,
            &ids,
            race.as_ref(),
            &laps,
            &mut events,
        );
        let written = (step - 1) % options.stride == 0;
        let mut rows = Vec::with_capacity(ids.len());
        for (c, &id) in ids.iter().enumerate() {
            // A late car is in the world from the row of its arrival on.
            if replay.cars[c]
                .arrival
                .as_ref()
                .is_some_and(|a| a.step == step)
            {
                events.push(Event {
                    car: Some(c as u32),
                    ..Event::at(step, "arrived")
                });
            }
            // Made before the step just played (step − 1 → step).
            if let Some(p) = replay.cars[c].reset_before(step - 1) {
                events.push(Event {
                    car: Some(c as u32),
                    pose: Some([p.x, p.y, p.yaw, p.speed]),
                    ..Event::at(step - 1, "reset")
                });
            }
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
            if written {
                let telemetry = world.telemetry(id)?;
                rows.push(Some(
                    columns.iter().map(|&k| telemetry[k]).collect::<Vec<f64>>(),
                ));
            }
        }
        if written {
            if !first_row {
                out.write_all(b",")?;
            }
            first_row = false;
            let mut row = serde_json::json!({ "step": step, "t": time, "cars": rows });
            if let Some(race) = &race {
                // The race layer's order, leader first.
                let order: Vec<Option<u32>> =
                    race.standings().iter().map(|s| index_of(s.car)).collect();
                row["order"] = serde_json::json!(order);
            }
            serde_json::to_writer(&mut *out, &row)?;
        }
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

/// The step's highlights (the replay crate's rules, which the viewer
/// shows too) as events naming cars by replay index: `overtake` (`car`
/// passed `other`), `slide` (with its `angle` at the start), `record` (a
/// lap faster than every earlier valid one, its `time`) and
/// `hard_contact` (with its `impulse` at the start).
fn highlight_events(
    finder: &mut HighlightFinder,
    step: u64,
    world: &World,
    ids: &[CarId],
    race: Option<&RaceTiming>,
    laps: &[(CarId, Lap)],
    events: &mut Vec<Event>,
) {
    let index_of = |id: CarId| ids.iter().position(|&c| c == id).map(|i| i as u32);
    let other = |id: Option<CarId>| {
        Some(match id.and_then(index_of) {
            Some(car) => car.into(),
            None => "ground".into(),
        })
    };
    for h in finder.observe_world(step, world, ids, race, laps) {
        events.push(match h.kind {
            HighlightKind::Overtake { car, passed } => Event {
                car: index_of(car),
                other: other(Some(passed)),
                ..Event::at(step, "overtake")
            },
            HighlightKind::BigSlide { car, angle } => Event {
                car: index_of(car),
                angle: Some(angle),
                ..Event::at(step, "slide")
            },
            HighlightKind::LapRecord { car, time } => Event {
                car: index_of(car),
                time: Some(time),
                ..Event::at(step, "record")
            },
            HighlightKind::Contact {
                car,
                other: with,
                impulse,
            } => Event {
                car: index_of(car),
                other: other(with),
                impulse: Some(impulse),
                ..Event::at(step, "hard_contact")
            },
        });
    }
}
