//! Keeps ARCHITECTURE.md naming every source file, so the code map cannot
//! fall behind the code: `cargo xtask test` fails, listing the files the
//! map does not name.
//!
//! A file counts as named when ARCHITECTURE.md holds, in backticks, its
//! path inside its crate (`src/check.rs`, `tests/cli.rs`), that path
//! without its leading `src/` (`drivetrain/engine.rs`), or its bare file
//! name. Crate
//! and module roots (`lib.rs`, `main.rs`, `mod.rs`) are the crate or folder
//! itself and need no entry.

use std::path::Path;
use std::process::Command;

const ROOTS: [&str; 3] = ["lib.rs", "main.rs", "mod.rs"];

/// The tracked `.rs` files of the workspace that ARCHITECTURE.md does not
/// name, or an error if git or the file cannot be read.
pub fn unnamed_files(root: &Path) -> Result<Vec<String>, String> {
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md"))
        .map_err(|e| format!("cannot read ARCHITECTURE.md: {e}"))?;
    let out = Command::new("git")
        .args(["ls-files", "*.rs"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run git ls-files: {e}"))?;
    if !out.status.success() {
        return Err("git ls-files failed".into());
    }
    let files = String::from_utf8_lossy(&out.stdout).into_owned();
    Ok(unnamed(&map, files.lines()))
}

/// The paths among `files` that `map` does not name (see the module docs).
fn unnamed<'a>(map: &str, files: impl Iterator<Item = &'a str>) -> Vec<String> {
    files
        .filter(|path| {
            let name = path.rsplit('/').next().unwrap_or(path);
            if ROOTS.contains(&name) {
                return false;
            }
            // Inside its crate: everything after the crate's folder.
            let inside = path.split_once('/').map_or(*path, |(_, rest)| rest);
            let in_src = inside.strip_prefix("src/").unwrap_or(inside);
            let named = |s: &str| map.contains(&format!("`{s}`"));
            !(named(inside) || named(in_src) || named(name))
        })
        .map(str::to_owned)
        .collect()
}

/// Fails with the list of unnamed files.
pub fn check(root: &Path) -> Result<(), String> {
    let missing = unnamed_files(root)?;
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "ARCHITECTURE.md does not name these files (add each to the code map, in backticks):\n  {}",
        missing.join("\n  ")
    ))
}

#[cfg(test)]
mod tests {
    use super::unnamed;

    #[test]
    fn a_file_is_named_by_its_path_in_the_crate_or_its_name() {
        let map = "`src/check.rs`, `drivetrain/engine.rs`, `tests/cli.rs` and `cutter.rs`";
        let files = [
            "golden/src/check.rs",
            "sim-core/src/drivetrain/engine.rs",
            "cli/tests/cli.rs",
            "ghost/src/cutter.rs",
            "sim-core/src/lib.rs",
            "replay/src/format/mod.rs",
            "sim-core/src/drivetrain/clutch.rs",
            "cli/tests/binary.rs",
        ];
        assert_eq!(
            unnamed(map, files.into_iter()),
            ["sim-core/src/drivetrain/clutch.rs", "cli/tests/binary.rs"]
        );
    }

    #[test]
    fn this_repository_names_every_file() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap();
        assert_eq!(super::unnamed_files(root).unwrap(), Vec::<String>::new());
    }
}
