//! The corpora on disk (`golden/v<N>/`), for native tests and tools that
//! need a version other than the embedded newest one, or a path to hand to
//! a program.

use std::path::PathBuf;

/// `golden/v<version>/` in this checkout.
#[must_use]
pub fn dir(version: u32) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("v{version}"))
}

/// The bytes of `golden/v<version>/<name>`; the error names the path.
pub fn file(version: u32, name: &str) -> Result<Vec<u8>, String> {
    let path = dir(version).join(name);
    std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))
}
