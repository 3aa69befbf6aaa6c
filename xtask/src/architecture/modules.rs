//! sim-core's layering, read from its `crate::` paths.
//!
//! Every file under `sim-core/src/` belongs to a top-level module: a root
//! file (`ids.rs` is `ids`) or a folder (`model/wheel.rs` is `model`). A
//! `crate::name` path in code (in `use` lines or inline; comments and
//! `#[cfg(test)]` modules are skipped: a unit test may build a `World`)
//! makes its module depend on `name`'s module, looking names up
//! through `lib.rs`'s `pub use` lines. The ```` ```sim-core-layers ````
//! block lists the root modules on a `root:` line and the folders in
//! order on a `folders:` line: root modules may use only root modules, a
//! folder only root modules and the folders before it, and no modules
//! may form a cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module's dependencies on other top-level modules.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// Fails listing every import against the layers, every module the block
/// does not place, and every cycle.
pub fn check(root: &Path, map: &str) -> Result<(), String> {
    let src = root.join("sim-core/src");
    let lib = std::fs::read_to_string(src.join("lib.rs"))
        .map_err(|e| format!("cannot read sim-core/src/lib.rs: {e}"))?;
    let mut files = Vec::new();
    collect_files(&src, &src, &mut files)?;
    let graph = graph(&lib, &files)?;
    let (roots, folders) = parse_layers(&super::block(map, "sim-core-layers")?)?;
    let mut findings = layer_findings(&graph, &roots, &folders);
    findings
        .extend(cycle(&graph).map(|c| format!("- sim-core: a module cycle: {}", c.join(" -> "))));
    if findings.is_empty() {
        Ok(())
    } else {
        Err(findings.join("\n"))
    }
}

/// Every `.rs` file under `dir` but `lib.rs`, as (path inside `src`, text).
fn collect_files(src: &Path, dir: &Path, out: &mut Vec<(String, String)>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(src, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            let inside = path
                .strip_prefix(src)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            if inside != "lib.rs" {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                out.push((inside, text));
            }
        }
    }
    Ok(())
}

fn parse_layers(lines: &[&str]) -> Result<(Vec<String>, Vec<String>), String> {
    let field = |key: &str| {
        lines
            .iter()
            .find_map(|l| l.trim().strip_prefix(key))
            .map(|rest| {
                rest.split(|c: char| c.is_whitespace() || c == '→' || c == '>' || c == '-')
                    .filter(|w| !w.is_empty())
                    .map(|w| w.trim_matches(|c| c == '`' || c == '/').to_owned())
                    .collect::<Vec<_>>()
            })
            .ok_or_else(|| format!("```sim-core-layers has no `{key}` line"))
    };
    Ok((field("root:")?, field("folders:")?))
}

/// The top-level module a name of `lib.rs`'s namespace lives in: modules
/// by their own names, re-exported items through `pub use`.
fn namespace(lib: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    let code = without_comments(lib);
    for statement in code.split(';') {
        let s = statement.trim();
        if let Some(m) = s
            .strip_prefix("pub mod ")
            .or_else(|| s.strip_prefix("mod "))
        {
            names.insert(m.trim().to_owned(), m.trim().to_owned());
        } else if let Some(path) = s.strip_prefix("pub use ") {
            let module = path.split("::").next().unwrap_or("").trim().to_owned();
            for item in last_names(path) {
                names.insert(item, module.clone());
            }
        }
    }
    names
}

/// The names a `use` path brings in: the last segment, or each one of a
/// `{…}` group.
fn last_names(path: &str) -> Vec<String> {
    let group = match (path.find('{'), path.rfind('}')) {
        (Some(a), Some(b)) if a < b => &path[a + 1..b],
        _ => path.rsplit("::").next().unwrap_or(""),
    };
    group
        .split(',')
        .filter_map(|p| {
            let last = p.rsplit("::").next()?.trim();
            let last = last.split(" as ").last()?.trim();
            (!last.is_empty()).then(|| last.to_owned())
        })
        .collect()
}

fn without_comments(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `code` without its `#[cfg(test)] mod … { … }` blocks (braces counted;
/// the code has no comments left to unbalance them).
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let Some(open) = after.find('{') else {
            return out;
        };
        if !after["#[cfg(test)]".len()..open]
            .trim_start()
            .starts_with("mod ")
        {
            // A test-only item that is not a module: keep it.
            out.push_str(&after[..open]);
            rest = &after[open..];
            continue;
        }
        let body = &after[open + 1..];
        rest = &body[closing_brace(body).map_or(body.len(), |i| i + 1)..];
    }
    out.push_str(rest);
    out
}

/// The index of the `}` closing a brace opened just before `text`.
fn closing_brace(text: &str) -> Option<usize> {
    let mut depth = 1;
    text.char_indices()
        .find(|&(_, c)| {
            depth += match c {
                '{' => 1,
                '}' => -1,
                _ => 0,
            };
            depth == 0
        })
        .map(|(i, _)| i)
}

/// The first segment of every `crate::` path in `code`, groups expanded.
fn crate_paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let preceded = rest[..at]
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        rest = &rest[at + "crate::".len()..];
        if preceded {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = closing_brace(group).unwrap_or(group.len());
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in group[..end].char_indices().chain([(end, ',')]) {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.extend(first_segment(&group[start..i]));
                        start = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            found.extend(first_segment(rest));
        }
    }
    found
}

fn first_segment(path: &str) -> Option<String> {
    let ident: String = path
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!ident.is_empty() && ident != "self").then_some(ident)
}

/// The module graph of `files` (paths inside `src/` with their text).
fn graph(lib: &str, files: &[(String, String)]) -> Result<Graph, String> {
    let names = namespace(lib);
    let lib_items = without_comments(lib);
    let mut graph = Graph::new();
    for (path, text) in files {
        let module = path
            .split('/')
            .next()
            .unwrap_or(path)
            .trim_end_matches(".rs")
            .to_owned();
        let deps = graph.entry(module.clone()).or_default();
        for name in crate_paths(&without_tests(&without_comments(text))) {
            match names.get(&name) {
                Some(target) if *target != module => {
                    deps.insert(target.clone());
                }
                Some(_) => {}
                // Items of lib.rs itself (SIMULATION_VERSION) and macros
                // belong to no module.
                None if lib_items.contains(&name)
                    || text.contains(&format!("macro_rules! {name}")) => {}
                None => {
                    return Err(format!(
                        "- sim-core: {path} names `crate::{name}`, which lib.rs neither declares nor re-exports"
                    ));
                }
            }
        }
    }
    Ok(graph)
}

fn layer_findings(graph: &Graph, roots: &[String], folders: &[String]) -> Vec<String> {
    let rank = |m: &str| -> Option<usize> {
        if roots.iter().any(|r| r == m) {
            Some(0)
        } else {
            folders.iter().position(|f| f == m).map(|i| i + 1)
        }
    };
    let mut findings = Vec::new();
    for (module, deps) in graph {
        let Some(own) = rank(module) else {
            findings.push(format!(
                "- sim-core: module `{module}` is in no layer of the map"
            ));
            continue;
        };
        for dep in deps {
            let allowed = match rank(dep) {
                Some(0) => true,
                Some(r) => own > r,
                None => false,
            };
            if !allowed {
                findings.push(format!(
                    "- sim-core: `{module}` uses `{dep}`, against the layer order"
                ));
            }
        }
    }
    findings
}

/// One cycle of the graph, as the modules along it (first repeated last).
fn cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit<'a>(
        m: &'a str,
        graph: &'a Graph,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| *p == m) {
            let mut c: Vec<String> = path[i..].iter().map(|s| (*s).to_owned()).collect();
            c.push(m.to_owned());
            return Some(c);
        }
        if !done.insert(m) {
            return None;
        }
        path.push(m);
        for dep in graph.get(m).into_iter().flatten() {
            if let Some(c) = visit(dep, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIB: &str = "mod error;\nmod ids;\nmod world;\npub mod race;\n\
        pub use error::{CoreError, Result};\npub use ids::{CarId,\n    Wheel};\n\
        pub use world::World;\npub const SIMULATION_VERSION: u32 = 9;\n";

    fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
            .collect()
    }

    #[test]
    fn paths_resolve_through_the_re_exports() {
        assert_eq!(
            crate_paths(
                "use crate::{CarId, world::car::{Car, X}};\nlet v = crate::SIMULATION_VERSION; my_crate::x"
            ),
            ["CarId", "world", "SIMULATION_VERSION"]
        );
        let g = graph(
            LIB,
            &files(&[
                (
                    "race/mod.rs",
                    "use crate::{World, CarId};\n// crate::error in a comment",
                ),
                ("ids.rs", "let v = crate::SIMULATION_VERSION;"),
            ]),
        )
        .unwrap();
        assert_eq!(
            g["race"],
            BTreeSet::from(["ids".to_owned(), "world".to_owned()])
        );
        assert!(g["ids"].is_empty());
        assert!(graph(LIB, &files(&[("ids.rs", "crate::Nowhere")])).is_err());
    }

    #[test]
    fn test_modules_are_left_out() {
        let code = "use crate::a;\n#[cfg(test)]\nmod tests {\n    fn f() { crate::World::new(); }\n}\nuse crate::b;";
        assert_eq!(crate_paths(&without_tests(code)), ["a", "b"]);
    }

    #[test]
    fn imports_against_the_layers_and_cycles_are_found() {
        let g = graph(
            LIB,
            &files(&[
                ("error.rs", "use crate::CarId;"),
                ("ids.rs", "use crate::{CoreError, World};"),
                ("world/mod.rs", "use crate::race::Lap;"),
                ("race/mod.rs", "use crate::World;"),
            ]),
        )
        .unwrap();
        let (roots, folders) =
            parse_layers(&["root: error ids", "folders: `world/` → `race/`"]).unwrap();
        assert_eq!(folders, ["world", "race"]);
        assert_eq!(
            layer_findings(&g, &roots, &folders),
            [
                "- sim-core: `ids` uses `world`, against the layer order",
                "- sim-core: `world` uses `race`, against the layer order",
            ]
        );
        assert_eq!(cycle(&g).unwrap(), ["error", "ids", "error"]);
        assert!(
            layer_findings(&g, &roots, &["world".to_owned()])
                .contains(&"- sim-core: module `race` is in no layer of the map".to_owned())
        );
    }
}
