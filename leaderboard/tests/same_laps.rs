//! One run, one set of laps: the demo's summary (the ghost cutter while
//! recording), `skidpad export`'s lap events, `skidpad ghost`, the replay
//! highlights' lap records and the leaderboard's verdict all give the same
//! laps (count, time to the microsecond, validity) for the same replay,
//! because every one of them times laps through `skidpad_core::race`.
//! The golden replays are checked the same way for the tools that need
//! no track metadata. A car that joined the recording late is ranked on
//! the lap it drove from its arrival, to the microsecond of the same lap
//! driven alone.

use std::path::Path;
use std::sync::Arc;

use skidpad_core::Track;
use skidpad_core::race::{RaceEvent, RaceRules, RaceTiming};
use skidpad_leaderboard::judge::judge;
use skidpad_leaderboard::outcome::Outcome;
use skidpad_leaderboard::seals::SealPolicy;
use skidpad_replay::{
    HighlightKind, HighlightOptions, Limits, ReplayPlayer, decode_replay, find_highlights,
};

/// (car index, lap number, time in µs, valid) for every lap of a replay,
/// by the race layer fed the playback world step by step.
type LapRow = (u32, u32, i64, bool);

fn micros(seconds: f64) -> i64 {
    (seconds * 1e6).round() as i64
}

fn race_layer_laps(bytes: &[u8], track: &Arc<Track>) -> Vec<LapRow> {
    let replay = decode_replay(bytes).unwrap();
    let world = skidpad_replay::create_replay_world(&replay).unwrap();
    let mut race = RaceTiming::new(track.clone(), RaceRules::default(), &world);
    let mut player = ReplayPlayer::new(world, &replay, skidpad_replay::NoHooks).unwrap();
    let ids = player.car_ids().to_vec();
    let mut rows = Vec::new();
    while player.advance().unwrap() {
        for event in race.after_step(player.world()).unwrap() {
            if let RaceEvent::Lap { car, lap } = event {
                let index = ids.iter().position(|&c| c == car).unwrap() as u32;
                rows.push((index, lap.number, micros(lap.time()), lap.is_valid()));
            }
        }
    }
    rows.sort_unstable();
    rows
}

fn export_laps(path: &Path) -> Vec<LapRow> {
    let mut out = Vec::new();
    skidpad_cli::export::export_json(
        path,
        &mut out,
        &skidpad_cli::export::ExportOptions::default(),
        (&Limits::default(), &skidpad_cli::beside::Beside::default()),
        skidpad_cli::files::no_game_logic,
        &indicatif::ProgressBar::hidden(),
    )
    .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let mut rows: Vec<LapRow> = json["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "lap")
        .map(|e| {
            (
                e["car"].as_u64().unwrap() as u32,
                e["lap"].as_u64().unwrap() as u32,
                micros(e["time"].as_f64().unwrap()),
                e["valid"].as_bool().unwrap(),
            )
        })
        .collect();
    rows.sort_unstable();
    rows
}

/// Lap records must be laps the race layer timed: each at its time.
fn check_highlights(bytes: &[u8], track: &Track, laps: &[LapRow]) {
    let replay = decode_replay(bytes).unwrap();
    let records = find_highlights(
        &replay,
        track,
        HighlightOptions::default(),
        &Limits::default(),
    )
    .unwrap();
    let mut best = i64::MAX;
    let mut seen = 0;
    for h in records {
        if let HighlightKind::LapRecord { time, .. } = h.kind {
            let t = micros(time);
            assert!(t < best, "each record beats the last");
            assert!(
                laps.iter().any(|&(_, _, lt, valid)| lt == t && valid),
                "lap record {time} s is a valid lap of the race layer: {laps:?}"
            );
            best = t;
            seen += 1;
        }
    }
    let fastest = laps.iter().filter(|l| l.3).map(|l| l.2).min();
    assert_eq!(
        fastest,
        (seen > 0).then_some(best),
        "the last record is the fastest lap"
    );
}

#[test]
fn every_tool_gives_the_demo_race_the_same_laps() {
    let dir = tempfile::tempdir().unwrap();
    let options = skidpad_cli::demo::DemoOptions {
        out: dir.path().to_owned(),
        cars: 3,
        laps: 2,
        track: "brandwood".to_owned(),
        on_track_surface: true,
        racecraft: Some(skidpad_cli::demo::DEFAULT_SEED),
    };
    let report = skidpad_cli::demo::run(&options, &indicatif::ProgressBar::hidden()).unwrap();
    let bytes = std::fs::read(&report.replay_file).unwrap();
    let track = Arc::new(Track::builtin("brandwood").unwrap());

    let reference = race_layer_laps(&bytes, &track);
    assert_eq!(
        reference.len(),
        6,
        "three cars, two laps each: {reference:?}"
    );

    // The demo's summary, cut while racing.
    let mut summary: Vec<LapRow> = report
        .cars
        .iter()
        .flat_map(|c| {
            c.laps
                .iter()
                .enumerate()
                .map(move |(k, l)| (c.car as u32, k as u32 + 1, micros(l.time), l.valid))
        })
        .collect();
    summary.sort_unstable();
    assert_eq!(summary, reference, "demo summary");

    assert_eq!(
        export_laps(&report.replay_file),
        reference,
        "skidpad export"
    );

    // `skidpad ghost --lap 2` of every car: the ghost's lap time.
    for car in 0..3 {
        let out = dir.path().join(format!("car{car}.skg"));
        let ghost = skidpad_cli::ghost_cmd::export_lap(
            &report.replay_file,
            car,
            2,
            &out,
            (&Limits::default(), &skidpad_cli::beside::Beside::default()),
            skidpad_cli::files::no_game_logic,
        )
        .unwrap();
        let row = reference.iter().find(|r| r.0 == car && r.1 == 2).unwrap();
        assert_eq!(micros(ghost.time), row.2, "skidpad ghost, car {car}");
    }

    check_highlights(&bytes, &track, &reference);

    // The leaderboard ranks car 0 (the demo's `player`).
    let Outcome::Verified(verified) = judge(&bytes, &Limits::default(), &SealPolicy::default())
    else {
        panic!("the demo race verifies");
    };
    let judged: Vec<LapRow> = verified
        .laps
        .iter()
        .map(|l| (0, l.lap, micros(l.time), l.valid))
        .collect();
    let car0: Vec<LapRow> = reference.iter().copied().filter(|r| r.0 == 0).collect();
    assert_eq!(judged, car0, "leaderboard");
    assert!(verified.laps[0].standing && !verified.laps[1].standing);
}

#[test]
fn the_golden_replays_have_the_same_laps_in_every_tool() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../golden")
        .join(format!("v{}", skidpad_core::SIMULATION_VERSION));
    // The golden scenarios race the built-in brandwood track and name it
    // in their `track` metadata.
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let mut laps_seen = 0;
    for name in [
        "flat_lap.skr",
        "long_run.skr",
        "retirements.skr",
        "mixed_field.skr",
    ] {
        let path = dir.join(name);
        let bytes = std::fs::read(&path).unwrap();
        let reference = race_layer_laps(&bytes, &track);
        assert_eq!(export_laps(&path), reference, "{name}: skidpad export");
        check_highlights(&bytes, &track, &reference);
        laps_seen += reference.len();
    }
    assert!(laps_seen >= 8, "the golden replays hold laps: {laps_seen}");
}

#[test]
fn a_reset_spoils_its_lap_alike_in_every_tool() {
    use skidpad_core::race::{GridLayout, grid_pose};
    use skidpad_core::{InitialPose, World, WorldConfig, preset};
    use skidpad_replay::{RecorderOptions, ReplayRecorder, encode_replay};
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = World::new(WorldConfig::default()).unwrap();
    let start = grid_pose(&track, 0, &GridLayout::default());
    let car = world.add_car(&preset("kart").unwrap(), start).unwrap();
    world.set_driver(car, Some(track.clone())).unwrap();
    let options = RecorderOptions {
        metadata: vec![("track".into(), "brandwood".into())],
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options).unwrap();
    // Ten seconds in, the game puts the kart back on the grid at rest.
    for step in 0..60 * 180 {
        if step == 600 {
            world
                .reset_car(
                    car,
                    InitialPose {
                        speed: 0.0,
                        ..start
                    },
                )
                .unwrap();
        }
        recorder.step(&mut world, 1.0 / 60.0).unwrap();
    }
    let bytes = encode_replay(&recorder.finish(&world).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("reset.skr");
    std::fs::write(&path, &bytes).unwrap();

    let reference = race_layer_laps(&bytes, &track);
    assert!(reference.len() >= 2, "{reference:?}");
    assert!(
        !reference[0].3 && reference[1].3,
        "the reset lap alone is spoilt: {reference:?}"
    );
    assert_eq!(export_laps(&path), reference, "skidpad export");
    check_highlights(&bytes, &track, &reference);
    let Outcome::Verified(verified) = judge(&bytes, &Limits::default(), &SealPolicy::default())
    else {
        panic!("the run verifies");
    };
    let judged: Vec<LapRow> = verified
        .laps
        .iter()
        .map(|l| (0, l.lap, micros(l.time), l.valid))
        .collect();
    assert_eq!(judged, reference, "leaderboard");
    assert_eq!(verified.best_lap.map(micros), Some(reference[1].2));
}

/// One AI rwd_sports from rest 10 m before Brandwood Park's line for one
/// lap, alone or (when `late`) joining at step 600 a recording whose
/// other car started 300 m up the road: the replay, the ranked car
/// (`player_car`) and its laps as the leaderboard judges them.
fn one_lap(late: bool) -> Vec<(u32, i64, bool, bool)> {
    use skidpad_core::{World, WorldConfig, preset};
    use skidpad_replay::{RecorderOptions, ReplayRecorder, encode_replay};
    const DT: f64 = 1.0 / 60.0;
    const JOINS_AT: u64 = 600;
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let pose_at = |distance: f64| skidpad_core::race::pose_along(&track, distance, 0.0, 0.0);
    let car = preset("rwd_sports").unwrap();
    let mut world = World::new(WorldConfig::default()).unwrap();
    let start = pose_at(track.length() - 10.0);
    let first = world
        .add_car(&car, if late { pose_at(300.0) } else { start })
        .unwrap();
    world.set_driver(first, Some(track.clone())).unwrap();
    let ranked = u32::from(late);
    let options = RecorderOptions {
        metadata: vec![
            ("track".into(), "brandwood".into()),
            ("player_car".into(), ranked.to_string()),
        ],
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options).unwrap();
    let steps = 75 * 60;
    for step in 0..steps + if late { JOINS_AT } else { 0 } {
        if late && step == JOINS_AT {
            let joined = recorder.add_car(&mut world, &car, start).unwrap();
            world.set_driver(joined, Some(track.clone())).unwrap();
        }
        recorder.step(&mut world, DT).unwrap();
    }
    let bytes = encode_replay(&recorder.finish(&world).unwrap()).unwrap();
    let Outcome::Verified(verified) = judge(&bytes, &Limits::default(), &SealPolicy::default())
    else {
        panic!("the run verifies (late: {late})");
    };
    assert_eq!(verified.car, ranked);
    verified
        .laps
        .iter()
        .map(|l| (l.lap, micros(l.time), l.valid, l.standing))
        .collect()
}

#[test]
fn a_car_that_joined_late_is_ranked_on_the_laps_it_drove_from_its_arrival() {
    // Nothing touches it, so it drives the lap it would have alone: the
    // same time to the microsecond, a standing lap from its arrival.
    let alone = one_lap(false);
    assert_eq!(alone.len(), 1, "{alone:?}");
    assert_eq!(one_lap(true), alone);
}
