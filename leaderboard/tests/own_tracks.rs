//! A game's own track on the leaderboard, on SQLite and on PostgreSQL: a
//! real circuit (Brands Hatch from the TUM racetrack database, imported as
//! `skidpad track import` does) registered in the boards file is raced by
//! the AI, and the run, naming the circuit by fingerprint and carrying its
//! definition, is verified, timed on the circuit's own line and ranked on
//! its board. A run that names it without carrying it is verified on the
//! registered track's ground. A run on a track nobody registered is
//! refused 422 at the door naming its fingerprint, and bytes that are not
//! a replay 400, before anything is stored.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::{DT, Service};
use serde_json::Value;
use skidpad_core::race::{AiField, GridLayout};
use skidpad_core::{Track, TrackDefinition, World, WorldConfig};
use skidpad_leaderboard::boards::Boards;
use skidpad_replay::{RecorderOptions, ReplayHeader, ReplayRecorder, encode_replay};
use skidpad_track_import::{ImportOptions, from_tum_csv};

fn brands_hatch() -> TrackDefinition {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../track-import/tests/data/tum/BrandsHatch.csv"
    );
    let csv = std::fs::read_to_string(path).unwrap();
    from_tum_csv(&csv, &ImportOptions::named("Brands Hatch GP")).unwrap()
}

/// `steps` of one AI rwd_sports from the front of `track`'s grid, on its
/// surface, by `player`, the track named (and carried) by the recorder.
fn race(track: &Arc<Track>, steps: u64, player: &str) -> skidpad_replay::Replay {
    let mut world = World::new(WorldConfig::default()).unwrap();
    world.set_ground(Arc::new(track.ground().unwrap())).unwrap();
    let mut field = AiField::new(1).on_track_surface(None);
    field.presets = vec!["rwd_sports".into()];
    field.layout = Some(GridLayout {
        first_row: 10.0,
        ..GridLayout::default()
    });
    field.line_up(&mut world, track).unwrap();
    let options = RecorderOptions {
        track: Some(track.clone()),
        metadata: vec![("player".into(), player.into())],
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options).unwrap();
    for _ in 0..steps {
        recorder.step(&mut world, DT).unwrap();
    }
    recorder.finish(&world).unwrap()
}

/// The keys of the boards `GET /boards` listed, in order.
fn board_keys(listing: &Value) -> Vec<&str> {
    listing
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["key"].as_str().unwrap())
        .collect()
}

fn boards(dir: &Path, circuit: &TrackDefinition) -> Arc<Boards> {
    std::fs::write(dir.join("brands.json"), circuit.to_json()).unwrap();
    let text = r#"[{"track": "brandwood", "max_steps": 20000},
                   {"track_file": "brands.json", "max_steps": 12000}]"#;
    Arc::new(Boards::from_json(text, dir).unwrap())
}

async fn an_imported_circuit_is_ranked_on_its_board(database: &str, dir: &Path) {
    let circuit = brands_hatch();
    let track = Arc::new(Track::from_definition(circuit.clone()).unwrap());
    let service = Service::start_with(database, 1, Some(boards(dir, &circuit))).await;
    let key = track.fingerprint_hex();

    // A standing lap of about 150 s and the run-up to the line.
    let (code, body) = service
        .submit(encode_replay(&race(&track, 10_500, "circuit racer")).unwrap())
        .await;
    assert_eq!(code, 202, "{body}");
    let verdict = service.verdict(body["id"].as_str().unwrap()).await;
    assert_eq!(verdict["status"], "verified", "{verdict}");
    let outcome = &verdict["outcome"];
    assert_eq!(outcome["track"], key.as_str());
    let lap = outcome["best_lap"].as_f64().expect("a valid lap");
    assert!((120.0..200.0).contains(&lap), "{lap}");
    let (code, board) = service
        .get(&format!("/leaderboards/{key}/rwd_sports"))
        .await;
    assert_eq!(code, 200);
    assert_eq!(board["entries"][0]["player"], "circuit racer", "{board}");
    assert_eq!(board["entries"][0]["lap_time"].as_f64(), Some(lap));

    // What a client needs to race there: the registered tracks, the own
    // one with its definition (the same fingerprint), each preset a class.
    let (code, listing) = service.get("/boards").await;
    assert_eq!(code, 200);
    assert_eq!(
        board_keys(&listing),
        ["brandwood", key.as_str()],
        "{listing}"
    );
    let served: TrackDefinition =
        serde_json::from_value(listing[1]["track_definition"].clone()).unwrap();
    assert_eq!(
        Track::from_definition(served).unwrap().fingerprint_hex(),
        key
    );
    assert!(
        listing[0].get("track_definition").is_none(),
        "a built-in track by name"
    );
    assert_eq!(
        listing[1]["classes"][0]["cars"][0]["preset"],
        listing[1]["classes"][0]["name"]
    );

    // The record's ghost downloads: the re-simulated best lap, cut at the
    // circuit's line; every sector timed. The player's neighbourhood.
    let ghost = reqwest::get(format!(
        "{}/leaderboards/{key}/rwd_sports/record/ghost",
        service.base
    ))
    .await
    .unwrap();
    assert_eq!(ghost.status().as_u16(), 200);
    let ghost = skidpad_ghost::decode_ghost(&ghost.bytes().await.unwrap()).unwrap();
    let duration = f64::from(ghost.duration());
    assert!((duration - lap).abs() < 0.05, "{duration} against {lap}");
    let sectors = outcome["laps"][0]["sectors"].as_array().unwrap();
    assert_eq!(sectors.len(), 3, "{outcome}");
    let sum: f64 = sectors.iter().map(|s| s.as_f64().unwrap()).sum();
    assert!((sum - outcome["laps"][0]["time"].as_f64().unwrap()).abs() < 1e-6);
    let (code, around) = service
        .get(&format!(
            "/leaderboards/{key}/rwd_sports/around/circuit%20racer?span=2"
        ))
        .await;
    assert_eq!(code, 200, "{around}");
    assert_eq!(around["rank"], 1);
    assert_eq!(around["entries"][0]["player"], "circuit racer");

    // Named by fingerprint, not carried: verified on the registered
    // track's ground all the same.
    let mut bare = race(&track, 300, "bare racer");
    bare.header
        .metadata
        .retain(|(k, _)| k != ReplayHeader::TRACK_DEFINITION_KEY);
    let (code, body) = service.submit(encode_replay(&bare).unwrap()).await;
    assert_eq!(code, 202, "{body}");
    let verdict = service.verdict(body["id"].as_str().unwrap()).await;
    assert_eq!(verdict["status"], "verified", "{verdict}");

    // A track nobody registered: refused at the door, naming it.
    let mut lopsided = Track::builtin("brandwood").unwrap().definition().clone();
    lopsided.width = Some(9.0);
    let stranger = Arc::new(Track::from_definition(lopsided).unwrap());
    let (code, body) = service
        .submit(encode_replay(&race(&stranger, 60, "stranger")).unwrap())
        .await;
    assert_eq!(code, 422, "{body}");
    let said = body.to_string();
    assert!(said.contains(&stranger.fingerprint_hex()), "{said}");

    // Not a replay at all: 400, nothing stored.
    let (code, body) = service.submit(b"this is not a replay".to_vec()).await;
    assert_eq!(code, 400, "{body}");
    let (_, health) = service.get("/health").await;
    assert_eq!(health["queue"]["done"], 2, "{health}");
    assert_eq!(health["queue"]["queued"], Value::from(0), "{health}");
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_circuit_is_ranked_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let database = common::sqlite_url(dir.path());
    an_imported_circuit_is_ranked_on_its_board(&database, dir.path()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_circuit_is_ranked_on_postgres() {
    let Some(database) = common::postgres_database("own_tracks").await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    an_imported_circuit_is_ranked_on_its_board(&database, dir.path()).await;
}

/// `steps` of `car` driven by the AI from brandwood's grid.
fn race_car(car: &skidpad_core::CarDefinition, steps: u64, player: &str) -> Vec<u8> {
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = World::new(WorldConfig::default()).unwrap();
    let id = world
        .add_car(car, skidpad_core::race::grid_pose(&track, 0, &track.grid()))
        .unwrap();
    world.set_driver(id, Some(track.clone())).unwrap();
    let options = RecorderOptions {
        track: Some(track),
        metadata: vec![("player".into(), player.into())],
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options).unwrap();
    for _ in 0..steps {
        recorder.step(&mut world, DT).unwrap();
    }
    encode_replay(&recorder.finish(&world).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_ranks_the_cars_of_its_own_classes() {
    let dir = tempfile::tempdir().unwrap();
    let mut club_racer = skidpad_core::preset("rwd_sports").unwrap();
    club_racer.name = "Club racer".into();
    club_racer.chassis.mass += 40.0;
    std::fs::write(dir.path().join("club_racer.json"), club_racer.to_json()).unwrap();
    let text = r#"[{"track": "brandwood", "max_steps": 20000,
                    "classes": {"club": ["club_racer.json", "kart"]}}]"#;
    let boards = Arc::new(Boards::from_json(text, dir.path()).unwrap());
    let database = common::sqlite_url(dir.path());
    let service = Service::start_with(&database, 1, Some(boards)).await;

    // The club's own car, with a manual gearbox (the driver's choice).
    let mut manual = club_racer.clone();
    manual.gearbox.mode = skidpad_core::ShiftMode::Manual;
    let (code, body) = service.submit(race_car(&manual, 240, "club member")).await;
    assert_eq!(code, 202, "{body}");
    let verdict = service.verdict(body["id"].as_str().unwrap()).await;
    assert_eq!(verdict["status"], "verified", "{verdict}");
    assert_eq!(verdict["outcome"]["class"], "club");
    // The class's cars as a client drives them: the own car's definition
    // and the preset's name.
    let (_, listing) = service.get("/boards").await;
    let cars = &listing[0]["classes"][0]["cars"];
    assert_eq!(listing[0]["classes"][0]["name"], "club");
    assert_eq!(cars[0]["definition"]["name"], "Club racer", "{listing}");
    assert_eq!(cars[1]["preset"], "kart");

    // A preset the board's classes do not list.
    let hatch = skidpad_core::preset("fwd_hatchback").unwrap();
    let (_, body) = service.submit(race_car(&hatch, 240, "outsider")).await;
    let verdict = service.verdict(body["id"].as_str().unwrap()).await;
    assert_eq!(verdict["status"], "rejected", "{verdict}");
    let message = verdict["outcome"]["reason"]["message"].as_str().unwrap();
    assert!(
        message.contains("none of this board's classes [\"club\"]"),
        "{message}"
    );
    service.stop().await;

    let bad = r#"[{"track": "brandwood", "max_steps": 9, "classes": {"club": ["nowhere.json"]}}]"#;
    assert!(
        Boards::from_json(bad, dir.path())
            .unwrap_err()
            .contains("nowhere.json")
    );
}

/// POSTs a board to /boards with `token` (none: no header).
async fn register(service: &Service, token: Option<&str>, board: &Value) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .post(format!("{}/boards", service.base))
        .json(board);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let code = response.status().as_u16();
    (code, response.json().await.unwrap_or(Value::Null))
}

/// An operator registers an own track on a running service (its boards
/// file lists only brandwood): refused without an admin token, answered
/// 201 with the board, 409 a second time. Another service on the same
/// database, started before, takes a run there at once, and a restarted
/// one still lists it.
async fn a_track_registered_on_a_running_service(database: &str) {
    let only_brandwood = || {
        Arc::new(
            Boards::from_json(
                r#"[{"track": "brandwood", "max_steps": 20000}]"#,
                Path::new("."),
            )
            .unwrap(),
        )
    };
    let first = Service::start_with(database, 0, Some(only_brandwood())).await;
    let second = Service::start_with(database, 1, Some(only_brandwood())).await;
    // A game's own track: Brandwood made narrower (small, so each
    // process builds its ground quickly).
    let mut circuit = Track::builtin("brandwood").unwrap().definition().clone();
    circuit.width = Some(9.0);
    let track = Arc::new(Track::from_definition(circuit.clone()).unwrap());
    let key = track.fingerprint_hex();
    let run = encode_replay(&race(&track, 300, "early racer")).unwrap();
    let (code, body) = second.submit(run.clone()).await;
    assert_eq!(code, 422, "not registered yet: {body}");

    let board = serde_json::json!({
        "track_definition": circuit,
        "max_steps": 12000,
        "classes": {"sports": ["rwd_sports"]},
    });
    let player = first.store.issue_token("a player", false).await.unwrap();
    let admin = first.store.issue_token("the operator", true).await.unwrap();
    assert_eq!(register(&first, None, &board).await.0, 401);
    assert_eq!(register(&first, Some(&player), &board).await.0, 403);
    let (code, body) = register(&first, Some(&admin), &serde_json::json!({"max_steps": 5})).await;
    assert_eq!(code, 422, "{body}");
    let (code, listed) = register(&first, Some(&admin), &board).await;
    assert_eq!(code, 201, "{listed}");
    assert_eq!(listed["key"], key.as_str());
    assert_eq!(listed["classes"][0]["name"], "sports");
    let (code, body) = register(&first, Some(&admin), &board).await;
    assert_eq!(code, 409, "{body}");

    // The other service learns of it from the database.
    let (code, body) = second.submit(run).await;
    assert_eq!(code, 202, "{body}");
    let verdict = second.verdict(body["id"].as_str().unwrap()).await;
    assert_eq!(verdict["status"], "verified", "{verdict}");
    assert_eq!(verdict["outcome"]["track"], key.as_str());
    second.stop().await;
    first.stop().await;

    let restarted = Service::start_with(database, 0, Some(only_brandwood())).await;
    let (_, listing) = restarted.get("/boards").await;
    assert_eq!(
        board_keys(&listing),
        ["brandwood", key.as_str()],
        "{listing}"
    );
    restarted.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_track_registered_on_a_running_service_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    a_track_registered_on_a_running_service(&common::sqlite_url(dir.path())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_track_registered_on_a_running_service_on_postgres() {
    let Some(database) = common::postgres_database("registered_boards").await else {
        return;
    };
    a_track_registered_on_a_running_service(&database).await;
}
