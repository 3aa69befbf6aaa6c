//! `cargo xtask cores`: the archive of old cores (`cores/archive/`).
//!
//! Every simulation version's core is kept as a wasm module built from the
//! adapter in `cores/adapter/` against that version's crates, so replays
//! recorded by any version still verify (`cores/README.md`). Which commit
//! a version is built from is a rule over history, not a choice:
//!
//! - a version that a later one replaced: the last commit that declares
//!   it (the parent of the commit that bumped it; the benchmarks' baseline
//!   rule), whose decoder reads everything that version ever recorded;
//! - the current version: the newest commit that changed its goldens
//!   (`golden/v<N>/`): its bump commit by golden/README.md's rule, or a
//!   later one that added a scenario (`golden --add-missing`), whose
//!   decoder reads everything that corpus holds (a scenario may use a
//!   definition field added within the version); while the corpus has
//!   changes not yet committed, the working tree (staged files included),
//!   recorded with no commit.
//!
//! `cargo xtask cores` builds what the manifest lacks or what is stale,
//! replays the corpus of every version whose fingerprint changed
//! (`archive_fingerprint.rs`) and records the fingerprints;
//! `cargo xtask cores --check` (the first check of `cargo xtask test`)
//! fails unless every version is fresh and frozen, which costs a second;
//! `cargo xtask cores --check --all` rebuilds every version and fails unless
//! each module's bytes equal the manifest's blake3 (reproducible builds:
//! pinned toolchain, remapped paths, one codegen unit, stripped symbols),
//! then replays every corpus.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::archive_fingerprint;
use crate::baseline::{checkout, current_version, git, introducing_commit};
use crate::tools::run;

/// Where the archive lives, relative to the project root.
const ARCHIVE: &str = "cores/archive";
/// The adapter's source files, relative to `cores/adapter/`.
const ADAPTER_FILES: &[&str] = &["Cargo.toml", "src/lib.rs"];
/// Where the adapter is copied inside an old tree.
const ADAPTER_IN_TREE: &str = "cores-adapter";

/// One manifest entry.
struct Entry {
    version: u32,
    commit: Option<String>,
    module: Vec<u8>,
    /// The fingerprint its corpus was last replayed under (None: never).
    fingerprint: Option<String>,
}

/// The commit version `version` is built from (None: the working tree).
fn source_commit(root: &Path, version: u32, current: u32) -> Result<Option<String>, String> {
    if version < current {
        return match introducing_commit(root, version + 1) {
            Ok(next) => git(root, &["rev-parse", &format!("{next}^")]).map(Some),
            // The bump to the current version is not committed yet: the
            // previous version's last commit is HEAD.
            Err(_) if version + 1 == current => git(root, &["rev-parse", "HEAD"]).map(Some),
            Err(e) => Err(e),
        };
    }
    let corpus = format!("golden/v{version}");
    // A corpus with changes not yet committed (a bump, or a scenario
    // added with `golden --add-missing`) is built from the working tree.
    if !git(root, &["status", "--porcelain", "--", &corpus])?.is_empty() {
        return Ok(None);
    }
    let newest = git(root, &["log", "-1", "--format=%H", "--", &corpus])?;
    Ok(Some(newest).filter(|c| !c.is_empty()))
}

/// The release profile every module is built with, whatever the old
/// tree's root manifest says (cargo's environment overrides it): whole-
/// program optimisation, no debug info, stripped, and panics abort (a trap
/// the host reports).
const RELEASE_PROFILE: &[(&str, &str)] = &[
    ("CARGO_PROFILE_RELEASE_OPT_LEVEL", "3"),
    ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1"),
    ("CARGO_PROFILE_RELEASE_LTO", "fat"),
    ("CARGO_PROFILE_RELEASE_DEBUG", "false"),
    ("CARGO_PROFILE_RELEASE_STRIP", "true"),
    ("CARGO_PROFILE_RELEASE_PANIC", "abort"),
    ("CARGO_PROFILE_RELEASE_INCREMENTAL", "false"),
];

/// How a module is built beyond the adapter's own manifest (see
/// `build_module`); change it with the flags so every module is rebuilt.
const BUILD_RECIPE: &str = "member of the old workspace; cargo build --release \
    --target wasm32-unknown-unknown -p skidpad-core-adapter; RELEASE_PROFILE; \
    RUSTFLAGS: --remap-path-prefix <canonical tree>=/skidpad <cargo home>=/cargo";

/// The blake3 of the adapter's files and the build recipe: a changed
/// adapter or recipe makes every module stale.
fn adapter_hash(root: &Path) -> Result<String, String> {
    let mut hasher = blake3::Hasher::new();
    hasher.update(BUILD_RECIPE.as_bytes());
    for file in ADAPTER_FILES {
        let bytes = std::fs::read(root.join("cores/adapter").join(file))
            .map_err(|e| format!("cannot read cores/adapter/{file}: {e}"))?;
        hasher.update(file.as_bytes());
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    Ok(hasher.finalize().to_hex().to_string())
}

/// The toolchain every module is built with: the one rust-toolchain.toml
/// pins today, whatever the old commit pinned.
fn pinned_toolchain(root: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(root.join("rust-toolchain.toml"))
        .map_err(|e| format!("cannot read rust-toolchain.toml: {e}"))?;
    text.lines()
        .find_map(|l| l.trim().strip_prefix("channel = \""))
        .map(|rest| rest.trim_end_matches('"').to_owned())
        .ok_or_else(|| "rust-toolchain.toml pins no channel".to_owned())
}

fn rustc_version(toolchain: &str) -> Result<String, String> {
    let out = Command::new("rustc")
        .arg("-V")
        .env("RUSTUP_TOOLCHAIN", toolchain)
        .output()
        .map_err(|e| format!("cannot run rustc: {e}"))?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Puts `commit` (or the working tree) in the build worktree, with the
/// adapter beside its crates and in its workspace.
fn prepare_tree(root: &Path, commit: Option<&str>) -> Result<PathBuf, String> {
    let tree = root.join("target/cores/src");
    let commit = match commit {
        Some(c) => c.to_owned(),
        // The working tree as a commit object (staged files included),
        // or HEAD when nothing differs.
        None => {
            let stash = git(root, &["stash", "create"])?;
            if stash.is_empty() {
                git(root, &["rev-parse", "HEAD"])?
            } else {
                stash
            }
        }
    };
    let adapter_dir = tree.join(ADAPTER_IN_TREE);
    if adapter_dir.exists() {
        std::fs::remove_dir_all(&adapter_dir).map_err(|e| e.to_string())?;
    }
    checkout(root, &tree, &commit)?;
    for file in ADAPTER_FILES {
        let to = adapter_dir.join(file);
        std::fs::create_dir_all(to.parent().unwrap_or(&adapter_dir)).map_err(|e| e.to_string())?;
        std::fs::copy(root.join("cores/adapter").join(file), &to)
            .map_err(|e| format!("cannot copy cores/adapter/{file}: {e}"))?;
    }
    // The adapter joins the old tree's workspace, so it builds with that
    // commit's Cargo.lock and cargo hashes only paths relative to the tree.
    let manifest = tree.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).map_err(|e| e.to_string())?;
    let joined = text.replacen(
        "members = [",
        &format!("members = [\"{ADAPTER_IN_TREE}\", "),
        1,
    );
    if joined == text {
        return Err("the old tree's Cargo.toml has no `members = [` list".into());
    }
    std::fs::write(&manifest, joined).map_err(|e| e.to_string())?;
    Ok(tree)
}

/// Builds the module of the commit in `tree` and returns its bytes.
fn build_module(root: &Path, tree: &Path, toolchain: &str) -> Result<Vec<u8>, String> {
    let target_dir = root.join("target/cores/build");
    let cargo_home = std::env::var("CARGO_HOME").unwrap_or_else(|_| {
        format!(
            "{}/.cargo",
            std::env::var("HOME").unwrap_or_else(|_| "/root".into())
        )
    });
    // Paths of this machine never reach the module: the tree and cargo's
    // home are renamed to fixed prefixes.
    // rustc sees the tree's canonical path (a symlinked target folder is
    // resolved), so that is the prefix to rename.
    let canonical = tree.canonicalize().map_err(|e| e.to_string())?;
    let rustflags = format!(
        "--remap-path-prefix={}=/skidpad --remap-path-prefix={cargo_home}=/cargo",
        canonical.display()
    );
    run(Command::new("cargo")
        .args([
            "build",
            "--release",
            "--quiet",
            "--target",
            "wasm32-unknown-unknown",
            "-p",
            "skidpad-core-adapter",
        ])
        .env("RUSTUP_TOOLCHAIN", toolchain)
        .env("RUSTFLAGS", rustflags)
        .env("CARGO_TARGET_DIR", &target_dir)
        .envs(RELEASE_PROFILE.iter().copied())
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .current_dir(tree))?;
    let wasm = target_dir.join("wasm32-unknown-unknown/release/skidpad_core_adapter.wasm");
    std::fs::read(&wasm).map_err(|e| format!("cannot read {}: {e}", wasm.display()))
}

fn module_file(version: u32) -> String {
    format!("v{version}.wasm.gz")
}

fn gzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).map_err(|e| e.to_string())?;
    encoder.finish().map_err(|e| e.to_string())
}

fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

fn blake3_hex(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

fn read_manifest(root: &Path) -> Result<Value, String> {
    let path = root.join(ARCHIVE).join("manifest.json");
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(json!({ "cores": [] })),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// The manifest's entry for `version`, if any.
fn manifest_entry(manifest: &Value, version: u32) -> Option<&Value> {
    manifest["cores"]
        .as_array()?
        .iter()
        .find(|e| e["version"].as_u64() == Some(u64::from(version)))
}

/// Whether the stored module of `version` is what the rule and the
/// adapter ask for, so it need not be rebuilt.
fn is_fresh(
    root: &Path,
    manifest: &Value,
    version: u32,
    commit: Option<&str>,
    current: bool,
    rustc: &str,
    adapter: &str,
) -> bool {
    let Some(entry) = manifest_entry(manifest, version) else {
        return false;
    };
    let same_source = match (commit, entry["commit"].as_str()) {
        (Some(want), Some(have)) => want == have,
        // Built from the working tree before its commit existed: the
        // commit that now holds the current version's goldens is that
        // build's source. A version a later one replaced is built from its
        // last commit instead, which that build predates.
        (Some(_), None) => current,
        (None, _) => true,
    };
    let stored = std::fs::read(root.join(ARCHIVE).join(module_file(version)))
        .ok()
        .and_then(|gz| gunzip(&gz).ok());
    same_source
        && entry["toolchain"].as_str() == Some(rustc)
        && entry["adapter"].as_str() == Some(adapter)
        && stored.is_some_and(|m| Some(blake3_hex(&m).as_str()) == entry["blake3"].as_str())
}

/// Where one archived version stands against the manifest and today's
/// inputs.
struct VersionState {
    version: u32,
    /// The commit the rule names (None: the working tree, or a shallow
    /// clone that cannot tell).
    commit: Option<String>,
    /// The stored module matches the manifest and the rule, toolchain and
    /// adapter it was built with are today's.
    fresh: bool,
    /// The fingerprint of today's inputs (None when the module is missing).
    fingerprint: Option<String>,
    /// The manifest's fingerprint, if it records one.
    recorded: Option<String>,
}

impl VersionState {
    fn frozen(&self) -> bool {
        self.fresh && self.fingerprint.is_some() && self.fingerprint == self.recorded
    }

    /// Why the version is not frozen, for the message.
    fn reason(&self) -> &'static str {
        if !self.fresh {
            "its module is missing or stale (source commit, toolchain or adapter)"
        } else if self.recorded.is_none() {
            "the manifest records no fingerprint for it"
        } else {
            "its corpus, module or host (cores/, wasmtime) changed since its fingerprint was recorded"
        }
    }
}

/// Where every archived version stands: its stored module against the
/// manifest, the commit rule and today's fingerprint.
fn version_states(root: &Path, manifest: &Value) -> Result<Vec<VersionState>, String> {
    let current = current_version(root)?;
    let toolchain = pinned_toolchain(root)?;
    let rustc = rustc_version(&toolchain)?;
    let adapter = adapter_hash(root)?;
    let shared = archive_fingerprint::Shared::read(root)?;
    let shallow = git(root, &["rev-parse", "--is-shallow-repository"])? == "true";
    let mut out = Vec::new();
    for version in 1..=current {
        let stored = std::fs::read(root.join(ARCHIVE).join(module_file(version)))
            .ok()
            .and_then(|gz| gunzip(&gz).ok());
        let fingerprint = stored
            .as_ref()
            .map(|module| {
                archive_fingerprint::of_version(
                    root,
                    version,
                    &blake3_hex(module),
                    &adapter,
                    &rustc,
                    &shared,
                )
            })
            .transpose()?;
        let entry = manifest_entry(manifest, version);
        // A shallow clone cannot name the source commits; the module's
        // bytes, which the fingerprint holds, still pin what was built.
        let (commit, fresh) = if shallow {
            let intact = stored.as_ref().is_some_and(|m| {
                entry.and_then(|e| e["blake3"].as_str()) == Some(blake3_hex(m).as_str())
            });
            (None, intact)
        } else {
            let commit = source_commit(root, version, current)?;
            let fresh = is_fresh(
                root,
                manifest,
                version,
                commit.as_deref(),
                version == current,
                &rustc,
                &adapter,
            );
            (commit, fresh)
        };
        out.push(VersionState {
            version,
            commit,
            fresh,
            fingerprint,
            recorded: entry
                .and_then(|e| e["fingerprint"].as_str())
                .map(str::to_owned),
        });
    }
    Ok(out)
}

/// The check `cargo xtask test` runs first, in about a second: every
/// version's module is fresh and its fingerprint is the one recorded.
/// Returns the frozen versions (all of them), which the tests then need not
/// replay (`SKIDPAD_ARCHIVE_FROZEN`); a version that is not frozen fails
/// the check, naming what to run.
pub fn frozen_versions(root: &Path) -> Result<Vec<u32>, String> {
    let manifest = read_manifest(root)?;
    let states = version_states(root, &manifest)?;
    let open: Vec<String> = states
        .iter()
        .filter(|s| !s.frozen())
        .map(|s| format!("v{}: {}", s.version, s.reason()))
        .collect();
    if !open.is_empty() {
        return Err(format!(
            "the archive of cores is not up to date:\n  {}\nrun `cargo xtask cores` (it rebuilds what is stale, replays those corpora through their modules and records the fingerprints), then commit cores/archive/",
            open.join("\n  ")
        ));
    }
    let versions: Vec<u32> = states.iter().map(|s| s.version).collect();
    println!(
        "cores: versions 1 to {} frozen (fingerprints match cores/archive/manifest.json)",
        versions.len()
    );
    Ok(versions)
}

/// `SKIDPAD_ARCHIVE_FROZEN`'s value: the versions the archive's tests need
/// not replay.
pub fn frozen_env(versions: &[u32]) -> String {
    versions
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// `cargo xtask cores [--check [--all]]`.
pub fn run_command(root: &Path, args: &[String]) -> Result<(), String> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        [] => record(root),
        ["--check"] => frozen_versions(root).map(drop),
        ["--check", "--all"] => rebuild_all(root),
        _ => Err("usage: cargo xtask cores [--check [--all]]".into()),
    }
}

/// Replays the corpora of every version not in `frozen` through the
/// archived modules (`cores/tests/every_version.rs`, release).
fn replay_corpora(root: &Path, frozen: &[u32]) -> Result<(), String> {
    run(Command::new(crate::tools::cargo())
        .args([
            "test",
            "--release",
            "-p",
            "skidpad-cores",
            "--test",
            "every_version",
        ])
        .env("SKIDPAD_ARCHIVE_FROZEN", frozen_env(frozen))
        .current_dir(root))
}

/// `cargo xtask cores`: builds what is missing or stale, replays the corpus
/// of every version whose fingerprint changed through its module, and only
/// then records the fingerprints.
fn record(root: &Path) -> Result<(), String> {
    let toolchain = pinned_toolchain(root)?;
    let rustc = rustc_version(&toolchain)?;
    let adapter = adapter_hash(root)?;
    let manifest = read_manifest(root)?;
    let mut entries = Vec::new();
    for state in version_states(root, &manifest)? {
        let version = state.version;
        if state.fresh {
            let gz = std::fs::read(root.join(ARCHIVE).join(module_file(version)))
                .map_err(|e| e.to_string())?;
            let commit = state.commit.clone().or_else(|| {
                manifest_entry(&manifest, version)
                    .and_then(|e| e["commit"].as_str())
                    .map(str::to_owned)
            });
            println!("v{version}: up to date");
            entries.push(Entry {
                version,
                commit,
                module: gunzip(&gz)?,
                fingerprint: state.recorded.clone(),
            });
            continue;
        }
        println!(
            "v{version}: building from {}",
            state.commit.as_deref().unwrap_or("the working tree")
        );
        let tree = prepare_tree(root, state.commit.as_deref())?;
        let module = build_module(root, &tree, &toolchain)?;
        entries.push(Entry {
            version,
            commit: state.commit.clone(),
            module,
            fingerprint: state.recorded.clone(),
        });
    }
    // The modules first, with the fingerprints they had: the tests read the
    // archive from disk, and a failed replay must leave nothing frozen.
    write_archive(root, &entries, &rustc, &adapter)?;
    let shared = archive_fingerprint::Shared::read(root)?;
    let mut frozen = Vec::new();
    let mut reopened = Vec::new();
    for entry in &mut entries {
        let now = archive_fingerprint::of_version(
            root,
            entry.version,
            &blake3_hex(&entry.module),
            &adapter,
            &rustc,
            &shared,
        )?;
        if entry.fingerprint.as_deref() == Some(now.as_str()) {
            frozen.push(entry.version);
        } else {
            reopened.push(entry.version);
            entry.fingerprint = Some(now);
        }
    }
    if reopened.is_empty() {
        println!("cores: every version frozen; nothing to replay");
        return Ok(());
    }
    println!("cores: replaying the corpora of {reopened:?} through their modules");
    replay_corpora(root, &frozen)?;
    write_archive(root, &entries, &rustc, &adapter)?;
    println!("cores: fingerprints recorded for {reopened:?}");
    Ok(())
}

/// `cargo xtask cores --check --all`: every module rebuilt from its source
/// commit and compared byte for byte with the manifest, and every corpus
/// replayed through its module, whatever the fingerprints say.
fn rebuild_all(root: &Path) -> Result<(), String> {
    if git(root, &["rev-parse", "--is-shallow-repository"])? == "true" {
        return Err("a shallow clone lacks the commits the modules are built from".into());
    }
    let current = current_version(root)?;
    let toolchain = pinned_toolchain(root)?;
    let manifest = read_manifest(root)?;
    let mut mismatches = Vec::new();
    for version in 1..=current {
        let commit = source_commit(root, version, current)?;
        println!(
            "v{version}: building from {}",
            commit.as_deref().unwrap_or("the working tree")
        );
        let tree = prepare_tree(root, commit.as_deref())?;
        let module = build_module(root, &tree, &toolchain)?;
        let want = manifest_entry(&manifest, version).and_then(|e| e["blake3"].as_str());
        let got = blake3_hex(&module);
        if want == Some(got.as_str()) {
            println!(
                "v{version}: identical ({} bytes, blake3 {got})",
                module.len()
            );
        } else {
            mismatches.push(format!(
                "v{version}: rebuilt module has blake3 {got}, the manifest says {}",
                want.unwrap_or("nothing")
            ));
        }
    }
    if !mismatches.is_empty() {
        return Err(mismatches.join("\n"));
    }
    println!("cores --check --all: all {current} modules rebuilt byte for byte");
    replay_corpora(root, &[])
}

fn write_archive(root: &Path, entries: &[Entry], rustc: &str, adapter: &str) -> Result<(), String> {
    let dir = root.join(ARCHIVE);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut cores = Vec::new();
    for entry in entries {
        let gz = gzip(&entry.module)?;
        std::fs::write(dir.join(module_file(entry.version)), &gz).map_err(|e| e.to_string())?;
        cores.push(json!({
            "version": entry.version,
            "commit": entry.commit,
            "toolchain": rustc,
            "adapter": adapter,
            "module": module_file(entry.version),
            "bytes": entry.module.len(),
            "compressed_bytes": gz.len(),
            "blake3": blake3_hex(&entry.module),
            "fingerprint": entry.fingerprint,
        }));
    }
    let manifest = json!({
        "abi_version": 1,
        "target": "wasm32-unknown-unknown",
        "cores": cores,
    });
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())? + "\n";
    std::fs::write(dir.join("manifest.json"), text).map_err(|e| e.to_string())?;
    println!("cores: {} modules in {ARCHIVE}/", entries.len());
    Ok(())
}
