//! `cargo xtask bench platforms`: what a host pays for the C ABI, and what
//! a car-step costs on Windows (the same program built for
//! `x86_64-pc-windows-gnu`, under wine) against Linux, both from
//! `c-abi/examples/abi_cost.rs`. Native and wine runs alternate, one round
//! each at a time, so both see the same minutes of a noisy machine; the
//! figures are medians and their ratios.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::cpu_bench::median;
use crate::tools::{cargo, run};

/// Alternating rounds of each build.
const ROUNDS: usize = 5;
/// Steps of the 20-car field per round.
const STEPS: &str = "300";
const WINDOWS: &str = "x86_64-pc-windows-gnu";

/// Builds `abi_cost` in release, natively or for Windows; returns its path.
fn build(root: &Path, target: Option<&str>) -> Result<PathBuf, String> {
    let mut cmd = Command::new(cargo());
    cmd.args([
        "build",
        "--release",
        "-q",
        "-p",
        "skidpad-c",
        "--example",
        "abi_cost",
    ]);
    if let Some(target) = target {
        cmd.args(["--target", target]);
    }
    run(cmd.current_dir(root))?;
    Ok(match target {
        Some(target) => root.join(format!("target/{target}/release/examples/abi_cost.exe")),
        None => root.join("target/release/examples/abi_cost"),
    })
}

/// One round of `abi_cost`, under `runner` when given; its only row.
fn round(program: &Path, runner: Option<(&str, &Path)>) -> Result<Value, String> {
    let mut cmd = match runner {
        Some((wine, prefix)) => {
            let mut cmd = Command::new(wine);
            cmd.arg(program)
                .env("WINEPREFIX", prefix)
                .env("WINEDEBUG", "-all");
            cmd
        }
        None => Command::new(program),
    };
    let out = cmd
        .args(["1", STEPS])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            program.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let report: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{} printed no JSON: {e}", program.display()))?;
    Ok(report["rounds"][0].clone())
}

/// The median of one field over rounds.
fn median_of(rows: &[Value], field: &str) -> f64 {
    let mut values: Vec<f64> = rows.iter().filter_map(|r| r[field].as_f64()).collect();
    median(&mut values)
}

/// Measures and returns the report (also printed by main).
pub fn measure(root: &Path) -> Result<Value, String> {
    crate::tools::ensure_rust_target(WINDOWS)?;
    let prefix = crate::windows::ensure_prefix(root)?;
    let native = build(root, None)?;
    let windows = build(root, Some(WINDOWS))?;
    let (mut linux_rows, mut wine_rows) = (Vec::new(), Vec::new());
    for k in 0..ROUNDS {
        println!("==> round {} of {ROUNDS}: native, then under wine", k + 1);
        linux_rows.push(round(&native, None)?);
        wine_rows.push(round(&windows, Some((crate::windows::WINE, &prefix)))?);
    }
    let linux = |field| median_of(&linux_rows, field);
    let wine = |field| median_of(&wine_rows, field);
    Ok(json!({
        "rounds": ROUNDS,
        "car_step_ns": {
            "linux": linux("rust_step_ns_per_car_step"),
            "windows_under_wine": wine("rust_step_ns_per_car_step"),
            "wine_over_linux": wine("rust_step_ns_per_car_step") / linux("rust_step_ns_per_car_step"),
        },
        "c_abi_linux": {
            "step_ns_per_car_step": [linux("rust_step_ns_per_car_step"), linux("c_step_ns_per_car_step")],
            "pose_ns_per_call": [linux("rust_pose_ns"), linux("c_pose_ns")],
            "channel_ns_per_call": [linux("rust_channel_ns"), linux("c_channel_ns")],
            "order": "[rust, c]",
        },
    }))
}
