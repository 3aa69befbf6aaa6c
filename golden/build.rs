//! Embeds the newest corpus (`golden/v<N>/` with the largest N) into the
//! crate, so the golden checks run where there is no file system (wasm32
//! under node) exactly as they do natively.
//!
//! Only the newest: older corpora are frozen with their archived cores
//! (`cores/README.md`) and read from disk by the native tests that need
//! them, so a version bump does not grow every test binary (the six
//! targets' goldens used to carry every version's 8 MB).

use std::fmt::Write;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed={}", root.display());
    let newest = std::fs::read_dir(root)
        .expect("golden dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .filter_map(|p| {
            let version = p
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_prefix('v'))
                .and_then(|n| n.parse::<u32>().ok())?;
            Some((version, p))
        })
        .max_by_key(|(version, _)| *version);
    let mut out = String::from(
        "/// (version directory, file name, bytes) of the newest corpus, sorted.\npub static FILES: &[(&str, &str, &[u8])] = &[\n",
    );
    if let Some((version, dir)) = newest {
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("version dir")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        let version = format!("v{version}");
        for file in files {
            let name = file
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            writeln!(
                out,
                "    ({version:?}, {name:?}, include_bytes!({:?})),",
                file.display().to_string()
            )
            .expect("write to string");
        }
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("golden_files.rs");
    std::fs::write(dest, out).expect("write golden_files.rs");
}
