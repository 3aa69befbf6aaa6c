//! `skidpad telemetry --format ld`: the `.ld` reads back through an
//! independent reader (the `motec-i2` crate, which shares no code with our
//! writer) to the replay's telemetry in every channel and sample, with the
//! header's driver, venue and rate; the `.ldx` beside it puts a beacon at
//! each of the race layer's crossings; a removed car's log ends where the
//! recording removed it; bad arguments are clear errors.

use std::fs::File;
use std::path::{Path, PathBuf};

use indicatif::ProgressBar;
use motec_i2::{LDReader, Sample};
use skidpad_cli::telemetry::RowFilter;
use skidpad_cli::{files, telemetry};
use skidpad_core::CHANNELS;
use skidpad_replay::Limits;

fn golden(name: &str) -> PathBuf {
    Path::new(&format!("../golden/v{}", skidpad_core::SIMULATION_VERSION)).join(name)
}

fn export_ld(name: &str, car: u32, filter: &RowFilter, out: &Path) -> anyhow::Result<u64> {
    telemetry::export_ld(
        &golden(name),
        car,
        filter,
        out,
        (&Limits::default(), &skidpad_cli::beside::Beside::default()),
        files::no_game_logic,
        &ProgressBar::hidden(),
    )
}

/// The plain CSV export's rows (already held to the replay's telemetry
/// bit for bit by `telemetry_export.rs`), empty fields as None.
fn csv_rows(name: &str, car: u32, filter: &RowFilter) -> Vec<Vec<Option<f64>>> {
    let mut out = Vec::new();
    telemetry::export_csv(
        &golden(name),
        car,
        filter,
        &mut out,
        (&Limits::default(), &skidpad_cli::beside::Beside::default()),
        files::no_game_logic,
        &ProgressBar::hidden(),
    )
    .unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .skip(2)
        .map(|line| {
            line.split(',')
                .map(|f| (!f.is_empty()).then(|| f.parse().unwrap()))
                .collect()
        })
        .collect()
}

/// One channel of a `.ld` as `motec-i2` reads it.
struct LdChannel {
    name: String,
    unit: String,
    rate: u16,
    samples: Vec<f64>,
}

/// The header and every channel of a `.ld`, read by `motec-i2`.
fn read_ld(path: &Path) -> (motec_i2::Header, Vec<LdChannel>) {
    let mut file = File::open(path).unwrap();
    let mut reader = LDReader::new(&mut file);
    let header = reader.read_header().unwrap();
    let channels = reader.read_channels().unwrap();
    let read = channels
        .iter()
        .map(|meta| {
            let samples = reader
                .channel_data(meta)
                .unwrap()
                .iter()
                .map(|s| {
                    assert!(matches!(s, Sample::F32(_)));
                    s.decode_f64(meta)
                })
                .collect();
            LdChannel {
                name: meta.name.clone(),
                unit: meta.unit.clone(),
                rate: meta.sample_rate,
                samples,
            }
        })
        .collect();
    (header, read)
}

#[test]
fn every_channel_reads_back_through_another_reader_to_the_replays_telemetry() {
    let dir = tempfile::tempdir().unwrap();
    let ld = dir.path().join("lap.ld");
    let every = RowFilter::default();
    let rows = export_ld("flat_lap.skr", 0, &every, &ld).unwrap();
    let (header, channels) = read_ld(&ld);
    assert_eq!(header.venue, "brandwood");
    assert_eq!(header.driver, "car 0");
    assert_eq!(header.num_channels as usize, channels.len());
    assert_eq!(channels.len(), 3 + CHANNELS.len());
    let csv = csv_rows("flat_lap.skr", 0, &every);
    assert_eq!(csv.len() as u64, rows);
    let find = |name: &str| channels.iter().find(|c| c.name == name).unwrap();
    for c in &channels {
        assert_eq!(c.rate, 60, "{}", c.name);
        assert_eq!(c.samples.len() as u64, rows, "{}", c.name);
    }
    // Every channel of CHANNELS.md, under its own name or its i2 name in
    // i2's units, equals the telemetry (as the f32 the file stores).
    for (k, channel) in CHANNELS.iter().enumerate() {
        let mapped = skidpad_telemetry::motec::MAPPED
            .iter()
            .find(|m| m.2 == channel.name);
        let (name, factor) = mapped.map_or((channel.name, 1.0), |m| (m.0, m.3));
        let read = find(name);
        if mapped.is_none() {
            assert_eq!(read.unit, channel.unit.replace('²', "^2").replace('·', ""));
        }
        for (step, (row, sample)) in csv.iter().zip(&read.samples).enumerate() {
            let expected = (row[5 + k].unwrap() * factor) as f32;
            assert_eq!(
                sample.to_bits(),
                f64::from(expected).to_bits(),
                "{name} at row {step}"
            );
        }
    }
    // The lap columns: 0 on an out-lap, the race layer's values after.
    let (lap, distance) = (&find("Lap Number").samples, &find("Lap Distance").samples);
    for (row, (lap, distance)) in csv.iter().zip(lap.iter().zip(distance)) {
        assert_eq!(*lap, row[2].unwrap_or(0.0));
        assert_eq!(*distance, f64::from(row[4].unwrap_or(0.0) as f32));
    }
}

/// The beacons' times of an `.ldx`, s.
fn beacons(ldx: &str) -> Vec<f64> {
    ldx.split("<Marker ")
        .skip(1)
        .map(|m| {
            let time = m.split("Time=\"").nth(1).unwrap();
            time[..time.find('"').unwrap()].parse::<f64>().unwrap() / 1e6
        })
        .collect()
}

#[test]
fn the_ldx_has_a_beacon_at_each_crossing_of_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let ld = dir.path().join("lap.ld");
    export_ld("flat_lap.skr", 0, &RowFilter::default(), &ld).unwrap();
    let text = std::fs::read_to_string(telemetry::ldx_path(&ld)).unwrap();
    let beacons = beacons(&text);
    let csv = csv_rows("flat_lap.skr", 0, &RowFilter::default());
    // The log's time zero is its first sample, the first row's race time.
    let start = csv[0][1].unwrap();
    let crossings: Vec<f64> = csv
        .windows(2)
        .filter(|w| w[1][2] > w[0][2] && w[0][2].is_some())
        .map(|w| w[1][1].unwrap() - start)
        .collect();
    assert!(!crossings.is_empty());
    assert!(beacons.len() >= crossings.len(), "{beacons:?}");
    for crossing in &crossings {
        // The race layer times a crossing within its step.
        assert!(
            beacons
                .iter()
                .any(|b| *b <= crossing + 1e-6 && crossing - b <= 1.0 / 60.0 + 1e-6),
            "no beacon just before {crossing}: {beacons:?}"
        );
    }
    assert!(text.contains(&format!(
        "<String Id=\"Total Laps\" Value=\"{}\"/>",
        beacons.len() + 1
    )));
}

#[test]
fn a_removed_cars_log_ends_where_it_was_removed() {
    let replay =
        skidpad_replay::decode_replay(&std::fs::read(golden("retirements.skr")).unwrap()).unwrap();
    let (car, removed_at) = replay
        .cars
        .iter()
        .enumerate()
        .find_map(|(c, r)| r.removed_at.map(|at| (c as u32, at)))
        .expect("a removed car");
    let dir = tempfile::tempdir().unwrap();
    let ld = dir.path().join("retired.ld");
    let rows = export_ld("retirements.skr", car, &RowFilter::default(), &ld).unwrap();
    // Steps 1 to the one before the removal.
    assert_eq!(rows, removed_at.max(1) - 1);
    let (_, channels) = read_ld(&ld);
    assert!(channels.iter().all(|c| c.samples.len() as u64 == rows));
    let mut file = File::open(&ld).unwrap();
    let event = LDReader::new(&mut file).read_event().unwrap().unwrap();
    assert!(
        event
            .comment
            .contains(&format!("removed the car at step {removed_at}")),
        "{}",
        event.comment
    );
}

#[test]
fn bad_arguments_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let ld = dir.path().join("x.ld");
    let stride = |n| RowFilter {
        stride: n,
        laps: None,
    };
    // 60 Hz over 7 is not a whole number of Hz.
    let err = export_ld("flat_lap.skr", 0, &stride(7), &ld)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("--stride 7") && err.contains("whole number"),
        "{err}"
    );
    assert!(!ld.exists() && !telemetry::ldx_path(&ld).exists());
    let err = export_ld("flat_lap.skr", 3, &stride(1), &ld)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no car 3"), "{err}");
    // A stride that divides the rate is a slower log.
    let rows = export_ld("flat_lap.skr", 0, &stride(6), &ld).unwrap();
    let (_, channels) = read_ld(&ld);
    assert!(
        channels
            .iter()
            .all(|c| c.rate == 10 && c.samples.len() as u64 == rows)
    );
}
