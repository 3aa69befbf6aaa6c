//! The npm package (`bindings-wasm/pkg/`) and the checks that run it.
//!
//! `build_package` compiles `skidpad-wasm` for wasm32 in release and runs
//! the wasm-bindgen CLI of the pinned version twice: `--target web` (an ES
//! module for browsers and bundlers, with `.d.ts`) into `pkg/web/` and
//! `--target nodejs` (CommonJS, with `.d.ts`) into `pkg/node/`. The
//! package.json routes `import "skidpad"` to the right one.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use crate::tools::{cargo, ensure_wasm_tools, run};

/// Where the package is written.
pub fn package_dir(root: &Path) -> PathBuf {
    root.join("bindings-wasm").join("pkg")
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Builds the npm package and returns its directory.
pub fn build_package(root: &Path) -> Result<PathBuf, String> {
    ensure_wasm_tools(root)?;
    println!("==> building skidpad-wasm for wasm32 (release)");
    run(Command::new(cargo())
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-unknown-unknown",
            "-p",
            "skidpad-wasm",
        ])
        .current_dir(root))?;
    let wasm = root.join("target/wasm32-unknown-unknown/release/skidpad_wasm.wasm");
    let pkg = package_dir(root);
    if pkg.exists() {
        fs::remove_dir_all(&pkg).map_err(|e| format!("cannot clear {}: {e}", pkg.display()))?;
    }
    for (target, dir, module_type) in [("web", "web", "module"), ("nodejs", "node", "commonjs")] {
        let out = pkg.join(dir);
        run(Command::new("wasm-bindgen")
            .args(["--target", target, "--out-dir"])
            .arg(&out)
            .arg(&wasm))?;
        // Each half declares its own module system, whatever the root says.
        write(
            &out.join("package.json"),
            &json!({ "type": module_type }).to_string(),
        )?;
    }
    let manifest = json!({
        "name": "skidpad",
        "version": env!("CARGO_PKG_VERSION"),
        "description": "Deterministic vehicle simulation with replays and ghosts (wasm build of the skidpad SDK)",
        "license": "MIT OR Apache-2.0",
        "type": "module",
        "main": "./node/skidpad_wasm.js",
        "types": "./web/skidpad_wasm.d.ts",
        "exports": {
            ".": {
                "node": {
                    "types": "./node/skidpad_wasm.d.ts",
                    "default": "./node/skidpad_wasm.js"
                },
                "default": {
                    "types": "./web/skidpad_wasm.d.ts",
                    "default": "./web/skidpad_wasm.js"
                }
            },
            "./web": "./web/skidpad_wasm.js",
            "./node": "./node/skidpad_wasm.js"
        },
        "files": ["web/", "node/", "README.md"],
        "sideEffects": false
    });
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    write(&pkg.join("package.json"), &(text + "\n"))?;
    fs::copy(root.join("bindings-wasm/README.md"), pkg.join("README.md"))
        .map_err(|e| format!("cannot copy the package README: {e}"))?;
    println!("==> npm package written to {}", pkg.display());
    Ok(pkg)
}

/// Runs the node tests (`bindings-wasm/tests/*.test.mjs`) on the package.
pub fn node_tests(root: &Path) -> Result<(), String> {
    let dir = root.join("bindings-wasm/tests");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    files.sort();
    run(Command::new("node")
        .arg("--test")
        .args(&files)
        .current_dir(root))
}
