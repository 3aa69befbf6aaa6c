//! `cargo xtask load [--quick]`: the leaderboard binary (release; debug
//! for `--quick`) under a real load generator, wrk (Debian's package), on
//! 127.0.0.1 only, every phase bounded in connections and seconds:
//!
//! 1. uploads per second and p50/p99 latency at 1, 8 and 64 connections,
//!    each upload a distinct body (the golden `flat_lap.skr` with a
//!    per-request suffix: a new run each time, through the header checks);
//! 2. a soak of mixed reads and uploads at 8 connections with the server's
//!    resident memory sampled every second;
//! 3. a hostile mix: one player floods uploads from 32 connections while
//!    16 clients trickle uploads a byte at a time, beside an honest player
//!    who uploads once a second and reads the board; the honest player's
//!    latencies are the result.
//!
//! Figures go to `target/load-report.json` and the terminal; BENCHMARKS.md
//! quotes them. `--quick` (the `cargo xtask test` check) runs each phase
//! for a few seconds and fails only when something is wrong (an error
//! answer, a lost honest upload), never because the machine is slow.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::tools::{release_binaries, test_binaries};

/// Sends each request a body of the base replay and a unique suffix, with
/// the token in `SKIDPAD_LOAD_TOKEN`; with `SKIDPAD_LOAD_READS` = N, every
/// request but one in N + 1 reads the board instead.
const SCRIPT: &str = r#"
local file = io.open(os.getenv("SKIDPAD_LOAD_BODY"), "rb")
local base = file:read("*a")
file:close()
local token = os.getenv("SKIDPAD_LOAD_TOKEN")
local reads = tonumber(os.getenv("SKIDPAD_LOAD_READS") or "0")
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end
local n = 0
request = function()
  n = n + 1
  if reads > 0 and n % (reads + 1) ~= 0 then
    return wrk.format("GET", "/leaderboards/brandwood/rwd_sports")
  end
  local body = base .. string.format("|%d|%d", tid, n)
  return wrk.format("POST", "/runs", { ["Authorization"] = "Bearer " .. token }, body)
end
"#;

/// Reads per upload in the soak.
const SOAK_READS: u32 = 199;

/// What wrk measured.
#[derive(Debug, Default)]
struct WrkRun {
    requests: u64,
    per_second: f64,
    p50_ms: f64,
    p99_ms: f64,
    /// Answers outside 2xx and 3xx.
    refused: u64,
    socket_errors: u64,
}

impl WrkRun {
    fn json(&self) -> Value {
        json!({
            "requests": self.requests,
            "per_second": self.per_second,
            "p50_ms": self.p50_ms,
            "p99_ms": self.p99_ms,
            "non_2xx": self.refused,
            "socket_errors": self.socket_errors,
        })
    }
}

/// A latency as wrk prints it (`271.00us`, `1.04ms`, `2.00s`), in ms.
fn millis(text: &str) -> Option<f64> {
    let (number, scale) = if let Some(n) = text.strip_suffix("us") {
        (n, 1e-3)
    } else if let Some(n) = text.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1e3)
    } else {
        return None;
    };
    number.parse::<f64>().ok().map(|v| v * scale)
}

fn parse_wrk(out: &str) -> Result<WrkRun, String> {
    let mut run = WrkRun::default();
    for line in out.lines().map(str::trim) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["50%", v] => run.p50_ms = millis(v).unwrap_or(f64::NAN),
            ["99%", v] => run.p99_ms = millis(v).unwrap_or(f64::NAN),
            ["Requests/sec:", v] => run.per_second = v.parse().unwrap_or(f64::NAN),
            [n, "requests", "in", ..] => run.requests = n.parse().unwrap_or(0),
            ["Non-2xx", "or", "3xx", "responses:", n] => run.refused = n.parse().unwrap_or(0),
            ["Socket", "errors:", rest @ ..] => {
                run.socket_errors = rest
                    .iter()
                    .filter_map(|w| w.trim_end_matches(',').parse::<u64>().ok())
                    .sum();
            }
            _ => {}
        }
    }
    if run.requests == 0 {
        return Err(format!("wrk made no requests:\n{out}"));
    }
    Ok(run)
}

/// The leaderboard binary serving a SQLite file in `dir` with `flags`.
struct Server {
    child: Child,
    address: String,
}

impl Server {
    fn start(binary: &Path, dir: &Path, flags: &[&str]) -> Result<Server, String> {
        let database = format!("sqlite:{}", dir.join("board.db").display());
        let mut child = Command::new(binary)
            .args(["--listen", "127.0.0.1:0", "--database", &database])
            .args(flags)
            .env("RUST_LOG", "error")
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("{}: {e}", binary.display()))?;
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().ok_or("no stdout")?)
            .read_line(&mut line)
            .map_err(|e| e.to_string())?;
        let address = line
            .trim()
            .strip_prefix("listening on http://")
            .ok_or_else(|| format!("unexpected first line: {line}"))?
            .to_owned();
        Ok(Server { child, address })
    }

    /// Resident memory now, kB.
    fn rss_kb(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn token(binary: &Path, dir: &Path, player: &str) -> Result<String, String> {
    let database = format!("sqlite:{}", dir.join("board.db").display());
    let out = Command::new(binary)
        .args([
            "token",
            "issue",
            "--player",
            player,
            "--database",
            &database,
        ])
        .env("RUST_LOG", "error")
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Runs wrk against `server` for `seconds` with `connections`; `watch` is
/// called about once a second while it runs.
fn wrk(
    server: &Server,
    files: &LoadFiles,
    token: &str,
    connections: u32,
    seconds: u32,
    reads: u32,
    mut watch: impl FnMut(),
) -> Result<WrkRun, String> {
    let threads = connections.min(2).to_string();
    let mut child = Command::new("wrk")
        .args(["-t", &threads, "-c", &connections.to_string()])
        .args([
            "-d",
            &format!("{seconds}s"),
            "--latency",
            "--timeout",
            "10s",
        ])
        .arg("-s")
        .arg(&files.script)
        .arg(format!("http://{}", server.address))
        .env("SKIDPAD_LOAD_BODY", &files.body)
        .env("SKIDPAD_LOAD_TOKEN", token)
        .env("SKIDPAD_LOAD_READS", reads.to_string())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("wrk: {e} (apt-get install wrk)"))?;
    let mut out = String::new();
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let _ = stdout.read_to_string(&mut out);
        out
    });
    while child.try_wait().map_err(|e| e.to_string())?.is_none() {
        watch();
        std::thread::sleep(Duration::from_secs(1));
    }
    let out = reader.join().map_err(|_| "wrk's reader panicked")?;
    parse_wrk(&out)
}

/// The script and the base body, written once.
struct LoadFiles {
    script: PathBuf,
    body: PathBuf,
}

/// One raw request; the status code and the time to it.
fn request(address: &str, head: &str, body: &[u8]) -> Result<(u16, Duration), String> {
    let started = Instant::now();
    let mut stream = TcpStream::connect(address).map_err(|e| e.to_string())?;
    stream
        .write_all(head.as_bytes())
        .map_err(|e| e.to_string())?;
    stream.write_all(body).map_err(|e| e.to_string())?;
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .map_err(|e| e.to_string())?;
    let code = answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("no status line: {answer:?}"))?;
    Ok((code, started.elapsed()))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// The honest player's traffic during the hostile mix: an upload a second
/// and a read every 100 ms, for `seconds`.
fn honest_player(address: &str, token: &str, base: &[u8], seconds: u32) -> Result<Value, String> {
    let started = Instant::now();
    let (mut uploads, mut reads, mut refused) = (Vec::new(), Vec::new(), Vec::new());
    let mut next_upload = Instant::now();
    let mut n = 0;
    while started.elapsed() < Duration::from_secs(u64::from(seconds)) {
        if Instant::now() >= next_upload {
            n += 1;
            let mut body = base.to_vec();
            body.extend_from_slice(format!("|honest|{n}").as_bytes());
            let head = format!(
                "POST /runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let (code, took) = request(address, &head, &body)?;
            if code == 202 {
                uploads.push(took.as_secs_f64() * 1e3);
            } else {
                refused.push(code);
            }
            next_upload += Duration::from_millis(1100);
        }
        let (code, took) = request(
            address,
            "GET /leaderboards/brandwood/rwd_sports HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            b"",
        )?;
        if code == 200 {
            reads.push(took.as_secs_f64() * 1e3);
        } else {
            refused.push(code);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    if !refused.is_empty() {
        return Err(format!("the honest player was refused: {refused:?}"));
    }
    uploads.sort_by(f64::total_cmp);
    reads.sort_by(f64::total_cmp);
    Ok(json!({
        "uploads": uploads.len(),
        "upload_p50_ms": percentile(&uploads, 0.5),
        "upload_max_ms": uploads.last().copied().unwrap_or(f64::NAN),
        "reads": reads.len(),
        "read_p50_ms": percentile(&reads, 0.5),
        "read_p99_ms": percentile(&reads, 0.99),
    }))
}

/// A slow upload: its headers, then a byte every 500 ms; the status the
/// server ended it with within `seconds` (408 at the deadline, or 429 when
/// its player's budget was spent), `None` if it was still open.
fn trickle(address: String, token: String, seconds: u32) -> std::thread::JoinHandle<Option<u16>> {
    std::thread::spawn(move || {
        let mut stream = TcpStream::connect(&address).ok()?;
        let head = format!(
            "POST /runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Length: 100000\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).ok()?;
        let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
        let started = Instant::now();
        let mut answer = [0u8; 64];
        while started.elapsed() < Duration::from_secs(u64::from(seconds)) {
            if stream.write_all(b"x").is_err() {
                break;
            }
            if let Ok(n) = stream.read(&mut answer)
                && n > 0
            {
                return String::from_utf8_lossy(&answer[..n])
                    .split_whitespace()
                    .nth(1)
                    .and_then(|c| c.parse().ok());
            }
        }
        None
    })
}

/// The newest golden directory's `flat_lap.skr`.
fn base_replay(root: &Path) -> Result<PathBuf, String> {
    let newest = std::fs::read_dir(root.join("golden"))
        .map_err(|e| e.to_string())?
        .filter_map(|e| {
            let name = e.ok()?.file_name();
            name.to_str()?.strip_prefix('v')?.parse::<u32>().ok()
        })
        .max()
        .ok_or("no golden/v*/ directory")?;
    Ok(root.join(format!("golden/v{newest}/flat_lap.skr")))
}

/// `cargo xtask load [--quick]`.
pub fn load(root: &Path, quick: bool) -> Result<(), String> {
    // The quick check asserts no figure, so it runs the debug binary the
    // test check built instead of paying for a release build in CI.
    let binaries = if quick {
        test_binaries(root)?
    } else {
        release_binaries(root)?
    };
    let binary = binaries.join("skidpad-leaderboard");
    let work = std::env::temp_dir().join(format!("skidpad-load-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let files = LoadFiles {
        script: work.join("upload.lua"),
        body: base_replay(root)?,
    };
    std::fs::write(&files.script, SCRIPT).map_err(|e| e.to_string())?;
    let base = std::fs::read(&files.body).map_err(|e| e.to_string())?;
    let (phase, soak) = if quick { (3, 10) } else { (10, 600) };
    let result = run_phases(&binary, &work, &files, &base, phase, soak);
    let _ = std::fs::remove_dir_all(&work);
    let report = result?;
    let path = root.join("target/load-report.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&report).unwrap_or_default(),
    )
    .map_err(|e| e.to_string())?;
    println!("load report: {}", path.display());
    Ok(())
}

fn run_phases(
    binary: &Path,
    work: &Path,
    files: &LoadFiles,
    base: &[u8],
    phase: u32,
    soak: u32,
) -> Result<Value, String> {
    // 1 and 2: the raw path (no rate limits, no caps on unfinished runs
    // or requests in flight, no workers), as behind a proxy that does the
    // limiting.
    let raw = Server::start(
        binary,
        work,
        &[
            "--role",
            "api",
            "--upload-burst",
            "0",
            "--player-burst",
            "0",
            "--max-unfinished-runs",
            "1000000000",
            "--max-requests-per-address",
            "0",
        ],
    )?;
    let load_token = token(binary, work, "load")?;
    let mut uploads = Vec::new();
    for connections in [1, 8, 64] {
        let run = wrk(&raw, files, &load_token, connections, phase, 0, || {})?;
        if run.refused > 0 || run.socket_errors > 0 {
            return Err(format!("uploads at {connections} connections: {run:?}"));
        }
        println!(
            "uploads, {connections:>2} connections: {:>7.0}/s, p50 {:.2} ms, p99 {:.2} ms ({} requests)",
            run.per_second, run.p50_ms, run.p99_ms, run.requests
        );
        uploads.push(json!({ "connections": connections, "wrk": run.json() }));
    }
    let mut rss = Vec::new();
    // Read-heavy, as a leaderboard is: every upload stores its replay
    // (15 kB), so an upload-heavy soak would measure the disk filling.
    let soaked = wrk(&raw, files, &load_token, 8, soak, SOAK_READS, || {
        if let Some(kb) = raw.rss_kb() {
            rss.push(kb);
        }
    })?;
    if soaked.refused > 0 || soaked.socket_errors > 0 {
        return Err(format!("soak: {soaked:?}"));
    }
    // Flat: the last tenth of the samples against the second tenth (the
    // first is warm-up).
    let tenth = (rss.len() / 10).max(1);
    let mean = |s: &[u64]| s.iter().sum::<u64>() as f64 / s.len().max(1) as f64;
    let early = mean(&rss[tenth.min(rss.len())..(2 * tenth).min(rss.len())]);
    let late = mean(&rss[rss.len().saturating_sub(tenth)..]);
    println!(
        "soak {soak} s at 8 connections ({SOAK_READS} reads : 1 upload): {:.0} requests/s, p99 {:.2} ms; RSS {:.1} MB early, {:.1} MB late",
        soaked.per_second,
        soaked.p99_ms,
        early / 1024.0,
        late / 1024.0
    );
    drop(raw);

    // 3: the hostile mix, with the service's own limits (the per-address
    // ones off: every client here is 127.0.0.1).
    let guarded = Server::start(
        binary,
        work,
        &[
            "--role",
            "api",
            "--upload-burst",
            "0",
            "--request-timeout",
            "2",
            "--max-unfinished-runs",
            "1000",
            "--max-requests-per-address",
            "0",
        ],
    )?;
    let flooder = token(binary, work, "flooder")?;
    let honest = token(binary, work, "honest")?;
    let trickles: Vec<_> = (0..16)
        .map(|_| trickle(guarded.address.clone(), flooder.clone(), phase + 3))
        .collect();
    let address = guarded.address.clone();
    let honest_base = base.to_vec();
    let honest_thread =
        std::thread::spawn(move || honest_player(&address, &honest, &honest_base, phase));
    let flood = wrk(&guarded, files, &flooder, 32, phase, 0, || {})?;
    let honest = honest_thread
        .join()
        .map_err(|_| "the honest player panicked")??;
    let ended: Vec<Option<u16>> = trickles
        .into_iter()
        .map(|t| t.join().ok().flatten())
        .collect();
    let count = |code| ended.iter().filter(|&&c| c == Some(code)).count();
    let (cut, refused) = (count(408), count(429));
    if cut + refused != ended.len() {
        return Err(format!(
            "trickling uploads not ended by the server: {ended:?}"
        ));
    }
    println!(
        "hostile mix {phase} s: flood {:.0} requests/s, {} of {} refused (429); 16 trickling uploads: {cut} cut at the deadline (408), {refused} refused (429); honest: {honest}",
        flood.per_second, flood.refused, flood.requests
    );
    Ok(json!({
        "machine": format!("{} cores", std::thread::available_parallelism().map_or(1, usize::from)),
        "phase_seconds": phase,
        "uploads": uploads,
        "soak": {
            "seconds": soak,
            "wrk": soaked.json(),
            "rss_kb_samples": rss,
            "rss_mb_early": early / 1024.0,
            "rss_mb_late": late / 1024.0,
        },
        "hostile": {
            "flood": flood.json(),
            "trickles_cut_408": cut,
            "trickles_refused_429": refused,
            "honest": honest,
        },
    }))
}
