//! The HTTP API on SQLite, in this process, with real uploads over
//! loopback: a lap timed by re-simulation and ranked, idempotent uploads,
//! every kind of rejection, and what is refused at the door.

mod common;

use std::sync::OnceLock;

use common::{ONE_LAP_STEPS, Service, record, sqlite_url};
use serde_json::Value;
use skidpad_core::{InitialPose, SIMULATION_VERSION, World, WorldConfig, preset};
use skidpad_replay::{
    Limits, RecorderOptions, Replay, ReplayRecorder, Runs, encode_replay, encode_replay_gzip, gzip,
};

/// One lap of alice's, recorded once for every test here.
fn alice_lap() -> &'static Replay {
    static LAP: OnceLock<Replay> = OnceLock::new();
    LAP.get_or_init(|| {
        record(
            "rwd_sports",
            ONE_LAP_STEPS,
            // A false claim: the server must not read it.
            &[("player", "alice"), ("lap_time", "1.000")],
        )
    })
}

fn short(player: &str) -> Replay {
    record("rwd_sports", 120, &[("player", player)])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lap_is_timed_by_re_simulation_and_ranked() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&sqlite_url(dir.path()), 2).await;
    let plain = encode_replay(alice_lap()).unwrap();
    let (code, body) = service.submit(plain.clone()).await;
    assert_eq!(code, 202, "{body}");
    let id = body["id"].as_str().unwrap().to_owned();
    assert_eq!(id, blake3::hash(&plain).to_hex().to_string());
    // The same replay gzipped is the same run.
    let (code, again) = service
        .submit(encode_replay_gzip(alice_lap()).unwrap())
        .await;
    assert_eq!(
        (code, again["id"].as_str()),
        (200, Some(id.as_str())),
        "{again}"
    );
    assert_eq!(again["new"], false);

    let run = service.verdict(&id).await;
    assert_eq!(run["status"], "verified", "{run}");
    assert_eq!(run["attempts"], 1);
    let outcome = &run["outcome"];
    assert_eq!(outcome["track"], "brandwood");
    assert_eq!(outcome["class"], "rwd_sports");
    assert_eq!(outcome["player"], "alice");
    assert_eq!(outcome["steps"], ONE_LAP_STEPS);
    let laps = outcome["laps"].as_array().unwrap();
    assert_eq!(laps.len(), 1, "{outcome}");
    assert_eq!(laps[0]["valid"], true, "{outcome}");
    let lap = laps[0]["time"].as_f64().unwrap();
    assert!(
        (55.0..70.0).contains(&lap),
        "a flying lap of the AI takes about 63 s: {lap}"
    );
    assert_eq!(outcome["best_lap"].as_f64(), Some(lap));
    assert_eq!(
        outcome["flags"],
        Value::Array(Vec::new()),
        "the AI drives smoothly"
    );

    let (code, board) = service
        .get("/leaderboards/brandwood/rwd_sports?limit=10")
        .await;
    assert_eq!(code, 200);
    let entries = board["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{board}");
    assert_eq!(entries[0]["player"], "alice");
    assert_eq!(entries[0]["rank"], 1);
    assert_eq!(entries[0]["run_id"], id.as_str());
    assert_eq!(entries[0]["lap_time"].as_f64(), Some(lap));
    // A run without a complete lap is verified but not ranked.
    let (_, body) = service.submit(encode_replay(&short("bob")).unwrap()).await;
    let bob = service.verdict(body["id"].as_str().unwrap()).await;
    assert_eq!(bob["status"], "verified");
    assert_eq!(bob["outcome"]["best_lap"], Value::Null);
    let (_, board) = service.get("/leaderboards/brandwood/rwd_sports").await;
    assert_eq!(board["entries"].as_array().unwrap().len(), 1);
    let (_, empty) = service.get("/leaderboards/brandwood/kart").await;
    assert_eq!(empty["entries"], Value::Array(Vec::new()));

    let (code, health) = service.get("/health").await;
    assert_eq!(code, 200);
    assert_eq!(health["queue"]["done"], 2, "{health}");
    assert_eq!(health["simulation_version"], SIMULATION_VERSION);
    let (code, _) = service.get("/runs/0000").await;
    assert_eq!(code, 404);
    // The replay as uploaded, readable from any page (the web viewer).
    let response = reqwest::Client::new()
        .get(format!("{}/runs/{id}/replay", service.base))
        .header("Origin", "http://127.0.0.1:1")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(
        response.headers()["access-control-allow-origin"],
        "*",
        "CORS for the viewer"
    );
    assert_eq!(response.bytes().await.unwrap().as_ref(), plain.as_slice());
    let missing = reqwest::get(format!("{}/runs/0000/replay", service.base))
        .await
        .unwrap();
    assert_eq!(missing.status().as_u16(), 404);
    service.stop().await;
}

/// A short run recorded in a world built by `setup`.
fn recorded_in(
    config: WorldConfig,
    definition: skidpad_core::CarDefinition,
    pose: InitialPose,
    metadata: &[(&str, &str)],
) -> Replay {
    let mut world = World::new(config).unwrap();
    let car = world.add_car(&definition, pose).unwrap();
    world
        .set_input(
            car,
            skidpad_core::CarInput {
                throttle: 0.5,
                ..Default::default()
            },
        )
        .unwrap();
    let mut recorder = ReplayRecorder::new(
        &world,
        RecorderOptions {
            metadata: metadata
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            ..RecorderOptions::default()
        },
    )
    .unwrap();
    for _ in 0..60 {
        recorder.step(&mut world, common::DT).unwrap();
    }
    recorder.finish(&world).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rejection_names_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&sqlite_url(dir.path()), 2).await;
    let brandwood = [("track", "brandwood")];

    let mut other_version = short("v");
    other_version.header.simulation_version = SIMULATION_VERSION + 1;

    let mut tampered = short("t");
    tampered.cars[0].inputs[30].steer = 1.0;

    // A quarter-second step at 10 kHz: 2 500 substeps a step.
    let mut bomb = short("b");
    bomb.header.step_count = 10_000;
    bomb.dt = Runs::from_runs([(10_000, 0.25)]).unwrap();
    bomb.cars[0].lod = Runs::from_runs([(
        10_000,
        skidpad_core::LodSetting::with_rate(skidpad_core::Lod::Full, 10_000.0),
    )])
    .unwrap();
    for surfaces in &mut bomb.cars[0].surfaces {
        *surfaces = Runs::from_runs([(10_000, skidpad_core::SurfaceId::default())]).unwrap();
    }
    bomb.cars[0].inputs = vec![skidpad_core::CarInput::default(); 10_000];

    // The ranked car leaves the race after its last step: the replay is
    // consistent (streams of 120 steps, a final keyframe without it) but
    // the run has no car at the end to time.
    let mut retired = short("r");
    retired.cars[0].removed_at = Some(retired.header.step_count);
    if let Some(last) = retired.keyframes.last_mut() {
        last.cars.clear();
    }

    let mut light = preset("rwd_sports").unwrap();
    light.chassis.mass *= 0.8;
    let low_gravity = WorldConfig {
        gravity: 5.0,
        ..WorldConfig::default()
    };
    let flying = InitialPose {
        speed: 50.0,
        ..InitialPose::default()
    };
    let sports = || preset("rwd_sports").unwrap();
    let cases: Vec<(&str, Vec<u8>, &str, &str)> = vec![
        (
            "other version",
            encode_replay(&other_version).unwrap(),
            "version_mismatch",
            "version",
        ),
        (
            "tampered input",
            encode_replay(&tampered).unwrap(),
            "desync",
            "step",
        ),
        (
            "budget bomb",
            encode_replay(&bomb).unwrap(),
            "budget_exceeded",
            "substeps per step",
        ),
        (
            "removed car",
            encode_replay(&retired).unwrap(),
            "rules",
            "removed from the race",
        ),
        (
            "cut short",
            {
                // The header reads; the body past it does not.
                let mut bytes = encode_replay(&recorded_in(
                    WorldConfig::default(),
                    sports(),
                    InitialPose::default(),
                    &brandwood,
                ))
                .unwrap();
                bytes.truncate(bytes.len() - 64);
                bytes
            },
            "malformed",
            "decode",
        ),
        (
            "tuned car",
            encode_replay(&recorded_in(
                WorldConfig::default(),
                light,
                InitialPose::default(),
                &brandwood,
            ))
            .unwrap(),
            "rules",
            "matches no class",
        ),
        (
            "low gravity",
            encode_replay(&recorded_in(
                low_gravity,
                sports(),
                InitialPose::default(),
                &brandwood,
            ))
            .unwrap(),
            "rules",
            "world settings",
        ),
        (
            "flying start",
            encode_replay(&recorded_in(
                WorldConfig::default(),
                sports(),
                flying,
                &brandwood,
            ))
            .unwrap(),
            "rules",
            "starts at",
        ),
    ];
    // Bytes that are not a replay are refused at the door, as is a track
    // this service has not registered.
    let (code, body) = service.submit(b"certainly not a replay".to_vec()).await;
    assert_eq!(code, 400, "{body}");
    let (code, body) = service
        .submit(
            encode_replay(&recorded_in(
                WorldConfig::default(),
                sports(),
                InitialPose::default(),
                &[("track", "nowhere")],
            ))
            .unwrap(),
        )
        .await;
    assert_eq!(code, 422, "{body}");
    let said = body["error"].as_str().unwrap_or_default();
    assert!(said.contains("registered no track \"nowhere\""), "{body}");
    let mut ids = Vec::new();
    for (name, bytes, _, _) in &cases {
        let (code, body) = service.submit(bytes.clone()).await;
        assert_eq!(code, 202, "{name}: {body}");
        ids.push(body["id"].as_str().unwrap().to_owned());
    }
    for ((name, _, kind, words), id) in cases.iter().zip(&ids) {
        let run = service.verdict(id).await;
        assert_eq!(run["status"], "rejected", "{name}: {run}");
        let reason = &run["outcome"]["reason"];
        assert_eq!(reason["kind"], *kind, "{name}: {reason}");
        let message = reason["message"].as_str().unwrap();
        assert!(message.contains(words), "{name}: {message}");
    }
    let version = service.verdict(&ids[0]).await;
    assert_eq!(
        version["outcome"]["reason"]["replay"],
        SIMULATION_VERSION + 1
    );
    assert_eq!(version["outcome"]["reason"]["server"], SIMULATION_VERSION);
    let desync = service.verdict(&ids[1]).await;
    let fields = desync["outcome"]["reason"]["fields"].as_array().unwrap();
    assert!(!fields.is_empty(), "{desync}");
    assert!(
        fields
            .iter()
            .all(|f| f["car"] == 0 && f["field"].is_string())
    );
    let bomb = service.verdict(&ids[2]).await;
    assert_eq!(bomb["outcome"]["reason"]["value"], 2500);
    assert_eq!(
        bomb["outcome"]["reason"]["max"],
        Limits::default().max_substeps_per_step
    );
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bombs_and_oversized_uploads_are_refused_at_the_door() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&sqlite_url(dir.path()), 0).await;
    // 1 MiB past the decoded-bytes limit, a few hundred kB on the wire.
    let limit = Limits::default().max_decoded_bytes as usize;
    let bomb = gzip(&vec![0u8; limit + (1 << 20)]);
    assert!(bomb.len() < 1 << 20);
    let (code, body) = service.submit(bomb).await;
    assert_eq!(code, 413, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("decoded bytes"),
        "{body}"
    );

    let (code, _) = service
        .submit(vec![7u8; skidpad_leaderboard::api::DEFAULT_MAX_UPLOAD + 1])
        .await;
    assert_eq!(code, 413);
    let (code, body) = service.submit(Vec::new()).await;
    assert_eq!(code, 400, "{body}");
    let mut broken = encode_replay_gzip(&short("g")).unwrap();
    broken.truncate(broken.len() / 2);
    let (code, body) = service.submit(broken).await;
    assert_eq!(code, 400, "{body}");
    // Nothing reached the queue.
    let (_, health) = service.get("/health").await;
    assert_eq!(health["queue"]["queued"], 0, "{health}");
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_replay_sent_at_once_is_one_run_verified_once() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&sqlite_url(dir.path()), 2).await;
    let bytes = encode_replay(&short("carol")).unwrap();
    let answers = futures::future::join_all((0..8).map(|_| service.submit(bytes.clone()))).await;
    let ids: std::collections::BTreeSet<_> = answers
        .iter()
        .map(|(_, b)| b["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 1);
    let created = answers.iter().filter(|(code, _)| *code == 202).count();
    assert_eq!(created, 1, "{answers:?}");
    let run = service.verdict(ids.first().unwrap()).await;
    assert_eq!(run["status"], "verified");
    assert_eq!(run["attempts"], 1);
    service.stop().await;
}
