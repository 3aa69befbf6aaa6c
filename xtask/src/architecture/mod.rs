//! Keeps ARCHITECTURE.md true: `cargo xtask test` (and `cargo xtask
//! architecture` alone) fails when the map and the code disagree.
//!
//! The map stays at most 250 lines, and five checks each read a fact from
//! ARCHITECTURE.md and compare it with the code:
//! - `folders.rs`: every folder holding source files is named by its path;
//! - `entry_points.rs`: every path the "Entry points" table names exists,
//!   and every symbol it names is defined under its row's folders;
//! - `crates.rs`: the crate graph in the ```` ```crates ```` block is the one
//!   `cargo metadata` reports, and only the crates the ```` ```knows ````
//!   block allows depend on terminal, JS, database, HTTP or physics crates;
//! - `modules.rs`: sim-core's top-level modules import each other in the
//!   order of the ```` ```sim-core-layers ```` block, without cycles.

mod crates;
mod entry_points;
mod folders;
mod modules;

use std::path::Path;

/// The lines of the fenced block whose info string is `tag`
/// (```` ```tag ````), or an error if the map has no such block.
fn block<'a>(map: &'a str, tag: &str) -> Result<Vec<&'a str>, String> {
    let mut lines = map.lines();
    let fence = format!("```{tag}");
    lines
        .by_ref()
        .find(|l| l.trim_end() == fence)
        .ok_or_else(|| format!("ARCHITECTURE.md has no ```{tag} block"))?;
    Ok(lines
        .take_while(|l| l.trim_end() != "```")
        .filter(|l| !l.trim().is_empty())
        .collect())
}

/// The map's length limit: past it, it turns back into a file-by-file
/// inventory nobody reads.
const MAX_LINES: usize = 250;

/// Fails when the map is longer than [`MAX_LINES`].
fn length(map: &str) -> Result<(), String> {
    let lines = map.lines().count();
    if lines > MAX_LINES {
        return Err(format!(
            "- ARCHITECTURE.md has {lines} lines, the limit is {MAX_LINES}: say less per folder, or move detail into the module docs"
        ));
    }
    Ok(())
}

/// Runs every check and fails with all their findings at once.
pub fn check(root: &Path) -> Result<(), String> {
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md"))
        .map_err(|e| format!("cannot read ARCHITECTURE.md: {e}"))?;
    let findings: Vec<String> = [
        length(&map),
        folders::check(root, &map),
        entry_points::check(root, &map),
        crates::check(root, &map),
        modules::check(root, &map),
    ]
    .into_iter()
    .filter_map(Result::err)
    .collect();
    if findings.is_empty() {
        return Ok(());
    }
    Err(format!(
        "ARCHITECTURE.md and the code disagree:\n{}",
        findings.join("\n")
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_block_is_the_lines_between_its_fences() {
        let map = "text\n```crates\na -> b\n\nc ->\n```\n```other\nx\n```\n";
        assert_eq!(super::block(map, "crates").unwrap(), ["a -> b", "c ->"]);
        assert!(super::block(map, "knows").is_err());
    }

    #[test]
    fn a_map_over_the_limit_fails() {
        assert!(super::length(&"line\n".repeat(250)).is_ok());
        assert!(super::length(&"line\n".repeat(251)).is_err());
    }

    #[test]
    fn this_repository_passes() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap();
        if let Err(e) = super::check(root) {
            panic!("{e}");
        }
    }
}
