//! Embeds every file under `golden/v*/` into the crate, so the golden checks
//! run where there is no file system (wasm32 under node) exactly as they do
//! natively.

use std::fmt::Write;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed={}", root.display());
    let mut dirs: Vec<_> = std::fs::read_dir(root)
        .expect("golden dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with('v') && n[1..].parse::<u32>().is_ok())
        })
        .collect();
    dirs.sort();
    let mut out = String::from(
        "/// (version directory, file name, bytes), sorted.\npub static FILES: &[(&str, &str, &[u8])] = &[\n",
    );
    for dir in dirs {
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("version dir")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        let version = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
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
