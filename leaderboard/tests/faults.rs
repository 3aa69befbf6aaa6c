//! Faults, with real processes: the API killed with SIGKILL in the middle
//! of a stream of uploads loses no run it answered 202 to and stores no
//! partial one; a full disk answers 503, corrupts nothing and recovers
//! when space comes back; PostgreSQL restarted under two verifying worker
//! processes loses no job and writes every verdict once.

mod common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{
    Server, TESTER, issue_token, postgres_database, spawn_worker, sqlite_url, start_binary,
    tagged_replays, wait_for,
};
use skidpad_leaderboard::store::{Store, Submitted};

/// The flags of an API that accepts as fast as it can: no rate limits,
/// no cap on a player's unfinished runs, no workers.
const RAW_API: [&str; 8] = [
    "--role",
    "api",
    "--upload-burst",
    "0",
    "--player-burst",
    "0",
    "--max-unfinished-runs",
    "1000000",
];

/// `count` distinct short replays.
fn replays(count: usize, tag: &str) -> Vec<Vec<u8>> {
    tagged_replays(count, 30, tag)
}

fn id_of(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// What one upload got: the status code, or `None` when the connection
/// failed before an answer.
type Answer = (usize, Option<u16>);

/// Uploads `bodies` from `clients` concurrent clients until each has sent
/// its share or its connection fails; `answered` counts answers as they
/// come.
async fn upload_all(
    base: &str,
    token: &str,
    bodies: &Arc<Vec<Vec<u8>>>,
    clients: usize,
    answered: &Arc<AtomicUsize>,
) -> Vec<Answer> {
    let mut tasks = tokio::task::JoinSet::new();
    for client in 0..clients {
        let (base, token, bodies, answered) = (
            base.to_owned(),
            token.to_owned(),
            bodies.clone(),
            answered.clone(),
        );
        tasks.spawn(async move {
            let http = reqwest::Client::new();
            let mut answers = Vec::new();
            for k in (client..bodies.len()).step_by(clients) {
                let sent = http
                    .post(format!("{base}/runs"))
                    .bearer_auth(&token)
                    .body(bodies[k].clone())
                    .send()
                    .await;
                match sent {
                    Ok(response) => {
                        answered.fetch_add(1, Ordering::Relaxed);
                        answers.push((k, Some(response.status().as_u16())));
                    }
                    Err(_) => {
                        answers.push((k, None));
                        break;
                    }
                }
            }
            answers
        });
    }
    let mut all = Vec::new();
    while let Some(answers) = tasks.join_next().await {
        all.extend(answers.unwrap());
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_the_api_killed_mid_upload_loses_no_accepted_run() {
    let dir = tempfile::tempdir().unwrap();
    let token = issue_token(dir.path(), TESTER, false);
    let mut accepted = Vec::new();
    let mut sent = Vec::new();
    for round in 0..3usize {
        let bodies = Arc::new(replays(400, &format!("round {round}")));
        let (mut server, address) = start_binary(dir.path(), &RAW_API);
        let base = format!("http://{address}");
        let answered = Arc::new(AtomicUsize::new(0));
        // SIGKILL after a different number of answers each round, with
        // four uploads in flight.
        let kill_after = 40 + 90 * round;
        let killer = {
            let answered = answered.clone();
            async move {
                while answered.load(Ordering::Relaxed) < kill_after {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                server.0.kill().unwrap();
                server.0.wait().unwrap();
            }
        };
        let (answers, ()) = tokio::join!(upload_all(&base, &token, &bodies, 4, &answered), killer);
        let unanswered = answers.iter().filter(|(_, code)| code.is_none()).count();
        assert!(
            unanswered > 0,
            "round {round}: the kill came after the last upload"
        );
        for (k, code) in answers {
            match code {
                Some(202) => accepted.push(bodies[k].clone()),
                Some(other) => panic!("round {round}: upload {k} answered {other}"),
                None => {}
            }
        }
        sent.extend(bodies.iter().cloned());
    }

    // Every run answered 202 is there, byte for byte; every run stored at
    // all is whole (an upload committed just before the kill, its answer
    // lost, is kept whole), with its job.
    let (_server, address) = start_binary(dir.path(), &RAW_API);
    let base = format!("http://{address}");
    let http = reqwest::Client::new();
    let stored_bytes = |id: String| {
        let http = http.clone();
        let base = base.clone();
        async move {
            let response = http
                .get(format!("{base}/runs/{id}/replay"))
                .send()
                .await
                .unwrap();
            (response.status() == 200).then_some(response.bytes().await.unwrap().to_vec())
        }
    };
    for body in &accepted {
        let stored = stored_bytes(id_of(body)).await;
        assert_eq!(stored.as_ref(), Some(body), "an accepted run was lost");
    }
    let mut stored_runs = 0;
    for body in &sent {
        if let Some(stored) = stored_bytes(id_of(body)).await {
            assert_eq!(&stored, body, "a stored replay differs from its upload");
            stored_runs += 1;
        }
    }
    let store = Store::open(&sqlite_url(dir.path())).await.unwrap();
    let queue = store.queue_counts().await.unwrap();
    assert_eq!(queue.queued, stored_runs, "every stored run has its job");
    let check: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(
            &sqlx::SqlitePool::connect(&sqlite_url(dir.path()))
                .await
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(check, "ok");
    println!(
        "3 SIGKILLs mid-upload: {} runs answered 202, all kept; {stored_runs} stored of {} sent",
        accepted.len(),
        sent.len()
    );
}

/// A tmpfs of `megabytes` mounted at `dir` until dropped, or `None` when
/// this process may not mount (not root).
struct SmallDisk(std::path::PathBuf);

impl SmallDisk {
    fn mount(dir: &Path, megabytes: u32) -> Option<SmallDisk> {
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
            .arg(dir)
            .stderr(std::process::Stdio::null())
            .status()
            .ok()?;
        status.success().then(|| SmallDisk(dir.to_owned()))
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        // SQLite's connection threads close their files a moment after the
        // pool says it closed: try for a while, then detach lazily.
        for _ in 0..50 {
            let unmounted = std::process::Command::new("umount")
                .arg(&self.0)
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if unmounted {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_full_disk_answers_503_corrupts_nothing_and_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let Some(disk) = SmallDisk::mount(dir.path(), 3) else {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED the full-disk test: mounting a tmpfs needs root"
        );
        return;
    };
    // A filler to delete later: the space that comes back.
    let filler = dir.path().join("filler");
    std::fs::write(&filler, vec![0u8; 1 << 20]).unwrap();
    let token = issue_token(dir.path(), TESTER, false);
    let server = start_binary(dir.path(), &RAW_API);
    let base = format!("http://{}", server.1);
    let http = reqwest::Client::new();
    let bodies = replays(3000, "disk");
    let mut accepted = Vec::new();
    let mut full = None;
    for (k, body) in bodies.iter().enumerate() {
        let response = http
            .post(format!("{base}/runs"))
            .bearer_auth(&token)
            .body(body.clone())
            .send()
            .await
            .unwrap();
        match response.status().as_u16() {
            202 => accepted.push(body.clone()),
            503 => {
                full = Some(k);
                break;
            }
            other => panic!("upload {k}: {other}"),
        }
    }
    let full = full.expect("the disk never filled");
    // Reads still answer, and every accepted run is whole.
    for body in &accepted {
        let response = http
            .get(format!("{base}/runs/{}/replay", id_of(body)))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(&response.bytes().await.unwrap().to_vec(), body);
    }
    // Space comes back: uploads are accepted again without a restart.
    std::fs::remove_file(&filler).unwrap();
    let response = http
        .post(format!("{base}/runs"))
        .bearer_auth(&token)
        .body(bodies[full].clone())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202, "after space came back");
    drop(server);
    let pool = sqlx::SqlitePool::connect(&sqlite_url(dir.path()))
        .await
        .unwrap();
    let check: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(check, "ok");
    let runs: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM runs")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(runs as usize, accepted.len() + 1);
    pool.close().await;
    drop(disk);
    println!(
        "a 3 MB disk filled after {} uploads: 503, then 202 once 1 MB was freed; integrity ok",
        accepted.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_restart_mid_batch_loses_no_job_and_writes_each_verdict_once() {
    let Some(database) = postgres_database("restart").await else {
        return;
    };
    let restart = std::env::var("SKIDPAD_TEST_POSTGRES_RESTART")
        .expect("the PostgreSQL tests run under `cargo xtask`, which sets the restart command");
    let store = Store::open(&database).await.unwrap();
    let bodies = replays(150, "restart");
    for body in &bodies {
        assert_eq!(
            store.submit(&id_of(body), body, TESTER).await.unwrap(),
            Submitted::New
        );
    }
    let workers: Vec<Server> = (0..2)
        .map(|_| Server(spawn_worker(&database, 2, 3.0)))
        .collect();
    wait_for(Duration::from_secs(120), || async {
        (store.queue_counts().await.ok()?.done >= 20).then_some(())
    })
    .await;
    let status = std::process::Command::new("sh")
        .args(["-c", &restart])
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{restart}");
    let done_at_restart = store.queue_counts().await.map(|q| q.done).unwrap_or(-1);
    wait_for(Duration::from_secs(300), || async {
        (store.queue_counts().await.ok()?.done == bodies.len() as i64).then_some(())
    })
    .await;
    drop(workers);
    let mut claimed_twice = 0;
    for body in &bodies {
        let run = store.run(&id_of(body)).await.unwrap().unwrap();
        assert_eq!(run.status, "verified", "{run:?}");
        // A second claim happens only when a verdict could not be written
        // within a lease; the write checks who holds the job, so one
        // verdict stands.
        assert!(run.attempts <= 2, "{run:?}");
        claimed_twice += usize::from(run.attempts == 2);
    }
    println!(
        "PostgreSQL restarted with {done_at_restart} of {} jobs done: all verified, {claimed_twice} claimed twice",
        bodies.len()
    );
}
