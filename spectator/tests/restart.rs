//! Races kept with `--data` outlive the process, against the binary: a
//! finished race is offered again after a restart, byte for byte, and a
//! spectator resuming it with Last-Event-ID reads the rest and its end; a
//! race whose service was killed with SIGKILL mid-race is offered up to
//! its last whole chunk, as ended.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The service, killed if a test fails before it stops it.
struct Service {
    child: Child,
    base: String,
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(data: &Path, pace: &str) -> Service {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skidpad-spectator"))
        .args(["--listen", "127.0.0.1:0", "--cars", "2", "--laps", "1"])
        .args(["--chunk-steps", "120", "--pace", pace])
        .arg("--data")
        .arg(data)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_owned();
    Service {
        child,
        base: format!("http://{address}"),
    }
}

async fn json(url: &str) -> serde_json::Value {
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

async fn bytes(url: &str) -> Vec<u8> {
    let response = reqwest::get(url).await.unwrap();
    assert_eq!(response.status(), 200, "{url}");
    response.bytes().await.unwrap().to_vec()
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
