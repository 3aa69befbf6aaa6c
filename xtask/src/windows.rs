//! The golden checks on Windows: the core's pinned hashes and the golden
//! corpus built for `x86_64-pc-windows-gnu` with Debian's mingw-w64 and run
//! under Debian's wine, in release.
//!
//! MSVC is out of reach here: its linker and C runtime come only with
//! Visual Studio's build tools, which no Debian package provides and whose
//! licence does not allow installing them on a Linux CI machine; the
//! gnu target compiles the same Rust with the same LLVM code generation, so
//! the float bits are the same, and what differs (the C runtime, the
//! linker) is not reached by the simulation. A Windows user's own CI runs
//! `cargo test --release -p skidpad-core -p skidpad-golden --test golden`
//! on `x86_64-pc-windows-msvc` (README, "Compilers and platforms").
//!
//! Wine runs in a throwaway prefix under `target/wine/`; Debian 12's wine 8
//! lacks `bcryptprimitives.dll`, which Rust's standard library imports, so
//! the prefix gets `xtask/wine/bcryptprimitives.c` built with mingw-w64.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::tools::{self, cargo};
use crate::wasi::{both_golden_programs_ran, run_counting_tests};

const TARGET: &str = "x86_64-pc-windows-gnu";

/// Debian's 64-bit wine loader (package wine64).
pub const WINE: &str = "/usr/lib/wine/wine64";

/// `golden hashes and corpus (Windows, x86_64-pc-windows-gnu under wine)`.
pub fn golden(root: &Path) -> Result<(), String> {
    tools::ensure_rust_target(TARGET)?;
    let prefix = ensure_prefix(root)?;
    let mut cmd = Command::new(cargo());
    cmd.args([
        "test",
        "--release",
        "--target",
        TARGET,
        "-p",
        "skidpad-core",
        "-p",
        "skidpad-golden",
        "--test",
        "golden",
    ])
    .env("CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER", WINE)
    .env("WINEPREFIX", &prefix)
    .env("WINEDEBUG", "-all")
    .current_dir(root);
    let passed = run_counting_tests(&mut cmd)?;
    both_golden_programs_ran(&passed, "under wine")?;
    println!(
        "ok  {} golden tests passed on {TARGET} under wine",
        passed.iter().sum::<usize>()
    );
    Ok(())
}

/// A wine prefix of our own with the `ProcessPrng` shim in its system32,
/// made on first use.
pub fn ensure_prefix(root: &Path) -> Result<PathBuf, String> {
    let prefix = root.join("target/wine/prefix");
    let system32 = prefix.join("drive_c/windows/system32");
    if !system32.exists() {
        println!("==> making a wine prefix in {}", prefix.display());
        std::fs::create_dir_all(&prefix)
            .map_err(|e| format!("cannot make {}: {e}", prefix.display()))?;
        tools::run(
            Command::new(WINE)
                .args(["wineboot", "--init"])
                .env("WINEPREFIX", &prefix)
                .env("WINEDEBUG", "-all")
                // No Mono or Gecko: nothing here runs .NET or HTML, and
                // wine would otherwise ask to download them.
                .env("WINEDLLOVERRIDES", "mscoree,mshtml="),
        )?;
    }
    let shim = system32.join("bcryptprimitives.dll");
    if !shim.exists() {
        tools::run(
            Command::new("x86_64-w64-mingw32-gcc")
                .args(["-O2", "-shared", "-o"])
                .arg(&shim)
                .arg(root.join("xtask/wine/bcryptprimitives.c"))
                .arg("-ladvapi32"),
        )?;
    }
    Ok(prefix)
}
