//! The race server under load over real sockets: for each player count,
//! the real `skidpad-netplay serve` process on loopback and as many bots
//! (the crate's Rust bot: a WebSocket client that signs in, predicts its
//! car bit for bit, drives it and answers pings) racing one lap on the
//! default grid, cars together. The server's CPU comes from the kernel's
//! accounting of its process (`/proc/PID/stat`, Linux only), so the bots
//! sharing the machine do not count in it; it is divided by the simulated
//! time the race ran, which makes it the share of one core a server
//! racing in real time would take.
//!
//! `cargo bench -p skidpad-netplay --bench socket_load` (8, 32 and 64
//! players), or `-- 8 20` for other counts (1 to 64). Bounded: at most 64
//! bots a run, a lap each, two minutes a run at most, loopback only.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use skidpad_netplay::bot::{BotOptions, BotReport, run_bot};

/// Simulated seconds per wall-clock second: the server and the bots run
/// twice as fast as a real race, so a lap takes about 40 s.
const PACE: f64 = 2.0;
/// Frames a simulated second (the server's default network rate).
const FRAME_HZ: f64 = 30.0;
const MOST_PLAYERS: usize = 64;

struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(tokens: &std::path::Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_skidpad-netplay"))
            .args(["serve", "--listen", "127.0.0.1:0", "--laps", "1"])
            .args(["--pace", &PACE.to_string()])
            .arg("--tokens")
            .arg(tokens)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the server starts");
        let stdout = child.stdout.take().expect("its output");
        let mut lines = BufReader::new(stdout).lines();
        let first = lines.next().expect("a first line").expect("text");
        let url = first
            .strip_prefix("race at ")
            .unwrap_or_else(|| panic!("the server said {first:?}"))
            .to_owned();
        // Keep reading, so the server never blocks on a full pipe.
        std::thread::spawn(move || lines.map_while(Result::ok).for_each(drop));
        Server { child, url }
    }

    /// User plus system CPU time the server's process has used, s.
    fn cpu_seconds(&self) -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id()))
            .expect("/proc/PID/stat (this benchmark runs on Linux)");
        // After the command name's closing parenthesis: state is field 3,
        // utime field 14 and stime field 15 (proc(5)).
        let fields: Vec<&str> = stat[stat.rfind(')').expect("a stat line") + 2..]
            .split_whitespace()
            .collect();
        let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
        ticks / clock_ticks_per_second()
    }
}

fn clock_ticks_per_second() -> f64 {
    let out = Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .expect("getconf");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("CLK_TCK")
}

/// What one player count measured.
struct LoadRun {
    players: usize,
    /// The window measured: from when every bot had had time to take its
    /// seat to when the first bot finished its lap, wall-clock s.
    window_s: f64,
    /// The server's CPU over that window, s.
    server_cpu_s: f64,
    /// Simulated seconds per wall-clock second the server kept, from the
    /// first finisher's frames.
    kept_pace: f64,
    /// The bots' (the load generator's) CPU over the whole run, s, and the
    /// run's wall-clock length.
    bots_cpu_s: f64,
    wall_s: f64,
    reports: Vec<BotReport>,
    failed: Vec<String>,
}

impl LoadRun {
    fn row(&self) -> String {
        let done = self.reports.iter().filter(|r| r.laps >= 1).count();
        let checked: u64 = self.reports.iter().map(|r| r.checked).sum();
        let missed: u64 = self.reports.iter().map(|r| r.mispredicted).sum();
        let late: u64 = self.reports.iter().map(|r| r.late_corrections).sum();
        // Bytes a player receives per remote car per simulated second,
        // averaged over the bots.
        let remote = (self.players.max(2) - 1) as f64;
        let per_car: Vec<f64> = self
            .reports
            .iter()
            .filter(|r| r.frames > 0)
            .map(|r| r.frame_bytes as f64 / (r.frames as f64 / FRAME_HZ) / remote)
            .collect();
        let bytes = per_car.iter().sum::<f64>() / per_car.len().max(1) as f64;
        let simulated = self.window_s * self.kept_pace;
        format!(
            "| {} | {done} of {} | {:.1} | {:.2} | {:.1} % | {:.0} % | {:.0} | {checked} | {missed} | {late} | {} |",
            self.players,
            self.players,
            self.window_s,
            self.kept_pace,
            self.server_cpu_s / simulated * 100.0,
            self.bots_cpu_s / self.wall_s * 100.0,
            bytes,
            errors(&self.failed)
        )
    }
}

/// Each distinct error once, with how many bots gave it.
fn errors(failed: &[String]) -> String {
    let mut counted = std::collections::BTreeMap::<&str, usize>::new();
    for e in failed {
        *counted.entry(e.as_str()).or_default() += 1;
    }
    if counted.is_empty() {
        return "none".to_owned();
    }
    counted
        .iter()
        .map(|(e, n)| format!("{n} × {e}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Wall-clock time for every bot to connect, sign in and take its seat
/// before the window opens, s.
const SEATING_S: f64 = 5.0;

fn run(players: usize) -> LoadRun {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let tokens: Vec<String> = (0..players).map(|i| format!("load-seat-{i}")).collect();
    let tokens_file = dir.path().join("tokens");
    std::fs::write(&tokens_file, tokens.join("\n")).expect("the tokens file");
    let server = Server::start(&tokens_file);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let bots_before = cpu_time::ProcessTime::now();
    let started = Instant::now();
    let (window, results) = runtime.block_on(async {
        let (done, mut finished) = tokio::sync::mpsc::unbounded_channel();
        for (i, token) in tokens.iter().enumerate() {
            let options = BotOptions {
                url: server.url.clone(),
                token: token.clone(),
                name: format!("load {i}"),
                laps: 1,
                // Enough lead for a busy machine's round trip.
                lead_ticks: 40,
                pace: PACE,
                // Two laps' time: a car stuck in the pack gives up.
                timeout: Duration::from_secs_f64(160.0 / PACE),
                ..BotOptions::default()
            };
            let done = done.clone();
            tokio::spawn(async move {
                let result = run_bot(options).await;
                let _ = done.send((Instant::now(), result));
            });
        }
        drop(done);
        tokio::time::sleep(Duration::from_secs_f64(SEATING_S)).await;
        let opened = (Instant::now(), server.cpu_seconds());
        let mut results = Vec::with_capacity(players);
        let first = finished.recv().await.expect("a bot's result");
        let closed = (first.0, server.cpu_seconds());
        results.push(first.1);
        while let Some((_, result)) = finished.recv().await {
            results.push(result);
        }
        ((opened, closed), results)
    });
    let wall_s = started.elapsed().as_secs_f64();
    let bots_cpu_s = bots_before.elapsed().as_secs_f64();
    let ((opened_at, cpu_opened), (closed_at, cpu_closed)) = window;
    let (mut reports, mut failed) = (Vec::new(), Vec::new());
    for result in results {
        match result {
            Ok(report) => reports.push(report),
            Err(e) => failed.push(e.to_string()),
        }
    }
    // The first finisher's lap in the server's time against the wall clock.
    let kept_pace = reports
        .first()
        .and_then(|r| Some((r.first_shot_ms?, r.last_frame_ms?)))
        .map_or(PACE, |(a, b)| {
            f64::from(b.saturating_sub(a)) / 1000.0 / (closed_at - started).as_secs_f64()
        });
    LoadRun {
        players,
        window_s: (closed_at - opened_at).as_secs_f64(),
        server_cpu_s: cpu_closed - cpu_opened,
        kept_pace,
        bots_cpu_s,
        wall_s,
        reports,
        failed,
    }
}

fn main() {
    // `cargo bench` passes `--bench`; counts are the other arguments.
    let mut counts: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .filter(|n| (1..=MOST_PLAYERS).contains(n))
        .collect();
    if counts.is_empty() {
        counts = vec![8, 32, 64];
    }
    println!(
        "| players | finished the lap | window, wall s | pace kept | server CPU per simulated s (share of one core) | bots' CPU (the load generator) | bytes per remote car per simulated s | states checked | mispredicted | late corrections | bot errors |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for players in counts {
        println!("{}", run(players).row());
    }
}
