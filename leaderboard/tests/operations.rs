//! What an operator relies on, against the binary on 127.0.0.1: the
//! Prometheus exposition counts requests by route, verdicts by kind and
//! the queue (a worker-only process serves its own); liveness answers
//! apart from readiness; every log line about
//! a run names it; `backup` copies the SQLite database while the service
//! runs; SIGTERM mid-verification releases the job to the queue after the
//! drain window, and the next process verifies it at once.

mod common;

use std::time::Duration;

use common::{issue_token, record, sqlite_url, start_binary_logging, wait_for};
use skidpad_leaderboard::store::Store;
use skidpad_replay::encode_replay;

async fn get_text(base: &str, path: &str) -> (u16, String) {
    let response = reqwest::get(format!("{base}{path}")).await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// Uploads `bytes` with `token`; the run id.
async fn upload(base: &str, token: &str, bytes: Vec<u8>) -> String {
    let response = reqwest::Client::new()
        .post(format!("{base}/runs"))
        .bearer_auth(token)
        .body(bytes)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 202);
    let posted: serde_json::Value = response.json().await.unwrap();
    posted["id"].as_str().unwrap().to_owned()
}

/// The value of the sample `series` (name and labels, as written) in a
/// Prometheus exposition.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .map(|v| v.trim().parse().unwrap())
}

/// An exposition that counted one verified run: its verdict, its
/// verification seconds, its job done.
fn one_verification(text: &str) {
    let series = |s: &str| sample(text, s).unwrap_or_else(|| panic!("no {s} in:\n{text}"));
    assert_eq!(
        series(r#"skidpad_leaderboard_verdicts_total{kind="verified"}"#),
        1.0
    );
    assert_eq!(
        series("skidpad_leaderboard_verification_seconds_count"),
        1.0
    );
    assert!(series("skidpad_leaderboard_verification_seconds_sum") > 0.0);
    assert_eq!(series(r#"skidpad_leaderboard_jobs{state="done"}"#), 1.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_only_process_serves_its_own_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let (_api, api_address) = start_binary_logging(dir.path(), &["--role", "api"], None);
    let (_worker, worker_address) =
        start_binary_logging(dir.path(), &["--role", "worker", "--serve-metrics"], None);
    let (api, worker) = (
        format!("http://{api_address}"),
        format!("http://{worker_address}"),
    );
    let token = issue_token(dir.path(), "ops-worker", false);
    let bytes = encode_replay(&record("fwd_hatchback", 120, &[])).unwrap();
    let id = upload(&api, &token, bytes).await;
    wait_for(Duration::from_secs(300), || async {
        let (_, body) = get_text(&api, &format!("/runs/{id}")).await;
        let run: serde_json::Value = serde_json::from_str(&body).unwrap();
        (run["status"] == "verified").then_some(())
    })
    .await;
    let (code, text) = get_text(&worker, "/metrics").await;
    assert_eq!(code, 200);
    one_verification(&text);
    assert_eq!(get_text(&worker, "/health/live").await.0, 200);
    // Metrics only: the worker serves no API.
    assert_eq!(get_text(&worker, &format!("/runs/{id}")).await.0, 404);
    // The API process ran no verification.
    let (_, api_text) = get_text(&api, "/metrics").await;
    assert_eq!(
        sample(&api_text, "skidpad_leaderboard_verification_seconds_count"),
        Some(0.0)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_logs_liveness_and_an_online_backup() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("service.log");
    let (_server, address) = start_binary_logging(dir.path(), &[], Some(&log));
    let base = format!("http://{address}");
    let token = issue_token(dir.path(), "ops-test", false);
    let http = reqwest::Client::new();

    let bytes = encode_replay(&record("rwd_sports", 120, &[])).unwrap();
    let id = upload(&base, &token, bytes).await;
    let unauthorized = http
        .post(format!("{base}/runs"))
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(unauthorized.status().as_u16(), 401);
    let status = wait_for(Duration::from_secs(300), || async {
        let (_, body) = get_text(&base, &format!("/runs/{id}")).await;
        let run: serde_json::Value = serde_json::from_str(&body).unwrap();
        (run["status"] != "pending").then(|| run["status"].as_str().unwrap().to_owned())
    })
    .await;
    assert_eq!(status, "verified");

    let (code, text) = get_text(&base, "/metrics").await;
    assert_eq!(code, 200);
    let series = |s: &str| sample(&text, s).unwrap_or_else(|| panic!("no {s} in:\n{text}"));
    assert_eq!(
        series(
            r#"skidpad_leaderboard_http_requests_total{method="POST",route="/runs",code="202"}"#
        ),
        1.0
    );
    assert_eq!(
        series(
            r#"skidpad_leaderboard_http_requests_total{method="POST",route="/runs",code="401"}"#
        ),
        1.0
    );
    // Per route pattern, never per id.
    assert!(!text.contains(&id), "a run id became a label");
    assert!(
        series(
            r#"skidpad_leaderboard_http_requests_total{method="GET",route="/runs/{id}",code="200"}"#
        ) >= 1.0
    );
    one_verification(&text);
    assert_eq!(series(r#"skidpad_leaderboard_jobs{state="queued"}"#), 0.0);

    assert_eq!(get_text(&base, "/health/live").await.0, 200);
    assert_eq!(get_text(&base, "/health").await.0, 200);

    // The worker's lines about the run carry its id.
    let logged = std::fs::read_to_string(&log).unwrap();
    let verified = logged
        .lines()
        .find(|l| l.contains("verified") && l.contains("verdict"))
        .unwrap_or_else(|| panic!("no verdict line in:\n{logged}"));
    assert!(verified.contains(&format!("run={id}")), "{verified}");
    let queued = logged
        .lines()
        .find(|l| l.contains("run queued"))
        .unwrap_or_else(|| panic!("no queued line in:\n{logged}"));
    assert!(queued.contains(&format!("run={id}")), "{queued}");

    // A backup taken while the service runs holds the verdict.
    let copy = dir.path().join("copy.db");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_skidpad-leaderboard"))
        .args(["backup", "--to", copy.to_str().unwrap()])
        .args(["--database", &sqlite_url(dir.path())])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let again = std::process::Command::new(env!("CARGO_BIN_EXE_skidpad-leaderboard"))
        .args(["backup", "--to", copy.to_str().unwrap()])
        .args(["--database", &sqlite_url(dir.path())])
        .output()
        .unwrap();
    assert_eq!(
        again.status.code(),
        Some(2),
        "overwrote a backup: {again:?}"
    );
    // The cause, said once, after the binary's name (it used to come twice).
    let said = String::from_utf8_lossy(&again.stderr);
    assert_eq!(
        said.matches("exists: back up to a new file").count(),
        1,
        "{said}"
    );
    assert!(said.starts_with("skidpad-leaderboard: "), "{said}");
    let restored = Store::open(&format!("sqlite:{}", copy.display()))
        .await
        .unwrap();
    let run = restored.run(&id).await.unwrap().unwrap();
    assert_eq!(run.status, "verified");
    assert_eq!(run.submitter.as_deref(), Some("ops-test"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_releases_a_long_job_that_the_next_process_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, address) = common::start_binary(dir.path(), &["--drain-seconds", "0.3"]);
    let base = format!("http://{address}");
    let token = issue_token(dir.path(), "ops-test", false);
    // Long enough to be mid-verification when the signal comes.
    let recording = std::time::Instant::now();
    let bytes = encode_replay(&common::record_field("rwd_sports", 4, 30_000, &[])).unwrap();
    let recorded_in = recording.elapsed();
    let id = upload(&base, &token, bytes).await;
    wait_for(Duration::from_secs(60), || async {
        let (_, body) = get_text(&base, "/health").await;
        let health: serde_json::Value = serde_json::from_str(&body).unwrap();
        (health["queue"]["running"] == 1).then_some(())
    })
    .await;
    let signalled = std::time::Instant::now();
    let kill = std::process::Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    assert!(server.0.wait().unwrap().success());
    let exited_in = signalled.elapsed();
    assert!(
        exited_in < recorded_in,
        "exited {exited_in:?} after SIGTERM: it finished the job (recording it took {recorded_in:?})"
    );
    let store = Store::open(&sqlite_url(dir.path())).await.unwrap();
    let counts = store.queue_counts().await.unwrap();
    assert_eq!(
        (counts.queued, counts.running),
        (1, 0),
        "released, not held"
    );
    let run = store.run(&id).await.unwrap().unwrap();
    assert_eq!((run.status.as_str(), run.attempts), ("pending", 0));

    // The next process takes it at once, not a lease later.
    let (_next, address) = common::start_binary(dir.path(), &["--lease-seconds", "600"]);
    let base = format!("http://{address}");
    let run = wait_for(Duration::from_secs(300), || async {
        let (_, body) = get_text(&base, &format!("/runs/{id}")).await;
        let run: serde_json::Value = serde_json::from_str(&body).unwrap();
        (run["status"] != "pending").then_some(run)
    })
    .await;
    assert_eq!(run["status"], "verified", "{run}");
    assert_eq!(run["attempts"], 1, "{run}");
    println!(
        "SIGTERM mid-verification: exited in {exited_in:?}; recording the run took {recorded_in:?}"
    );
}

/// A database that cannot be reached is named with its real cause at once
/// (the pool used to retry for 30 s and say only "pool timed out").
#[test]
fn an_unreachable_database_is_refused_naming_the_cause() {
    // Port 1 on loopback: nothing listens there, so the connection is refused.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_skidpad-leaderboard"))
        .args(["backup", "--to", "/nonexistent/copy.db"])
        .args(["--database", "postgres://skidpad@127.0.0.1:1/none"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("refused"), "{said}");
    assert!(!said.contains("timed out"), "{said}");
}
