//! The archive: the manifest and the compressed modules it pins, embedded
//! in the binary (or read from a folder), each checked against its blake3
//! before anything compiles it.

use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

use serde::Deserialize;

use crate::error::{CoresError, Result};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/archive.rs"));
}

/// One archived core as the manifest describes it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct ManifestEntry {
    /// The simulation version the module simulates.
    pub version: u32,
    /// The commit it was built from (`None`: built from the working tree of
    /// the commit that then added its goldens; `cores/README.md`).
    pub commit: Option<String>,
    /// `rustc -V` of the toolchain that built it.
    pub toolchain: String,
    /// blake3 of the adapter's source the module was built with.
    pub adapter: String,
    /// The module's file in the archive.
    pub module: String,
    /// Size of the module.
    pub bytes: u64,
    /// Size of its gzip file.
    pub compressed_bytes: u64,
    /// blake3 of the module (not of the gzip file).
    pub blake3: String,
}

#[derive(Deserialize)]
struct Manifest {
    abi_version: u32,
    cores: Vec<ManifestEntry>,
}

/// The ABI the host speaks (`cores/ABI.md`).
pub const ABI_VERSION: u32 = 1;

/// An archived core: its manifest entry and its compressed module.
#[derive(Clone, Debug)]
pub struct ArchivedCore {
    entry: ManifestEntry,
    gzip: Cow<'static, [u8]>,
}

impl ArchivedCore {
    /// What the manifest says of it.
    #[must_use]
    pub fn entry(&self) -> &ManifestEntry {
        &self.entry
    }

    /// The module's bytes, inflated (never past the manifest's size) and
    /// checked against the manifest's blake3: a module that differs is
    /// refused here, before the runtime sees it.
    pub fn module_bytes(&self) -> Result<Vec<u8>> {
        let version = self.entry.version;
        let mut module = Vec::new();
        flate2::read::GzDecoder::new(&self.gzip[..])
            .take(self.entry.bytes.saturating_add(1))
            .read_to_end(&mut module)
            .map_err(|e| CoresError::Load {
                version,
                reason: format!("{}: {e}", self.entry.module),
            })?;
        let found = blake3::hash(&module).to_hex().to_string();
        if found != self.entry.blake3 {
            return Err(CoresError::ModuleMismatch {
                version,
                found,
                pinned: self.entry.blake3.clone(),
            });
        }
        Ok(module)
    }
}

/// Every archived core, by simulation version.
#[derive(Clone, Debug)]
pub struct Archive {
    cores: Vec<ArchivedCore>,
}

impl Archive {
    /// The archive built into this binary (`cores/archive/`).
    pub fn embedded() -> Result<Archive> {
        Archive::from_parts(embedded::MANIFEST, |name| {
            embedded::MODULES
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, bytes)| Cow::Borrowed(*bytes))
        })
    }

    /// An archive in a folder laid out as `cores/archive/` (a manifest and
    /// its modules), such as one a server keeps beside its database.
    pub fn open(dir: &Path) -> Result<Archive> {
        let manifest = std::fs::read_to_string(dir.join("manifest.json")).map_err(|e| {
            CoresError::Manifest(format!("{}: {e}", dir.join("manifest.json").display()))
        })?;
        Archive::from_parts(&manifest, |name| {
            std::fs::read(dir.join(name)).ok().map(Cow::Owned)
        })
    }

    fn from_parts(
        manifest: &str,
        mut module: impl FnMut(&str) -> Option<Cow<'static, [u8]>>,
    ) -> Result<Archive> {
        let manifest: Manifest =
            serde_json::from_str(manifest).map_err(|e| CoresError::Manifest(e.to_string()))?;
        if manifest.abi_version != ABI_VERSION {
            return Err(CoresError::Manifest(format!(
                "ABI version {} (this host speaks {ABI_VERSION})",
                manifest.abi_version
            )));
        }
        let mut cores = Vec::with_capacity(manifest.cores.len());
        for entry in manifest.cores {
            let gzip = module(&entry.module).ok_or_else(|| {
                CoresError::Manifest(format!(
                    "simulation version {}'s module {} is not in the archive",
                    entry.version, entry.module
                ))
            })?;
            cores.push(ArchivedCore { entry, gzip });
        }
        cores.sort_by_key(|c| c.entry.version);
        Ok(Archive { cores })
    }

    /// The simulation versions it holds, ascending.
    #[must_use]
    pub fn versions(&self) -> Vec<u32> {
        self.cores.iter().map(|c| c.entry.version).collect()
    }

    /// The core of `version`, or an error that says none is archived.
    pub fn core(&self, version: u32) -> Result<&ArchivedCore> {
        self.cores
            .iter()
            .find(|c| c.entry.version == version)
            .ok_or_else(|| CoresError::NoArchivedCore {
                version,
                available: self.describe_versions(),
            })
    }

    /// "1 to 9", "1, 3", or "none".
    fn describe_versions(&self) -> String {
        let versions = self.versions();
        match versions.as_slice() {
            [] => "none".to_owned(),
            [only] => only.to_string(),
            [first, .., last] if (last - first) as usize + 1 == versions.len() => {
                format!("{first} to {last}")
            }
            all => all
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}
