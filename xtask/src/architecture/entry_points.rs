//! The "Entry points" table of ARCHITECTURE.md against the code: every
//! path a row names exists, and every symbol it names (`World::step`,
//! `LapCutter`, `replay::verify_replay`) is defined in one of the row's own
//! folders, so a rename or a move that leaves the map behind fails here.
//!
//! In a row's backticked spans, one with a `/` is a path (a folder, or a
//! file); a bare file name (`stepping.rs`) must exist under one of the
//! row's folders; a Rust path (`Type::method`, `module::function`) is a
//! symbol: its type (a capitalised segment) and its last segment must be
//! defined (`fn`, `struct`, `enum`, `trait`, `type`, `const`, `static`) in
//! a `.rs` file under one of the row's folders. Spans with spaces (`skidpad
//! verify`) are commands and are not checked.

use std::path::{Path, PathBuf};

/// The rows of the table under `## Entry points`: the cells after the
/// first, joined.
fn rows(map: &str) -> Vec<&str> {
    map.lines()
        .skip_while(|l| l.trim() != "## Entry points")
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| l.starts_with('|') && !l.starts_with("|---") && !l.contains("Where it starts"))
        .collect()
}

/// The backticked spans of a line.
fn spans(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

fn is_symbol(span: &str) -> bool {
    !span.is_empty()
        && span.split("::").all(|part| {
            part.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// Every `.rs` file under `dir` (or `dir` itself if it is one).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.is_file() {
        if dir.extension().is_some_and(|e| e == "rs") {
            out.push(dir.to_path_buf());
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        rust_files(&entry.path(), out);
    }
}

/// Whether a file under `dir` is named `name`.
fn holds_file(dir: &Path, name: &str) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.filter_map(Result::ok).any(|e| {
        let path = e.path();
        if path.is_dir() {
            holds_file(&path, name)
        } else {
            e.file_name().to_str() == Some(name)
        }
    })
}

/// Whether `text` defines `name` as an item.
fn defines(text: &str, name: &str) -> bool {
    ["fn", "struct", "enum", "trait", "type", "const", "static"]
        .iter()
        .any(|kind| {
            let needle = format!("{kind} {name}");
            text.match_indices(&needle).any(|(at, _)| {
                let after = text[at + needle.len()..].chars().next();
                let before = text[..at].chars().next_back();
                !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        })
}

/// The findings for one row.
fn check_row(root: &Path, row: &str) -> Vec<String> {
    let spans = spans(row);
    let mut findings = Vec::new();
    let mut folders: Vec<PathBuf> = Vec::new();
    for span in spans.iter().filter(|s| s.contains('/') && !s.contains(' ')) {
        let path = root.join(span.trim_end_matches('/'));
        if !path.exists() {
            findings.push(format!("- entry point path `{span}` does not exist"));
        } else if path.is_dir() {
            folders.push(path);
        } else if let Some(parent) = path.parent() {
            folders.push(parent.to_path_buf());
        }
    }
    let bare_files = spans
        .iter()
        .filter(|s| !s.contains('/') && !s.contains(' ') && s.contains('.'));
    for name in bare_files {
        if !folders.iter().any(|f| holds_file(f, name)) {
            findings.push(format!(
                "- entry point file `{name}` is in none of its row's folders"
            ));
        }
    }
    let mut sources = Vec::new();
    for folder in &folders {
        rust_files(folder, &mut sources);
    }
    let texts: Vec<String> = sources
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    for symbol in spans.iter().filter(|s| is_symbol(s)) {
        let parts: Vec<&str> = symbol.split("::").collect();
        // The last segment, and the type it belongs to if one is named
        // (a capitalised segment before it); module paths are not items.
        let mut wanted = vec![parts[parts.len() - 1]];
        if parts.len() > 1 {
            let owner = parts[parts.len() - 2];
            if owner.starts_with(|c: char| c.is_ascii_uppercase()) {
                wanted.push(owner);
            }
        }
        for name in wanted {
            if !texts.iter().any(|t| defines(t, name)) {
                findings.push(format!(
                    "- entry point `{symbol}`: no `{name}` is defined under its row's folders"
                ));
            }
        }
    }
    findings
}

/// Fails with every row whose paths or symbols the code does not have.
pub fn check(root: &Path, map: &str) -> Result<(), String> {
    let rows = rows(map);
    if rows.is_empty() {
        return Err("- ARCHITECTURE.md has no \"## Entry points\" table".into());
    }
    let findings: Vec<String> = rows.iter().flat_map(|r| check_row(root, r)).collect();
    if findings.is_empty() {
        Ok(())
    } else {
        Err(findings.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_paths_and_commands_are_told_apart() {
        assert!(is_symbol("World::step"));
        assert!(is_symbol("LapCutter"));
        assert!(!is_symbol("stepping.rs"));
        assert!(!is_symbol("skidpad verify"));
        assert!(!is_symbol("replay/src/"));
        assert_eq!(
            spans("| a | `World::step` (`sim-core/src/world/`), then `x.rs` |"),
            ["World::step", "sim-core/src/world/", "x.rs"]
        );
    }

    #[test]
    fn a_definition_is_a_whole_item_name() {
        assert!(defines("pub fn step(&mut self)", "step"));
        assert!(defines("pub struct World {", "World"));
        assert!(!defines("pub fn stepping()", "step"));
        assert!(!defines("pub fn substep()", "step"));
        assert!(!defines("// World::step", "step"));
    }

    #[test]
    fn a_moved_symbol_or_path_is_found() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        assert!(check_row(root, "| x | `World::step` (`sim-core/src/world/`) |").is_empty());
        let moved = check_row(root, "| x | `World::step` (`sim-core/src/race/`) |");
        assert_eq!(moved.len(), 2, "{moved:?}");
        let gone = check_row(root, "| x | `LapCutter` (`ghost/src/nowhere/`) |");
        assert!(gone[0].contains("does not exist"), "{gone:?}");
    }
}
