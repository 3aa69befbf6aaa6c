//! The project's Python virtualenv under `target/`, holding the PyPI
//! packages that checks run, each pinned: `wasmtime` (the wasip1 golden
//! checks run under it, `wasi.rs`) and `pygltflib` (it writes the glTF
//! circuit the tests import, as a tool that is not skidpad would:
//! [`write_test_scenes`]). Made, or updated, when a package lacks its
//! version; otherwise left alone (a second).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::tools;

/// The pygltflib release the glTF scene is written with.
const PYGLTFLIB: &str = "1.16.5";

/// The virtualenv's python, with every package at its pinned version.
pub fn ensure(root: &Path) -> Result<PathBuf, String> {
    let venv = root.join("target/python-venv");
    let python = venv.join("bin/python");
    let pinned = [
        ("wasmtime", crate::wasi::WASMTIME),
        ("pygltflib", PYGLTFLIB),
    ];
    let missing: Vec<String> = pinned
        .iter()
        .filter(|(package, version)| installed(&python, package).as_deref() != Some(*version))
        .map(|(package, version)| format!("{package}=={version}"))
        .collect();
    if missing.is_empty() {
        return Ok(python);
    }
    println!(
        "==> installing {} (PyPI) into {}",
        missing.join(", "),
        venv.display()
    );
    if !python.exists() {
        tools::run(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
    }
    tools::run(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(&missing),
    )?;
    Ok(python)
}

/// The version of `package` the virtualenv holds, if any.
fn installed(python: &Path, package: &str) -> Option<String> {
    Command::new(python)
        .args([
            "-c",
            &format!("import importlib.metadata as m; print(m.version('{package}'))"),
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
}

/// Runs `track-import/tests/gltf/write_scene.py` (pygltflib) into
/// `target/test-scenes/` and returns that folder, which the tests read
/// through `SKIDPAD_TEST_SCENES`.
pub fn write_test_scenes(root: &Path, python: &Path) -> Result<PathBuf, String> {
    let out = root.join("target/test-scenes");
    tools::run(
        Command::new(python)
            .arg(root.join("track-import/tests/gltf/write_scene.py"))
            .arg(&out),
    )?;
    Ok(out)
}
