//! `cargo xtask <command>`: the project's automation, in Rust so that it runs
//! wherever cargo does.
//!
//! - `test`: every check, in the order a failure is cheapest to report:
//!   the system prerequisites, ARCHITECTURE.md against the code
//!   (`architecture/`: folders named, crate graph, sim-core's layers), formatting, clippy, the docs, the whole workspace's tests (goldens included),
//!   the core's golden hash and the golden corpus in release, compiled to
//!   wasm under node, built for i686 and for aarch64 (run under qemu-user),
//!   and the race example; then the same golden tests built for
//!   wasm32-wasip1 under wasmtime, debug and release (`wasi.rs`); then it builds the npm package, runs the node
//!   tests on it, type-checks and lints the JavaScript (`js_checks.rs`),
//!   runs the browser test in headless Chromium, in headless Firefox ESR
//!   (Ion and baseline) and in WebKitGTK (default tiers, JIT off, BBQ
//!   only), verifies natively the replays those recorded in wasm, runs the viewer's Chromium test, and
//!   rebuilds every archived core byte for byte (`cores.rs`). Missing tools (the wasm target, a
//!   wasm-bindgen CLI of the pinned version, the viewer's npm packages, the
//!   wasmtime package from PyPI) are installed
//!   first. `test --only NAME…` runs only the checks whose names contain
//!   one of the words (`--only viewer golden`), after the same set-up.
//! - `architecture`: only the ARCHITECTURE.md checks (no compiling).
//! - `wasm`: builds the npm package into `bindings-wasm/pkg/`.
//! - `viewer`: the web viewer's assets (the npm package, `npm ci` in
//!   `viewer/`), which `skidpad view` serves.
//! - `view-demo`: races the demo and opens it in the viewer.
//! - `play`: serves the play page with a leaderboard behind it.
//! - `bench`: runs the benchmarks and prints the SPEC §10 figures, as a
//!   table and as `target/bench-report.json`; `bench surfaces` only the
//!   races on the tracks' surfaces and their verification
//!   (`surface_bench.rs`).
//! - `missing-packages`: prints the Debian packages the checks need that
//!   this machine lacks, one a line (`.ci/run` installs them).
//! - `golden`: records the golden corpus for the current
//!   `SIMULATION_VERSION` (golden/README.md says when that is allowed);
//!   `golden --add-missing` adds the scenarios the current corpus lacks.
//! - `cores`: builds the archived wasm cores the manifest lacks
//!   (`cores.rs`); `cores --check` rebuilds them all and compares bytes.

mod architecture;
mod baseline;
mod bench;
mod cores;
mod cpu_bench;
mod js_checks;
mod load;
mod postgres;
mod surface_bench;
mod tools;
mod viewer;
mod wasi;
mod wasm;

use std::path::Path;
use std::process::{Command, ExitCode};

use tools::{ensure_wasm_tools, project_root, run};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test(&args[1..]),
        Some("missing-packages") => {
            for package in tools::missing_packages() {
                println!("{package}");
            }
            Ok(())
        }
        Some("golden") => golden(),
        Some("cores") => project_root().and_then(|root| cores::run_command(&root, &args[1..])),
        Some("architecture") => project_root().and_then(|root| architecture::check(&root)),
        Some("wasm") => project_root().and_then(|root| wasm::build_package(&root).map(drop)),
        Some("bench") if args.get(1).is_some_and(|a| a == "surfaces") => {
            project_root().and_then(|root| {
                let report = surface_bench::measure(&root)?;
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report).unwrap_or_default()
                );
                Ok(())
            })
        }
        Some("bench") => project_root().and_then(|root| bench::bench_all(&root)),
        Some("with-postgres") => postgres::run_with_server(&args[1..]),
        Some("load") => project_root().and_then(|root| {
            let quick = match args.get(1).map(String::as_str) {
                None => false,
                Some("--quick") => true,
                Some(other) => return Err(format!("unknown option {other}: load [--quick]")),
            };
            load::load(&root, quick)
        }),
        Some("viewer") => project_root().and_then(|root| viewer::prepare(&root)),
        Some("view-demo") => project_root().and_then(|root| viewer::view_demo(&root)),
        Some("play") => project_root().and_then(|root| viewer::play(&root)),
        _ => {
            eprintln!(
                "usage: cargo xtask test [--only NAME…] | architecture | golden | cores [--check] | bench [surfaces] | load [--quick] | wasm | viewer | view-demo | play | missing-packages | with-postgres COMMAND…"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// One named check: a cargo invocation, with extra environment.
struct Check {
    name: &'static str,
    args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
}

const CHECKS: &[Check] = &[
    Check {
        name: "format",
        args: &["fmt", "--all", "--", "--check"],
        env: &[],
    },
    Check {
        name: "clippy",
        args: &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        env: &[],
    },
    Check {
        name: "docs (cargo doc, warnings denied)",
        args: &["doc", "--no-deps", "--workspace"],
        env: &[("RUSTDOCFLAGS", "-D warnings")],
    },
    Check {
        name: "tests (debug)",
        args: &["test", "--workspace"],
        env: &[],
    },
    Check {
        name: "golden hash (release)",
        args: &[
            "test",
            "--release",
            "-p",
            "skidpad-core",
            "--test",
            "golden",
        ],
        env: &[],
    },
    Check {
        name: "golden hash (wasm32 under node)",
        args: &[
            "test",
            "--target",
            "wasm32-unknown-unknown",
            "-p",
            "skidpad-core",
            "--test",
            "golden",
        ],
        env: &[],
    },
    Check {
        name: "goldens (release)",
        args: &[
            "test",
            "--release",
            "-p",
            "skidpad-golden",
            "--test",
            "golden",
        ],
        env: &[],
    },
    Check {
        name: "goldens (wasm32 under node)",
        args: &[
            "test",
            "--target",
            "wasm32-unknown-unknown",
            "-p",
            "skidpad-golden",
            "--test",
            "golden",
        ],
        env: &[],
    },
    Check {
        name: "golden hashes and corpus (i686, native 32-bit)",
        args: &[
            "test",
            "--release",
            "--target",
            "i686-unknown-linux-gnu",
            "-p",
            "skidpad-core",
            "-p",
            "skidpad-golden",
            "--test",
            "golden",
        ],
        env: &[],
    },
    Check {
        name: "golden hashes and corpus (aarch64 under qemu-user)",
        args: &[
            "test",
            "--release",
            "--target",
            "aarch64-unknown-linux-gnu",
            "-p",
            "skidpad-core",
            "-p",
            "skidpad-golden",
            "--test",
            "golden",
        ],
        env: &[],
    },
    Check {
        name: "race example",
        args: &[
            "run",
            "--release",
            "-p",
            "skidpad-examples",
            "--example",
            "race",
        ],
        env: &[],
    },
];

/// Records `golden/v<SIMULATION_VERSION>/` (refuses if it exists: see
/// golden/README.md).
fn golden() -> Result<(), String> {
    let root = project_root()?;
    let mut cmd = Command::new(tools::cargo());
    cmd.args([
        "run",
        "--release",
        "-p",
        "skidpad-golden",
        "--bin",
        "golden-regenerate",
        "--",
    ])
    .args(std::env::args().skip(2))
    .current_dir(&root);
    run(&mut cmd)
}

/// A check that is not one cargo invocation.
type StepFn = fn(&Path) -> Result<(), String>;

/// Checks after the cargo ones: the npm package and what runs it, then the
/// archive of old cores rebuilt from history.
const PACKAGE_CHECKS: &[(&str, StepFn)] = &[
    (
        "golden hashes and corpus (wasm32-wasip1 under wasmtime, debug)",
        wasi::golden_debug,
    ),
    (
        "golden hashes and corpus (wasm32-wasip1 under wasmtime, release)",
        wasi::golden_release,
    ),
    ("npm package (wasm32 release + wasm-bindgen)", |root| {
        wasm::build_package(root).map(drop)
    }),
    ("node --test on the package", wasm::node_tests),
    (
        "JavaScript types (tsc checkJs) and lint (eslint)",
        js_checks::check,
    ),
    ("headless Chromium", wasm::chromium_test),
    ("headless Firefox ESR (Ion, baseline)", wasm::firefox_test),
    (
        "WebKitGTK under Xvfb (default tiers, JIT off, BBQ only)",
        wasm::webkit_test,
    ),
    (
        "wasm recordings verified natively",
        wasm::verify_wasm_recordings,
    ),
    ("viewer in headless Chromium", viewer::browser_test),
    ("leaderboard under load (wrk, quick)", |root| {
        load::load(root, true)
    }),
    (
        "archived cores rebuild byte for byte (cores --check)",
        cores::check_reproducible,
    ),
];

/// How long each check of `cargo xtask test` took, printed after each and
/// as a table at the end, so that a CI run's slow checks are named by the
/// log itself (CI must stay well under its 90-minute limit).
#[derive(Default)]
struct Timings {
    rows: Vec<(&'static str, std::time::Duration)>,
}

impl Timings {
    /// Runs one check, prints its time and keeps it; a failure names the
    /// check and its time too.
    fn time(
        &mut self,
        name: &'static str,
        check: impl FnOnce() -> Result<(), String>,
    ) -> Result<(), String> {
        let start = std::time::Instant::now();
        let result = check();
        let took = start.elapsed();
        println!("<== {name}: {}", minutes(took));
        self.rows.push((name, took));
        result.map_err(|e| format!("{name} failed after {}: {e}", minutes(took)))
    }

    fn print(&self) {
        let total: std::time::Duration = self.rows.iter().map(|(_, t)| *t).sum();
        println!("\ntime per check (total {}):", minutes(total));
        for (name, took) in &self.rows {
            println!("  {:>8}  {name}", minutes(*took));
        }
    }
}

/// `12m 05s`, or `9.3s` under a minute.
fn minutes(d: std::time::Duration) -> String {
    let s = d.as_secs_f64();
    if s < 60.0 {
        format!("{s:.1}s")
    } else {
        format!("{}m {:02}s", d.as_secs() / 60, d.as_secs() % 60)
    }
}

/// The words after `test --only`, lower-cased; empty for every check.
fn only_words(args: &[String]) -> Result<Vec<String>, String> {
    match args.split_first() {
        None => Ok(Vec::new()),
        Some((flag, words)) if flag == "--only" && !words.is_empty() => {
            Ok(words.iter().map(|w| w.to_lowercase()).collect())
        }
        _ => Err("usage: cargo xtask test [--only NAME…]".into()),
    }
}

fn test(args: &[String]) -> Result<(), String> {
    let root = project_root()?;
    let only = only_words(args)?;
    let chosen = |name: &str| {
        let name = name.to_lowercase();
        only.is_empty() || only.iter().any(|w| name.contains(w.as_str()))
    };
    let checks: Vec<&Check> = CHECKS.iter().filter(|c| chosen(c.name)).collect();
    let package_checks: Vec<&(&str, StepFn)> =
        PACKAGE_CHECKS.iter().filter(|(n, _)| chosen(n)).collect();
    let total = checks.len() + package_checks.len();
    if total == 0 {
        let names: Vec<&str> = CHECKS
            .iter()
            .map(|c| c.name)
            .chain(PACKAGE_CHECKS.iter().map(|(n, _)| *n))
            .collect();
        return Err(format!(
            "no check's name contains {only:?}; the checks are:\n  {}",
            names.join("\n  ")
        ));
    }
    // Before anything is installed or compiled: one message naming every
    // missing system package.
    tools::check_prerequisites()?;
    // A text check, before anything is compiled.
    architecture::check(&root)?;
    ensure_wasm_tools(&root)?;
    tools::ensure_cross_tools()?;
    // The leaderboard's tests need a real server; it lives as long as the
    // cargo checks run and is stopped and deleted after them.
    let server = postgres::TestPostgres::start()?;
    let mut timings = Timings::default();
    for (k, check) in checks.iter().enumerate() {
        println!("\n==> [{}/{total}] {}", k + 1, check.name);
        let mut cmd = Command::new(tools::cargo());
        cmd.args(check.args)
            .envs(check.env.iter().copied())
            .current_dir(&root);
        server.export(&mut cmd);
        timings.time(check.name, || run(&mut cmd))?;
    }
    drop(server);
    for (k, (name, check)) in package_checks.iter().enumerate() {
        println!("\n==> [{}/{total}] {name}", checks.len() + k + 1);
        timings.time(name, || check(&root))?;
    }
    timings.print();
    if only.is_empty() {
        println!("\nxtask test: all {total} checks passed");
    } else {
        println!("\nxtask test: the {total} chosen checks passed (not all: --only {only:?})");
    }
    Ok(())
}
