//! The golden checks with a second compiler: the core's pinned hashes and
//! the golden corpus built by a newer stable Rust than the pinned one, in
//! debug and release. A game builds skidpad with its own toolchain (Bevy
//! 0.20 already needs Rust 1.96), so the bits must not depend on which
//! compiler in the supported range made them; a difference here is a bug to
//! find, not a pin to move.
//!
//! The version is named here, not taken as "stable": a check whose compiler
//! changes under it on a release day would fail or pass for reasons no
//! commit holds, and installing "stable" can replace the pinned toolchain
//! on machines where rustup links one to the other. Move it to the newest
//! stable in a commit of its own, with this check passing.

use std::path::Path;
use std::process::Command;

use crate::tools;
use crate::wasi::{both_golden_programs_ran, run_counting_tests};

/// The newest stable Rust when this was last moved (2026-12-07).
pub const SECOND_COMPILER: &str = "1.99.1";

/// `golden hashes and corpus (Rust <SECOND_COMPILER>, debug and release)`.
pub fn golden(root: &Path) -> Result<(), String> {
    ensure_toolchain()?;
    // A target folder of its own: the pinned compiler's artefacts stay as
    // they are, and deleting this one frees the second compiler's space.
    let target_dir = root.join(format!("target/rust-{SECOND_COMPILER}"));
    for release in [false, true] {
        let mut cmd = Command::new("rustup");
        cmd.args(["run", SECOND_COMPILER, "cargo", "test"]);
        if release {
            cmd.arg("--release");
        }
        cmd.args([
            "-p",
            "skidpad-core",
            "-p",
            "skidpad-golden",
            "--test",
            "golden",
        ])
        .arg("--target-dir")
        .arg(&target_dir)
        // The pinned toolchain's cargo sets these for xtask; the second
        // compiler's cargo must pick its own.
        .env_remove("CARGO")
        .env_remove("RUSTC")
        .env_remove("RUSTUP_TOOLCHAIN")
        .current_dir(root);
        let passed = run_counting_tests(&mut cmd)?;
        both_golden_programs_ran(&passed, &format!("with Rust {SECOND_COMPILER}"))?;
    }
    println!("ok  the golden hashes hold with Rust {SECOND_COMPILER}, debug and release");
    Ok(())
}

/// Installs the second compiler (minimal profile, host target only) unless
/// rustup has it.
fn ensure_toolchain() -> Result<(), String> {
    let listed = Command::new("rustup")
        .args(["toolchain", "list"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if listed
        .lines()
        .any(|l| l.starts_with(&format!("{SECOND_COMPILER}-")))
    {
        return Ok(());
    }
    println!("==> installing Rust {SECOND_COMPILER} for the second-compiler check");
    tools::run(Command::new("rustup").args([
        "toolchain",
        "install",
        SECOND_COMPILER,
        "--profile",
        "minimal",
    ]))
}
