//! Workers as separate processes on one database, as on many machines: a
//! worker killed with SIGKILL mid-job loses nothing (another claims the job
//! when the lease passes), and two processes sharing a PostgreSQL queue of
//! 1 000 jobs verify every job exactly once. Skipped without PostgreSQL
//! unless `SKIDPAD_REQUIRE_POSTGRES` is set (`cargo xtask test` sets it and
//! starts the server).

mod common;

use std::time::{Duration, Instant};

use common::{TESTER, postgres_database, record, record_field, spawn_worker, sqlite_url, wait_for};
use skidpad_leaderboard::seals::SealPolicy;
use skidpad_leaderboard::store::{Store, Submitted};
use skidpad_replay::encode_replay;

/// Submits a replay that takes a worker seconds, starts a worker, kills it
/// with SIGKILL while it verifies, and starts another.
async fn a_killed_worker_loses_nothing(database: &str) {
    let store = Store::open(database).await.unwrap();
    let bytes =
        encode_replay(&record_field("rwd_sports", 12, 3000, &[("player", "dave")])).unwrap();
    let id = blake3::hash(&bytes).to_hex().to_string();
    assert_eq!(
        store.submit(&id, &bytes, TESTER).await.unwrap(),
        Submitted::New
    );

    let lease = 1.0;
    let mut first = spawn_worker(database, 1, lease);
    wait_for(Duration::from_secs(60), || async {
        let run = store.run(&id).await.unwrap().unwrap();
        (run.attempts == 1).then_some(())
    })
    .await;
    first.kill().unwrap(); // SIGKILL: no chance to clean up
    first.wait().unwrap();
    let run = store.run(&id).await.unwrap().unwrap();
    assert_eq!(run.status, "pending", "killed mid-job, before its verdict");

    let killed_at = Instant::now();
    let mut second = spawn_worker(database, 1, lease);
    let run = wait_for(Duration::from_secs(300), || async {
        let run = store.run(&id).await.unwrap().unwrap();
        (run.status != "pending").then_some(run)
    })
    .await;
    second.kill().unwrap();
    second.wait().unwrap();
    assert_eq!(run.status, "verified", "{run:?}");
    assert_eq!(run.attempts, 2, "claimed again once");
    assert!(
        killed_at.elapsed() >= Duration::from_secs_f64(lease * 0.5),
        "the job waited for the dead worker's lease"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_killed_worker_process_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    a_killed_worker_loses_nothing(&sqlite_url(dir.path())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_killed_worker_process_loses_nothing() {
    if let Some(database) = postgres_database("killed").await {
        a_killed_worker_loses_nothing(&database).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_two_worker_processes_verify_each_of_1000_jobs_once() {
    let Some(database) = postgres_database("thousand").await else {
        return;
    };
    let store = Store::open(&database).await.unwrap();
    // Distinct replays (the player name differs), short to verify.
    let base = record("rwd_sports", 30, &[]);
    let mut ids = Vec::new();
    for k in 0..1000 {
        let mut replay = base.clone();
        replay
            .header
            .metadata
            .push(("player".into(), format!("player {k}")));
        let bytes = encode_replay(&replay).unwrap();
        let id = blake3::hash(&bytes).to_hex().to_string();
        assert_eq!(
            store.submit(&id, &bytes, TESTER).await.unwrap(),
            Submitted::New
        );
        ids.push(id);
    }
    let started = Instant::now();
    let mut workers = [
        spawn_worker(&database, 2, 30.0),
        spawn_worker(&database, 2, 30.0),
    ];
    wait_for(Duration::from_secs(600), || async {
        let counts = store.queue_counts().await.unwrap();
        (counts.done == 1000).then_some(())
    })
    .await;
    let elapsed = started.elapsed();
    for worker in &mut workers {
        worker.kill().unwrap();
        worker.wait().unwrap();
    }
    for id in &ids {
        let run = store.run(id).await.unwrap().unwrap();
        assert_eq!(run.status, "verified", "{run:?}");
        assert_eq!(run.attempts, 1, "verified once: {run:?}");
    }
    let counts = store.queue_counts().await.unwrap();
    assert_eq!((counts.queued, counts.running, counts.done), (0, 0, 1000));
    println!(
        "1000 jobs, 2 worker processes x 2 tasks on PostgreSQL: {:.1} s ({:.0} jobs/s)",
        elapsed.as_secs_f64(),
        1000.0 / elapsed.as_secs_f64()
    );
}

/// Claims the job as a worker that dies at once (a lease of zero).
async fn claim_and_die(store: &Store, worker: &str) -> Option<i64> {
    tokio::time::sleep(Duration::from_millis(5)).await;
    let claim = store.claim(worker, Duration::ZERO, 3).await.unwrap();
    claim.map(|c| c.attempts)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_that_kills_three_workers_is_rejected_not_retried_forever() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&sqlite_url(dir.path())).await.unwrap();
    let bytes = encode_replay(&record("rwd_sports", 30, &[])).unwrap();
    let id = blake3::hash(&bytes).to_hex().to_string();
    store.submit(&id, &bytes, TESTER).await.unwrap();
    for (k, worker) in ["a", "b", "c"].iter().enumerate() {
        assert_eq!(claim_and_die(&store, worker).await, Some(k as i64 + 1));
    }
    assert_eq!(
        claim_and_die(&store, "d").await,
        None,
        "not claimed a fourth time"
    );
    // A late verdict from a worker that lost its lease is not written.
    let late = skidpad_leaderboard::judge::judge(
        &bytes,
        &skidpad_replay::Limits::default(),
        &SealPolicy::default(),
    );
    assert!(!store.finish(&id, "a", &late).await.unwrap());
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_eq!(store.give_up_exhausted(3).await.unwrap(), 1);
    let run = store.run(&id).await.unwrap().unwrap();
    assert_eq!(run.status, "rejected");
    let reason = serde_json::to_value(run.outcome.unwrap()).unwrap()["reason"].clone();
    assert_eq!(reason["kind"], "worker_failures", "{reason}");
    assert_eq!(reason["attempts"], 3);
}
