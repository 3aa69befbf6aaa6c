//! Every folder that holds source files is named in ARCHITECTURE.md, in
//! backticks, by its path from the repository's root with a trailing
//! slash (`sim-core/src/ground/`), so the code map cannot fall behind the
//! folders. Files are the folders' business: their module docs say what
//! they hold, and within one crate no two share a name (module roots
//! aside), so a file's name alone says which one is meant.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// What counts as a source file, by extension.
const SOURCE_EXTENSIONS: [&str; 10] = [
    "rs", "mjs", "js", "cjs", "ts", "html", "css", "json", "toml", "sql",
];

/// Fails listing the folders the map does not name.
pub fn check(root: &Path, map: &str) -> Result<(), String> {
    let out = Command::new("git")
        .arg("ls-files")
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run git ls-files: {e}"))?;
    if !out.status.success() {
        return Err("git ls-files failed".into());
    }
    let files = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut findings = Vec::new();
    let missing = unnamed(map, files.lines());
    if !missing.is_empty() {
        findings.push(format!(
            "- folders the map does not name (add each, in backticks, with its trailing slash):\n    {}",
            missing.join("\n    ")
        ));
    }
    for (name, paths) in same_names(files.lines()) {
        findings.push(format!(
            "- files named {name} in one crate: {}",
            paths.join(", ")
        ));
    }
    if findings.is_empty() {
        Ok(())
    } else {
        Err(findings.join("\n"))
    }
}

/// Module roots, which are named by their folder and may repeat.
const ROOTS: [&str; 4] = ["mod.rs", "lib.rs", "main.rs", "build.rs"];

/// Code files (`.rs`, `.mjs`) that share a name within one top-level
/// folder (a crate, the viewer), with their paths.
fn same_names<'a>(files: impl Iterator<Item = &'a str>) -> Vec<(String, Vec<String>)> {
    let mut seen: std::collections::BTreeMap<(&str, &str), Vec<String>> = Default::default();
    for path in files {
        let (Some((top, _)), Some(name)) = (path.split_once('/'), path.rsplit('/').next()) else {
            continue;
        };
        if (name.ends_with(".rs") || name.ends_with(".mjs")) && !ROOTS.contains(&name) {
            seen.entry((top, name)).or_default().push(path.to_owned());
        }
    }
    seen.into_iter()
        .filter(|(_, paths)| paths.len() > 1)
        .map(|((_, name), paths)| (name.to_owned(), paths))
        .collect()
}

/// The folders holding source files among `files` that `map` does not
/// name.
fn unnamed<'a>(map: &str, files: impl Iterator<Item = &'a str>) -> Vec<String> {
    let folders: BTreeSet<&str> = files
        .filter(|path| {
            let name = path.rsplit('/').next().unwrap_or(path);
            name.rsplit_once('.')
                .is_some_and(|(_, ext)| SOURCE_EXTENSIONS.contains(&ext))
        })
        .filter_map(|path| path.rsplit_once('/').map(|(folder, _)| folder))
        .collect();
    folders
        .into_iter()
        .filter(|folder| !map.contains(&format!("`{folder}/`")))
        .map(|folder| format!("{folder}/"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{same_names, unnamed};

    #[test]
    fn two_files_of_one_name_in_one_crate_are_found() {
        let files = [
            "examples/src/validation.rs",
            "examples/tests/validation.rs",
            "ghost/src/format.rs",
            "replay/src/format/mod.rs",
            "replay/src/world/mod.rs",
            "cli/src/files.rs",
        ];
        assert_eq!(
            same_names(files.into_iter()),
            [(
                "validation.rs".to_owned(),
                vec![
                    "examples/src/validation.rs".to_owned(),
                    "examples/tests/validation.rs".to_owned()
                ]
            )]
        );
    }

    #[test]
    fn a_folder_is_named_by_its_whole_path() {
        let map = "`sim-core/src/ground/` and `src/model/` and `ghost/`";
        let files = [
            "sim-core/src/ground/mesh.rs",
            "sim-core/src/model/wheel.rs",
            "ghost/Cargo.toml",
            "ghost/src/lib.rs",
            "golden/v9/flat_lap.skr",
            "Cargo.toml",
        ];
        // `src/model/` is not the whole path; a folder of data files
        // (golden/v9) and the root need no entry.
        assert_eq!(
            unnamed(map, files.into_iter()),
            ["ghost/src/", "sim-core/src/model/"]
        );
    }
}
