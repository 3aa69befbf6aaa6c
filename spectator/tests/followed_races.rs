//! A race another process records is spectated through the service
//! (`--follow DIR`), against the binary: while this test records a stream
//! into the directory, the service offers it under its file name, serves
//! each chunk as the file gains it, byte for byte as written, and marks
//! the race ended when the stream's end record comes. A file that is not
//! a stream is not offered, and the service goes on.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{bytes, json};
use skidpad_core::race::AiField;
use skidpad_core::{Track, World, WorldConfig};
use skidpad_replay::{
    Limits, NoHooks, RecorderOptions, StreamFollower, StreamRecorder, SyncPolicy, read_stream,
};

const DT: f64 = 1.0 / 60.0;

/// Polls the race's range until `done` says so (60 s at most).
async fn range_until(base: &str, id: &str, done: impl Fn(&serde_json::Value) -> bool) {
    let started = Instant::now();
    loop {
        let response = reqwest::get(format!("{base}/races/{id}/range"))
            .await
            .unwrap();
        if response.status() == 200 {
            let range: serde_json::Value = response.json().await.unwrap();
            if done(&range) {
                return;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "race {id} never got there"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_race_recorded_by_another_process_is_spectated_as_it_grows() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("junk.sks"), b"not a stream at all").unwrap();
    let follow = dir.path().to_str().unwrap();
    let service = common::start(&[
        "--cars", "1", "--laps", "1", "--pace", "1000", "--follow", follow,
    ]);

    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = World::new(WorldConfig::default()).unwrap();
    // On the track's surface, as the race server races.
    world.set_ground(Arc::new(track.ground().unwrap())).unwrap();
    AiField::new(2).line_up(&mut world, &track).unwrap();
    let file = std::fs::File::create(dir.path().join("race-000.sks")).unwrap();
    let options = RecorderOptions {
        keyframe_every: 60,
        metadata: vec![("track".into(), "brandwood".into())],
        ..RecorderOptions::default()
    };
    let mut stream = StreamRecorder::new(&world, options, file, SyncPolicy::Never).unwrap();
    for _ in 0..150 {
        stream.step(&mut world, DT).unwrap();
    }
    // Two chunks are in the file: the service offers the race, live.
    range_until(&service.base, "race-000", |r| r["last"].as_u64() >= Some(2)).await;
    let range = json(&format!("{}/races/race-000/range", service.base)).await;
    assert_eq!(range["end"].as_u64(), Some(0), "not ended yet: {range}");
    for _ in 0..150 {
        stream.step(&mut world, DT).unwrap();
    }
    stream.finish(&world).unwrap();
    range_until(&service.base, "race-000", |r| r["end"].as_u64() > Some(0)).await;

    // What it served is what was written: the header, then every chunk,
    // byte for byte; the file's own replay verifies.
    let written = std::fs::read(dir.path().join("race-000.sks")).unwrap();
    let range = json(&format!("{}/races/race-000/range", service.base)).await;
    let last = range["end"].as_u64().unwrap();
    assert_eq!(last, 5, "300 steps in chunks of 60: {range}");
    let mut served = bytes(&format!("{}/races/race-000/header", service.base)).await;
    for n in 1..=last {
        served.extend(bytes(&format!("{}/races/race-000/chunks/{n}", service.base)).await);
    }
    assert!(
        written.starts_with(&served),
        "served bytes differ from the file"
    );
    let replay = read_stream(&written, &Limits::default()).unwrap();
    assert!(replay.complete);
    let report =
        skidpad_replay::verify_replay(&replay.replay, NoHooks, &Limits::default()).unwrap();
    assert!(report.is_valid() && report.desyncs == 0, "{report:?}");
    // A spectator joining at the third chunk plays the served pieces on
    // the surface the header names and ends on the host's world.
    let header = bytes(&format!("{}/races/race-000/header", service.base)).await;
    let mut follower = StreamFollower::new(&header, Limits::default()).unwrap();
    for n in 3..=last {
        let chunk = bytes(&format!("{}/races/race-000/chunks/{n}", service.base)).await;
        follower.push_chunk(&chunk).unwrap();
    }
    assert_eq!(follower.world().unwrap().world_hash(), world.world_hash());

    let ids = json(&format!("{}/races", service.base)).await;
    assert_eq!(
        ids,
        serde_json::json!(["demo", "race-000"]),
        "junk.sks is not offered"
    );
}
