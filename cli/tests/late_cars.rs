//! A replay with a car that joined the race late, through the tools: the
//! export marks its arrival, leaves its rows empty before it and times its
//! lap exactly as the live race did; its MoTeC log starts where it came.

use std::path::Path;
use std::sync::Arc;

use indicatif::ProgressBar;
use skidpad_cli::telemetry::RowFilter;
use skidpad_cli::{export, files, telemetry};
use skidpad_core::glam::DVec2;
use skidpad_core::race::{GridLayout, RaceEvent, RaceRules, RaceTiming, grid_pose};
use skidpad_core::{Track, World, WorldConfig, preset};
use skidpad_replay::{Limits, RecorderOptions, ReplayRecorder, encode_replay};

const DT: f64 = 1.0 / 60.0;
/// The step the second kart joins the race at, on the grid.
const JOIN: u64 = 300;

/// Records a one-lap kart race on brandwood that a second kart joins at
/// [`JOIN`] (timed live from there) into `file`; returns the lap time the
/// race gave the late kart.
fn record(file: &Path) -> f64 {
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = World::new(WorldConfig::default()).unwrap();
    let kart = preset("kart").unwrap();
    let first = world
        .add_car(&kart, grid_pose(&track, 0, &GridLayout::default()))
        .unwrap();
    world.set_driver(first, Some(track.clone())).unwrap();
    let rules = RaceRules {
        laps: Some(1),
        ..RaceRules::default()
    };
    let mut race = RaceTiming::new(track.clone(), rules, &world);
    let options = RecorderOptions {
        metadata: vec![("track".into(), "brandwood".into())],
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options).unwrap();
    let mut late_lap = None;
    for step in 0..60 * 150 {
        if step == JOIN {
            let pose = grid_pose(&track, 1, &GridLayout::default());
            let car = recorder.add_car(&mut world, &kart, pose).unwrap();
            world.set_driver(car, Some(track.clone())).unwrap();
            race.join(car, DVec2::new(pose.x, pose.y));
        }
        recorder.step(&mut world, DT).unwrap();
        for event in race.after_step(&world).unwrap() {
            if let RaceEvent::Lap { car, lap } = event
                && car != first
            {
                late_lap = Some(lap.time());
            }
        }
        if late_lap.is_some() && race.laps(first).is_some_and(|l| !l.is_empty()) {
            break;
        }
    }
    let replay = recorder.finish(&world).unwrap();
    std::fs::write(file, encode_replay(&replay).unwrap()).unwrap();
    late_lap.expect("the late kart completed its lap")
}

#[test]
fn the_tools_take_a_late_car_from_its_arrival() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("late.skr");
    let live_lap = record(&file);

    let mut out = Vec::new();
    export::export_json(
        &file,
        &mut out,
        &export::ExportOptions::default(),
        (&Limits::default(), &skidpad_cli::beside::Beside::default()),
        files::no_game_logic,
        &ProgressBar::hidden(),
    )
    .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let events = json["events"].as_array().unwrap();
    let arrived: Vec<_> = events.iter().filter(|e| e["kind"] == "arrived").collect();
    assert_eq!(arrived.len(), 1, "{arrived:?}");
    assert_eq!(
        (arrived[0]["car"].as_u64(), arrived[0]["step"].as_u64()),
        (Some(1), Some(JOIN))
    );
    // Rows are the steps after the first: row `s - 1` is step `s`.
    let row = |step: u64| &json["steps"][(step - 1) as usize]["cars"][1];
    assert!(row(JOIN - 1).is_null() && row(1).is_null());
    assert!(row(JOIN).is_array() && row(JOIN + 1).is_array());
    // The export's race timing takes the car where it arrived: the same
    // lap, to the bit, the race timed live from its join.
    let lap = events
        .iter()
        .find(|e| e["kind"] == "lap" && e["car"] == 1)
        .expect("the late kart's lap");
    assert_eq!(lap["time"].as_f64().unwrap().to_bits(), live_lap.to_bits());

    let ld = dir.path().join("late.ld");
    let rows = telemetry::export_ld(
        &file,
        1,
        &RowFilter::default(),
        &ld,
        (&Limits::default(), &skidpad_cli::beside::Beside::default()),
        files::no_game_logic,
        &ProgressBar::hidden(),
    )
    .unwrap();
    let steps = json["steps"].as_array().unwrap().len() as u64;
    assert_eq!(rows, steps - (JOIN - 1), "steps {JOIN} to {steps}");
    let mut log = std::fs::File::open(&ld).unwrap();
    let event = motec_i2::LDReader::new(&mut log)
        .read_event()
        .unwrap()
        .unwrap();
    assert!(
        event
            .comment
            .contains(&format!("joined the recording at step {JOIN}")),
        "{}",
        event.comment
    );
}
