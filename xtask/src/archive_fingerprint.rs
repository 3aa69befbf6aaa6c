//! The fingerprint that freezes an archived core (`cores/archive/`).
//!
//! A simulation version's module, corpus and verdicts cannot change unless
//! one of their inputs does: the module's bytes, the corpus's files, the
//! adapter and build recipe, the toolchain, or the host that loads and runs
//! the module (`cores/`'s own code and the wasmtime release it links). The
//! fingerprint is the blake3 of all of them; `cargo xtask cores` records it
//! in the manifest after it has rebuilt the module and replayed the corpus
//! through it. On every `cargo xtask test` the fingerprints are computed
//! again (about a second) and a version whose fingerprint is unchanged is
//! not rebuilt or replayed: that is what keeps a version bump from adding
//! minutes to every later CI run.
//!
//! The source commit is left out on purpose: the module's bytes already
//! say what it was built from, and the commit rule is checked on its own
//! (`cores::is_fresh`), so filling in the commit of a build made from the
//! working tree does not reopen a version.

use std::path::Path;

/// Bumped when what goes into a fingerprint changes, so every recorded
/// fingerprint goes stale at once.
const SCHEME: &str = "skidpad archive fingerprint 1";

/// The files of the host (crate `skidpad-cores`) whose change reopens
/// every version: its manifest, its build script and every source file.
fn host_files(root: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    let mut files = vec![root.join("cores/Cargo.toml"), root.join("cores/build.rs")];
    let src = root.join("cores/src");
    let mut sources: Vec<_> = std::fs::read_dir(&src)
        .map_err(|e| format!("{}: {e}", src.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    sources.sort();
    files.extend(sources);
    Ok(files)
}

/// The runtime's packages in `Cargo.lock` (wasmtime, Cranelift, Pulley,
/// their parser and register allocator), as `name version` lines: a new
/// release of any of them may run a module differently.
fn runtime_packages(root: &Path) -> Result<String, String> {
    let lock = std::fs::read_to_string(root.join("Cargo.lock"))
        .map_err(|e| format!("cannot read Cargo.lock: {e}"))?;
    let runtime = |name: &str| {
        ["wasmtime", "cranelift", "pulley"]
            .iter()
            .any(|p| name.starts_with(p))
            || name == "wasmparser"
            || name == "regalloc2"
    };
    let mut lines: Vec<String> = lock
        .split("[[package]]")
        .filter_map(|block| {
            let field = |key: &str| {
                block.lines().find_map(|l| {
                    l.strip_prefix(key)
                        .map(|v| v.trim().trim_matches('"').to_owned())
                })
            };
            let name = field("name = ")?;
            runtime(&name).then(|| format!("{name} {}", field("version = ").unwrap_or_default()))
        })
        .collect();
    lines.sort();
    Ok(lines.join("\n"))
}

/// What every version's fingerprint shares: the host's files and the
/// runtime's packages.
pub struct Shared {
    hash: String,
}

impl Shared {
    pub fn read(root: &Path) -> Result<Self, String> {
        let mut hasher = blake3::Hasher::new();
        for file in host_files(root)? {
            let bytes =
                std::fs::read(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            let name = file.strip_prefix(root).unwrap_or(&file).to_string_lossy();
            hash_field(&mut hasher, name.as_bytes());
            hash_field(&mut hasher, &bytes);
        }
        hash_field(&mut hasher, runtime_packages(root)?.as_bytes());
        Ok(Self {
            hash: hasher.finalize().to_hex().to_string(),
        })
    }
}

/// A length before every field, so no two inputs hash alike by shifting a
/// boundary.
fn hash_field(hasher: &mut blake3::Hasher, bytes: &[u8]) {
    hasher.update(&(bytes.len() as u64).to_le_bytes());
    hasher.update(bytes);
}

/// The fingerprint of `version`: its module's blake3 (of the inflated
/// module), every file of `golden/v<version>/`, the adapter's hash (files
/// and recipe), the toolchain's `rustc -V` and the shared host inputs.
pub fn of_version(
    root: &Path,
    version: u32,
    module_blake3: &str,
    adapter: &str,
    rustc: &str,
    shared: &Shared,
) -> Result<String, String> {
    let mut hasher = blake3::Hasher::new();
    hash_field(&mut hasher, SCHEME.as_bytes());
    hash_field(&mut hasher, &version.to_le_bytes());
    hash_field(&mut hasher, module_blake3.as_bytes());
    let corpus = root.join(format!("golden/v{version}"));
    let mut files: Vec<_> = std::fs::read_dir(&corpus)
        .map_err(|e| format!("{}: {e}", corpus.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for file in files {
        let bytes =
            std::fs::read(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        hash_field(
            &mut hasher,
            file.file_name().unwrap_or_default().as_encoded_bytes(),
        );
        hash_field(&mut hasher, &bytes);
    }
    hash_field(&mut hasher, adapter.as_bytes());
    hash_field(&mut hasher, rustc.as_bytes());
    hash_field(&mut hasher, shared.hash.as_bytes());
    Ok(hasher.finalize().to_hex().to_string())
}
