//! The command's reports on the golden files and a short demo race:
//! human-readable text as insta snapshots, the rest as assertions.

use std::path::Path;

use indicatif::ProgressBar;
use skidpad_cli::beside::Beside;
use skidpad_cli::{demo, export, ghost_cmd, inspect, verify};
use skidpad_golden::Scenario;
use skidpad_replay::Limits;

fn golden(name: &str) -> &'static Path {
    // Tests run in the crate's directory; the path stays relative so the
    // snapshots do not depend on where the repository lives. The current
    // simulation version's goldens are the ones that verify.
    let dir = format!("../golden/v{}", skidpad_core::SIMULATION_VERSION);
    Box::leak(Path::new(&dir).join(name).into_boxed_path())
}

#[test]
fn inspect_replay_text() {
    let text = inspect::inspect(
        golden("flat_lap.skr"),
        &Limits::default(),
        &Beside::default(),
    )
    .unwrap()
    .to_string();
    insta::assert_snapshot!("inspect_flat_lap_skr", text);
}

#[test]
fn inspect_ghost_text() {
    let text = inspect::inspect(
        golden("flat_lap.skg"),
        &Limits::default(),
        &Beside::default(),
    )
    .unwrap()
    .to_string();
    insta::assert_snapshot!("inspect_flat_lap_skg", text);
}

#[test]
fn verify_text_and_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let corrupt = dir.path().join("corrupt.skr");
    let mut bytes = std::fs::read(golden("mixed_field.skr")).unwrap();
    bytes[200] ^= 0xff;
    std::fs::write(&corrupt, bytes).unwrap();
    let files = [
        golden("flat_lap.skr"),
        golden("game_logic.skr"),
        golden("flat_lap.skg"),
    ];
    let report = verify::VerifyReport {
        files: files
            .iter()
            .map(|f| verify::verify_file(f, &Limits::default(), Scenario::game_logic))
            .collect(),
    };
    assert!(report.all_ok());
    insta::assert_snapshot!("verify_goldens", report.to_string());

    let bad = verify::verify_file(&corrupt, &Limits::default(), Scenario::game_logic);
    assert!(!bad.ok && bad.detail.contains("checksum"), "{}", bad.detail);
    let missing = verify::verify_file(
        Path::new("no/such/file.skr"),
        &Limits::default(),
        Scenario::game_logic,
    );
    assert!(
        !missing.ok && missing.detail.contains("cannot read"),
        "{}",
        missing.detail
    );
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["files"][0]["steps"], 4800);
}

#[test]
fn ghost_export_reproduces_the_golden_lap() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("lap.skg");
    let done = ghost_cmd::export_lap(
        golden("flat_lap.skr"),
        0,
        1,
        &out,
        (&Limits::default(), &skidpad_cli::beside::Beside::default()),
        Scenario::game_logic,
    )
    .unwrap();
    assert_eq!(done.lap, 1);
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(golden("flat_lap.skg")).unwrap()
    );
    let lap_of = |car, lap| {
        ghost_cmd::export_lap(
            golden("flat_lap.skr"),
            car,
            lap,
            &out,
            (&Limits::default(), &skidpad_cli::beside::Beside::default()),
            Scenario::game_logic,
        )
    };
    assert!(lap_of(0, 2).is_err(), "only one lap");
    assert!(lap_of(3, 1).is_err(), "only one car");
}

#[test]
fn export_is_dense_json_with_events() {
    let mut out = Vec::new();
    let steps = export::export_json(
        golden("game_logic.skr"),
        &mut out,
        &export::ExportOptions::default(),
        (&Limits::default(), &skidpad_cli::beside::Beside::default()),
        Scenario::game_logic,
        &ProgressBar::hidden(),
    )
    .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(steps, 3600);
    assert_eq!(json["steps"].as_array().unwrap().len(), 3600);
    assert_eq!(json["cars"].as_array().unwrap().len(), 3);
    assert_eq!(
        json["steps"][0]["cars"][0].as_array().unwrap().len(),
        export::CHANNELS.len()
    );
    let events = json["events"].as_array().unwrap();
    assert!(events.iter().any(|e| e["kind"] == "keyframe"));
    // The AI cars of this scenario bump into each other early on.
    let contact = events
        .iter()
        .find(|e| e["kind"] == "contact")
        .expect("a contact event");
    assert!(
        contact["other"].is_u64() || contact["other"] == "ground",
        "{contact}"
    );
    assert!(contact["impulse"].as_f64().unwrap() >= 0.0);
    assert_eq!(contact["point"].as_array().unwrap().len(), 3);
    assert!(
        !events.iter().any(|e| e["kind"] == "desync"),
        "the game's hooks keep it in sync"
    );
}

/// A demo of `cars` cars and one lap on `track`'s own surface, into `out`.
fn demo_race(out: &std::path::Path, cars: usize, track: &str) -> anyhow::Result<demo::DemoReport> {
    demo::run(
        &demo::DemoOptions {
            out: out.to_owned(),
            cars,
            laps: 1,
            track: track.to_owned(),
            on_track_surface: true,
            racecraft: Some(skidpad_cli::demo::DEFAULT_SEED),
        },
        &ProgressBar::hidden(),
    )
}

#[test]
fn a_demo_on_a_hilly_track_surface_names_its_ground_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let report = demo_race(dir.path(), 2, "hillcrest").unwrap();
    assert!(report.verified(), "{report}");
    assert_eq!(report.track, "Hillcrest");
    let replay =
        skidpad_replay::decode_replay(&std::fs::read(&report.replay_file).unwrap()).unwrap();
    let track = replay.header.metadata.iter().find(|(k, _)| k == "track");
    assert_eq!(track.map(|(_, v)| v.as_str()), Some("hillcrest"));
    let (_, description) = replay.header.ground().unwrap();
    assert!(description.contains("triangle mesh"), "{description}");
    // The cars climbed: some pose in the ghost is metres above the start.
    let ghost_file = report.ghost_file.as_ref().expect("a lap was completed");
    let ghost = skidpad_ghost::decode_ghost(&std::fs::read(ghost_file).unwrap()).unwrap();
    let heights = ghost.frames().iter().map(|f| f64::from(f.pose.z));
    let climb = heights.clone().fold(f64::MIN, f64::max) - heights.fold(f64::MAX, f64::min);
    assert!(climb > 10.0, "{climb} m of climb over the best lap");
}

#[test]
fn a_short_demo_race_writes_verified_files() {
    let dir = tempfile::tempdir().unwrap();
    let report = demo_race(dir.path(), 2, demo::DEFAULT_TRACK).unwrap();
    assert!(report.verified());
    assert!(report.replay_file.exists() && report.ghost_file.as_ref().is_some_and(|g| g.exists()));
    assert!(
        report.cars.iter().all(|c| c.dnf.is_none()),
        "every car finished"
    );
    assert!(report.stream_file.exists() && report.stream_matches);
    // The layout is what this snapshot pins. Lap times, sizes and hashes
    // are simulated results that a SIMULATION_VERSION bump may change, so
    // their digits are masked (the goldens pin the bits).
    let text = report
        .to_string()
        .replace(&dir.path().display().to_string(), "<out>")
        .replace(&report.final_hash, "<hash>");
    let masked: String = text
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect();
    insta::assert_snapshot!("demo_two_cars_one_lap", masked);
    assert!(demo_race(dir.path(), 0, demo::DEFAULT_TRACK).is_err());
}

#[test]
fn export_takes_a_channel_choice_and_a_stride_and_keeps_every_event() {
    let run = |options: &export::ExportOptions| {
        let mut out = Vec::new();
        export::export_json(
            golden("game_logic.skr"),
            &mut out,
            options,
            (&Limits::default(), &skidpad_cli::beside::Beside::default()),
            Scenario::game_logic,
            &ProgressBar::hidden(),
        )
        .unwrap();
        serde_json::from_slice::<serde_json::Value>(&out).unwrap()
    };
    let full = run(&export::ExportOptions::default());
    let thin = run(&export::ExportOptions::parse(Some("speed, gear"), 100).unwrap());
    assert_eq!(thin["channels"], serde_json::json!(["speed", "gear"]));
    let steps = thin["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 36);
    // Row k is step 100·k + 1, with the default export's values there.
    let speed = export::CHANNELS.iter().position(|c| *c == "speed").unwrap();
    let gear = export::CHANNELS.iter().position(|c| *c == "gear").unwrap();
    for row in steps {
        let step = row["step"].as_u64().unwrap();
        assert_eq!((step - 1) % 100, 0);
        let same = &full["steps"][(step - 1) as usize];
        assert_eq!(same["step"], row["step"]);
        for car in 0..3 {
            assert_eq!(row["cars"][car][0], same["cars"][car][speed]);
            assert_eq!(row["cars"][car][1], same["cars"][car][gear]);
        }
    }
    // Events stay at every step.
    assert_eq!(thin["events"], full["events"]);
    let all = export::ExportOptions::parse(Some("all"), 1).unwrap();
    assert_eq!(all.channels.len(), skidpad_core::CHANNEL_COUNT);
    let err = export::ExportOptions::parse(Some("speed,warp"), 1).unwrap_err();
    assert!(err.to_string().contains("unknown channel `warp`"), "{err}");
    assert!(export::ExportOptions::parse(None, 0).is_err());
}

#[test]
fn export_lists_a_reset_and_the_lap_it_spoils() {
    use skidpad_core::race::{GridLayout, grid_pose};
    use skidpad_core::{InitialPose, Track, World, WorldConfig, preset};
    use skidpad_replay::{RecorderOptions, ReplayRecorder, encode_replay};
    let track = std::sync::Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = World::new(WorldConfig::default()).unwrap();
    for slot in 0..2 {
        let pose = grid_pose(&track, slot, &GridLayout::default());
        let car = world.add_car(&preset("kart").unwrap(), pose).unwrap();
        world.set_driver(car, Some(track.clone())).unwrap();
    }
    let options = RecorderOptions {
        metadata: vec![("track".into(), "brandwood".into())],
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options).unwrap();
    let second = world.car_ids().nth(1).unwrap();
    let at = InitialPose {
        speed: 0.0,
        ..grid_pose(&track, 1, &GridLayout::default())
    };
    for step in 0..6600 {
        if step == 600 {
            world.reset_car(second, at).unwrap();
        }
        recorder.step(&mut world, 1.0 / 60.0).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("reset.skr");
    std::fs::write(
        &path,
        encode_replay(&recorder.finish(&world).unwrap()).unwrap(),
    )
    .unwrap();
    let mut out = Vec::new();
    let options = export::ExportOptions::parse(Some("speed"), 60).unwrap();
    let hidden = ProgressBar::hidden();
    export::export_json(
        &path,
        &mut out,
        &options,
        (&Limits::default(), &skidpad_cli::beside::Beside::default()),
        skidpad_cli::files::no_game_logic,
        &hidden,
    )
    .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let events = json["events"].as_array().unwrap();
    let resets: Vec<&serde_json::Value> = events.iter().filter(|e| e["kind"] == "reset").collect();
    assert_eq!(resets.len(), 1, "{resets:?}");
    assert_eq!(resets[0]["step"], 600);
    assert_eq!(resets[0]["car"], 1);
    assert_eq!(resets[0]["pose"][0].as_f64().unwrap(), at.x);
    assert_eq!(resets[0]["pose"][3].as_f64().unwrap(), 0.0);
    // Car 1's first lap had the reset in it and does not count; car 0's
    // does.
    let first_lap = |car: u64| {
        events
            .iter()
            .find(|e| e["kind"] == "lap" && e["car"] == car)
            .unwrap()
            .clone()
    };
    assert_eq!(first_lap(0)["valid"], true, "{}", first_lap(0));
    assert_eq!(first_lap(1)["valid"], false, "{}", first_lap(1));
}

/// A small hill of a game's own and a 2 s run over it, recorded with the
/// ground carried or not; the replay's bytes and the ground.
fn run_on_a_hill(carry: bool) -> (Vec<u8>, skidpad_core::GroundSource) {
    use skidpad_core::{
        CarInput, GroundSource, HeightfieldSource, InitialPose, World, WorldConfig, preset,
    };
    use skidpad_replay::{RecorderOptions, ReplayRecorder, encode_replay};
    let ground = GroundSource::Heightfield(HeightfieldSource {
        x0: -50.0,
        y0: -50.0,
        spacing: 5.0,
        columns: 21,
        rows: 21,
        heights: (0..21 * 21).map(|k| 0.01 * f64::from(k % 21)).collect(),
        surfaces: None,
    });
    let mut world = World::new(WorldConfig::default()).unwrap();
    world.set_ground(ground.build().unwrap()).unwrap();
    let car = world
        .add_car(&preset("fwd_hatchback").unwrap(), InitialPose::default())
        .unwrap();
    let input = CarInput {
        throttle: 0.6,
        ..CarInput::default()
    };
    world.set_input(car, input).unwrap();
    let options = RecorderOptions {
        ground: carry.then(|| ground.clone()),
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options).unwrap();
    for _ in 0..120 {
        recorder.step(&mut world, 1.0 / 60.0).unwrap();
    }
    let bytes = encode_replay(&recorder.finish(&world).unwrap()).unwrap();
    (bytes, ground)
}

/// A replay of a game's own ground that carries it (replay section 11):
/// `skidpad verify` re-simulates it from the file alone and `inspect`
/// names the carried ground.
#[test]
fn a_replay_carrying_its_ground_verifies_and_inspect_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("own_ground.skr");
    std::fs::write(&path, run_on_a_hill(true).0).unwrap();
    let verdict = verify::verify_file(&path, &Limits::default(), Scenario::game_logic);
    assert!(verdict.ok, "{}", verdict.detail);
    let shown = inspect::inspect(&path, &Limits::default(), &Beside::default())
        .unwrap()
        .to_string();
    assert!(
        shown.contains("carried ground    heightfield 21 × 21 at 5 m"),
        "{shown}"
    );
}

/// One that does not carry it verifies with its ground file beside it
/// (`skidpad verify --ground`), and not with another ground.
#[test]
fn a_replay_verifies_with_its_ground_file_and_not_with_another() {
    use skidpad_cli::files;
    use skidpad_core::{GroundSource, HeightfieldSource};
    let dir = tempfile::tempdir().unwrap();
    let (bytes, ground) = run_on_a_hill(false);
    let path = dir.path().join("hill.skr");
    std::fs::write(&path, bytes).unwrap();
    let ground_file = dir.path().join("hill.skgd");
    std::fs::write(
        &ground_file,
        skidpad_replay::encode_ground_file(&ground).unwrap(),
    )
    .unwrap();
    // A file `verify` refuses alone, saying `says`.
    let refused = |file: &Path, says: &str| {
        let verdict = verify::verify_file(file, &Limits::default(), Scenario::game_logic);
        assert!(
            !verdict.ok && verdict.detail.contains(says),
            "{}",
            verdict.detail
        );
    };
    refused(&path, "plane");
    let given = files::read_ground(&ground_file).unwrap();
    let on = |g: &GroundSource| {
        let beside = skidpad_cli::beside::Beside {
            ground: Some(g.clone()),
            track: None,
        };
        verify::verify_file_on(&path, &Limits::default(), Scenario::game_logic, &beside)
    };
    let verdict = on(&given);
    assert!(verdict.ok, "{}", verdict.detail);
    let other = GroundSource::Heightfield(HeightfieldSource {
        x0: 0.0,
        y0: 0.0,
        spacing: 1.0,
        columns: 2,
        rows: 2,
        heights: vec![0.0; 4],
        surfaces: None,
    });
    let wrong = on(&other);
    assert!(
        !wrong.ok && wrong.detail.contains("heightfield 2 × 2") && wrong.detail.contains("21 × 21"),
        "{}",
        wrong.detail
    );
    // Given as a file to verify, a ground file is named for what it is.
    refused(&ground_file, "is a ground file (.skgd)");
    let not_ground = files::read_ground(&path).unwrap_err();
    assert!(
        format!("{not_ground:#}").contains("is not a ground file"),
        "{not_ground:#}"
    );
}
