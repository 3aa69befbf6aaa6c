//! Abuse the binary must survive: its request deadline, upload rate limit
//! and shutdown, against the real process on 127.0.0.1: an upload trickling
//! in is cut with 408 at the deadline; an address past its upload budget
//! gets 429 with Retry-After while reads still answer, and so does a
//! player past theirs while other players go on; a replay over the
//! board's budget, or against its track's board (`--boards`), is refused
//! from its header at once, naming the limit;
//! an address holding its cap of requests in flight gets 429 for the next
//! until one ends; SIGTERM ends the process cleanly.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{Server, issue_token, start_binary};

/// The service on a fresh SQLite file in `dir` with `flags`; its address
/// and a player's token.
fn start(dir: &std::path::Path, flags: &[&str]) -> (Server, String, String) {
    let (server, address) = start_binary(dir, flags);
    let token = issue_token(dir, "abuser", false);
    (server, address, token)
}

/// Sends one raw request and returns the status line and headers.
fn request(address: &str, head: &str, body: &[u8]) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

fn post_runs(address: &str, token: &str, body: &[u8]) -> String {
    let head = format!(
        "POST /runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    request(address, &head, body)
}

/// Sends SIGTERM and waits: true when the process exited with success.
fn sigterm_and_wait(server: &mut Server) -> bool {
    let status = Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    server.0.wait().unwrap().success()
}

#[test]
fn a_trickling_upload_is_cut_at_the_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, address, token) = start(dir.path(), &["--request-timeout", "1.5"]);
    let mut stream = TcpStream::connect(&address).unwrap();
    stream
        .write_all(
            format!("POST /runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Length: 1000\r\n\r\n")
                .as_bytes(),
        )
        .unwrap();
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let started = Instant::now();
    let mut answer = Vec::new();
    // One byte every 200 ms, as a slow-loris client sends, until the
    // server answers (or 10 s pass).
    while started.elapsed() < Duration::from_secs(10) {
        if stream.write_all(b"x").is_err() {
            break;
        }
        let mut buf = [0u8; 512];
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                answer.extend_from_slice(&buf[..n]);
                break;
            }
            Err(_) => {}
        }
    }
    let waited = started.elapsed();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    assert!(
        answer.starts_with("HTTP/1.1 408"),
        "answer after {waited:?}: {answer:?}"
    );
    assert!(waited < Duration::from_secs(4), "cut after {waited:?}");
    assert!(sigterm_and_wait(&mut server));
}

#[test]
fn an_address_past_its_upload_budget_gets_429_and_reads_still_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, address, token) = start(
        dir.path(),
        &[
            "--upload-burst",
            "3",
            "--upload-every",
            "60",
            "--max-unfinished-runs",
            "100",
        ],
    );
    // Not replays: each is refused at the door (400), and each spends the
    // budget all the same.
    let codes: Vec<String> = (0..5)
        .map(|k| post_runs(&address, &token, format!("not a replay {k}").as_bytes()))
        .collect();
    for answer in &codes[..3] {
        assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    }
    for answer in &codes[3..] {
        assert!(answer.starts_with("HTTP/1.1 429"), "{answer}");
        let retry = answer
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("retry-after: ")
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| panic!("no Retry-After: {answer}"));
        let seconds: u64 = retry.trim().parse().unwrap();
        assert!((1..=60).contains(&seconds), "Retry-After {seconds}");
    }
    let health = request(
        &address,
        "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        b"",
    );
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    // SIGTERM: the process stops accepting and exits cleanly.
    let started = Instant::now();
    assert!(sigterm_and_wait(&mut server));
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        TcpStream::connect(&address).is_err(),
        "still accepting after SIGTERM"
    );
}

#[test]
fn a_replay_over_the_board_budget_is_refused_at_the_door() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, address, token) = start(
        dir.path(),
        &[
            "--max-cars",
            "4",
            "--max-steps",
            "600",
            "--max-car-steps",
            "1000",
        ],
    );
    let encode = |cars, steps| {
        let replay = common::record_field("fwd_hatchback", cars, steps, &[("track", "brandwood")]);
        skidpad_replay::encode_replay(&replay).unwrap()
    };
    let refused = |answer: &str, option: &str| {
        assert!(answer.starts_with("HTTP/1.1 422"), "{answer}");
        assert!(answer.contains(option), "names {option}: {answer}");
    };
    let started = Instant::now();
    refused(&post_runs(&address, &token, &encode(5, 10)), "--max-cars");
    refused(&post_runs(&address, &token, &encode(1, 601)), "--max-steps");
    refused(
        &post_runs(&address, &token, &encode(3, 400)),
        "--max-car-steps",
    );
    // gzip is read the same way (only its first bytes are inflated).
    let gzip =
        skidpad_replay::encode_replay_gzip(&common::record_field("fwd_hatchback", 5, 10, &[]))
            .unwrap();
    refused(&post_runs(&address, &token, &gzip), "--max-cars");
    let refusing = started.elapsed();
    assert!(
        refusing < Duration::from_secs(2),
        "four refusals took {refusing:?}"
    );
    // Within the budget: accepted for a worker.
    let answer = post_runs(&address, &token, &encode(2, 300));
    assert!(answer.starts_with("HTTP/1.1 202"), "{answer}");
    assert!(sigterm_and_wait(&mut server));
}

#[test]
fn a_run_against_its_tracks_board_is_refused_at_the_door_and_a_bad_boards_file_stops_the_service() {
    let dir = tempfile::tempdir().unwrap();
    let boards = dir.path().join("boards.json");
    std::fs::write(
        &boards,
        r#"[{"track": "brandwood", "rivals": 1, "max_steps": 500}]"#,
    )
    .unwrap();
    let (mut server, address, token) = start(dir.path(), &["--boards", boards.to_str().unwrap()]);
    let encode = |track, cars, steps| {
        let replay = common::record_field("fwd_hatchback", cars, steps, &[("track", track)]);
        skidpad_replay::encode_replay(&replay).unwrap()
    };
    for (body, says) in [
        (
            encode("hillcrest", 1, 100),
            "no board on track \\\"hillcrest",
        ),
        (encode("brandwood", 3, 100), "at most 1 rivals"),
        (encode("brandwood", 1, 501), "at most 500"),
    ] {
        let answer = post_runs(&address, &token, &body);
        assert!(answer.starts_with("HTTP/1.1 422"), "{answer}");
        assert!(
            answer.contains(says) && answer.contains("--boards"),
            "{answer}"
        );
    }
    let answer = post_runs(&address, &token, &encode("brandwood", 2, 300));
    assert!(answer.starts_with("HTTP/1.1 202"), "{answer}");
    assert!(sigterm_and_wait(&mut server));

    std::fs::write(&boards, r#"[{"track": "nowhere", "max_steps": 500}]"#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_skidpad-leaderboard"))
        .args([
            "--listen",
            "127.0.0.1:0",
            "--boards",
            boards.to_str().unwrap(),
        ])
        .arg("--database")
        .arg(common::sqlite_url(dir.path()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("unknown track \"nowhere\""), "{stderr}");
}

#[test]
fn a_player_past_their_upload_budget_gets_429_and_other_players_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, address, token) = start(
        dir.path(),
        &[
            "--upload-burst",
            "0",
            "--player-burst",
            "2",
            "--player-every",
            "60",
            "--max-unfinished-runs",
            "100",
        ],
    );
    let other = issue_token(dir.path(), "bystander", false);
    let answers: Vec<String> = (0..3)
        .map(|k| post_runs(&address, &token, format!("not a replay {k}").as_bytes()))
        .collect();
    assert!(answers[0].starts_with("HTTP/1.1 400"), "{}", answers[0]);
    assert!(answers[1].starts_with("HTTP/1.1 400"), "{}", answers[1]);
    assert!(answers[2].starts_with("HTTP/1.1 429"), "{}", answers[2]);
    // Same address, another player's token: its own budget.
    let answer = post_runs(&address, &other, b"not a replay either");
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(sigterm_and_wait(&mut server));
}

/// Opens an upload that sends its headers and a few body bytes, then
/// waits: a request in flight until the deadline.
fn hanging_upload(address: &str, token: &str) -> TcpStream {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .write_all(
            format!("POST /runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Length: 1000\r\n\r\nxxx")
                .as_bytes(),
        )
        .unwrap();
    stream
}

/// Whether the server has answered (or closed) a hanging upload.
fn answered(upload: &mut TcpStream) -> bool {
    upload.set_nonblocking(true).unwrap();
    let mut byte = [0u8; 1];
    let answered = match std::io::Read::read(upload, &mut byte) {
        Ok(_) => true,
        Err(e) => e.kind() != std::io::ErrorKind::WouldBlock,
    };
    upload.set_nonblocking(false).unwrap();
    answered
}

/// Sends `head` every 50 ms until the answer starts with `status` (or
/// 30 s pass: a loaded machine); the last answer and the time it took.
fn first_answer(address: &str, head: &str, status: &str) -> (String, Duration) {
    let started = Instant::now();
    loop {
        let answer = request(address, head, b"");
        if answer.starts_with(status) || started.elapsed() > Duration::from_secs(30) {
            return (answer, started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn an_address_holding_its_cap_of_requests_in_flight_gets_429_until_one_ends() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, address, token) = start(
        dir.path(),
        // A deadline far past the waits below: a place freed within them
        // was freed by its client going away, not by the deadline.
        &[
            "--max-requests-per-address",
            "3",
            "--request-timeout",
            "300",
        ],
    );
    let health = "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    assert!(request(&address, health, b"").starts_with("HTTP/1.1 200"));
    let mut held: Vec<TcpStream> = (0..3).map(|_| hanging_upload(&address, &token)).collect();
    // The three uploads take their places as the server reads them. A
    // probe the server reads before an upload takes that upload's place
    // (the upload is answered 429 and is gone): such an upload is opened
    // again until all three hold.
    let started = Instant::now();
    let refused = loop {
        let answer = request(&address, health, b"");
        if answer.starts_with("HTTP/1.1 429") || started.elapsed() > Duration::from_secs(30) {
            break answer;
        }
        for upload in &mut held {
            if answered(upload) {
                *upload = hanging_upload(&address, &token);
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(refused.starts_with("HTTP/1.1 429"), "{refused}");
    assert!(
        refused.to_ascii_lowercase().contains("retry-after: 1"),
        "{refused}"
    );
    assert!(refused.contains("requests in flight"), "{refused}");
    // A client that goes away frees its place at once.
    drop(held.pop());
    let (answer, waited) = first_answer(&address, health, "HTTP/1.1 200");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(waited < Duration::from_secs(30), "freed after {waited:?}");
    drop(held);
    assert!(sigterm_and_wait(&mut server));
}
