//! `cargo xtask <command>`: the project's automation, in Rust so that it runs
//! wherever cargo does.
//!
//! - `test`: every check (`CHECKS`), cheapest failure first: the system
//!   prerequisites and ARCHITECTURE.md against the code (`architecture/`)
//!   before anything is installed; formatting; the archive of cores frozen
//!   (`cores.rs`: a second when nothing changed); ESLint; the npm package
//!   and TypeScript's check against its `.d.ts` (`js_checks.rs`); clippy;
//!   the docs; the whole workspace's tests in debug; `node --test` on the
//!   package; the golden hashes and corpus in release, compiled to wasm
//!   under node, on i686 and on aarch64 under qemu-user, and for
//!   wasm32-wasip1 under wasmtime, debug and release (`wasi.rs`); the race
//!   example; the package in headless Chromium, Firefox ESR (Ion and
//!   baseline) and WebKitGTK (default tiers, JIT off, BBQ only), the
//!   replays those recorded verified natively; the viewer's Chromium test;
//!   the leaderboard under a quick load. Missing tools (the wasm target, a
//!   wasm-bindgen CLI of the pinned version, the viewer's npm packages, the
//!   wasmtime and pygltflib packages from PyPI, `python.rs`) are installed first. `test --only NAME…`
//!   runs only the checks whose names contain one of the words (`--only
//!   viewer golden`), after the same set-up.
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
//! - `cores`: builds the archived wasm cores the manifest lacks or that are
//!   stale, replays the corpora whose fingerprint changed and records the
//!   fingerprints (`cores.rs`); `cores --check` checks that every version is
//!   frozen; `cores --check --all` rebuilds every module, compares bytes
//!   and replays every corpus.

mod architecture;
mod archive_fingerprint;
mod baseline;
mod bench;
mod cores;
mod cpu_bench;
mod js_checks;
mod load;
mod platform_bench;
mod postgres;
mod python;
mod second_compiler;
mod surface_bench;
mod tools;
mod viewer;
mod wasi;
mod wasm;
mod windows;

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
        Some("bench") if args.get(1).is_some_and(|a| a == "platforms") => {
            project_root().and_then(|root| {
                let report = platform_bench::measure(&root)?;
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
                "usage: cargo xtask test [--only NAME…] | architecture | golden | cores [--check [--all]] | bench [surfaces|platforms] | load [--quick] | wasm | viewer | view-demo | play | missing-packages | with-postgres COMMAND…"
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

/// What a check runs.
enum Run {
    /// One cargo invocation, with extra environment.
    Cargo {
        args: &'static [&'static str],
        env: &'static [(&'static str, &'static str)],
    },
    /// A function of xtask's.
    Step(StepFn),
}

/// One named check of `cargo xtask test`.
struct Check {
    name: &'static str,
    run: Run,
}

/// A check that is not one cargo invocation.
type StepFn = fn(&Path) -> Result<(), String>;

const fn cargo_check(name: &'static str, args: &'static [&'static str]) -> Check {
    Check {
        name,
        run: Run::Cargo { args, env: &[] },
    }
}

const fn step(name: &'static str, f: StepFn) -> Check {
    Check {
        name,
        run: Run::Step(f),
    }
}

/// Every check, cheapest first: text checks that compile nothing, then the
/// JavaScript's lint and types (one wasm build), then the workspace's
/// compile checks and tests, then the other targets, then what runs in
/// browsers and real time. A failure is reported as early as its cost
/// allows, and nothing before it took minutes.
const CHECKS: &[Check] = &[
    cargo_check("format", &["fmt", "--all", "--", "--check"]),
    step(
        "archived cores frozen (fingerprints, cores --check)",
        |root| cores::frozen_versions(root).map(drop),
    ),
    step("JavaScript lint (eslint)", js_checks::lint),
    step("npm package (wasm32 release + wasm-bindgen)", |root| {
        wasm::build_package(root).map(drop)
    }),
    step("JavaScript types (tsc checkJs)", js_checks::types),
    cargo_check(
        "clippy",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    ),
    Check {
        name: "docs (cargo doc, warnings denied)",
        run: Run::Cargo {
            args: &["doc", "--no-deps", "--workspace"],
            env: &[("RUSTDOCFLAGS", "-D warnings")],
        },
    },
    step("tests (debug)", workspace_tests),
    step("node --test on the package", wasm::node_tests),
    cargo_check(
        "golden hashes and corpus (release)",
        &[
            "test",
            "--release",
            "-p",
            "skidpad-core",
            "-p",
            "skidpad-golden",
            "--test",
            "golden",
        ],
    ),
    cargo_check(
        "golden hashes and corpus (wasm32 under node)",
        &[
            "test",
            "--target",
            "wasm32-unknown-unknown",
            "-p",
            "skidpad-core",
            "-p",
            "skidpad-golden",
            "--test",
            "golden",
        ],
    ),
    cargo_check(
        "golden hashes and corpus (i686, native 32-bit)",
        &[
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
    ),
    cargo_check(
        "golden hashes and corpus (aarch64 under qemu-user)",
        &[
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
    ),
    step(
        "golden hashes and corpus (Windows: x86_64-pc-windows-gnu under wine)",
        windows::golden,
    ),
    step(
        "golden hashes and corpus (a second compiler, debug and release)",
        second_compiler::golden,
    ),
    step(
        "golden hashes and corpus (wasm32-wasip1 under wasmtime, debug)",
        wasi::golden_debug,
    ),
    step(
        "golden hashes and corpus (wasm32-wasip1 under wasmtime, release)",
        wasi::golden_release,
    ),
    cargo_check(
        "race example",
        &[
            "run",
            "--release",
            "-p",
            "skidpad-examples",
            "--example",
            "race",
        ],
    ),
    step("headless Chromium", wasm::chromium_test),
    step("headless Firefox ESR (Ion, baseline)", wasm::firefox_test),
    step(
        "WebKitGTK under Xvfb (default tiers, JIT off, BBQ only)",
        wasm::webkit_test,
    ),
    step(
        "wasm recordings verified natively",
        wasm::verify_wasm_recordings,
    ),
    step("viewer in headless Chromium", viewer::browser_test),
    step("leaderboard under load (wrk, quick)", |root| {
        load::load(root, true)
    }),
];

/// The workspace's tests in debug, against a throwaway PostgreSQL server
/// (the leaderboard's tests need a real one; it is stopped and deleted
/// after them), with the glTF scenes pygltflib writes
/// (`python::write_test_scenes`), with the archive's frozen versions named so that their
/// corpora are not replayed again (`cores/tests/every_version.rs`).
///
/// cargo-nextest runs the test binaries, two tests at a time across all of
/// them, where `cargo test` runs one binary after another and leaves a
/// core idle whenever a binary's last test runs alone (7 minutes against
/// 3½ here); it runs no doctests, so `cargo test --doc` follows.
fn workspace_tests(root: &Path) -> Result<(), String> {
    let frozen = cores::frozen_versions(root)?;
    tools::ensure_nextest()?;
    let server = postgres::TestPostgres::start()?;
    let scenes = python::write_test_scenes(root, &python::ensure(root)?)?;
    let mut tests = Command::new(tools::cargo());
    tests
        .args(["nextest", "run", "--workspace", "--no-fail-fast"])
        .env("SKIDPAD_ARCHIVE_FROZEN", cores::frozen_env(&frozen))
        .env("SKIDPAD_TEST_SCENES", &scenes)
        .env("SKIDPAD_REQUIRE_SCENES", "1")
        .current_dir(root);
    server.export(&mut tests);
    run(&mut tests)?;
    run(Command::new(tools::cargo())
        .args(["test", "--workspace", "--doc"])
        .current_dir(root))
}

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
    let total = checks.len();
    if total == 0 {
        let names: Vec<&str> = CHECKS.iter().map(|c| c.name).collect();
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
    let mut timings = Timings::default();
    for (k, check) in checks.iter().enumerate() {
        println!("\n==> [{}/{total}] {}", k + 1, check.name);
        match &check.run {
            Run::Cargo { args, env } => {
                let mut cmd = Command::new(tools::cargo());
                cmd.args(*args).envs(env.iter().copied()).current_dir(&root);
                timings.time(check.name, || run(&mut cmd))?;
            }
            Run::Step(f) => timings.time(check.name, || f(&root))?,
        }
    }
    timings.print();
    if only.is_empty() {
        println!("\nxtask test: all {total} checks passed");
    } else {
        println!("\nxtask test: the {total} chosen checks passed (not all: --only {only:?})");
    }
    Ok(())
}
