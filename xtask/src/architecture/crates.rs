//! The crate graph and which crates may know the outside world, compared
//! with `cargo metadata`.
//!
//! The ```` ```crates ```` block holds one line per workspace package:
//! `name -> dep dep` for its normal (and build) dependencies on other
//! workspace packages, and `name tests -> dep` for those only its tests,
//! examples and benchmarks use. The ```` ```knows ```` block holds one line
//! per family of outside crates: `family (crate crate): package package`,
//! where `package:bin` means only the package's binaries (`src/main.rs`,
//! `src/bin/`) may name them, and its library may not.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// One workspace package as `cargo metadata` describes it.
#[derive(Debug, Default)]
struct Package {
    /// Workspace packages among its normal and build dependencies.
    uses: BTreeSet<String>,
    /// Workspace packages among its dev-dependencies only.
    tests_use: BTreeSet<String>,
    /// Every dependency's name, of any kind.
    all: BTreeSet<String>,
    /// The folder of its manifest.
    dir: PathBuf,
}

/// One line of the `knows` block.
#[derive(Debug)]
struct Family {
    name: String,
    crates: Vec<String>,
    /// Allowed packages, and whether only their binaries may.
    allowed: BTreeMap<String, bool>,
}

/// Fails with every difference between the map's blocks and the workspace.
pub fn check(root: &Path, map: &str) -> Result<(), String> {
    let packages = packages(root)?;
    let declared = super::block(map, "crates")?;
    let families = super::block(map, "knows")?;
    let mut findings = graph_findings(&packages, &declared)?;
    findings.extend(knows_findings(&packages, &parse_families(&families)?));
    if findings.is_empty() {
        Ok(())
    } else {
        Err(findings.join("\n"))
    }
}

fn packages(root: &Path) -> Result<BTreeMap<String, Package>, String> {
    let out = Command::new(crate::tools::cargo())
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let json: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("cargo metadata printed no JSON: {e}"))?;
    parse_metadata(&json)
}

fn parse_metadata(json: &Value) -> Result<BTreeMap<String, Package>, String> {
    let list = json["packages"]
        .as_array()
        .ok_or("cargo metadata lists no packages")?;
    let names: BTreeSet<&str> = list.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut packages = BTreeMap::new();
    for p in list {
        let name = p["name"].as_str().ok_or("a package without a name")?;
        let mut package = Package {
            dir: PathBuf::from(p["manifest_path"].as_str().unwrap_or_default())
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
            ..Package::default()
        };
        for dep in p["dependencies"].as_array().into_iter().flatten() {
            let dep_name = dep["name"].as_str().unwrap_or_default().to_owned();
            if names.contains(dep_name.as_str()) {
                if dep["kind"].as_str() == Some("dev") {
                    package.tests_use.insert(dep_name.clone());
                } else {
                    package.uses.insert(dep_name.clone());
                }
            }
            package.all.insert(dep_name);
        }
        let normal = package.uses.clone();
        package.tests_use.retain(|d| !normal.contains(d));
        packages.insert(name.to_owned(), package);
    }
    Ok(packages)
}

fn graph_findings(
    packages: &BTreeMap<String, Package>,
    declared: &[&str],
) -> Result<Vec<String>, String> {
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut tests_use: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in declared {
        let (left, right) = line
            .split_once("->")
            .ok_or_else(|| format!("```crates line without `->`: {line}"))?;
        let deps = right.split_whitespace().map(str::to_owned).collect();
        match left.split_whitespace().collect::<Vec<_>>()[..] {
            [name] => uses.insert(name.to_owned(), deps),
            [name, "tests"] => tests_use.insert(name.to_owned(), deps),
            _ => {
                return Err(format!(
                    "```crates line not `name ->` or `name tests ->`: {line}"
                ));
            }
        };
    }
    let mut findings = Vec::new();
    for (name, package) in packages {
        let Some(declared_uses) = uses.get(name) else {
            findings.push(format!("- crate graph: `{name}` has no line"));
            continue;
        };
        let none = BTreeSet::new();
        let declared_tests = tests_use.get(name).unwrap_or(&none);
        for (what, actual, map) in [
            ("depends on", &package.uses, declared_uses),
            ("tests depend on", &package.tests_use, declared_tests),
        ] {
            for d in actual.difference(map) {
                findings.push(format!(
                    "- crate graph: `{name}` {what} `{d}`, the map does not say so"
                ));
            }
            for d in map.difference(actual) {
                findings.push(format!(
                    "- crate graph: the map says `{name}` {what} `{d}`; it does not"
                ));
            }
        }
    }
    for name in uses.keys().chain(tests_use.keys()) {
        if !packages.contains_key(name) {
            findings.push(format!(
                "- crate graph: `{name}` is not a workspace package"
            ));
        }
    }
    Ok(findings)
}

fn parse_families(lines: &[&str]) -> Result<Vec<Family>, String> {
    lines
        .iter()
        .map(|line| {
            let bad = || format!("```knows line not `family (crate …): package …`: {line}");
            let (name, rest) = line.split_once('(').ok_or_else(bad)?;
            let (crates, allowed) = rest.split_once("):").ok_or_else(bad)?;
            Ok(Family {
                name: name.trim().to_owned(),
                crates: crates.split_whitespace().map(str::to_owned).collect(),
                allowed: allowed
                    .split_whitespace()
                    .map(|p| match p.strip_suffix(":bin") {
                        Some(p) => (p.to_owned(), true),
                        None => (p.to_owned(), false),
                    })
                    .collect(),
            })
        })
        .collect()
}

fn knows_findings(packages: &BTreeMap<String, Package>, families: &[Family]) -> Vec<String> {
    let mut findings = Vec::new();
    for family in families {
        for (name, package) in packages {
            let knows: Vec<&String> = family
                .crates
                .iter()
                .filter(|c| package.all.contains(*c))
                .collect();
            match family.allowed.get(name) {
                _ if knows.is_empty() => {}
                None => findings.push(format!(
                    "- `{name}` knows {} ({}); the map allows only {}",
                    family.name,
                    knows
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    family
                        .allowed
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                Some(true) => {
                    for c in knows {
                        for file in library_files_naming(&package.dir, c) {
                            findings.push(format!(
                                "- `{name}`'s library names `{c}` in {file}; the map allows {} only in its binaries",
                                family.name
                            ));
                        }
                    }
                }
                Some(false) => {}
            }
        }
    }
    findings
}

/// The library sources of the package in `dir` (everything under `src/`
/// but `main.rs` and `bin/`) that name crate `c` in code.
fn library_files_naming(dir: &Path, c: &str) -> Vec<String> {
    let ident = c.replace('-', "_");
    let mut found = Vec::new();
    let mut stack = vec![dir.join("src")];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let file_name = entry.file_name();
            if path.is_dir() {
                if file_name != "bin" {
                    stack.push(path);
                }
            } else if file_name != "main.rs"
                && path.extension().is_some_and(|e| e == "rs")
                && std::fs::read_to_string(&path).is_ok_and(|text| names_crate(&text, &ident))
            {
                found.push(path.display().to_string());
            }
        }
    }
    found.sort();
    found
}

/// True when code (not comments) in `text` names crate `ident`.
fn names_crate(text: &str, ident: &str) -> bool {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .any(|code| code.contains(&format!("{ident}::")) || code.contains(&format!("use {ident}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata() -> BTreeMap<String, Package> {
        let json = serde_json::json!({"packages": [
            {"name": "core", "manifest_path": "/w/core/Cargo.toml", "dependencies": [
                {"name": "libm", "kind": null},
                {"name": "fixtures", "kind": "dev"}]},
            {"name": "fixtures", "manifest_path": "/w/fixtures/Cargo.toml", "dependencies": [
                {"name": "core", "kind": null}]},
            {"name": "cli", "manifest_path": "/w/cli/Cargo.toml", "dependencies": [
                {"name": "core", "kind": null}, {"name": "clap", "kind": null},
                {"name": "core", "kind": "dev"}]},
        ]});
        parse_metadata(&json).unwrap()
    }

    #[test]
    fn the_declared_graph_must_equal_cargo_metadata() {
        let packages = metadata();
        let right = [
            "core ->",
            "core tests -> fixtures",
            "fixtures -> core",
            "cli -> core",
        ];
        assert_eq!(
            graph_findings(&packages, &right).unwrap(),
            Vec::<String>::new()
        );
        // A dependency the map leaves out, one it invents, a missing line.
        let wrong = ["core ->", "fixtures -> core cli"];
        assert_eq!(
            graph_findings(&packages, &wrong).unwrap(),
            [
                "- crate graph: `cli` has no line",
                "- crate graph: `core` tests depend on `fixtures`, the map does not say so",
                "- crate graph: the map says `fixtures` depends on `cli`; it does not",
            ]
        );
    }

    #[test]
    fn only_allowed_crates_know_a_family() {
        let packages = metadata();
        let allowed = parse_families(&["terminal (clap indicatif): cli"]).unwrap();
        assert!(knows_findings(&packages, &allowed).is_empty());
        let refused = parse_families(&["terminal (clap indicatif): fixtures"]).unwrap();
        assert_eq!(
            knows_findings(&packages, &refused),
            ["- `cli` knows terminal (clap); the map allows only fixtures"]
        );
    }

    #[test]
    fn crate_names_in_comments_do_not_count() {
        assert!(names_crate("#[derive(clap::ValueEnum)]", "clap"));
        assert!(names_crate("use clap::Parser;", "clap"));
        assert!(!names_crate("// parsed by clap:: in main.rs", "clap"));
        assert!(!names_crate("let clapped = 1;", "clap"));
    }
}
