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

use crate::tools::{cargo, ensure_wasm_tools, run, test_binaries};

/// The package's manifest; `{version}` is the workspace version.
const PACKAGE_JSON: &str = r#"{
  "name": "skidpad",
  "version": "{version}",
  "description": "Deterministic vehicle simulation with replays and ghosts (the skidpad SDK built for wasm)",
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
    "./web": {
      "types": "./web/skidpad_wasm.d.ts",
      "default": "./web/skidpad_wasm.js"
    },
    "./node": {
      "types": "./node/skidpad_wasm.d.ts",
      "default": "./node/skidpad_wasm.js"
    },
    "./spectator": "./spectator.mjs"
  },
  "files": ["web/", "node/", "spectator.mjs", "README.md"],
  "sideEffects": false
}
"#;

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
        // No name section: 189 kB of function names that only a debugger
        // reads, and a published module is not debugged.
        run(Command::new("wasm-bindgen")
            .args(["--target", target, "--remove-name-section", "--out-dir"])
            .arg(&out)
            .arg(&wasm))?;
        declare_symbol_dispose(&out.join("skidpad_wasm.d.ts"))?;
        // Each half declares its own module system, whatever the root says.
        write(
            &out.join("package.json"),
            &json!({ "type": module_type }).to_string(),
        )?;
    }
    share_one_wasm(&pkg)?;
    // Written as text: condition order in "exports" matters (node takes
    // the first match), and serde_json's maps would sort the keys.
    let manifest = PACKAGE_JSON.replace("{version}", env!("CARGO_PKG_VERSION"));
    write(&pkg.join("package.json"), &manifest)?;
    fs::copy(root.join("bindings-wasm/README.md"), pkg.join("README.md"))
        .map_err(|e| format!("cannot copy the package README: {e}"))?;
    fs::copy(
        root.join("bindings-wasm/js/spectator.mjs"),
        pkg.join("spectator.mjs"),
    )
    .map_err(|e| format!("cannot copy the spectator client: {e}"))?;
    println!("==> npm package written to {}", pkg.display());
    Ok(pkg)
}

/// Makes the node half load the web half's wasm and deletes its own copy:
/// wasm-bindgen writes the same module for both targets, and the package
/// shipped it twice (1.8 MB more in every install). Fails, naming this
/// function, when a wasm-bindgen release writes two different modules or
/// loads it another way, rather than ship a package whose node half
/// cannot start.
fn share_one_wasm(pkg: &Path) -> Result<(), String> {
    let read = |p: &Path| fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()));
    let web = pkg.join("web/skidpad_wasm_bg.wasm");
    let node = pkg.join("node/skidpad_wasm_bg.wasm");
    if read(&web)? != read(&node)? {
        return Err("wasm-bindgen wrote different modules for web and node: the package cannot ship one (xtask/src/wasm.rs, share_one_wasm)".into());
    }
    let loader = pkg.join("node/skidpad_wasm.js");
    let text =
        String::from_utf8(read(&loader)?).map_err(|e| format!("{}: {e}", loader.display()))?;
    let own = "const wasmPath = `${__dirname}/skidpad_wasm_bg.wasm`;";
    if !text.contains(own) {
        return Err("the node loader no longer names its wasm as it did (a wasm-bindgen update?): xtask/src/wasm.rs, share_one_wasm".into());
    }
    write(
        &loader,
        &text.replace(
            own,
            "const wasmPath = `${__dirname}/../web/skidpad_wasm_bg.wasm`;",
        ),
    )?;
    fs::remove_file(&node).map_err(|e| format!("cannot delete {}: {e}", node.display()))
}

/// Declares `Symbol.dispose` in a `.d.ts` that uses it. wasm-bindgen gives
/// every class a `[Symbol.dispose]()` method, which TypeScript's libraries
/// declare only from `esnext`: a game compiling at `es2022` got 20 × TS2550.
/// The same declaration as TypeScript's own (`unique symbol`), so it merges
/// with it where `esnext` is on.
fn declare_symbol_dispose(d_ts: &Path) -> Result<(), String> {
    let text =
        fs::read_to_string(d_ts).map_err(|e| format!("cannot read {}: {e}", d_ts.display()))?;
    if !text.contains("[Symbol.dispose]") {
        return Ok(());
    }
    let declaration = "declare global {\n    interface SymbolConstructor {\n        /** Explicit resource management (`using`); declared by TypeScript's esnext library too. */\n        readonly dispose: unique symbol;\n    }\n}\n\n";
    write(d_ts, &format!("{declaration}{text}"))
}

/// Runs the node tests (`bindings-wasm/tests/*.test.mjs`) on the package,
/// with the spectator service's binary built for the live-race test and
/// the `skidpad` binary for the native side of the cross-target checks.
pub fn node_tests(root: &Path) -> Result<(), String> {
    let binaries = test_binaries(root)?;
    let spectator = binaries.join("skidpad-spectator");
    let dir = root.join("bindings-wasm/tests");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    files.sort();
    let scenes = crate::python::write_test_scenes(root, &crate::python::ensure(root)?)?;
    run(Command::new("node")
        .arg("--test")
        .args(&files)
        .env("SKIDPAD_TEST_SCENES", scenes)
        .env("SKIDPAD_REQUIRE_SCENES", "1")
        .env("SKIDPAD_SPECTATOR_BIN", spectator)
        .env("SKIDPAD_BIN", binaries.join("skidpad"))
        .current_dir(root))
}

/// `bindings-wasm/browser/run.mjs chromium`: the page in headless
/// Chromium (V8).
pub fn chromium_test(root: &Path) -> Result<(), String> {
    browser_test(root, "chromium")
}

/// The page in headless Firefox ESR, once with wasm compiled by Ion only
/// and once by the baseline compiler only (SpiderMonkey).
pub fn firefox_test(root: &Path) -> Result<(), String> {
    browser_test(root, "firefox")
}

/// The page in WebKitGTK's MiniBrowser under Xvfb (JavaScriptCore), with
/// its default tiers, with the JIT off, and with BBQ only.
pub fn webkit_test(root: &Path) -> Result<(), String> {
    browser_test(root, "webkit")
}

/// Runs `bindings-wasm/browser/run.mjs ENGINE` (the package must be built:
/// the package check before this one does it). The browsers themselves
/// are Debian packages ([`crate::tools::check_prerequisites`] names them).
fn browser_test(root: &Path, engine: &str) -> Result<(), String> {
    run(Command::new("node")
        .args(["run.mjs", engine])
        .current_dir(root.join("bindings-wasm/browser")))
}

/// The replays recorded in wasm that [`verify_wasm_recordings`] checks:
/// the node test's and one per browser tier (`run.mjs` names them).
const WASM_RECORDINGS: &[&str] = &[
    "recorded-in-wasm",
    "recorded-in-chromium-default",
    "recorded-in-firefox-ion",
    "recorded-in-firefox-baseline",
    "recorded-in-webkit-default",
    "recorded-in-webkit-nojit",
    "recorded-in-webkit-bbq",
];

/// Verifies natively (with `skidpad verify --json`) the replays that the
/// node test and every browser recorded in wasm, and checks that each final
/// hash equals the one wasm computed.
pub fn verify_wasm_recordings(root: &Path) -> Result<(), String> {
    let dir = root.join("target/wasm-cross");
    let names = WASM_RECORDINGS;
    let files: Vec<PathBuf> = names.iter().map(|n| dir.join(format!("{n}.skr"))).collect();
    let skidpad = test_binaries(root)?.join("skidpad");
    let out = Command::new(skidpad)
        .args(["verify", "--json"])
        .args(&files)
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run skidpad verify: {e}"))?;
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "skidpad verify printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let entries = report["files"].as_array().cloned().unwrap_or_default();
    if entries.len() != names.len() {
        return Err(format!("skidpad verify reported {} files", entries.len()));
    }
    for (name, entry) in names.iter().zip(&entries) {
        let wasm_hash = fs::read_to_string(dir.join(format!("{name}.hash")))
            .map_err(|e| format!("cannot read {name}.hash: {e}"))?;
        let native_hash = entry["final_hash"].as_str().unwrap_or("");
        if entry["ok"] != true || entry["desyncs"] != 0 || native_hash != wasm_hash.trim() {
            return Err(format!(
                "{name}.skr does not verify natively with wasm's hash {}: {entry}",
                wasm_hash.trim()
            ));
        }
        println!("ok  {name}.skr verified natively: 0 desyncs, final {native_hash}");
    }
    if !out.status.success() {
        return Err(format!("skidpad verify exited with {}", out.status));
    }
    Ok(())
}
