//! An online race on a game's own track and car: the server is started
//! with `--track FILE --car FILE` (a real circuit, Brands Hatch from the
//! TUM racetrack database, and a preset renamed and written as a
//! definition), hands both to the player that joins (which loaded the
//! circuit beforehand, as a game does), which predicts its whole lap
//! exactly on them; the race's recording carries the circuit
//! and verifies from the file alone.

mod common;

use std::sync::Arc;

use skidpad_core::{Track, hex, preset};
use skidpad_netplay::bot::{BotOptions, run_bot};
use skidpad_replay::{Limits, NoHooks, read_stream, verify_replay};
use skidpad_track_import::{ImportOptions, from_tum_csv};

use common::*;

/// Stops the server and reads the race's recording it printed.
fn recording(server: &mut Process) -> skidpad_replay::Replay {
    let printed = server.terminate();
    let path = printed
        .iter()
        .find_map(|l| l.strip_prefix("recorded "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no recording in {printed:?}"))
        .to_owned();
    read_stream(&std::fs::read(&path).unwrap(), &Limits::default())
        .unwrap()
        .replay
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_race_on_an_imported_circuit_with_an_own_car_records_a_replay_that_verifies() {
    let files = tempfile::tempdir().unwrap();
    let csv = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../track-import/tests/data/tum/BrandsHatch.csv"
    ))
    .unwrap();
    let circuit = from_tum_csv(&csv, &ImportOptions::named("Brands Hatch GP")).unwrap();
    let track_file = files.path().join("brands.json");
    std::fs::write(&track_file, circuit.to_json()).unwrap();
    let mut car = preset("rwd_sports").unwrap();
    car.name = "Club racer".into();
    let car_file = files.path().join("club_racer.json");
    std::fs::write(&car_file, car.to_json()).unwrap();

    let (tokens_path, tokens) = tokens_file(1);
    let recorded = tempfile::tempdir().unwrap();
    let mut server = server(
        &tokens_path,
        1,
        &[
            "--record",
            recorded.path().to_str().unwrap(),
            "--track",
            track_file.to_str().unwrap(),
            "--car",
            car_file.to_str().unwrap(),
            // Cars held until the player's seat is taken, then a short
            // countdown, as a race on a track the players load starts.
            "--start-seats",
            "1",
            "--countdown-s",
            "20",
        ],
    );
    // The player loads the circuit before it joins, as a game does from
    // its lobby: joining builds nothing (a debug build of this ground
    // takes seconds, which would start its prediction behind the server).
    let track = Arc::new(Track::from_definition(circuit.clone()).unwrap());
    let ground: Arc<dyn skidpad_core::Ground> = Arc::new(track.ground().unwrap());
    let report = run_bot(BotOptions {
        name: "ann".into(),
        preloaded: Some((track.clone(), ground)),
        ..bot(&server, &tokens[0], 1)
    })
    .await
    .unwrap();
    assert_exact(&report, 1);

    let replay = recording(&mut server);
    let named = replay.header.track().unwrap().unwrap();
    assert_eq!(named.fingerprint(), track.fingerprint());
    assert_eq!(replay.definitions[0].name, "Club racer");
    let verified = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
    assert!(verified.is_valid() && verified.desyncs == 0, "{verified:?}");
    eprintln!("final hash {}", hex(&verified.final_hash));
}

#[test]
fn a_csv_is_refused_saying_what_an_online_race_takes() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_skidpad-netplay"))
        .args(["serve", "--listen", "127.0.0.1:0", "--track", "circuit.csv"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("takes a track definition's .json") && said.contains("glTF scene"),
        "{said}"
    );
}

/// A race on a glTF scene (the stadium pygltflib writes): the server
/// imports it, hands its ground to the player in the map message, the
/// player (which loaded nothing) predicts its lap exactly on it, and the
/// recording carries track and ground and verifies alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_race_on_a_gltf_scene_hands_its_ground_to_the_player() {
    let Some(scenes) = skidpad_fixtures::scenes::written_scenes("an online race on a glTF scene")
    else {
        return;
    };
    let glb = scenes.join("stadium.glb");
    let (tokens_path, tokens) = tokens_file(2);
    let recorded = tempfile::tempdir().unwrap();
    let mut server = server(
        &tokens_path,
        1,
        &[
            "--record",
            recorded.path().to_str().unwrap(),
            "--track",
            glb.to_str().unwrap(),
            "--start-seats",
            "2",
            "--countdown-s",
            "3",
        ],
    );
    // One player predicts its own car, the other every car.
    let own = tokio::spawn(run_bot(bot(&server, &tokens[0], 1)));
    let all = run_bot(BotOptions {
        predict: skidpad_netplay::payloads::Prediction::All,
        ..bot(&server, &tokens[1], 1)
    })
    .await
    .unwrap();
    let own = own.await.unwrap().unwrap();
    // A lap of the stadium is about 40 s: 1 200 states at 30 frames a
    // second (`assert_exact` expects a minute's worth).
    assert!(own.laps >= 1 && all.laps >= 1, "{own:?} {all:?}");
    assert_eq!(own.mispredicted, 0, "{:?}", own.last_miss);
    assert!(own.checked > 900, "only {} states checked", own.checked);
    let race = all.race.as_ref().expect("whole-race figures");
    assert_eq!(
        (race.desyncs, all.desyncs),
        (0, 0),
        "{:?}",
        race.last_desync
    );
    assert!(race.confirmed_ticks > 1800, "{race:?}");
    let replay = recording(&mut server);
    assert_eq!(replay.header.track().unwrap().unwrap().name(), "stadium");
    assert!(replay.ground.is_some(), "the scene's ground is carried");
    let verified = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
    assert!(verified.is_valid() && verified.desyncs == 0, "{verified:?}");
}
