//! Type-checks and lints the repository's JavaScript (the viewer and the
//! npm package's own modules, tests and tools): TypeScript on the JS with
//! `checkJs` (`tsconfig.json`) against the wasm package's `.d.ts`, a
//! strict TypeScript game against that `.d.ts` at several targets, and
//! ESLint (`eslint.config.mjs`). Both are pinned in the root
//! `package-lock.json` and installed with `npm ci` when missing or stale.

use std::path::Path;
use std::process::Command;

use crate::tools::run;

fn bin(root: &Path, name: &str) -> std::path::PathBuf {
    root.join("node_modules/.bin").join(name)
}

/// ESLint, which needs nothing built: the first check that reads the
/// JavaScript, seconds into a run.
pub fn lint(root: &Path) -> Result<(), String> {
    install(root)?;
    run(Command::new(bin(root, "eslint")).current_dir(root))
        .map_err(|e| format!("eslint found problems: {e}"))
}

/// TypeScript's check of the JavaScript against the package's `.d.ts`: the
/// npm package and the viewer's dependencies (for uPlot's types) must be
/// in place, so it prepares them first (a no-op after the package check).
pub fn types(root: &Path) -> Result<(), String> {
    crate::viewer::prepare(root)?;
    install(root)?;
    run(Command::new(bin(root, "tsc"))
        .args(["-p", "."])
        .current_dir(root))
    .map_err(|e| format!("tsc --noEmit (checkJs) found type errors: {e}"))?;
    package_types(root)
}

/// The package's `.d.ts` from a game's side: a strict TypeScript sample
/// (`bindings-wasm/tests/types/`) compiled at each target a game may build
/// for, with that target's own library.
fn package_types(root: &Path) -> Result<(), String> {
    for target in ["es2020", "es2022", "esnext"] {
        run(Command::new(bin(root, "tsc"))
            .args([
                "-p",
                "bindings-wasm/tests/types",
                "--target",
                target,
                "--lib",
            ])
            .arg(format!("{target},dom"))
            .current_dir(root))
        .map_err(|e| format!("the package's .d.ts does not type-check at {target}: {e}"))?;
    }
    Ok(())
}

/// `npm ci` at the root when the tools are missing or the lockfile is
/// newer than what was installed.
fn install(root: &Path) -> Result<(), String> {
    let installed = root.join("node_modules/.package-lock.json");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let stale = match (
        modified(&installed),
        modified(&root.join("package-lock.json")),
    ) {
        (Some(have), Some(want)) => have < want,
        _ => true,
    };
    if stale {
        println!("==> npm ci at the root (TypeScript, ESLint)");
        run(Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(root))?;
    }
    Ok(())
}
