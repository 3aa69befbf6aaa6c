//! The web viewer's automation: `cargo xtask viewer` (its assets: the npm
//! package and `npm ci` in `viewer/`), `cargo xtask view-demo` (race the
//! demo and open it in the viewer) and the viewer's headless-Chromium test.

use std::path::Path;
use std::process::Command;

use crate::tools::{self, cargo, run};
use crate::wasm;

/// Builds the npm package and installs the viewer's pinned npm
/// dependencies (three.js, uPlot, and the test's playwright-core, pngjs,
/// pixelmatch) if they are missing.
pub fn prepare(root: &Path) -> Result<(), String> {
    wasm::build_package(root)?;
    install_dependencies(root)
}

fn install_dependencies(root: &Path) -> Result<(), String> {
    let dir = root.join("viewer");
    if !dir.join("node_modules/three").exists() || !dir.join("node_modules/pngjs").exists() {
        println!("==> npm ci in viewer (three.js, uPlot, test tools)");
        run(Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir))?;
    }
    Ok(())
}

/// Races the demo and serves it in the viewer (until Ctrl-C).
pub fn view_demo(root: &Path) -> Result<(), String> {
    prepare(root)?;
    let skidpad = |args: &[&str]| {
        let mut cmd = Command::new(cargo());
        cmd.args(["run", "--release", "-q", "-p", "skidpad-cli", "--"])
            .args(args)
            .current_dir(root);
        cmd
    };
    // Extra arguments go to the demo (`cargo xtask view-demo --track
    // hillcrest` shows the hills).
    let extra: Vec<String> = std::env::args().skip(2).collect();
    let mut demo = vec!["demo"];
    demo.extend(extra.iter().map(String::as_str));
    run(&mut skidpad(&demo))?;
    run(&mut skidpad(&[
        "view",
        "skidpad-demo/demo.skr",
        "skidpad-demo/best_lap.skg",
    ]))
}

/// Serves the play page with a leaderboard behind it (until Ctrl-C):
/// `skidpad-leaderboard --play` on a SQLite file under `target/`, so a new
/// user drives, submits and sees the verified time in one step.
pub fn play(root: &Path) -> Result<(), String> {
    prepare(root)?;
    let database = root.join("target/play-leaderboard.db");
    run(Command::new(cargo())
        .args([
            "run",
            "--release",
            "-q",
            "-p",
            "skidpad-leaderboard",
            "--",
            "--play",
        ])
        .arg("--database")
        .arg(format!("sqlite:{}", database.display()))
        .args(std::env::args().skip(2))
        .current_dir(root))
}

/// Runs the viewer's unit tests (`node --test`), then `viewer/test/run.mjs`
/// in headless Chromium against the workspace's debug binaries
/// ([`tools::test_binaries`]; the npm package must be built: the package
/// check before this one does it).
pub fn browser_test(root: &Path) -> Result<(), String> {
    install_dependencies(root)?;
    run(Command::new("node")
        .args(["--test", "test/units.test.mjs"])
        .current_dir(root.join("viewer")))?;
    let binaries = tools::test_binaries(root)?;
    let scenes = crate::python::write_test_scenes(root, &crate::python::ensure(root)?)?;
    run(Command::new("node")
        .arg("test/run.mjs")
        .env("SKIDPAD_TEST_SCENES", scenes)
        .env("SKIDPAD_REQUIRE_SCENES", "1")
        .env(
            "SKIDPAD_LEADERBOARD_BIN",
            binaries.join("skidpad-leaderboard"),
        )
        .env("SKIDPAD_BIN", binaries.join("skidpad"))
        .env("SKIDPAD_NETPLAY_BIN", binaries.join("skidpad-netplay"))
        .env("SKIDPAD_SPECTATOR_BIN", binaries.join("skidpad-spectator"))
        .env("SKIDPAD_CHROMIUM", tools::chromium_path())
        .current_dir(root.join("viewer")))
}
