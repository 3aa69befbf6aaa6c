//! Car-step cost measured so that a noisy machine cannot tilt it:
//!
//! - CPU time, not wall time: the native `car_step_cpu` example reads its
//!   thread's CPU time and the node script its process's, so time the
//!   machine spends elsewhere does not count;
//! - interleaved: native and wasm runs alternate, pair by pair, so both are
//!   measured in the same minutes and each pair's ratio compares like
//!   with like; the median of the pairs' ratios is reported;
//! - old vs new: the core of the previous simulation version
//!   (`baseline.rs`) runs in the same interleaving, so a speed-up is the
//!   median of like-for-like pairs, not two runs on different days;
//! - instructions per substep under callgrind (when valgrind is
//!   installed), which do not depend on the machine's load at all.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::tools::{cargo, run};

/// Native/wasm pairs per model.
const PAIRS: usize = 5;
/// Rounds and steps per round inside each run.
const ROUNDS: &str = "3";
const STEPS: &str = "200";

pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Runs a program that prints JSON with `cpu_ns_per_car_step` and returns
/// the JSON and the median of those rounds.
pub fn cpu_run(cmd: &mut Command) -> Result<(Value, f64), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot start {:?}: {e}", cmd.get_program()))?;
    if !out.status.success() {
        return Err(format!(
            "{:?} failed: {}",
            cmd.get_program(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let v: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{:?} printed no JSON: {e}", cmd.get_program()))?;
    let mut rounds: Vec<f64> = v["cpu_ns_per_car_step"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default();
    if rounds.is_empty() {
        return Err(format!("{:?} measured no round", cmd.get_program()));
    }
    let m = median(&mut rounds);
    Ok((v, m))
}

/// Builds the `car_step_cpu` example of the workspace at `tree` into
/// `target` and returns its path.
pub fn build_example(tree: &Path, target: &Path) -> Result<PathBuf, String> {
    run(Command::new(cargo())
        .args([
            "build",
            "--release",
            "-p",
            "skidpad-core",
            "--example",
            "car_step_cpu",
        ])
        .env("CARGO_TARGET_DIR", target)
        .current_dir(tree))?;
    Ok(target.join("release/examples/car_step_cpu"))
}

/// Instructions per model substep of `model`, or None without valgrind.
fn instructions_per_substep(native: &Path, model: &str) -> Result<Option<f64>, String> {
    let has_valgrind = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_valgrind {
        return Ok(None);
    }
    let out_file = std::env::temp_dir().join(format!("skidpad-callgrind-{model}.out"));
    let out = Command::new("valgrind")
        .args([
            "--tool=callgrind",
            "--toggle-collect=skidpad_core::world::World::step",
            &format!("--callgrind-out-file={}", out_file.display()),
        ])
        .arg(native)
        .args([model, "1", STEPS])
        .output()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    let stepped = serde_json::from_slice::<Value>(&out.stdout)
        .ok()
        .and_then(|v| v["stepped_car_substeps"].as_f64())
        .ok_or("the callgrind run printed no substep count")?;
    let text = std::fs::read_to_string(&out_file).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&out_file);
    let total = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|n| n.trim().parse::<f64>().ok())
        .ok_or("no instruction total in the callgrind output")?;
    Ok(Some(total / stepped))
}

/// Measures both models natively, in wasm (the npm package must be built)
/// and with the previous version's core, and returns the report's `cpu`
/// section.
pub fn measure(root: &Path) -> Result<Value, String> {
    let native = build_example(root, &root.join("target"))?;
    let baseline = crate::baseline::build(root);
    if let Err(e) = &baseline {
        println!("==> no previous core to compare with: {e}");
    }
    let script = root.join("bindings-wasm/bench/car_step.mjs");
    let mut report = serde_json::Map::new();
    for model in ["full", "single_track"] {
        println!("==> {model}: {PAIRS} rounds of native, previous-core and wasm CPU-time runs");
        let (mut natives, mut wasms, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        let (mut olds, mut speedups) = (Vec::new(), Vec::new());
        for _ in 0..PAIRS {
            let (_, n) = cpu_run(Command::new(&native).args([model, ROUNDS, STEPS]))?;
            if let Ok(b) = &baseline {
                let (_, o) = cpu_run(Command::new(&b.example).args([model, ROUNDS, STEPS]))?;
                olds.push(o);
                speedups.push(o / n);
            }
            let (_, w) = cpu_run(
                Command::new("node")
                    .arg(&script)
                    .args(["cpu", model, ROUNDS, STEPS]),
            )?;
            natives.push(n);
            wasms.push(w);
            ratios.push(n / w);
        }
        let instructions = instructions_per_substep(&native, model)?;
        let previous = match &baseline {
            Ok(b) => json!({
                "commit": b.commit,
                "simulation_version": b.version,
                "native_cpu_ns_per_car_step": median(&mut olds),
                // Old CPU time over new, median of the interleaved pairs.
                "speedup": median(&mut speedups),
                "instructions_per_substep": instructions_per_substep(&b.example, model)?,
            }),
            Err(e) => json!({ "error": e }),
        };
        report.insert(
            model.to_owned(),
            json!({
                "native_cpu_ns_per_car_step": median(&mut natives),
                "wasm_cpu_ns_per_car_step": median(&mut wasms),
                "wasm_native_ratio": median(&mut ratios),
                "instructions_per_substep": instructions,
                "previous_core": previous,
            }),
        );
    }
    Ok(Value::Object(report))
}
