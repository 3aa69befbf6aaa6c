//! The race server as a real process on loopback, players over real
//! WebSockets, the link emulator as a real proxy process between them
//! (100 ms ± 20 ms each way unless a test says otherwise): whole races
//! predicted exactly, recorded, and ranked as each driver's entry.
//! Processes are killed (SIGKILL) when a test ends. The races run at pace
//! 4 (four simulated seconds per wall second) to keep the suite short.

mod common;

use std::process::Command;
use std::time::Duration;

use skidpad_core::hex;
use skidpad_leaderboard::Outcome;
use skidpad_leaderboard::seals::SealPolicy;
use skidpad_netplay::bot::{BotOptions, BotReport, run_bot};
use skidpad_replay::{Limits, NoHooks, ReplayHeader, read_stream, verify_replay};

use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_players_race_three_laps_through_the_link_and_every_state_is_predicted() {
    let (tokens_path, tokens) = tokens_file(2);
    let recorded = tempfile::tempdir().unwrap();
    let record = recorded.path().to_str().unwrap();
    let mut server = server(&tokens_path, 3, &["--record", record]);
    let link = link(&server, 100.0);
    // The first player resets its car once, 15 s in (the `reset` command):
    // corrected, not mispredicted, and recorded.
    let first = tokio::spawn(run_bot(BotOptions {
        reset_at_tick: Some(900),
        name: "ann".into(),
        ..bot(&link, &tokens[0], 3)
    }));
    // The second player joins a running race.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let second = run_bot(BotOptions {
        name: "bob".into(),
        ..bot(&link, &tokens[1], 3)
    })
    .await
    .unwrap();
    let first = first.await.unwrap().unwrap();
    assert_exact(&first, 3);
    assert_exact(&second, 3);
    assert_eq!(first.resets_sent, 1);
    assert_eq!(first.reset_corrections, 1, "the reset corrected once");
    assert_eq!(second.reset_corrections, 0);
    // The first player draws the second from the frame that seated it:
    // never before, and within one interpolation delay (100 ms) of server
    // time plus the longest wait between two of its frames. A busy
    // machine delays frames, and the bot's clock runs on meanwhile (one
    // CI run drew at 108.7 ms with the tests of this file side by side),
    // so the bound takes in the wait the run measured.
    let joined = f64::from(second.first_shot_ms.unwrap());
    let drawn = first.first_drawn_ms[&second.seat];
    let slack = first.longest_frame_gap_ms;
    assert!(
        (joined..=joined + 100.0 + slack).contains(&drawn),
        "seated at {joined} ms, first drawn at {drawn} ms (longest wait between frames {slack:.1} ms)"
    );
    // Seed 001's game codes: 1 on joining (the race is on), 2 at the finish.
    for report in [&first, &second] {
        assert_eq!(report.game_informs.first().map(String::as_str), Some("[1]"));
        assert!(
            report.game_informs.iter().any(|g| g.starts_with("[2,{")),
            "{:?}",
            report.game_informs
        );
    }
    let per_second = first.frame_bytes as f64 / (first.frames as f64 / 30.0);
    eprintln!(
        "seat 0: {} frames, {per_second:.0} bytes a second with two cars",
        first.frames
    );

    // The server recorded the race as one stream: bob's car arrived in it
    // when he joined. It is complete, verifies, and ends on the server
    // world's own hash; its header names the driver it began with.
    let replay_file = wait_for_file(&recorded.path().join("race-000.skr")).await;
    let printed = server.terminate();
    let segments: Vec<(String, String)> = printed
        .iter()
        .filter_map(|l| l.strip_prefix("recorded "))
        .map(|l| {
            let path = l.split_whitespace().next().unwrap().to_owned();
            let hash = l.rsplit("world_hash=").next().unwrap().to_owned();
            (path, hash)
        })
        .collect();
    assert_eq!(segments.len(), 1, "{printed:?}");
    let (path, world_hash) = &segments[0];
    let bytes = std::fs::read(path).unwrap();
    let stream = read_stream(&bytes, &Limits::default()).unwrap();
    assert!(stream.complete, "{path} was not finished");
    let drivers = |replay: &skidpad_replay::Replay| {
        replay
            .header
            .metadata_value(ReplayHeader::DRIVERS_KEY)
            .map(str::to_owned)
    };
    assert_eq!(drivers(&stream.replay).as_deref(), Some(r#"["ann"]"#));
    let arrived: Vec<u64> = stream.replay.cars.iter().map(|c| c.arrived_at()).collect();
    assert!(arrived[0] == 0 && arrived[1] > 0, "{arrived:?}");
    let report = verify_replay(&stream.replay, NoHooks, &Limits::default()).unwrap();
    assert!(
        report.is_valid() && report.desyncs == 0,
        "{path}: {report:?}"
    );
    assert_eq!(hex(&report.final_hash), *world_hash, "{path}");
    let resets: usize = stream.replay.cars.iter().map(|c| c.resets.len()).sum();
    assert_eq!(resets, 1, "the reset is in the recording");
    // The finished race, written beside it as one replay, names both
    // drivers by car index and is otherwise the stream's replay.
    let mut replay = skidpad_replay::decode_replay(&std::fs::read(&replay_file).unwrap()).unwrap();
    assert_eq!(drivers(&replay).as_deref(), Some(r#"["ann","bob"]"#));
    replay.header.metadata = stream.replay.header.metadata.clone();
    assert!(replay == stream.replay);
    leaderboard_entries(replay_file.to_str().unwrap());
}

/// Waits (up to 20 s) for `path`, which another thread of the server
/// writes, to exist; gives it back.
async fn wait_for_file(path: &std::path::Path) -> std::path::PathBuf {
    for _ in 0..200 {
        if path.exists() {
            return path.to_owned();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{} was never written", path.display());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_race_that_waits_for_its_players_ranks_each_of_them_from_one_segment() {
    let (tokens_path, tokens) = tokens_file(2);
    let recorded = tempfile::tempdir().unwrap();
    let record = recorded.path().to_str().unwrap();
    let key = race_server_key();
    let extra = [
        "--record",
        record,
        "--start-seats",
        "2",
        "--countdown-s",
        "2",
        "--seal-key",
        key.path.to_str().unwrap(),
    ];
    let mut server = server(&tokens_path, 1, &extra);
    let entries = format!(
        "http://{}/entry",
        server.address.strip_suffix("/race").unwrap()
    );
    // Before the race is over there is no entry, and only a seat's token
    // is answered at all.
    let http = reqwest::Client::new();
    let asked = |token: Option<&str>| {
        let request = http.get(&entries);
        match token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
        .send()
    };
    assert_eq!(asked(Some(&tokens[0])).await.unwrap().status(), 202);
    assert_eq!(asked(Some("not-a-seat")).await.unwrap().status(), 401);
    assert_eq!(asked(None).await.unwrap().status(), 401);
    // A race page from another origin asks with the token in a header: the
    // browser's preflight is allowed, and the answer's car and driver
    // headers are readable by the page.
    let preflight = http
        .request(reqwest::Method::OPTIONS, &entries)
        .header("origin", "http://127.0.0.1:1")
        .header("access-control-request-method", "GET")
        .header("access-control-request-headers", "authorization")
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_success(), "{preflight:?}");
    let allowed = |name: &str| preflight.headers()[name].to_str().unwrap().to_owned();
    assert_eq!(allowed("access-control-allow-origin"), "*");
    assert!(allowed("access-control-allow-headers").contains("authorization"));
    let cross = http
        .get(&entries)
        .header("origin", "http://127.0.0.1:1")
        .bearer_auth(&tokens[0])
        .send()
        .await
        .unwrap();
    let exposed = cross.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap();
    assert!(exposed.contains("x-skidpad-car") && exposed.contains("x-skidpad-driver"));
    let link = link(&server, 100.0);
    let first = tokio::spawn(run_bot(BotOptions {
        name: "ann".into(),
        ..bot(&link, &tokens[0], 1)
    }));
    // ann waits on the grid, held, until bob's join starts the countdown.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let second = run_bot(BotOptions {
        name: "bob".into(),
        ..bot(&link, &tokens[1], 1)
    })
    .await
    .unwrap();
    let first = first.await.unwrap().unwrap();
    assert_exact(&first, 1);
    assert_exact(&second, 1);
    // Seed 001's codes: 0 while waiting (no start tick yet) and counting
    // down (with it), 1 at the start, 2 at the finish.
    let codes = |report: &BotReport| {
        report
            .game_informs
            .iter()
            .map(|g| g.get(..2).unwrap_or_default().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        codes(&first),
        ["[0", "[0", "[1", "[2"],
        "{:?}",
        first.game_informs
    );
    assert!(first.game_informs[0].contains(r#""startTick":null"#));
    assert_eq!(
        codes(&second),
        ["[0", "[1", "[2"],
        "{:?}",
        second.game_informs
    );
    assert_eq!(
        first.game_informs[1], second.game_informs[0],
        "one start tick"
    );

    // The segment that began at bob's join holds both cars from rest to
    // the finish, where the server ended it: each driver collects their
    // sealed entry from it with their seat token, and a leaderboard
    // trusting the server's key ranks it under their name.
    let mut served = Vec::new();
    for (car, (driver, token)) in ["ann", "bob"].into_iter().zip(&tokens).enumerate() {
        let mut answer = asked(Some(token)).await.unwrap();
        // The entries are made on a thread of their own after the finish.
        for _ in 0..100 {
            if answer.status() != 202 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            answer = asked(Some(token)).await.unwrap();
        }
        assert_eq!(answer.status(), 200, "{driver}");
        let header = |name: &str| answer.headers()[name].to_str().unwrap().to_owned();
        assert_eq!(header("x-skidpad-driver"), driver);
        assert_eq!(header("x-skidpad-car"), car.to_string());
        let bytes = answer.bytes().await.unwrap().to_vec();
        match skidpad_leaderboard::judge::judge(&bytes, &Limits::default(), &key.policy) {
            Outcome::Verified(run) => {
                assert_eq!((run.player.as_str(), run.car), (driver, car as u32));
                assert!(!run.laps.is_empty(), "{driver}: {:?}", run.laps);
                assert!(run.sealed_by.is_some());
            }
            rejected => panic!("{driver}'s entry: {rejected:?}"),
        }
        served.push(bytes);
    }
    // The entry is the one `skidpad-netplay entry` makes from the last
    // segment with the same key, to the byte (Ed25519 signs
    // deterministically).
    let printed = server.terminate();
    let last = printed
        .iter()
        .filter_map(|l| l.strip_prefix("recorded "))
        .filter_map(|l| l.split_whitespace().next())
        .next_back()
        .unwrap()
        .to_owned();
    for (driver, from_server) in ["ann", "bob"].into_iter().zip(&served) {
        let (made, bytes, printed) = entry(&last, driver, Some(&key));
        assert!(made, "{printed}");
        assert!(&bytes == from_server, "{driver}'s entries differ");
    }
}

/// A race server's sealing key made by `skidpad-netplay keygen` (in a
/// folder that lives as long as the key is used) and a leaderboard policy
/// trusting it.
struct RaceServerKey {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
    policy: SealPolicy,
}

fn race_server_key() -> RaceServerKey {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("race-server.key");
    let keygen = || {
        Command::new(env!("CARGO_BIN_EXE_skidpad-netplay"))
            .args(["keygen", "--out"])
            .arg(&path)
            .output()
            .unwrap()
    };
    let made = keygen();
    assert!(made.status.success(), "{made:?}");
    let printed = String::from_utf8(made.stdout).unwrap();
    let public = printed.trim().strip_prefix("public ").unwrap().to_owned();
    // A key in use is never replaced.
    let again = keygen();
    assert!(!again.status.success(), "{again:?}");
    RaceServerKey {
        policy: SealPolicy::trusting(&[public], false).unwrap(),
        path,
        _dir: dir,
    }
}

/// Runs `skidpad-netplay entry SEGMENT --driver DRIVER` (sealed with
/// `seal` when given): whether it made the entry, the entry's bytes and
/// what it printed.
fn entry(segment: &str, driver: &str, seal: Option<&RaceServerKey>) -> (bool, Vec<u8>, String) {
    let out = tempfile::NamedTempFile::new().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_skidpad-netplay"));
    command
        .args(["entry", segment, "--driver", driver, "--out"])
        .arg(out.path());
    if let Some(key) = seal {
        command.arg("--seal-key").arg(&key.path);
    }
    let ran = command.output().unwrap();
    let printed =
        String::from_utf8_lossy(&ran.stdout).into_owned() + &String::from_utf8_lossy(&ran.stderr);
    (
        ran.status.success(),
        std::fs::read(out.path()).unwrap(),
        printed,
    )
}

/// The race as the leaderboard takes it: ann, who started it, and bob,
/// who joined it running and was put on the grid at rest, are each ranked
/// for their three laps under their names from the one replay (bob's first
/// lap from his arrival); carl did not race.
fn leaderboard_entries(segment: &str) {
    let key = race_server_key();
    let unsealed = |segment: &str, driver: &str| entry(segment, driver, None);
    let entry = |driver: &str| entry(segment, driver, Some(&key));
    let (made, bytes, printed) = entry("bob");
    assert!(
        made && printed.contains("car=1") && printed.contains("sealed by"),
        "{printed}"
    );
    eprint!("{printed}");
    match skidpad_leaderboard::judge::judge(&bytes, &Limits::default(), &key.policy) {
        Outcome::Verified(run) => {
            assert_eq!((run.player.as_str(), run.car), ("bob", 1));
            assert!(run.sealed_by.is_some());
            assert!(run.laps.len() >= 3, "{:?}", run.laps);
            assert!(run.best_lap.is_some(), "{:?}", run.laps);
        }
        rejected => panic!("bob's entry: {rejected:?}"),
    }
    // ann finished first and left (her entry is then the race until she
    // left; whether the server saw her go before it was stopped is the
    // machine's timing, so `entries.rs` checks that cut).
    // The same entry unsealed names its drivers: no leaderboard ranks it.
    let (made, bytes, printed) = unsealed(segment, "bob");
    assert!(made, "{printed}");
    match skidpad_leaderboard::judge::judge(&bytes, &Limits::default(), &key.policy) {
        Outcome::Rejected { reason } => {
            assert!(
                format!("{reason:?}").contains("names its drivers"),
                "{reason:?}"
            );
        }
        verified => panic!("an unsealed entry was ranked: {verified:?}"),
    }
    let (made, bytes, printed) = entry("ann");
    assert!(made && printed.contains("car=0"), "{printed}");
    match skidpad_leaderboard::judge::judge(&bytes, &Limits::default(), &key.policy) {
        Outcome::Verified(run) => {
            assert_eq!((run.player.as_str(), run.car), ("ann", 0));
            assert!(run.laps.len() >= 3, "{:?}", run.laps);
        }
        rejected => panic!("ann's entry: {rejected:?}"),
    }
    let (made, _, printed) = entry("carl");
    assert!(!made && printed.contains("did not drive"), "{printed}");
}
