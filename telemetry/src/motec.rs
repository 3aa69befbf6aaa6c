//! What both MoTeC exports share: the columns (the lap columns, the
//! channels with a standard i2 name under it in i2's units, then every
//! other channel under its own name), what the log says about the car and
//! its driver, and the lap beacons.

use skidpad_core::{CHANNELS, channel_index};
use skidpad_replay::Replay;

use crate::rows::{Row, Walked};

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

/// What a log says about where it comes from.
#[derive(Clone, Debug)]
pub struct LogInfo {
    /// The car's index in the replay.
    pub car: u32,
    /// The car's class: the preset its definition equals, else `custom`.
    pub vehicle: String,
    /// The replay's `player`, else `car N`.
    pub driver: String,
    /// The replay's file name (or whatever names it).
    pub file_name: String,
    /// The core version that recorded the replay.
    pub simulation_version: u32,
    /// The car's mass, kg.
    pub mass: f64,
}

impl LogInfo {
    /// Car `car` of `replay`, read from a file named `file_name`.
    #[must_use]
    pub fn new(replay: &Replay, car: u32, file_name: &str) -> LogInfo {
        let definition = replay.definitions.get(car as usize);
        let vehicle = definition
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
        LogInfo {
            car,
            vehicle,
            driver,
            file_name: file_name.to_owned(),
            simulation_version: replay.header.simulation_version,
            mass: definition.map_or(0.0, |d| d.chassis.mass),
        }
    }
}

/// One written column.
pub struct Column {
    pub name: &'static str,
    pub unit: &'static str,
    source: Source,
    /// Index in `CHANNELS` for a channel column.
    index: Option<usize>,
}

/// The columns after `Time`, in order: the lap columns, the mapped
/// channels, then every other channel.
pub fn columns() -> Vec<Column> {
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

pub fn value(column: &Column, row: &Row<'_>) -> Option<f64> {
    match column.source {
        Source::LapNumber => row.lap.map(f64::from),
        Source::LapTime => row.lap_time,
        Source::LapDistance => row.lap_distance,
        Source::Channel(factor) => Some(row.values?[column.index?] * factor),
    }
}

/// The race times the car crossed the line, from the race layer.
pub fn beacons(walked: &Walked) -> Vec<f64> {
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
