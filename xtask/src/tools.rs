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

/// The debug binaries the workspace's tests build (`skidpad`,
/// `skidpad-spectator`, `skidpad-leaderboard`, `skidpad-netplay`), built by
/// the debug test check's own command, so that after that check this is a
/// no-op. The checks of `cargo xtask test` that drive binaries (node, the
/// viewer, the quick load) run these: their dependencies are optimised even
/// in debug (the workspace's `profile.dev.package."*"`), and a separate
/// release build of the three binaries was 9 of a CI run's 64 minutes.
/// `cargo test -p` of fewer packages would unify features differently and
/// rebuild the shared dependencies. Returns `target/debug`.
pub fn test_binaries(root: &Path) -> Result<PathBuf, String> {
    run(Command::new(cargo())
        .args(["test", "--workspace", "--no-run", "-q"])
        .current_dir(root))?;
    Ok(root.join("target/debug"))
}

/// The release binaries the full load run (`cargo xtask load`) measures,
/// built by one command: cargo unifies a build's features across the
/// packages it names, so `-p` of one of them alone (or `cargo run -p`)
/// would rebuild their shared dependencies with another feature set.
/// Returns `target/release`.
pub fn release_binaries(root: &Path) -> Result<PathBuf, String> {
    run(Command::new(cargo())
        .args([
            "build",
            "--release",
            "-q",
            "-p",
            "skidpad-cli",
            "-p",
            "skidpad-spectator",
            "-p",
            "skidpad-leaderboard",
        ])
        .current_dir(root))?;
    Ok(root.join("target/release"))
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

/// One system package the checks need.
struct Prerequisite {
    /// Debian package that provides it.
    package: &'static str,
    /// Which check needs it.
    why: &'static str,
    present: fn() -> bool,
}

/// Where the browser test finds Chromium (`SKIDPAD_CHROMIUM` overrides).
pub fn chromium_path() -> String {
    std::env::var("SKIDPAD_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into())
}

/// Where the browser test finds Firefox (`SKIDPAD_FIREFOX` overrides, as
/// in `bindings-wasm/browser/engines.mjs`).
pub fn firefox_path() -> String {
    std::env::var("SKIDPAD_FIREFOX").unwrap_or_else(|_| "/usr/bin/firefox-esr".into())
}

/// Every system package the checks need (Debian 12 names; not
/// gcc-multilib, which would remove the aarch64 cross compiler). Rust
/// targets and the wasm-bindgen CLI are not here: the checks install those
/// themselves.
const PREREQUISITES: &[Prerequisite] = &[
    Prerequisite {
        package: "nodejs",
        why: "Node.js runs the wasm tests",
        present: || output("node", &["--version"]).is_some(),
    },
    Prerequisite {
        package: "npm",
        why: "npm installs the browser test's driver",
        present: || output("npm", &["--version"]).is_some(),
    },
    Prerequisite {
        package: "chromium",
        why: "the browser test runs headless Chromium",
        present: || Path::new(&chromium_path()).exists(),
    },
    Prerequisite {
        package: "firefox-esr",
        why: "the browser test runs in headless Firefox (SpiderMonkey)",
        present: || Path::new(&firefox_path()).exists(),
    },
    Prerequisite {
        package: "libwebkit2gtk-4.1-0",
        why: "the browser test runs in WebKitGTK's MiniBrowser (JavaScriptCore)",
        present: || {
            std::fs::read_dir("/usr/lib").is_ok_and(|dirs| {
                dirs.flatten()
                    .any(|d| d.path().join("webkit2gtk-4.1/MiniBrowser").exists())
            })
        },
    },
    Prerequisite {
        package: "xvfb",
        why: "WebKitGTK's MiniBrowser has no headless mode: it runs on Xvfb",
        present: || output("xvfb-run", &["--help"]).is_some(),
    },
    Prerequisite {
        package: "libc6-dev-i386",
        why: "the i686 golden check links 32-bit",
        present: || Path::new("/usr/lib32/crt1.o").exists(),
    },
    Prerequisite {
        package: "lib32gcc-12-dev",
        why: "the i686 golden check links 32-bit",
        present: || Path::new("/usr/lib/gcc/x86_64-linux-gnu/12/32/libgcc.a").exists(),
    },
    Prerequisite {
        package: "gcc-aarch64-linux-gnu",
        why: "the aarch64 golden check cross-links",
        present: || output("aarch64-linux-gnu-gcc", &["--version"]).is_some(),
    },
    Prerequisite {
        package: "libc6-dev-arm64-cross",
        why: "the aarch64 golden check cross-links",
        present: || Path::new("/usr/aarch64-linux-gnu/lib").exists(),
    },
    Prerequisite {
        package: "qemu-user",
        why: "the aarch64 golden check runs under qemu-user",
        present: || output("qemu-aarch64", &["--version"]).is_some(),
    },
    Prerequisite {
        package: "python3-venv",
        why: "the wasmtime golden check installs wasmtime from PyPI into a virtualenv",
        present: || output("python3", &["-m", "venv", "--help"]).is_some(),
    },
    Prerequisite {
        package: "wrk",
        why: "the leaderboard's load check drives it with wrk",
        // `wrk --version` exits 1 (it prints its usage too).
        present: || Command::new("wrk").arg("--version").output().is_ok(),
    },
    Prerequisite {
        package: "mono-mcs",
        why: "the C ABI's C# host is compiled with mono's C# compiler",
        present: || output("mcs", &["--version"]).is_some(),
    },
    Prerequisite {
        package: "mono-runtime",
        why: "the C ABI's C# host runs under mono",
        present: || output("mono", &["--version"]).is_some(),
    },
    Prerequisite {
        package: "gcc-mingw-w64-x86-64",
        why: "the Windows golden check links x86_64-pc-windows-gnu with mingw-w64",
        present: || output("x86_64-w64-mingw32-gcc", &["--version"]).is_some(),
    },
    Prerequisite {
        package: "wine64",
        why: "the Windows golden check runs the Windows test binary under wine",
        present: || Path::new(crate::windows::WINE).exists(),
    },
    Prerequisite {
        package: "postgresql",
        why: "the leaderboard's tests run against a real PostgreSQL server",
        present: || crate::postgres::server_bin_dir().is_some(),
    },
];

/// The Debian packages of the missing prerequisites (`cargo xtask
/// missing-packages` prints them for `.ci/run` to install).
pub fn missing_packages() -> Vec<&'static str> {
    PREREQUISITES
        .iter()
        .filter(|p| !(p.present)())
        .map(|p| p.package)
        .collect()
}

/// Checks every system package the checks need, before anything is
/// installed or compiled, and names all that are missing in one message
/// with the command that installs them.
pub fn check_prerequisites() -> Result<(), String> {
    let missing: Vec<&Prerequisite> = PREREQUISITES.iter().filter(|p| !(p.present)()).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let mut message = String::from("missing system packages:\n");
    for p in &missing {
        message.push_str(&format!("  {:<24} {}\n", p.package, p.why));
    }
    let names: Vec<&str> = missing.iter().map(|p| p.package).collect();
    message.push_str(&format!(
        "install them with: apt-get install {} (bash .ci/run does this on a bare machine)",
        names.join(" ")
    ));
    Err(message)
}

/// Adds a Rust target to the pinned toolchain unless it is there.
pub fn ensure_rust_target(target: &str) -> Result<(), String> {
    let installed = output("rustup", &["target", "list", "--installed"]).unwrap_or_default();
    if !installed.lines().any(|l| l.trim() == target) {
        println!("==> installing the {target} target");
        run(Command::new("rustup").args(["target", "add", target]))?;
    }
    Ok(())
}

/// Makes sure the wasm32 target, node and a wasm-bindgen test runner of
/// exactly the locked wasm-bindgen version are present, installing what can
/// be installed.
pub fn ensure_wasm_tools(root: &Path) -> Result<(), String> {
    ensure_rust_target("wasm32-unknown-unknown")?;
    if output("node", &["--version"]).is_none() {
        return Err("node is needed for the wasm tests; install Node.js 18 or newer".into());
    }
    let wanted = locked_version(root, "wasm-bindgen")?;
    let have = output("wasm-bindgen-test-runner", &["--version"]).unwrap_or_default();
    // The runner prints "wasm-bindgen-test-runner X.Y.Z".
    if have.split_whitespace().nth(1) != Some(wanted.as_str()) {
        println!("==> installing wasm-bindgen-cli {wanted} (matches the wasm-bindgen crate)");
        // Not --locked: one of the CLI's locked dependencies does not build
        // here; the CLI's own version is still exact. Without default
        // features the CLI has no TLS stack (used only to download
        // webdrivers, which the tests never do): the install drops its
        // largest dependencies and takes minutes instead of a quarter hour.
        run(Command::new(cargo()).args([
            "install",
            "wasm-bindgen-cli",
            "--version",
            &wanted,
            "--no-default-features",
        ]))?;
    }
    Ok(())
}

/// Makes sure cargo-nextest, which runs the debug tests, is installed
/// (the machine image has it; a bare machine builds it from crates.io).
pub fn ensure_nextest() -> Result<(), String> {
    if output(&cargo(), &["nextest", "--version"]).is_some() {
        return Ok(());
    }
    println!("==> installing cargo-nextest");
    run(Command::new(cargo()).args(["install", "cargo-nextest", "--locked"]))
}

/// Makes sure the i686, aarch64 and wasm32-wasip1 Rust targets are
/// installed (the system packages that link and run them are checked by
/// [`check_prerequisites`]; wasip1's runtime is `wasi.rs`'s).
pub fn ensure_cross_tools() -> Result<(), String> {
    let installed = output("rustup", &["target", "list", "--installed"]).unwrap_or_default();
    for target in [
        "i686-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu",
        "wasm32-wasip1",
    ] {
        if !installed.lines().any(|l| l.trim() == target) {
            println!("==> installing the {target} target");
            run(Command::new("rustup").args(["target", "add", target]))?;
        }
    }
    Ok(())
}
