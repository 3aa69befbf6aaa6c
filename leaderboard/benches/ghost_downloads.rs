//! Ghost downloads from a board of 10 000 verified runs on PostgreSQL: the
//! record's ghost, any run's ghost, and a player's neighbourhood, each
//! asked 500 times in a row over loopback; prints p50 and p99 latency.
//! The runs are written through the store as a worker writes verdicts,
//! each with a real ghost (20 s of an AI car on brandwood). A benchmark,
//! not a test; it asserts only that every answer is a 200:
//! `cargo xtask with-postgres cargo bench -p skidpad-leaderboard --bench
//! ghost_downloads`.

#[path = "../tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Service, postgres_database, tagged_replays};
use skidpad_core::{Track, World, WorldConfig, preset};
use skidpad_ghost::{GhostRecorder, encode_ghost};
use skidpad_leaderboard::api::{ApiOptions, run_id};
use skidpad_leaderboard::{Outcome, Verified};

const RUNS: usize = 10_000;
const ASKS: usize = 500;

fn main() {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(ghost_downloads());
}

/// 20 s of one AI car on brandwood as a ghost's bytes.
fn a_ghost() -> Vec<u8> {
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = World::new(WorldConfig::default()).unwrap();
    let car = world
        .add_car(
            &preset("rwd_sports").unwrap(),
            skidpad_core::race::grid_pose(&track, 0, &track.grid()),
        )
        .unwrap();
    world.set_driver(car, Some(track)).unwrap();
    let mut recorder = GhostRecorder::new(car);
    for _ in 0..1200 {
        world.step(1.0 / 60.0).unwrap();
        recorder.after_step(&world).unwrap();
    }
    encode_ghost(&recorder.finish().unwrap()).unwrap()
}

/// p50 and p99 of `latencies`, ms.
fn percentiles(mut latencies: Vec<f64>) -> (f64, f64) {
    latencies.sort_by(f64::total_cmp);
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99))
}

async fn ghost_downloads() {
    let Some(database) = postgres_database("ghost_downloads").await else {
        return;
    };
    let service = Service::start(&database, 0).await;
    let ghost = a_ghost();
    let replays = tagged_replays(RUNS, 30, "ghost");
    let started = Instant::now();
    let mut ids = Vec::with_capacity(RUNS);
    for (k, bytes) in replays.iter().enumerate() {
        let id = run_id(bytes, ApiOptions::default().max_decoded).unwrap();
        let player = format!("player-{k}");
        service.store.submit(&id, bytes, &player).await.unwrap();
        let claim = service
            .store
            .claim("bench", Duration::from_secs(60), 3)
            .await
            .unwrap()
            .unwrap();
        let outcome = Outcome::Verified(Box::new(Verified {
            track: "brandwood".into(),
            class: "rwd_sports".into(),
            player,
            car: 0,
            steps: 30,
            duration: 0.5,
            final_hash: "00".repeat(32),
            laps: Vec::new(),
            // Every run a different time, so ranks are strict.
            best_lap: Some(60.0 + k as f64 * 1e-3),
            flags: Vec::new(),
            sealed_by: None,
            taken_over: None,
            rewinds: None,
            best_lap_ghost: Some(ghost.clone()),
        }));
        assert!(
            service
                .store
                .finish(&claim.run_id, "bench", &outcome)
                .await
                .unwrap()
        );
        ids.push(claim.run_id);
    }
    eprintln!(
        "{RUNS} verified runs with {}-byte ghosts written in {:.1} s",
        ghost.len(),
        started.elapsed().as_secs_f64()
    );
    let client = reqwest::Client::new();
    let time = |path: String| {
        let client = client.clone();
        let url = format!("{}{path}", service.base);
        async move {
            let asked = Instant::now();
            let response = client.get(&url).send().await.unwrap();
            assert_eq!(response.status().as_u16(), 200, "{url}");
            response.bytes().await.unwrap();
            asked.elapsed().as_secs_f64() * 1000.0
        }
    };
    let mut record = Vec::new();
    let mut any = Vec::new();
    let mut around = Vec::new();
    for k in 0..ASKS {
        record.push(time("/leaderboards/brandwood/rwd_sports/record/ghost".into()).await);
        let pick = (k * 7919) % RUNS;
        any.push(time(format!("/runs/{}/ghost", ids[pick])).await);
        around.push(
            time(format!(
                "/leaderboards/brandwood/rwd_sports/around/player-{pick}?span=5"
            ))
            .await,
        );
    }
    for (what, latencies) in [
        ("record's ghost", record),
        ("a run's ghost", any),
        ("a player's neighbourhood (span 5)", around),
    ] {
        let (p50, p99) = percentiles(latencies);
        println!("{what}: p50 {p50:.2} ms, p99 {p99:.2} ms over {ASKS} requests");
    }
    service.stop().await;
}
