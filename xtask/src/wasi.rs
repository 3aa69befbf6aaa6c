//! The golden checks on a native wasm runtime: the core's pinned hashes and
//! the golden corpus built for `wasm32-wasip1` and run under wasmtime's
//! Cranelift, in debug and in release.
//!
//! The runtime is the PyPI `wasmtime` package (prebuilt, so nothing of
//! wasmtime is compiled here), pinned to the major version of the
//! `wasmtime` crate that `cores/` embeds, in the project's virtualenv
//! (`python.rs`).
//! cargo runs each test program through `xtask/wasi/run.py`. A check that
//! ran no test fails: the golden tests are `#[test]` on wasip1 only
//! because of their `cfg_attr`s, and a wrong cfg would pass silently.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::tools::cargo;

/// The PyPI release of wasmtime the checks run under: the Cranelift
/// generation of the `wasmtime` crate in `cores/Cargo.toml`.
pub const WASMTIME: &str = "48.0.0";

const TARGET: &str = "wasm32-wasip1";

/// `golden hashes and corpus (wasm32-wasip1 under wasmtime, debug)`.
pub fn golden_debug(root: &Path) -> Result<(), String> {
    golden(root, false)
}

/// The same in release.
pub fn golden_release(root: &Path) -> Result<(), String> {
    golden(root, true)
}

fn golden(root: &Path, release: bool) -> Result<(), String> {
    let python = crate::python::ensure(root)?;
    let runner = format!(
        "{} {}",
        python.display(),
        root.join("xtask/wasi/run.py").display()
    );
    let mut cmd = Command::new(cargo());
    cmd.arg("test");
    if release {
        cmd.arg("--release");
    }
    cmd.args([
        "--target",
        TARGET,
        "-p",
        "skidpad-core",
        "-p",
        "skidpad-golden",
        "--test",
        "golden",
    ])
    .env("CARGO_TARGET_WASM32_WASIP1_RUNNER", runner)
    .current_dir(root);
    let passed = run_counting_tests(&mut cmd)?;
    // Both test programs must have run something: the core's three
    // pinned scenarios and the corpus's playback.
    both_golden_programs_ran(&passed, &format!("under wasmtime {WASMTIME}"))?;
    println!(
        "ok  {} golden tests passed under wasmtime {WASMTIME}",
        passed.iter().sum::<usize>()
    );
    Ok(())
}

/// Fails unless the golden check's two test programs (the core's pinned
/// scenarios and the corpus) each passed at least one test: a test that
/// a wrong cfg compiled out would otherwise pass silently. `how` says
/// where they ran.
pub fn both_golden_programs_ran(passed: &[usize], how: &str) -> Result<(), String> {
    if passed.len() != 2 || passed.contains(&0) {
        return Err(format!(
            "expected two test programs each passing at least one test {how}, got passes {passed:?}"
        ));
    }
    Ok(())
}

/// Runs a `cargo test` command with its output shown as it comes, and
/// returns how many tests each test program passed (from libtest's
/// `test result: ok. N passed` lines).
pub fn run_counting_tests(cmd: &mut Command) -> Result<Vec<usize>, String> {
    use std::io::{BufRead, BufReader};
    let mut child = cmd
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start cargo test: {e}"))?;
    let stdout = child.stdout.take().ok_or("cargo test has no stdout")?;
    let mut passed = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| format!("cannot read cargo test's output: {e}"))?;
        println!("{line}");
        if let Some(rest) = line.strip_prefix("test result: ok. ") {
            let count = rest.split_whitespace().next().and_then(|n| n.parse().ok());
            passed.push(count.ok_or_else(|| format!("unreadable test result: {line}"))?);
        }
    }
    let status = child.wait().map_err(|e| format!("cargo test: {e}"))?;
    if !status.success() {
        return Err(format!("cargo test exited with {status}"));
    }
    Ok(passed)
}
