//! The `skidpad` binary as a user runs it: exit codes, the desync report,
//! a closed pipe, argument ranges.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use skidpad_replay::{decode_replay, encode_replay};

fn skidpad(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skidpad"))
        .args(args)
        .output()
        .unwrap()
}

fn current(name: &str) -> PathBuf {
    Path::new("../golden")
        .join(format!("v{}", skidpad_core::SIMULATION_VERSION))
        .join(name)
}

/// The flat-lap golden with a stretch of edited throttle: it decodes, but
/// re-simulates differently from its keyframes.
fn tampered(dir: &Path) -> PathBuf {
    let mut replay = decode_replay(&std::fs::read(current("flat_lap.skr")).unwrap()).unwrap();
    for input in &mut replay.cars[0].inputs[100..160] {
        input.throttle = 0.0;
        input.brake = 1.0;
    }
    let path = dir.join("tampered.skr");
    std::fs::write(&path, encode_replay(&replay).unwrap()).unwrap();
    path
}

#[test]
fn the_binary_knows_no_game_logic() {
    // The golden game-logic scenario steered its cars through hooks; the
    // product binary does not link the golden crate, so it cannot replay
    // that game and says why (the CLI's tests hand the hooks in).
    let out = skidpad(&["verify", current("game_logic.skr").to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("may need that game's logic"), "{text}");
}

#[test]
fn damaged_empty_and_misplaced_files_are_named_for_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let text = |out: &Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let good = std::fs::read(current("flat_lap.skr")).unwrap();

    // A truncated replay: inspect shows the header, says how short the
    // file is, and exits 2.
    let truncated = dir.path().join("truncated.skr");
    std::fs::write(&truncated, &good[..good.len() - 1000]).unwrap();
    let out = skidpad(&["inspect", truncated.to_str().unwrap()]);
    let message = format!(
        "truncated ({} bytes, its sections declare at least {})",
        good.len() - 1000,
        good.len()
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("recorded by") && text(&out).contains(&message),
        "{}",
        text(&out)
    );

    // An empty file is empty, and labelled so.
    let empty = dir.path().join("empty.skr");
    std::fs::write(&empty, b"").unwrap();
    let out = skidpad(&["verify", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains("(empty): ") && text(&out).contains("is empty (0 bytes)"),
        "{}",
        text(&out)
    );

    // A stream is labelled a stream beside the advice to recover it.
    let stream = dir.path().join("race.sks");
    let replay = decode_replay(&good).unwrap();
    std::fs::write(&stream, skidpad_replay::encode_stream(&replay).unwrap()).unwrap();
    let out = skidpad(&["verify", stream.to_str().unwrap()]);
    assert!(
        text(&out).contains("(stream): ") && text(&out).contains("skidpad recover"),
        "{}",
        text(&out)
    );

    // `--json` where it means nothing is refused, not ignored.
    let out = skidpad(&[
        "--json",
        "export",
        current("flat_lap.skr").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("always writes JSON"), "{}", text(&out));
}

#[test]
fn verify_exit_codes_follow_one_rule() {
    let dir = tempfile::tempdir().unwrap();
    let good = current("flat_lap.skr");
    let good = good.to_str().unwrap();
    let tampered = tampered(dir.path());
    let tampered = tampered.to_str().unwrap();
    let corrupt = dir.path().join("corrupt.skr");
    let mut bytes = std::fs::read(good).unwrap();
    bytes[300] ^= 1;
    std::fs::write(&corrupt, bytes).unwrap();
    let corrupt = corrupt.to_str().unwrap();

    let code = |args: &[&str]| skidpad(args).status.code();
    assert_eq!(code(&["verify", good]), Some(0));
    assert_eq!(code(&["verify", tampered]), Some(1), "a desync");
    assert_eq!(code(&["verify", corrupt]), Some(2), "an input error");
    assert_eq!(code(&["verify", "no/such/file.skr"]), Some(2));
    assert_eq!(code(&["verify", good, tampered]), Some(1));
    assert_eq!(
        code(&["verify", tampered, corrupt]),
        Some(2),
        "2 outranks 1"
    );
    assert_eq!(
        code(&["verify", "--max-steps", "100", good]),
        Some(2),
        "over a limit"
    );
}

#[test]
fn verify_prints_the_desync_field_by_field() {
    let dir = tempfile::tempdir().unwrap();
    let tampered = tampered(dir.path());
    let out = skidpad(&["verify", tampered.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("first desync at step 600, car 0:"), "{text}");
    assert!(
        text.contains("re-simulated") && text.contains("position.x"),
        "{text}"
    );
    assert!(
        !text.contains("CarId") && !text.contains("1 desyncs"),
        "{text}"
    );

    let out = skidpad(&["--json", "verify", tampered.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = &json["files"][0];
    assert_eq!(file["status"], "desync");
    let first = &file["first_desync"];
    assert_eq!(first["step"], 600);
    assert_eq!(first["cars"], serde_json::json!([0]));
    let fields = first["fields"].as_array().unwrap();
    assert!(
        fields
            .iter()
            .any(|f| f["field"] == "position.x" && f["car"] == 0)
    );
    assert!(fields.iter().all(|f| f["recorded"] != f["simulated"]));
}

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    // The reader goes away at once: every write after that fails with a
    // broken pipe, which must end the command with 0, not a panic (101).
    for args in [
        vec!["export", "PATH"],
        vec!["inspect", "PATH"],
        vec!["--json", "inspect", "PATH"],
    ] {
        let path = current("flat_lap.skr");
        let args: Vec<&str> = args
            .iter()
            .map(|a| {
                if *a == "PATH" {
                    path.to_str().unwrap()
                } else {
                    a
                }
            })
            .collect();
        let mut child = Command::new(env!("CARGO_BIN_EXE_skidpad"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn demo_arguments_have_ranges() {
    let help = String::from_utf8(skidpad(&["demo", "--help"]).stdout).unwrap();
    assert!(
        help.contains("1 to 64") && help.contains("1 to 20"),
        "{help}"
    );
    let out = skidpad(&["demo", "--cars", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("1..=64"), "{err}");
    assert_eq!(skidpad(&["demo", "--laps", "21"]).status.code(), Some(2));
    let out = skidpad(&["demo", "--track", "nowhere"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("brandwood") && err.contains("hillcrest"),
        "{err}"
    );
    assert_eq!(
        skidpad(&["demo", "--ground", "moon"]).status.code(),
        Some(2)
    );
}

#[test]
fn output_into_a_missing_directory_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("missing/lap.skg");
    let result = skidpad(&[
        "ghost",
        current("flat_lap.skr").to_str().unwrap(),
        "--car",
        "0",
        "--lap",
        "1",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(2));
    let err = String::from_utf8(result.stderr).unwrap();
    assert!(err.contains("does not exist"), "{err}");
    assert!(!dir.path().join("missing").exists());
}

#[test]
fn a_demo_killed_mid_race_leaves_a_stream_that_recovers_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("race");
    let mut child = Command::new(env!("CARGO_BIN_EXE_skidpad"))
        .args(["demo", "--cars", "2", "--laps", "20", "--out"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until two chunks (20 s of racing) are on disk, then SIGKILL:
    // no destructor, no flush, no `finish`.
    let stream = out.join("demo.sks");
    let start = std::time::Instant::now();
    loop {
        let chunks = std::fs::read(&stream)
            .ok()
            .and_then(|b| skidpad_replay::read_stream(&b, &skidpad_replay::Limits::default()).ok())
            .map_or(0, |r| r.chunks);
        if chunks >= 2 {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the 20-lap demo ended before it could be killed"
        );
        assert!(
            start.elapsed().as_secs() < 300,
            "no chunk written in 5 minutes"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();

    let recovered = dir.path().join("recovered.skr");
    let r = skidpad(&[
        "--json",
        "recover",
        stream.to_str().unwrap(),
        "-o",
        recovered.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let report: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(report["complete"], false);
    assert!(report["chunks"].as_u64().unwrap() >= 2);
    assert_eq!(
        report["steps"].as_u64().unwrap(),
        report["chunks"].as_u64().unwrap() * u64::from(skidpad_replay::DEFAULT_KEYFRAME_EVERY)
    );
    let v = skidpad(&["verify", recovered.to_str().unwrap()]);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stdout));
    // A stream given to a replay command says what to do with it.
    let e = skidpad(&["verify", stream.to_str().unwrap()]);
    assert_eq!(e.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&e.stdout).contains("skidpad recover"));
}

/// `skidpad view` on port 0: the first line is the URL; the file list,
/// the files and the page are served, paths cannot leave their folders.
#[test]
fn view_serves_the_page_and_the_files_on_loopback() {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpStream;

    let root = tempfile::tempdir().unwrap();
    for (path, body) in [
        ("viewer/index.html", "<!doctype html>page"),
        ("viewer/play.html", "<!doctype html>play"),
        ("viewer/race.html", "<!doctype html>race"),
        ("viewer/node_modules/three/build/three.module.js", "three"),
        ("bindings-wasm/pkg/web/skidpad_wasm.js", "wasm glue"),
        ("secret.txt", "not served"),
    ] {
        let file = root.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, body).unwrap();
    }
    let replay = current("flat_lap.skr");
    let mut child = Command::new(env!("CARGO_BIN_EXE_skidpad"))
        .args(["view", "--port", "0", replay.to_str().unwrap()])
        .env("SKIDPAD_VIEWER_ROOT", root.path())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    output.read_line(&mut line).unwrap();
    // A script that read the URL and closed the pipe: the server's next
    // line goes nowhere, and it must keep serving.
    drop(output);
    let address = line
        .trim()
        .strip_prefix("http://")
        .and_then(|a| a.strip_suffix('/'))
        .unwrap_or_else(|| panic!("not a URL: {line}"))
        .to_owned();
    let get = |path: &str| {
        let mut stream = TcpStream::connect(&address).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).unwrap();
        response
    };
    let text = |path: &str| String::from_utf8_lossy(&get(path)).into_owned();
    let page = text("/?t=3&car=1");
    assert!(
        page.starts_with("HTTP/1.1 200") && page.ends_with("page"),
        "{page}"
    );
    let listing = text("/files.json");
    assert!(
        listing.contains(r#"[{"name":"flat_lap.skr","url":"/files/0/flat_lap.skr"}]"#),
        "{listing}"
    );
    let file = get("/files/0/flat_lap.skr");
    let expected = std::fs::read(&replay).unwrap();
    assert!(file.ends_with(&expected), "the replay's bytes are served");
    assert!(text("/pkg/web/skidpad_wasm.js").ends_with("wasm glue"));
    // The web app's pages by name, as the leaderboard's --play serves
    // them too.
    assert!(text("/view").ends_with("page"));
    assert!(text("/play").ends_with("play"));
    assert!(text("/race").ends_with("race"));
    for path in [
        "/files/1/x.skr",
        "/viewer/../secret.txt",
        "/viewer/%2e%2e/secret.txt",
        "/secret.txt",
    ] {
        let response = text(path);
        assert!(!response.starts_with("HTTP/1.1 200"), "{path}: {response}");
    }
    child.kill().unwrap();
    child.wait().unwrap();

    // Without the built assets the command says how to build them.
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_skidpad"))
        .args(["view", "--port", "0"])
        .env("SKIDPAD_VIEWER_ROOT", empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cargo xtask viewer"));
}

#[test]
fn tire_imports_a_real_file_and_refuses_a_wrong_one_by_line() {
    let sedan = "../sim-core/tests/data/tir/Sedan_Pac02Tire.tir";
    let out = skidpad(&["tire", sedan]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("nominal load 3929 N"), "{text}");
    assert!(text.contains("1.0× nominal (3929 N): Fx"), "{text}");
    assert!(
        text.contains("[SHAPE] table {radial width} (4 rows)"),
        "{text}"
    );
    // --json gives the parameters a car definition takes as they are.
    let out = skidpad(&["--json", "tire", sedan]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tire: skidpad_core::TireParameters =
        serde_json::from_value(report["parameters"].clone()).unwrap();
    assert!((tire.pky1 - 21.92).abs() < 1e-12, "{tire:?}");
    assert_eq!(report["gaps"].as_array().unwrap().len(), 3);

    let dir = tempfile::tempdir().unwrap();
    let kilonewton = dir.path().join("kn.tir");
    let original = std::fs::read_to_string(sedan).unwrap();
    std::fs::write(&kilonewton, original.replace("'newton'", "'kilonewton'")).unwrap();
    let out = skidpad(&["tire", kilonewton.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("line 6") && err.contains("FORCE unit"),
        "{err}"
    );
    let huge = dir.path().join("huge.tir");
    std::fs::write(&huge, vec![b'!'; 2 << 20]).unwrap();
    let out = skidpad(&["tire", huge.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("at most"));
}

#[test]
fn telemetry_streams_csv_to_a_file_and_checks_its_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("lap.csv");
    let replay = current("flat_lap.skr");
    let run = skidpad(&[
        "telemetry",
        replay.to_str().unwrap(),
        "--car",
        "0",
        "--stride",
        "600",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = std::fs::read_to_string(&out).unwrap();
    // Two header rows and steps 1, 601, …, 4201 of 4800.
    assert_eq!(text.lines().count(), 2 + 8);
    assert!(text.starts_with("step,race_time,lap,lap_time,lap_distance,time,x,"));
    let zero = skidpad(&[
        "telemetry",
        replay.to_str().unwrap(),
        "--car",
        "0",
        "--stride",
        "0",
    ]);
    assert_eq!(zero.status.code(), Some(2));
    assert!(zero.stdout.is_empty(), "nothing on stdout before the error");
    // A car the replay lacks: refused before a byte reaches stdout (the
    // header used to come first, and a pipe took it for a file).
    let no_car = skidpad(&["telemetry", replay.to_str().unwrap(), "--car", "9"]);
    assert_eq!(no_car.status.code(), Some(2));
    assert!(
        no_car.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&no_car.stdout)
    );
    assert!(String::from_utf8_lossy(&no_car.stderr).contains("no car 9"));
    let json = skidpad(&[
        "--json",
        "telemetry",
        replay.to_str().unwrap(),
        "--car",
        "0",
    ]);
    // With --json the error itself comes as JSON.
    assert!(String::from_utf8_lossy(&json.stdout).contains("always writes CSV"));
    assert_eq!(json.status.code(), Some(2));
    // A .ld log and its beacons beside it; without -o, a clear error.
    let ld = dir.path().join("lap.ld");
    let run = skidpad(&[
        "telemetry",
        replay.to_str().unwrap(),
        "--car",
        "0",
        "--format",
        "ld",
        "-o",
        ld.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(std::fs::read(&ld).unwrap().starts_with(&[0x40, 0, 0, 0]));
    assert!(dir.path().join("lap.ldx").exists());
    let no_file = skidpad(&[
        "telemetry",
        replay.to_str().unwrap(),
        "--car",
        "0",
        "--format",
        "ld",
    ]);
    assert_eq!(no_file.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_file.stderr).contains("give -o FILE.ld"));
}

/// `skidpad view` checks every file before it serves anything: a text file
/// and a truncated replay are refused on the command line, exit 2, and no
/// address is printed (the page used to open and fail later).
#[test]
fn view_refuses_files_it_could_not_open_before_serving() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.skr");
    std::fs::write(&text, "hello, this is text").unwrap();
    let good = std::fs::read(current("flat_lap.skr")).unwrap();
    let truncated = dir.path().join("truncated.skr");
    std::fs::write(&truncated, &good[..good.len() / 2]).unwrap();
    // A ground file whose body is cut: refused too (a whole one is served,
    // as the viewer test's carried-ground check does).
    let ground = dir.path().join("cut.skgd");
    std::fs::write(&ground, b"SKGD\x01\x00").unwrap();
    for (file, said) in [
        (&text, "neither a skidpad replay"),
        (&truncated, "cannot be opened"),
        (&ground, "is not a ground file"),
    ] {
        let out = skidpad(&["view", "--port", "0", file.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(out.stdout.is_empty(), "nothing served: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(said), "{stderr}");
    }
}
