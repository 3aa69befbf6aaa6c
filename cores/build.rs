//! Embeds the archive (`archive/manifest.json` and every `archive/v*.wasm.gz`)
//! so a `skidpad` binary verifies old replays wherever it is copied.

use std::fmt::Write;
use std::path::Path;

fn main() {
    let archive = Path::new(env!("CARGO_MANIFEST_DIR")).join("archive");
    println!("cargo:rerun-if-changed={}", archive.display());
    let mut modules: Vec<String> = std::fs::read_dir(&archive)
        .map(|dir| {
            dir.filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.starts_with('v') && n.ends_with(".wasm.gz"))
                .collect()
        })
        .unwrap_or_default();
    modules.sort();
    let mut out = String::from(
        "/// (file name, gzip bytes) of every archived module, sorted by name.\npub static MODULES: &[(&str, &[u8])] = &[\n",
    );
    for name in &modules {
        let path = archive.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(
            out,
            "    ({name:?}, include_bytes!({:?})),",
            path.display().to_string()
        )
        .expect("writing to a String");
    }
    out.push_str("];\n");
    let manifest = archive.join("manifest.json");
    writeln!(
        out,
        "/// The archive's manifest.\npub static MANIFEST: &str = include_str!({:?});",
        manifest.display().to_string()
    )
    .expect("writing to a String");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("archive.rs");
    std::fs::write(dest, out).expect("writing the embedded archive");
}
