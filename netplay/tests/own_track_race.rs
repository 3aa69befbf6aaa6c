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

    let printed = server.terminate();
    let path = printed
        .iter()
        .find_map(|l| l.strip_prefix("recorded "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no recording in {printed:?}"))
        .to_owned();
    let stream = read_stream(&std::fs::read(&path).unwrap(), &Limits::default()).unwrap();
    let replay = stream.replay;
    let named = replay.header.track().unwrap().unwrap();
    assert_eq!(named.fingerprint(), track.fingerprint());
    assert_eq!(replay.definitions[0].name, "Club racer");
    let verified = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
    assert!(verified.is_valid() && verified.desyncs == 0, "{verified:?}");
    eprintln!("final hash {}", hex(&verified.final_hash));
}

#[test]
fn a_glb_scene_or_a_csv_is_refused_saying_what_an_online_race_takes() {
    for file in ["circuit.glb", "circuit.gltf", "circuit.csv"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_skidpad-netplay"))
            .args(["serve", "--listen", "127.0.0.1:0", "--track", file])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{file}: {said}");
        assert!(
            said.contains("takes a track definition's .json")
                && said.contains("glTF scenes are not raced online yet"),
            "{file}: {said}"
        );
    }
}
