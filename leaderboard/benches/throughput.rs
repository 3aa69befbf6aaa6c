//! A bounded benchmark on loopback (SQLite): uploads per second from 8
//! concurrent clients, then verification throughput with 1 and 2 worker
//! tasks on the same batch size. Prints the figures BENCHMARKS.md quotes;
//! asserts only correctness (every upload accepted, every job verified),
//! never speed. A benchmark, not a test: `cargo test` does not run it
//! (it took minutes of the debug suite and measured nothing there):
//! `cargo bench -p skidpad-leaderboard --bench throughput`.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::{Service, TESTER, sqlite_url, tagged_replays as replays, wait_for};
use skidpad_leaderboard::store::{Store, Submitted};
use skidpad_leaderboard::worker::{WorkerOptions, run_workers};
use tokio::sync::watch;

const UPLOADS: usize = 400;
const CLIENTS: usize = 8;
const JOBS: usize = 80;
/// Steps per verification job: 10 s of one car.
const JOB_STEPS: u64 = 600;

/// Verifies the queued jobs with `workers` tasks; seconds taken.
async fn drain(store: &Store, workers: usize, expected_done: i64) -> f64 {
    let (stop, stopped) = watch::channel(false);
    let options = WorkerOptions {
        workers,
        poll: Duration::from_millis(5),
        ..WorkerOptions::default()
    };
    let started = Instant::now();
    let task = tokio::spawn(run_workers(store.clone(), options, stopped));
    wait_for(Duration::from_secs(600), || async {
        let counts = store.queue_counts().await.unwrap();
        (counts.done == expected_done).then_some(())
    })
    .await;
    let seconds = started.elapsed().as_secs_f64();
    stop.send(true).unwrap();
    task.await.unwrap();
    seconds
}

fn main() {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(uploads_and_verification_throughput());
}

async fn uploads_and_verification_throughput() {
    let dir = tempfile::tempdir().unwrap();
    // The API alone first: uploads are not slowed by verification.
    let service = Service::start(&sqlite_url(dir.path()), 0).await;
    let uploads = replays(UPLOADS, 60, "upload");
    let bytes: usize = uploads.iter().map(Vec::len).sum();
    let client = reqwest::Client::new();
    let token = service.store.issue_token(TESTER, false).await.unwrap();
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for chunk in uploads.chunks(UPLOADS / CLIENTS) {
        let (client, url, chunk, token) = (
            client.clone(),
            format!("{}/runs", service.base),
            chunk.to_vec(),
            token.clone(),
        );
        tasks.spawn(async move {
            for body in chunk {
                let code = client
                    .post(&url)
                    .bearer_auth(&token)
                    .body(body)
                    .send()
                    .await
                    .unwrap()
                    .status();
                assert_eq!(code.as_u16(), 202);
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    let upload_seconds = started.elapsed().as_secs_f64();
    let store = service.store.clone();
    service.stop().await;
    // Clear the upload backlog (60-step jobs) before timing the workers.
    drain(&store, 2, UPLOADS as i64).await;

    let mut per_workers = Vec::new();
    for (round, workers) in [1usize, 2].into_iter().enumerate() {
        for bytes in replays(JOBS, JOB_STEPS, &format!("round {round}")) {
            let id = blake3::hash(&bytes).to_hex().to_string();
            assert_eq!(
                store.submit(&id, &bytes, TESTER).await.unwrap(),
                Submitted::New
            );
        }
        let done = (UPLOADS + JOBS * (round + 1)) as i64;
        per_workers.push((workers, drain(&store, workers, done).await));
    }
    let counts = store.queue_counts().await.unwrap();
    assert_eq!(counts.done, (UPLOADS + 2 * JOBS) as i64);

    println!(
        "uploads: {UPLOADS} from {CLIENTS} clients in {upload_seconds:.2} s: {:.0} uploads/s ({:.1} MB/s)",
        UPLOADS as f64 / upload_seconds,
        bytes as f64 / upload_seconds / 1e6
    );
    let car_seconds = JOBS as f64 * JOB_STEPS as f64 / 60.0;
    for (workers, seconds) in &per_workers {
        println!(
            "verification, {workers} worker task(s): {JOBS} jobs of {JOB_STEPS} steps in {seconds:.2} s: {:.1} jobs/s, {:.0} simulated car-seconds per second",
            JOBS as f64 / seconds,
            car_seconds / seconds
        );
    }
    println!(
        "2 workers vs 1: {:.2}x",
        per_workers[0].1 / per_workers[1].1
    );
}
