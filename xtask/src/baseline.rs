//! The previous core, built beside the current one so `cargo xtask bench`
//! can time both in the same minutes (old vs new, interleaved).
//!
//! The baseline is the last commit before the current `SIMULATION_VERSION`
//! was introduced: the core whose bits the current version replaced. It is
//! checked out in a git worktree under `target/baseline-core/` and built
//! into its own target directory. Its `car_step_cpu` example is replaced by
//! the current one (the example only uses the public API), so both cores
//! are measured by the same harness and clock.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The simulation version the current tree declares.
pub(crate) fn current_version(root: &Path) -> Result<u32, String> {
    let lib = std::fs::read_to_string(root.join("sim-core/src/lib.rs"))
        .map_err(|e| format!("cannot read sim-core/src/lib.rs: {e}"))?;
    lib.lines()
        .find_map(|l| l.strip_prefix("pub const SIMULATION_VERSION: u32 = "))
        .and_then(|rest| rest.trim_end_matches(';').trim().parse().ok())
        .ok_or_else(|| "no SIMULATION_VERSION in sim-core/src/lib.rs".to_owned())
}

/// The trimmed standard output of a git command run in `root`.
pub(crate) fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The commit the baseline is built from, with the version it simulates.
pub struct Baseline {
    pub commit: String,
    pub version: u32,
    pub example: PathBuf,
}

/// The oldest commit whose sim-core/src/lib.rs declares `version`, or an
/// error when history does not have one (a shallow clone).
pub(crate) fn introducing_commit(root: &Path, version: u32) -> Result<String, String> {
    let needle = format!("pub const SIMULATION_VERSION: u32 = {version};");
    let introduced = git(
        root,
        &[
            "log",
            "--format=%H",
            "--reverse",
            "-S",
            &needle,
            "--",
            "sim-core/src/lib.rs",
        ],
    )?;
    introduced
        .lines()
        .next()
        .map(str::to_owned)
        .ok_or_else(|| format!("no commit introduces simulation version {version}"))
}

/// The parent of the commit that introduced the current version: the last
/// commit of the version before it.
fn baseline_commit(root: &Path, version: u32) -> Result<String, String> {
    let first = introducing_commit(root, version)?;
    git(root, &["rev-parse", &format!("{first}^")])
}

/// Puts `commit` in the git worktree at `tree`, adding the worktree the
/// first time and moving a previous run's to the commit after that.
pub(crate) fn checkout(root: &Path, tree: &Path, commit: &str) -> Result<(), String> {
    if tree.exists() {
        git(
            tree,
            &["checkout", "--quiet", "--force", "--detach", commit],
        )?;
    } else {
        let tree_arg = tree.to_string_lossy().into_owned();
        git(
            root,
            &["worktree", "add", "--detach", "--force", &tree_arg, commit],
        )?;
    }
    Ok(())
}

/// Checks out and builds the baseline's `car_step_cpu`.
pub fn build(root: &Path) -> Result<Baseline, String> {
    let current = current_version(root)?;
    let commit = baseline_commit(root, current)?;
    let tree = root.join("target/baseline-core");
    checkout(root, &tree, &commit)?;
    let version = current_version(&tree)?;
    // Today's harness on the old core: same clock, same output.
    std::fs::copy(
        root.join("sim-core/examples/car_step_cpu.rs"),
        tree.join("sim-core/examples/car_step_cpu.rs"),
    )
    .map_err(|e| format!("cannot copy the example into the baseline: {e}"))?;
    let manifest = tree.join("sim-core/Cargo.toml");
    let text = std::fs::read_to_string(&manifest).map_err(|e| e.to_string())?;
    if !text.contains("\nlibc") {
        let text = text.replacen(
            "[target.'cfg(not(target_arch = \"wasm32\"))'.dev-dependencies]\n",
            "[target.'cfg(not(target_arch = \"wasm32\"))'.dev-dependencies]\nlibc = \"0.2\"\n",
            1,
        );
        std::fs::write(&manifest, text).map_err(|e| e.to_string())?;
    }
    let example = crate::cpu_bench::build_example(&tree, &root.join("target/baseline-target"))?;
    Ok(Baseline {
        commit,
        version,
        example,
    })
}
