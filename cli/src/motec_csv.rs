//! `skidpad telemetry --format motec-csv`: one car's telemetry as a MoTeC
//! CSV file, which MoTeC i2 imports (File → Import) and many lap-analysis
//! tools read.
//!
//! Layout, by row (1-based):
//!
//! - 1 to 12: the preamble, a quoted key and its value(s) per row
//!   (`"Format","MoTeC CSV File"`, `Venue` the track, `Vehicle` the car's
//!   class, `Driver` the replay's `player` or `car N`, `Device`
//!   `skidpad`, `Comment` the replay's file name, `Sample Rate` in Hz,
//!   `Duration` in s, `Beacon Markers` the race time of every crossing of
//!   the line, one per cell, from the project's race layer);
//! - 13 and 14 empty;
//! - 15 the channel names, 16 their units, quoted;
//! - 17 and 18 empty;
//! - from 19 a row per written step, numbers unquoted, a field left empty
//!   where a value does not exist (the lap on an out-lap; every channel
//!   once the recording removed the car).
//!
//! Channels with a standard i2 name are written under it, in i2's units
//! ([`MAPPED`]: `Ground Speed` in km/h, `G Force Lat` in G, …); every other
//! channel follows under its own name (`CHANNELS.md`) and SI unit. Signs
//! stay ours (`G Force Lat` positive to the left, as `ay`). The preamble
//! needs the crossings before the rows, so the one re-simulation writes
//! its rows to an unnamed temporary file, copied after the preamble.

use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::Path;

use anyhow::{Context, Result};
use indicatif::ProgressBar;
use skidpad_core::{CHANNELS, channel_index};
use skidpad_replay::{Limits, Replay};

use crate::files::{self, GameLogic};
use crate::telemetry_csv::{Row, RowFilter, Walked, walk};

/// Standard gravity, m/s² per G.
const G: f64 = 9.806_65;

/// What an i2 column holds.
#[derive(Clone, Copy, Debug)]
enum Source {
    LapNumber,
    LapTime,
    LapDistance,
    /// A channel of `CHANNELS` (the column's index) times a factor.
    Channel(f64),
}

/// The channels written under a standard i2 name: (i2 name, i2 unit,
/// source). Our channel's name and unit are in `CHANNELS.md`.
pub const MAPPED: [(&str, &str, &str, f64); 19] = [
    ("Ground Speed", "km/h", "speed", 3.6),
    ("Engine RPM", "rpm", "engine_rpm", 1.0),
    ("Gear", "", "gear", 1.0),
    ("Throttle Pos", "%", "input_throttle", 100.0),
    ("Brake Pos", "%", "input_brake", 100.0),
    ("Clutch Pos", "%", "input_clutch", 100.0),
    (
        "Steered Angle",
        "deg",
        "steer_angle",
        180.0 / std::f64::consts::PI,
    ),
    ("G Force Lat", "G", "ay", 1.0 / G),
    ("G Force Long", "G", "ax", 1.0 / G),
    ("G Force Vert", "G", "az", 1.0 / G),
    ("Wheel Speed FL", "km/h", "wheel_fl_speed", 3.6),
    ("Wheel Speed FR", "km/h", "wheel_fr_speed", 3.6),
    ("Wheel Speed RL", "km/h", "wheel_rl_speed", 3.6),
    ("Wheel Speed RR", "km/h", "wheel_rr_speed", 3.6),
    ("Susp Pos FL", "mm", "wheel_fl_travel", 1000.0),
    ("Susp Pos FR", "mm", "wheel_fr_travel", 1000.0),
    ("Susp Pos RL", "mm", "wheel_rl_travel", 1000.0),
    ("Susp Pos RR", "mm", "wheel_rr_travel", 1000.0),
    (
        "Yaw Rate",
        "deg/s",
        "yaw_rate",
        180.0 / std::f64::consts::PI,
    ),
];

/// One written column.
pub(crate) struct Column {
    pub name: &'static str,
    pub unit: &'static str,
    source: Source,
    /// Index in `CHANNELS` for a channel column.
    index: Option<usize>,
}

/// The columns after `Time`, in order: the lap columns, the mapped
/// channels, then every other channel.
pub(crate) fn columns() -> Vec<Column> {
    let lap = |name, unit, source| Column {
        name,
        unit,
        source,
        index: None,
    };
    let mut columns = vec![
        lap("Lap Number", "", Source::LapNumber),
        lap("Lap Time", "s", Source::LapTime),
        lap("Lap Distance", "m", Source::LapDistance),
    ];
    for (name, unit, channel, factor) in MAPPED {
        columns.push(Column {
            name,
            unit,
            source: Source::Channel(factor),
            index: channel_index(channel),
        });
    }
    for (k, channel) in CHANNELS.iter().enumerate() {
        if MAPPED.iter().any(|m| m.2 == channel.name) {
            continue;
        }
        columns.push(Column {
            name: channel.name,
            unit: channel.unit,
            source: Source::Channel(1.0),
            index: Some(k),
        });
    }
    columns
}

pub(crate) fn value(column: &Column, row: &Row<'_>) -> Option<f64> {
    match column.source {
        Source::LapNumber => row.lap.map(f64::from),
        Source::LapTime => row.lap_time,
        Source::LapDistance => row.lap_distance,
        Source::Channel(factor) => Some(row.values?[column.index?] * factor),
    }
}

/// A quoted CSV cell (a quote inside is doubled).
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// Writes car `car`'s telemetry from `replay_path` as MoTeC CSV to `out`,
/// the rows `filter` keeps; returns the rows written.
///
/// The preamble lists the laps' beacons, known only once the race has run,
/// so the one re-simulation writes its rows to an unnamed temporary file
/// first (a long race's rows do not sit in memory), then the preamble and
/// those rows go to `out`.
pub fn export_motec_csv(
    replay_path: &Path,
    car: u32,
    filter: &RowFilter,
    out: &mut dyn Write,
    limits: &Limits,
    game_logic: GameLogic,
    progress: &ProgressBar,
) -> Result<u64> {
    let replay = files::load_replay(replay_path, limits)?;
    let columns = columns();
    let mut rows =
        BufWriter::new(tempfile::tempfile().context("cannot make a temporary file for the rows")?);
    let walked = walk(
        (&replay, replay_path),
        car,
        filter,
        limits,
        game_logic,
        progress,
        |row| {
            write!(rows, "{}", row.time)?;
            for column in &columns {
                match value(column, row) {
                    Some(v) => write!(rows, ",{v}")?,
                    None => write!(rows, ",")?,
                }
            }
            writeln!(rows)?;
            Ok(())
        },
    )?;
    let mut rows = rows.into_inner().map_err(|e| e.into_error())?;
    let beacons = beacons(&walked);
    let rate = walked
        .dt
        .map(|dt| 1.0 / (dt * filter.stride as f64))
        .unwrap_or(0.0);
    let (vehicle, driver) = vehicle_and_driver(&replay, car);
    let file_name = replay_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let preamble: [Vec<String>; 12] = [
        vec![quoted("Format"), quoted("MoTeC CSV File")],
        vec![
            quoted("Venue"),
            quoted(walked.track.as_deref().unwrap_or("")),
        ],
        vec![quoted("Vehicle"), quoted(&vehicle)],
        vec![quoted("Driver"), quoted(&driver)],
        vec![quoted("Device"), quoted("skidpad")],
        vec![quoted("Comment"), quoted(&file_name)],
        vec![quoted("Log Date"), quoted("")],
        vec![quoted("Log Time"), quoted("")],
        vec![
            quoted("Sample Rate"),
            quoted(&format!("{rate:.3}")),
            quoted("Hz"),
        ],
        vec![
            quoted("Duration"),
            quoted(&format!("{:.3}", walked.duration)),
            quoted("s"),
        ],
        vec![quoted("Range"), quoted(&range_text(filter))],
        std::iter::once(quoted("Beacon Markers"))
            .chain(beacons.iter().map(|t| quoted(&format!("{t}"))))
            .collect(),
    ];
    for row in &preamble {
        writeln!(out, "{}", row.join(","))?;
    }
    writeln!(out)?;
    writeln!(out)?;
    let names: Vec<String> = std::iter::once(quoted("Time"))
        .chain(columns.iter().map(|c| quoted(c.name)))
        .collect();
    let units: Vec<String> = std::iter::once(quoted("s"))
        .chain(columns.iter().map(|c| quoted(c.unit)))
        .collect();
    writeln!(out, "{}", names.join(","))?;
    writeln!(out, "{}", units.join(","))?;
    writeln!(out)?;
    writeln!(out)?;
    rows.seek(SeekFrom::Start(0))?;
    std::io::copy(&mut rows, out)?;
    out.flush()?;
    Ok(walked.rows)
}

/// The race times the car crossed the line, from the race layer.
pub(crate) fn beacons(walked: &Walked) -> Vec<f64> {
    walked
        .laps
        .iter()
        .enumerate()
        .flat_map(|(k, lap)| {
            // The first lap's start is a crossing unless it began at the
            // start; every lap ends at one.
            let start =
                (k == 0 && lap.kind == skidpad_core::race::LapStart::Flying).then_some(lap.start);
            start.into_iter().chain([lap.end])
        })
        .collect()
}

fn range_text(filter: &RowFilter) -> String {
    match filter.laps {
        Some((first, last)) if first == last => format!("lap {first}"),
        Some((first, last)) => format!("laps {first}-{last}"),
        None => "entire outing".to_owned(),
    }
}

/// The car's class (the preset its definition equals, else `custom`)
/// and its driver (the replay's `player`, else `car N`).
pub(crate) fn vehicle_and_driver(replay: &Replay, car: u32) -> (String, String) {
    let class = replay
        .definitions
        .get(car as usize)
        .and_then(|def| {
            skidpad_core::preset_names()
                .iter()
                .find(|name| skidpad_core::preset(name).is_ok_and(|p| &p == def))
                .map(|name| (*name).to_owned())
        })
        .unwrap_or_else(|| "custom".to_owned());
    let driver = replay
        .header
        .metadata_value("player")
        .map_or_else(|| format!("car {car}"), str::to_owned);
    (class, driver)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mapped_channel_exists_and_names_are_unique() {
        let columns = columns();
        for (name, _, channel, _) in MAPPED {
            assert!(channel_index(channel).is_some(), "{name}: no {channel}");
        }
        let mut names: Vec<&str> = columns.iter().map(|c| c.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
        // Every channel is written once: mapped or under its own name.
        assert_eq!(columns.len(), 3 + CHANNELS.len());
    }

    #[test]
    fn the_mapping_table_in_motec_md_is_this_one() {
        let doc = std::fs::read_to_string("MOTEC.md").unwrap();
        let rows = doc.lines().filter(|l| l.starts_with("| `")).count();
        assert_eq!(rows, MAPPED.len());
        for (name, unit, channel, _) in MAPPED {
            let unit = if unit.is_empty() { "(none)" } else { unit };
            let row = format!("| `{name}` | {unit} | `{channel}` |");
            assert!(doc.contains(&row), "MOTEC.md lacks {row}");
        }
    }
}
