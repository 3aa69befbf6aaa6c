//! Type-checks and lints the repository's JavaScript (the viewer and the
//! npm package's own modules, tests and tools): TypeScript on the JS with
//! `checkJs` (`tsconfig.json`) against the wasm package's `.d.ts`, and
//! ESLint (`eslint.config.mjs`). Both are pinned in the root
//! `package-lock.json` and installed with `npm ci` when missing or stale.

use std::path::Path;
use std::process::Command;

use crate::tools::run;

/// Runs both checks; the npm package and the viewer's dependencies (for
/// uPlot's types) must be in place, so it prepares them first.
pub fn check(root: &Path) -> Result<(), String> {
    crate::viewer::prepare(root)?;
    install(root)?;
    let bin = |name: &str| root.join("node_modules/.bin").join(name);
    run(Command::new(bin("tsc")).args(["-p", "."]).current_dir(root))
        .map_err(|e| format!("tsc --noEmit (checkJs) found type errors: {e}"))?;
    run(Command::new(bin("eslint")).current_dir(root))
        .map_err(|e| format!("eslint found problems: {e}"))
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
