//! `skidpad telemetry`: the CSV holds the replay's telemetry exactly, at
//! every step or stride, with the race layer's laps, and marks a removed
//! car's gap; a lap range keeps that lap's rows; the MoTeC CSV reads back
//! (preamble, names and units at their rows, i2 units) to the same values
//! with a beacon at every crossing of the line; bad arguments are clear
//! errors.

use std::path::{Path, PathBuf};

use indicatif::ProgressBar;
use skidpad_cli::telemetry::RowFilter;
use skidpad_cli::{export, files, telemetry};
use skidpad_core::CHANNELS;
use skidpad_replay::{
    Limits, NoHooks, PlayerOptions, ReplayPlayer, create_replay_world, decode_replay,
};

fn golden(name: &str) -> PathBuf {
    Path::new(&format!("../golden/v{}", skidpad_core::SIMULATION_VERSION)).join(name)
}

fn csv(name: &str, car: u32, stride: u64) -> anyhow::Result<(u64, String)> {
    csv_of(
        name,
        car,
        &RowFilter { stride, laps: None },
        telemetry::export_csv,
    )
}

type Exporter = fn(
    &Path,
    u32,
    &RowFilter,
    &mut dyn std::io::Write,
    (&Limits, &skidpad_cli::beside::Beside),
    files::GameLogic,
    &ProgressBar,
) -> anyhow::Result<u64>;

fn csv_of(
    name: &str,
    car: u32,
    filter: &RowFilter,
    export: Exporter,
) -> anyhow::Result<(u64, String)> {
    let mut out = Vec::new();
    let rows = export(
        &golden(name),
        car,
        filter,
        &mut out,
        (&Limits::default(), &skidpad_cli::beside::Beside::default()),
        files::no_game_logic,
        &ProgressBar::hidden(),
    )?;
    Ok((rows, String::from_utf8(out)?))
}

/// Each row's fields, empty ones as None.
fn fields(line: &str) -> Vec<Option<f64>> {
    line.split(',')
        .map(|f| (!f.is_empty()).then(|| f.parse().unwrap()))
        .collect()
}

#[test]
fn rows_are_the_replays_telemetry_to_the_bit() {
    let (rows, text) = csv("flat_lap.skr", 0, 1).unwrap();
    let mut lines = text.lines();
    let names: Vec<&str> = lines.next().unwrap().split(',').collect();
    let units: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(names.len(), 5 + CHANNELS.len());
    assert_eq!(
        &names[..5],
        ["step", "race_time", "lap", "lap_time", "lap_distance"]
    );
    assert_eq!(names[5 + 7], "vx");
    assert_eq!(units[5 + 7], "m/s");
    // Played here on its own, without the command's code.
    let replay = decode_replay(&std::fs::read(golden("flat_lap.skr")).unwrap()).unwrap();
    let world = create_replay_world(&replay).unwrap();
    let mut player =
        ReplayPlayer::with_options(world, &replay, NoHooks, PlayerOptions::default()).unwrap();
    let id = player.car_ids()[0];
    let mut count = 0;
    for line in lines {
        assert!(player.advance().unwrap());
        let row = fields(line);
        assert_eq!(row[0], Some(player.step() as f64));
        let expected = player.world().telemetry(id).unwrap();
        for (k, value) in expected.iter().enumerate() {
            assert_eq!(
                row[5 + k].map(f64::to_bits),
                Some(value.to_bits()),
                "step {} channel {}",
                player.step(),
                CHANNELS[k].name
            );
        }
        count += 1;
    }
    assert_eq!(count, rows);
    assert_eq!(rows, replay.header.step_count);
}

#[test]
fn laps_count_at_the_race_layers_lap_events_and_the_distance_resets() {
    let (_, text) = csv("flat_lap.skr", 0, 1).unwrap();
    let rows: Vec<Vec<Option<f64>>> = text.lines().skip(2).map(fields).collect();
    // The steps where the lap number goes up.
    let crossings: Vec<u64> = rows
        .windows(2)
        .filter(|w| w[1][2] > w[0][2])
        .map(|w| w[1][0].unwrap() as u64)
        .collect();
    // `skidpad export`'s lap events, from the same race layer.
    let mut json = Vec::new();
    export::export_json(
        &golden("flat_lap.skr"),
        &mut json,
        &export::ExportOptions::default(),
        (&Limits::default(), &skidpad_cli::beside::Beside::default()),
        files::no_game_logic,
        &ProgressBar::hidden(),
    )
    .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let laps: Vec<u64> = json["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "lap")
        .map(|e| e["step"].as_u64().unwrap())
        .collect();
    assert!(!laps.is_empty());
    assert_eq!(crossings, laps);
    // At each crossing the lap distance and time start again.
    for w in rows.windows(2).filter(|w| w[1][2] > w[0][2]) {
        assert!(w[1][4].unwrap() < w[0][4].unwrap(), "{w:?}");
        assert!(w[1][3].unwrap() < w[0][3].unwrap(), "{w:?}");
    }
}

#[test]
fn a_stride_thins_the_rows_and_a_removed_car_leaves_empty_fields() {
    let (every, _) = csv("flat_lap.skr", 0, 1).unwrap();
    let (thinned, text) = csv("flat_lap.skr", 0, 100).unwrap();
    assert_eq!(thinned, every.div_ceil(100));
    let steps: Vec<u64> = text
        .lines()
        .skip(2)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(&steps[..3], [1, 101, 201]);
    // The retirements scenario removes car 1 before step 500.
    let replay = decode_replay(&std::fs::read(golden("retirements.skr")).unwrap()).unwrap();
    let (car, removed_at) = replay
        .cars
        .iter()
        .enumerate()
        .find_map(|(c, r)| r.removed_at.map(|at| (c as u32, at)))
        .expect("a removed car");
    let (_, text) = csv("retirements.skr", car, 1).unwrap();
    for line in text.lines().skip(2) {
        let row = fields(line);
        let step = row[0].unwrap() as u64;
        let empty = row[5..].iter().all(Option::is_none);
        assert_eq!(empty, step >= removed_at.max(1), "step {step}");
        assert_eq!(row.len(), 5 + CHANNELS.len());
    }
}

#[test]
fn bad_arguments_are_clear_errors() {
    let err = csv("flat_lap.skr", 7, 1).unwrap_err().to_string();
    assert!(
        err.contains("has 1 car(s)") && err.contains("no car 7"),
        "{err}"
    );
    let err = csv("flat_lap.skr", 0, 0).unwrap_err().to_string();
    assert!(err.contains("--stride"), "{err}");
    let err = csv("flat_lap.skg", 0, 1).unwrap_err().to_string();
    assert!(err.contains("ghost"), "{err}");
}

#[test]
fn a_lap_range_keeps_that_laps_rows() {
    let laps = RowFilter {
        stride: 1,
        laps: Some(RowFilter::parse_laps("1").unwrap()),
    };
    let (rows, text) = csv_of("flat_lap.skr", 0, &laps, telemetry::export_csv).unwrap();
    assert!(rows > 0);
    for line in text.lines().skip(2) {
        assert_eq!(fields(line)[2], Some(1.0), "{line}");
    }
    let beyond = RowFilter {
        stride: 1,
        laps: Some((40, 41)),
    };
    let err = csv_of("flat_lap.skr", 0, &beyond, telemetry::export_csv)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no rows in laps 40-41"), "{err}");
    for bad in ["0", "3-2", "x"] {
        assert!(RowFilter::parse_laps(bad).is_err(), "{bad}");
    }
}

/// A CSV line's cells with their quotes removed.
fn cells(line: &str) -> Vec<String> {
    line.split(',')
        .map(|c| c.trim_matches('"').to_owned())
        .collect()
}

#[test]
fn motec_csv_reads_back_to_the_telemetry_with_beacons_at_the_crossings() {
    let every = RowFilter::default();
    let (rows, text) = csv_of("flat_lap.skr", 0, &every, telemetry::export_motec_csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(cells(lines[0]), ["Format", "MoTeC CSV File"]);
    let preamble = |key: &str| -> Vec<String> {
        lines[..12]
            .iter()
            .map(|l| cells(l))
            .find(|c| c[0] == key)
            .unwrap_or_else(|| panic!("no {key}"))
    };
    assert_eq!(preamble("Venue")[1], "brandwood");
    assert_eq!(preamble("Sample Rate")[1..], ["60.000", "Hz"]);
    assert!(lines[12].is_empty() && lines[13].is_empty());
    let names = cells(lines[14]);
    let units = cells(lines[15]);
    assert!(lines[16].is_empty() && lines[17].is_empty());
    assert_eq!(names.len(), units.len());
    assert_eq!(lines.len() - 18, rows as usize);
    let column = |name: &str| names.iter().position(|n| n == name).unwrap();
    assert_eq!(units[column("Ground Speed")], "km/h");
    assert_eq!(units[column("G Force Lat")], "G");
    // Every channel is there once: mapped to its i2 name or as itself.
    assert_eq!(names.len(), 1 + 3 + CHANNELS.len());
    assert!(!names.contains(&"speed".to_owned()));
    assert!(names.contains(&"wheel_fl_load".to_owned()));

    // The same values as the plain CSV, in i2's units.
    let (_, plain) = csv("flat_lap.skr", 0, 1).unwrap();
    let plain: Vec<Vec<Option<f64>>> = plain.lines().skip(2).map(fields).collect();
    let motec: Vec<Vec<Option<f64>>> = lines[18..].iter().map(|l| fields(l)).collect();
    let speed = 5 + skidpad_core::channel_index("speed").unwrap();
    let load = 5 + skidpad_core::channel_index("wheel_fl_load").unwrap();
    for (p, m) in plain.iter().zip(&motec) {
        assert_eq!(m[0], p[1], "time");
        assert_eq!(m[column("Lap Number")], p[2]);
        assert_eq!(m[column("Lap Distance")], p[4]);
        assert_eq!(m[column("Ground Speed")], p[speed].map(|v| v * 3.6));
        assert_eq!(m[column("wheel_fl_load")], p[load]);
    }

    // A beacon at each crossing: where the lap number goes up.
    let crossings: Vec<String> = plain
        .windows(2)
        .filter(|w| w[1][2] > w[0][2] && w[0][2].is_some())
        .map(|w| w[1][1].unwrap())
        .map(|t| t.to_string())
        .collect();
    let beacons = preamble("Beacon Markers");
    assert!(!crossings.is_empty());
    // The race layer times a crossing within its step, so a beacon lies
    // within the step before the first row of the new lap.
    let beacons: Vec<f64> = beacons[1..].iter().map(|b| b.parse().unwrap()).collect();
    let crossings: Vec<f64> = crossings.iter().map(|c| c.parse().unwrap()).collect();
    for crossing in &crossings {
        assert!(
            beacons
                .iter()
                .any(|b| *b <= *crossing && crossing - b <= 1.0 / 60.0 + 1e-9),
            "no beacon just before {crossing}: {beacons:?}"
        );
    }
}
