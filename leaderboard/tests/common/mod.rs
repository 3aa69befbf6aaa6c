//! What the leaderboard tests share: recording runs, starting the service
//! on loopback, and waiting for verdicts.

#![allow(dead_code)] // each test file uses its own part

use std::io::BufRead as _;
use std::path::Path;
use std::process::Child;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use skidpad_core::{Track, World, WorldConfig, preset};
use skidpad_leaderboard::api::ApiOptions;
use skidpad_leaderboard::service::{Role, serve};
use skidpad_leaderboard::store::Store;
use skidpad_leaderboard::worker::WorkerOptions;
use skidpad_replay::{RecorderOptions, Replay, ReplayRecorder};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

pub const DT: f64 = 1.0 / 60.0;
/// The player of test uploads whose replay names none.
pub const TESTER: &str = "tester";
/// Steps for the AI's rwd_sports to cross the line and drive one full lap
/// of Brandwood Park (about 63 s) from 10 m before the line.
pub const ONE_LAP_STEPS: u64 = 75 * 60;

/// Records `steps` steps of one AI-driven `car` starting at rest 10 m
/// before Brandwood Park's line, with `metadata` besides the track.
pub fn record(car: &str, steps: u64, metadata: &[(&str, &str)]) -> Replay {
    record_field(car, 1, steps, metadata)
}

/// [`record`] with `cars` AI cars on a two-abreast grid (car 0 ranked).
pub fn record_field(car: &str, cars: usize, steps: u64, metadata: &[(&str, &str)]) -> Replay {
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = World::new(WorldConfig::default()).unwrap();
    for k in 0..cars {
        let side = if k % 2 == 0 { 0.0 } else { -3.0 };
        let distance = track.length() - 10.0 - 8.0 * (k / 2) as f64;
        let id = world
            .add_car(
                &preset(car).unwrap(),
                skidpad_core::race::pose_along(&track, distance, side, 0.0),
            )
            .unwrap();
        world.set_driver(id, Some(track.clone())).unwrap();
    }
    // The track by default; `metadata` may name another.
    let mut all = vec![("track".to_owned(), "brandwood".to_owned())];
    all.retain(|(key, _)| !metadata.iter().any(|(k, _)| k == key));
    all.extend(
        metadata
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    );
    let mut recorder = ReplayRecorder::new(
        &world,
        RecorderOptions {
            metadata: all,
            ..RecorderOptions::default()
        },
    )
    .unwrap();
    for _ in 0..steps {
        recorder.step(&mut world, DT).unwrap();
    }
    recorder.finish(&world).unwrap()
}

/// `count` distinct encoded replays of `steps` steps of [`record`] (a
/// `tag` metadata entry differs; they name no player).
pub fn tagged_replays(count: usize, steps: u64, tag: &str) -> Vec<Vec<u8>> {
    let base = record("rwd_sports", steps, &[]);
    (0..count)
        .map(|k| {
            let mut replay = base.clone();
            replay
                .header
                .metadata
                .push(("tag".into(), format!("{tag} {k}")));
            skidpad_replay::encode_replay(&replay).unwrap()
        })
        .collect()
}

/// A service running in this process.
pub struct Service {
    pub base: String,
    pub store: Store,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl Service {
    /// The API and `workers` worker tasks on `database`, on 127.0.0.1.
    pub async fn start(database: &str, workers: usize) -> Service {
        Service::start_with(database, workers, None).await
    }

    /// [`Service::start`] ranking the boards of a `--boards` file.
    pub async fn start_with(
        database: &str,
        workers: usize,
        boards: Option<Arc<skidpad_leaderboard::boards::Boards>>,
    ) -> Service {
        let store = Store::open(database).await.unwrap();
        let boards = boards.map(|b| {
            Arc::new(skidpad_leaderboard::registry::BoardRegistry::new(
                (*b).clone(),
            ))
        });
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel();
        let options = WorkerOptions {
            workers,
            poll: Duration::from_millis(20),
            boards: boards.clone(),
            ..WorkerOptions::default()
        };
        let role = if workers == 0 { Role::Api } else { Role::All };
        let task = tokio::spawn(serve(
            store.clone(),
            role,
            Some(listener),
            // The tests measure the raw path: the upload rate limit and
            // the cap on requests in flight have their own tests
            // (abuse.rs), against the binary's flags. Likewise the
            // per-player cap on unfinished runs (identity.rs).
            ApiOptions {
                upload_rate: None,
                player_rate: None,
                max_unfinished_runs: u32::MAX,
                max_requests_per_address: 0,
                boards,
                ..ApiOptions::default()
            },
            options,
            async {
                let _ = stopped.await;
            },
        ));
        Service {
            base,
            store,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Stops the API and waits for the workers to finish their jobs.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.unwrap().unwrap();
        }
    }

    /// POSTs `bytes` to /runs under a token of the player the replay's
    /// metadata names ([`TESTER`] when it names none or is unreadable),
    /// issued through the store as an operator would: (status code,
    /// body).
    pub async fn submit(&self, bytes: Vec<u8>) -> (u16, Value) {
        let player = skidpad_replay::read_replay_header(&bytes)
            .ok()
            .and_then(|h| h.metadata_value("player").map(str::to_owned))
            .unwrap_or_else(|| TESTER.to_owned());
        self.submit_as(&player, bytes).await
    }

    /// POSTs `bytes` to /runs under a new token of `player`.
    pub async fn submit_as(&self, player: &str, bytes: Vec<u8>) -> (u16, Value) {
        let token = self.store.issue_token(player, false).await.unwrap();
        self.submit_with(&token, bytes).await
    }

    /// POSTs `bytes` to /runs with `token`: (status code, body).
    pub async fn submit_with(&self, token: &str, bytes: Vec<u8>) -> (u16, Value) {
        let response = reqwest::Client::new()
            .post(format!("{}/runs", self.base))
            .bearer_auth(token)
            .body(bytes)
            .send()
            .await
            .unwrap();
        let code = response.status().as_u16();
        (code, response.json().await.unwrap_or(Value::Null))
    }

    /// GETs a path: (status code, body).
    pub async fn get(&self, path: &str) -> (u16, Value) {
        let response = reqwest::get(format!("{}{path}", self.base)).await.unwrap();
        let code = response.status().as_u16();
        (code, response.json().await.unwrap())
    }

    /// Polls /runs/{id} until it is no longer pending.
    pub async fn verdict(&self, id: &str) -> Value {
        wait_for(Duration::from_secs(600), || async {
            let (code, body) = self.get(&format!("/runs/{id}")).await;
            assert_eq!(code, 200, "{body}");
            (body["status"] != "pending").then_some(body)
        })
        .await
    }
}

/// Calls `probe` every 20 ms until it gives a value; panics after
/// `timeout`.
pub async fn wait_for<T, F, Fut>(timeout: Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let start = Instant::now();
    loop {
        if let Some(v) = probe().await {
            return v;
        }
        assert!(start.elapsed() < timeout, "gave up after {timeout:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The service process, killed if a test fails before it stops it (it
/// shares the test's stderr: left running, it would hold cargo's pipe
/// open and hang the run).
pub struct Server(pub Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The binary serving a SQLite file in `dir` (created if new) with
/// `flags`; its address.
pub fn start_binary(dir: &Path, flags: &[&str]) -> (Server, String) {
    start_binary_logging(dir, flags, None)
}

/// [`start_binary`], its info log written to `log` when given (warnings to
/// the test's stderr otherwise).
pub fn start_binary_logging(dir: &Path, flags: &[&str], log: Option<&Path>) -> (Server, String) {
    let database = sqlite_url(dir);
    let (level, stderr) = match log {
        Some(log) => (
            "info,sqlx=warn",
            std::process::Stdio::from(std::fs::File::create(log).unwrap()),
        ),
        None => ("warn", std::process::Stdio::inherit()),
    };
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_skidpad-leaderboard"))
        .args([
            "--listen",
            "127.0.0.1:0",
            "--workers",
            "1",
            "--database",
            &database,
        ])
        .args(flags)
        .env("RUST_LOG", level)
        .stdout(std::process::Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .trim()
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_owned();
    (Server(child), address)
}

/// A token from the binary's own command (`token issue`), on the SQLite
/// file in `dir` that [`start_binary`] serves.
pub fn issue_token(dir: &Path, player: &str, admin: bool) -> String {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_skidpad-leaderboard"));
    command.args([
        "token",
        "issue",
        "--player",
        player,
        "--database",
        &sqlite_url(dir),
    ]);
    if admin {
        command.arg("--admin");
    }
    let output = command.env("RUST_LOG", "warn").output().unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

/// A SQLite database URL in `dir`.
pub fn sqlite_url(dir: &Path) -> String {
    format!("sqlite:{}", dir.join("leaderboard.db").display())
}

/// A fresh PostgreSQL database on the server `cargo xtask test` starts
/// (its URL in `SKIDPAD_TEST_POSTGRES_URL`), or `None` to skip when there
/// is no server and `SKIDPAD_REQUIRE_POSTGRES` is not set.
pub async fn postgres_database(name: &str) -> Option<String> {
    let Ok(base) = std::env::var("SKIDPAD_TEST_POSTGRES_URL") else {
        assert!(
            std::env::var_os("SKIDPAD_REQUIRE_POSTGRES").is_none(),
            "SKIDPAD_REQUIRE_POSTGRES is set but SKIDPAD_TEST_POSTGRES_URL is not"
        );
        // Written past the test harness's capture (which swallows
        // `eprintln!` from passing tests), so a plain `cargo test` shows
        // what it did not test.
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {name} on PostgreSQL: no server (run through `cargo xtask with-postgres cargo test …`; `cargo xtask test` requires it)"
        );
        return None;
    };
    sqlx::any::install_default_drivers();
    let admin = sqlx::AnyPool::connect(&base).await.unwrap();
    let db = format!("skidpad_{name}_{}", std::process::id());
    sqlx::query(&format!("DROP DATABASE IF EXISTS {db}"))
        .execute(&admin)
        .await
        .unwrap();
    sqlx::query(&format!("CREATE DATABASE {db}"))
        .execute(&admin)
        .await
        .unwrap();
    admin.close().await;
    let (server, _) = base.rsplit_once('/').unwrap();
    Some(format!("{server}/{db}"))
}

/// A worker process (`skidpad-leaderboard --role worker`) on `database`.
pub fn spawn_worker(database: &str, workers: usize, lease_seconds: f64) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_skidpad-leaderboard"))
        .args(["--role", "worker", "--database", database])
        .args(["--workers", &workers.to_string()])
        .args(["--lease-seconds", &lease_seconds.to_string()])
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap()
}
