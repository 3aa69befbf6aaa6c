//! The path users run: races on the built-in tracks' own surfaces, and the
//! verification of a recorded track race, for `cargo xtask bench` (alone:
//! `cargo xtask bench surfaces`).
//!
//! - The 20-car field on the plane and on each track's surface mesh, Full
//!   and single-track, CPU time per car-step (`car_step_cpu … GROUND`),
//!   the current core and the previous one interleaved run by run, and
//!   each surface's cost over the plane's in the same runs.
//! - `skidpad verify` of a 20-car, one-lap demo race on brandwood's surface
//!   and on the plane, one thread, CPU time per car-step (the shell's
//!   `time`), and under callgrind the share of decoding.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::cpu_bench::{build_example, cpu_run, median};
use crate::tools::{cargo, run};

/// Interleaved pairs per model and ground.
const PAIRS: usize = 3;
const ROUNDS: &str = "3";
const STEPS: &str = "120";
const GROUNDS: [&str; 3] = ["plane", "brandwood", "hillcrest"];
/// Cars and laps of the verified demo race (two laps: on the plane, with
/// no barriers, one car's first lap can outlast a one-lap race's budget).
const DEMO_CARS: u64 = 20;
const DEMO_LAPS: &str = "2";

/// Every figure of this module, as the report's `track_surface` section.
pub fn measure(root: &Path) -> Result<Value, String> {
    let native = build_example(root, &root.join("target"))?;
    let baseline = crate::baseline::build(root);
    if let Err(e) = &baseline {
        println!("==> no previous core to compare with: {e}");
    }
    let mut fields = serde_json::Map::new();
    for model in ["full", "single_track"] {
        println!("==> {model} on the plane and the tracks' surfaces: {PAIRS} interleaved rounds");
        let mut by_ground = serde_json::Map::new();
        let mut plane_ns = f64::NAN;
        for ground in GROUNDS {
            let (mut news, mut olds, mut speedups) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..PAIRS {
                let (_, n) = cpu_run(Command::new(&native).args([model, ROUNDS, STEPS, ground]))?;
                news.push(n);
                if let Ok(b) = &baseline {
                    let (_, o) =
                        cpu_run(Command::new(&b.example).args([model, ROUNDS, STEPS, ground]))?;
                    olds.push(o);
                    speedups.push(o / n);
                }
            }
            let ns = median(&mut news);
            if ground == "plane" {
                plane_ns = ns;
            }
            let previous = if olds.is_empty() {
                Value::Null
            } else {
                json!({
                    "native_cpu_ns_per_car_step": median(&mut olds),
                    "speedup": median(&mut speedups),
                })
            };
            by_ground.insert(
                ground.to_owned(),
                json!({
                    "native_cpu_ns_per_car_step": ns,
                    "over_plane": ns / plane_ns,
                    "previous_core": previous,
                }),
            );
        }
        fields.insert(model.to_owned(), Value::Object(by_ground));
    }
    Ok(json!({
        "field": Value::Object(fields),
        "verify": verify_demo(root)?,
    }))
}

/// Races the demo on brandwood's surface and on the plane, then times
/// one-thread verifications of both and measures the decode share.
fn verify_demo(root: &Path) -> Result<Value, String> {
    run(Command::new(cargo())
        .args(["build", "--release", "-q", "-p", "skidpad-cli"])
        .current_dir(root))?;
    let skidpad = root.join("target/release/skidpad");
    let work = root.join("target/bench-surface");
    let mut report = serde_json::Map::new();
    for ground in ["track", "plane"] {
        let out = work.join(ground);
        let cars = DEMO_CARS.to_string();
        println!(
            "==> demo race ({DEMO_CARS} cars, {DEMO_LAPS} laps, ground {ground}) and its verification"
        );
        run(Command::new(&skidpad)
            .args([
                "demo", "--cars", &cars, "--laps", DEMO_LAPS, "--ground", ground, "--out",
            ])
            .arg(&out)
            .stdout(std::process::Stdio::null()))?;
        let replay = out.join("demo.skr");
        let steps = verified_steps(&skidpad, &replay)?;
        let mut seconds: Vec<f64> = (0..PAIRS)
            .map(|_| cpu_seconds(&skidpad, &replay))
            .collect::<Result<_, _>>()?;
        let cpu = median(&mut seconds);
        report.insert(
            ground.to_owned(),
            json!({
                "steps": steps,
                "cars": DEMO_CARS,
                "cpu_us_per_car_step": cpu * 1e6 / (steps * DEMO_CARS as f64),
                // Under callgrind for the track race only (minutes).
                "decode_share": if ground == "track" { decode_share(&skidpad, &replay)? } else { Value::Null },
            }),
        );
    }
    Ok(Value::Object(report))
}

/// The steps `skidpad verify --json` re-simulated (and that it passed).
fn verified_steps(skidpad: &Path, replay: &Path) -> Result<f64, String> {
    let out = Command::new(skidpad)
        .args(["--json", "verify"])
        .arg(replay)
        .output()
        .map_err(|e| format!("cannot run skidpad verify: {e}"))?;
    let v: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("skidpad verify printed no JSON: {e}"))?;
    if v["files"][0]["ok"] != Value::Bool(true) {
        return Err(format!("the demo race did not verify: {v}"));
    }
    v["files"][0]["steps"]
        .as_f64()
        .ok_or_else(|| "skidpad verify reported no steps".into())
}

/// User plus system CPU seconds of one single-threaded verification, by
/// the shell's `time` (which counts the child's CPU, not the wall clock).
fn cpu_seconds(skidpad: &Path, replay: &Path) -> Result<f64, String> {
    let script = format!(
        "TIMEFORMAT='%U %S'; time '{}' verify '{}' > /dev/null",
        skidpad.display(),
        replay.display()
    );
    let out = Command::new("bash")
        .args(["-c", &script])
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .map_err(|e| format!("cannot run bash: {e}"))?;
    let text = String::from_utf8_lossy(&out.stderr);
    let fields: Vec<f64> = text
        .lines()
        .last()
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    match fields[..] {
        [user, system] if out.status.success() => Ok(user + system),
        _ => Err(format!("could not time skidpad verify: {text}")),
    }
}

/// The share of a verification's instructions spent decoding the replay
/// (one callgrind run, read with `callgrind_annotate --inclusive`), or
/// null without valgrind.
fn decode_share(skidpad: &Path, replay: &Path) -> Result<Value, String> {
    let has_valgrind = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_valgrind {
        return Ok(Value::Null);
    }
    println!("==> the track race's verification under callgrind (a few minutes)");
    let file = std::env::temp_dir().join("skidpad-verify-callgrind.out");
    let status = Command::new("valgrind")
        .args([
            "--tool=callgrind",
            &format!("--callgrind-out-file={}", file.display()),
        ])
        .arg(skidpad)
        .arg("verify")
        .arg(replay)
        .env("RAYON_NUM_THREADS", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    if !status.success() {
        return Err("skidpad verify failed under callgrind".into());
    }
    let out = Command::new("callgrind_annotate")
        .args(["--inclusive=yes"])
        .arg(&file)
        .output()
        .map_err(|e| format!("cannot run callgrind_annotate: {e}"))?;
    let _ = std::fs::remove_file(&file);
    let text = String::from_utf8_lossy(&out.stdout);
    // Lines read "1,234 (12.34%)  file:function"; the first naming the
    // decoder is its inclusive cost.
    let share = text
        .lines()
        .find(|l| l.contains("skidpad_replay::format::decode_replay_with"))
        .and_then(|l| {
            l.split('(')
                .nth(1)?
                .split('%')
                .next()?
                .trim()
                .parse::<f64>()
                .ok()
        })
        .ok_or("callgrind_annotate shows no decode_replay_with")?;
    Ok(json!(share / 100.0))
}
