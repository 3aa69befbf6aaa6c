//! Writes `golden/v<SIMULATION_VERSION>/`: every scenario's replay and
//! ghosts, and `HASHES`. Run through `cargo xtask golden`.
//!
//! It refuses to touch an existing version directory: goldens change only
//! together with a `SIMULATION_VERSION` bump (golden/README.md), so the
//! files of a released version stay exactly as they were. The one
//! exception is `--add-missing`: it records only the scenarios that have
//! no file in the directory yet (a scenario added without a change of
//! bits) and appends their lines to `HASHES`, leaving every existing byte
//! as it was.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use skidpad_core::SIMULATION_VERSION;
use skidpad_ghost::encode_ghost;
use skidpad_golden::{Scenario, current_dir, hashes};
use skidpad_replay::encode_replay;

fn main() -> ExitCode {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join(current_dir());
    if std::env::args().any(|a| a == "--add-missing") {
        return match add_missing(&dir) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("golden: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if dir.exists() {
        eprintln!(
            "golden/{} already exists. Goldens are regenerated only together with a SIMULATION_VERSION bump: bump it in sim-core/src/lib.rs (now {SIMULATION_VERSION}), then run `cargo xtask golden` again.",
            current_dir()
        );
        return ExitCode::FAILURE;
    }
    match write_all(&dir) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("golden: {e}");
            let _ = std::fs::remove_dir_all(&dir);
            ExitCode::FAILURE
        }
    }
}

fn write_all(dir: &std::path::Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let mut lines = vec![
        format!(
            "# Golden hashes for simulation version {SIMULATION_VERSION}, written by `cargo xtask golden`."
        ),
        "# <file> <keyframe step | final> <world hash>, and <ghost file> file <blake3 of the file>"
            .to_owned(),
    ];
    for scenario in Scenario::ALL {
        lines.extend(write_scenario(dir, scenario)?);
    }
    lines.push(String::new());
    std::fs::write(dir.join("HASHES"), lines.join("\n")).map_err(|e| e.to_string())?;
    println!("wrote golden/{}", current_dir());
    Ok(())
}

/// Records one scenario into `dir`; returns its `HASHES` lines.
fn write_scenario(dir: &Path, scenario: Scenario) -> Result<Vec<String>, String> {
    println!("recording {}", scenario.name());
    let recording = scenario.record()?;
    let file = format!("{}.skr", scenario.name());
    let bytes = encode_replay(&recording.replay).map_err(|e| e.to_string())?;
    std::fs::write(dir.join(&file), bytes).map_err(|e| e.to_string())?;
    let mut lines = hashes::replay_lines(&file, &recording.replay);
    for (name, ghost) in &recording.ghosts {
        let bytes = encode_ghost(ghost).map_err(|e| e.to_string())?;
        std::fs::write(dir.join(name), &bytes).map_err(|e| e.to_string())?;
        lines.push(hashes::ghost_line(name, &bytes));
    }
    Ok(lines)
}

/// Records the scenarios with no replay file in `dir` and appends their
/// lines to its `HASHES`; touches nothing else.
fn add_missing(dir: &Path) -> Result<(), String> {
    let hashes_path = dir.join("HASHES");
    let mut text = std::fs::read_to_string(&hashes_path).map_err(|e| {
        format!(
            "golden/{}/HASHES: {e} (without a version directory, run `cargo xtask golden`)",
            current_dir()
        )
    })?;
    let mut added = 0;
    for scenario in Scenario::ALL {
        if dir.join(format!("{}.skr", scenario.name())).exists() {
            continue;
        }
        for line in write_scenario(dir, scenario)? {
            text.push_str(&line);
            text.push('\n');
        }
        added += 1;
    }
    std::fs::write(&hashes_path, text).map_err(|e| e.to_string())?;
    println!("added {added} scenario(s) to golden/{}", current_dir());
    Ok(())
}
