//! Races kept with `--data` outlive the process, against the binary: a
//! finished race is offered again after a restart, byte for byte, and a
//! spectator resuming it with Last-Event-ID reads the rest and its end; a
//! race whose service was killed with SIGKILL mid-race is offered up to
//! its last whole chunk, as ended.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{Service, bytes, json};

fn start(data: &Path, pace: &str) -> Service {
    let data = data.to_str().unwrap();
    common::start(&[
        "--cars",
        "2",
        "--laps",
        "1",
        "--chunk-steps",
        "120",
        "--pace",
        pace,
        "--data",
        data,
    ])
}

/// Polls `/races/{id}/range` until `done` says so (60 s at most).
async fn wait_for_range(base: &str, id: &str, done: impl Fn(&serde_json::Value) -> bool) {
    let started = Instant::now();
    loop {
        let range = json(&format!("{base}/races/{id}/range")).await;
        if done(&range) {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{range}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The race's header and chunks, as served.
async fn pieces(base: &str, id: &str, chunks: u64) -> Vec<Vec<u8>> {
    let mut all = vec![bytes(&format!("{base}/races/{id}/header")).await];
    for n in 1..=chunks {
        all.push(bytes(&format!("{base}/races/{id}/chunks/{n}")).await);
    }
    all
}

fn sigterm(service: &mut Service) {
    let status = Command::new("kill")
        .args(["-TERM", &service.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(service.child.wait().unwrap().success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kept_races_outlive_a_restart_and_a_kill() {
    let data = tempfile::tempdir().unwrap();

    // A race raced to its end, then the service stopped.
    let mut first = start(data.path(), "1000");
    wait_for_range(&first.base, "demo", |r| r["end"].as_u64() > Some(0)).await;
    let range = json(&format!("{}/races/demo/range", first.base)).await;
    let last = range["end"].as_u64().unwrap();
    let finished = pieces(&first.base, "demo", last).await;
    sigterm(&mut first);

    // A new service, in slow motion: the kept race is `demo-1`.
    let mut second = start(data.path(), "1");
    let ids = json(&format!("{}/races", second.base)).await;
    assert_eq!(ids, serde_json::json!(["demo", "demo-1"]));
    assert_eq!(pieces(&second.base, "demo-1", last).await, finished);
    let range = json(&format!("{}/races/demo-1/range", second.base)).await;
    assert_eq!(
        (range["last"].as_u64(), range["end"].as_u64()),
        (Some(last), Some(last))
    );
    // A spectator that had seen chunk 1 resumes: the rest, then the end.
    let tail = reqwest::Client::new()
        .get(format!("{}/races/demo-1/live", second.base))
        .header("Last-Event-ID", "1")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for n in 2..=last {
        assert!(tail.contains(&format!("data: {n}\n")), "{tail}");
    }
    assert!(tail.contains("event: end"), "{tail}");

    // Killed mid-race after its first chunk.
    wait_for_range(&second.base, "demo", |r| r["last"].as_u64() >= Some(1)).await;
    let range = json(&format!("{}/races/demo/range", second.base)).await;
    let sealed = range["last"].as_u64().unwrap();
    let before_kill = pieces(&second.base, "demo", sealed).await;
    second.child.kill().unwrap();
    second.child.wait().unwrap();

    let third = start(data.path(), "1");
    let range = json(&format!("{}/races/demo-2/range", third.base)).await;
    let kept = range["last"].as_u64().unwrap();
    assert!(kept >= sealed, "{range}");
    assert_eq!(
        range["end"].as_u64(),
        Some(kept),
        "offered as ended: {range}"
    );
    assert_eq!(
        pieces(&third.base, "demo-2", sealed).await,
        before_kill,
        "what was served before the kill is kept byte for byte"
    );
    assert_eq!(pieces(&third.base, "demo-1", last).await, finished);
}
