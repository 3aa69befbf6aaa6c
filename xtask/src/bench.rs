//! `cargo xtask bench`: runs the benchmarks and reports the SPEC §10
//! figures as a table and as `target/bench-report.json`.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::tools::{cargo, run};

/// Median of a criterion benchmark, ns.
fn criterion_median(target: &Path, id: &str) -> Result<f64, String> {
    let path = target.join("criterion").join(id).join("new/estimates.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    v["median"]["point_estimate"]
        .as_f64()
        .ok_or_else(|| format!("{}: no median", path.display()))
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn bench(root: &Path, target: &Path, args: &[&str]) -> Result<(), String> {
    let mut cmd = Command::new(cargo());
    cmd.arg("bench")
        .args(args)
        .current_dir(root)
        .env("SKIDPAD_BENCH_OUT", target);
    run(&mut cmd)
}

/// Builds the npm package and runs `bindings-wasm/bench/car_step.mjs`
/// under node; returns its JSON (wasm ns per car-step, gzipped sizes).
fn wasm_bench(root: &Path) -> Result<Value, String> {
    crate::wasm::build_package(root)?;
    println!("==> wasm car-step benchmark (node)");
    let out = Command::new("node")
        .arg("bindings-wasm/bench/car_step.mjs")
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run node: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "the wasm benchmark failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("the wasm benchmark printed no JSON: {e}"))
}

/// Runs everything and writes the report.
pub fn bench_all(root: &Path) -> Result<(), String> {
    let target = root.join("target");
    std::fs::create_dir_all(&target).map_err(|e| e.to_string())?;
    bench(
        root,
        &target,
        &[
            "-p",
            "skidpad-core",
            "--bench",
            "car_step",
            "--",
            "car_step_threads",
        ],
    )?;
    // The package is built here; its wall-clock figures and sizes, then the
    // interleaved CPU-time runs that give the wasm/native ratio.
    let wasm = wasm_bench(root)?;
    let cpu = crate::cpu_bench::measure(root)?;
    let surfaces = crate::surface_bench::measure(root)?;
    bench(
        root,
        &target,
        &["-p", "skidpad-ghost", "--bench", "pose_at"],
    )?;
    bench(
        root,
        &target,
        &["-p", "skidpad-replay", "--bench", "replay_costs"],
    )?;

    // Per car-step on one thread (the model's own cost, and what wasm,
    // which has no threads here, is compared with), and the speed-up that
    // two threads give on the same 20-car field.
    let per_car = |id: &str| criterion_median(&target, id).map(|ns| ns / 20.0);
    let full = per_car("car_step_threads_full/1")?;
    let single = per_car("car_step_threads_single_track/1")?;
    let full_2 = per_car("car_step_threads_full/2")?;
    let single_2 = per_car("car_step_threads_single_track/2")?;
    let pose_seq = criterion_median(&target, "ghost_pose_at_sequential")?;
    let pose_rand = criterion_median(&target, "ghost_pose_at_random")?;
    let replay = read_json(&target.join("replay-bench.json"))?;
    let ghost = read_json(&target.join("ghost-bench.json"))?;
    let report = json!({
        "car_step_full_ns": full,
        "car_step_single_track_ns": single,
        "parallel_speedup_2_threads": { "full": full / full_2, "single_track": single / single_2 },
        // Speed ratio, Full: native CPU ns per car-step over wasm's, median
        // of interleaved pairs (1 = as fast; cpu_bench.rs).
        "wasm_native_ratio": cpu["full"]["wasm_native_ratio"],
        "cpu": cpu,
        "track_surface": surfaces,
        "wasm_car_step_full_ns": wasm["wasm_car_step_full_ns"],
        "wasm_package_gzip_bytes": wasm["package_gzip_bytes"],
        "recorder_overhead_pct": replay["recorder_overhead_pct"],
        "replay_bytes_per_car_min": replay["replay_bytes_per_car_min"],
        "seek_ms": replay["seek_ms"],
        "verify_realtime_factor": replay["verify_realtime_factor"],
        "ghost_pose_at_ns": { "sequential": pose_seq, "random": pose_rand },
        "ghost_bytes_per_frame": ghost["ghost_bytes_per_frame"],
    });
    let out = target.join("bench-report.json");
    let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    std::fs::write(&out, text).map_err(|e| e.to_string())?;

    let f = |v: &Value| {
        v.as_f64()
            .map_or_else(|| "n/a".to_owned(), |x| format!("{x:.3}"))
    };
    let r = &report;
    println!("\n{:<44} {:>14}", "figure", "value");
    let surface = &r["track_surface"];
    let rows = [
        (
            "Full on brandwood's surface, CPU ns per car-step",
            f(&surface["field"]["full"]["brandwood"]["native_cpu_ns_per_car_step"]),
        ),
        (
            "  over the plane (same runs)",
            f(&surface["field"]["full"]["brandwood"]["over_plane"]),
        ),
        (
            "Full on hillcrest's surface, over the plane",
            f(&surface["field"]["full"]["hillcrest"]["over_plane"]),
        ),
        (
            "SingleTrack on brandwood's surface, over plane",
            f(&surface["field"]["single_track"]["brandwood"]["over_plane"]),
        ),
        (
            "verify a track race, CPU us per car-step",
            f(&surface["verify"]["track"]["cpu_us_per_car_step"]),
        ),
        (
            "verify the plane race, CPU us per car-step",
            f(&surface["verify"]["plane"]["cpu_us_per_car_step"]),
        ),
        (
            "decode share of the track race's verify",
            f(&surface["verify"]["track"]["decode_share"]),
        ),
        (
            "car_step_full_ns (20 cars, 300 Hz)",
            f(&r["car_step_full_ns"]),
        ),
        (
            "car_step_single_track_ns (20 cars, 120 Hz)",
            f(&r["car_step_single_track_ns"]),
        ),
        (
            "parallel speed-up, 2 threads, Full",
            f(&r["parallel_speedup_2_threads"]["full"]),
        ),
        (
            "parallel speed-up, 2 threads, SingleTrack",
            f(&r["parallel_speedup_2_threads"]["single_track"]),
        ),
        (
            "wasm_native_ratio (CPU time, interleaved)",
            f(&r["wasm_native_ratio"]),
        ),
        (
            "instructions per substep, Full",
            f(&r["cpu"]["full"]["instructions_per_substep"]),
        ),
        (
            "instructions per substep, SingleTrack",
            f(&r["cpu"]["single_track"]["instructions_per_substep"]),
        ),
        (
            "native CPU ns per car-step, Full",
            f(&r["cpu"]["full"]["native_cpu_ns_per_car_step"]),
        ),
        (
            "native CPU ns per car-step, SingleTrack",
            f(&r["cpu"]["single_track"]["native_cpu_ns_per_car_step"]),
        ),
        (
            "speed-up over the previous core, Full",
            f(&r["cpu"]["full"]["previous_core"]["speedup"]),
        ),
        (
            "speed-up over the previous core, SingleTrack",
            f(&r["cpu"]["single_track"]["previous_core"]["speedup"]),
        ),
        (
            "wasm car_step_full_ns (node)",
            f(&r["wasm_car_step_full_ns"]),
        ),
        (
            "wasm package gzip bytes (browser download)",
            f(&r["wasm_package_gzip_bytes"]["browser_download"]),
        ),
        ("recorder_overhead_pct", f(&r["recorder_overhead_pct"])),
        (
            "replay bytes/car-min raw",
            f(&r["replay_bytes_per_car_min"]["raw"]),
        ),
        (
            "replay bytes/car-min gzip_raw",
            f(&r["replay_bytes_per_car_min"]["gzip_raw"]),
        ),
        (
            "replay bytes/car-min encoded",
            f(&r["replay_bytes_per_car_min"]["encoded"]),
        ),
        ("seek_ms cold_p50", f(&r["seek_ms"]["cold_p50"])),
        ("seek_ms cold_p99", f(&r["seek_ms"]["cold_p99"])),
        ("seek_ms warm_p50", f(&r["seek_ms"]["warm_p50"])),
        ("seek_ms warm_p99", f(&r["seek_ms"]["warm_p99"])),
        ("verify_realtime_factor", f(&r["verify_realtime_factor"])),
        (
            "ghost_pose_at_ns sequential",
            f(&r["ghost_pose_at_ns"]["sequential"]),
        ),
        (
            "ghost_pose_at_ns random",
            f(&r["ghost_pose_at_ns"]["random"]),
        ),
        ("ghost_bytes_per_frame", f(&r["ghost_bytes_per_frame"])),
    ];
    for (name, value) in rows {
        println!("{name:<44} {value:>14}");
    }
    println!("\nwrote {}", out.display());
    Ok(())
}
