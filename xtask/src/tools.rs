//! Finding the project and installing the tools the checks need.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The cargo that invoked us (so the pinned toolchain is used throughout).
pub fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// The workspace root: the parent of this crate's manifest directory.
pub fn project_root() -> Result<PathBuf, String> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| "cannot find the workspace root".to_owned())
}

/// Runs a command, streaming its output; an error says how it ended.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let status = cmd
        .status()
        .map_err(|e| format!("cannot start {:?}: {e}", cmd.get_program()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{:?} exited with {status}", cmd.get_program()))
    }
}

/// Output of a command, or None if it cannot run or fails.
fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The version of `package` recorded in Cargo.lock.
fn locked_version(root: &Path, package: &str) -> Result<String, String> {
    let lock = std::fs::read_to_string(root.join("Cargo.lock"))
        .map_err(|e| format!("cannot read Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == format!("name = \"{package}\"")
            && let Some(version) = lines.next().and_then(|l| l.strip_prefix("version = \""))
        {
            return Ok(version.trim_end_matches('"').to_owned());
        }
    }
    Err(format!("{package} is not in Cargo.lock"))
}

/// Makes sure the wasm32 target, node and a wasm-bindgen test runner of
/// exactly the locked wasm-bindgen version are present, installing what can
/// be installed.
pub fn ensure_wasm_tools(root: &Path) -> Result<(), String> {
    let installed = output("rustup", &["target", "list", "--installed"]).unwrap_or_default();
    if !installed
        .lines()
        .any(|l| l.trim() == "wasm32-unknown-unknown")
    {
        println!("==> installing the wasm32-unknown-unknown target");
        run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
    }
    if output("node", &["--version"]).is_none() {
        return Err("node is needed for the wasm tests; install Node.js 18 or newer".into());
    }
    let wanted = locked_version(root, "wasm-bindgen")?;
    let have = output("wasm-bindgen-test-runner", &["--version"]).unwrap_or_default();
    // The runner prints "wasm-bindgen-test-runner X.Y.Z".
    if have.split_whitespace().nth(1) != Some(wanted.as_str()) {
        println!("==> installing wasm-bindgen-cli {wanted} (matches the wasm-bindgen crate)");
        // Not --locked: one of the CLI's locked dependencies does not build
        // here; the CLI's own version is still exact.
        run(Command::new(cargo()).args(["install", "wasm-bindgen-cli", "--version", &wanted]))?;
    }
    Ok(())
}

/// Makes sure the i686 and aarch64 targets are installed, with what links
/// and runs them: a 32-bit C runtime, the aarch64 cross gcc and libc, and
/// qemu-user (Debian: libc6-dev-i386, lib32gcc-12-dev,
/// gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user; `.ci/run`
/// installs them).
pub fn ensure_cross_tools() -> Result<(), String> {
    let installed = output("rustup", &["target", "list", "--installed"]).unwrap_or_default();
    for target in ["i686-unknown-linux-gnu", "aarch64-unknown-linux-gnu"] {
        if !installed.lines().any(|l| l.trim() == target) {
            println!("==> installing the {target} target");
            run(Command::new("rustup").args(["target", "add", target]))?;
        }
    }
    let needs = [
        (
            Path::new("/usr/lib32/crt1.o").exists(),
            "libc6-dev-i386 lib32gcc-12-dev",
        ),
        (
            output("aarch64-linux-gnu-gcc", &["--version"]).is_some(),
            "gcc-aarch64-linux-gnu",
        ),
        (
            Path::new("/usr/aarch64-linux-gnu/lib").exists(),
            "libc6-dev-arm64-cross",
        ),
        (
            output("qemu-aarch64", &["--version"]).is_some(),
            "qemu-user",
        ),
    ];
    let missing: Vec<&str> = needs
        .iter()
        .filter(|(ok, _)| !ok)
        .map(|(_, p)| *p)
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "the cross-target golden checks need: apt-get install {}",
            missing.join(" ")
        ));
    }
    Ok(())
}
