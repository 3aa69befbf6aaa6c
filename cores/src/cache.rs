//! What a host keeps: the archive, one sandbox, and each core compiled the
//! first time a replay of its version arrives (compiling takes most of a
//! second; a verification after that pays nothing for it).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::archive::Archive;
use crate::error::Result;
use crate::sandbox::{LoadedCore, Sandbox, SandboxBudget};
use crate::verdict::{ArchivedHeader, ArchivedVerdict};
use crate::{declared_car_steps, simulation_version_of};

/// The archived cores a host runs, compiled on demand and kept.
#[derive(Clone)]
pub struct ArchivedCores {
    archive: Arc<Archive>,
    sandbox: Sandbox,
    loaded: Arc<Mutex<BTreeMap<u32, LoadedCore>>>,
}

impl ArchivedCores {
    /// The archive built into this binary, in a fresh sandbox.
    pub fn embedded() -> Result<ArchivedCores> {
        Ok(ArchivedCores::new(Archive::embedded()?, Sandbox::new()?))
    }

    /// `archive`'s cores, run in `sandbox`.
    #[must_use]
    pub fn new(archive: Archive, sandbox: Sandbox) -> ArchivedCores {
        ArchivedCores {
            archive: Arc::new(archive),
            sandbox,
            loaded: Arc::new(Mutex::new(BTreeMap::new())),
        }
    }

    /// The archive.
    #[must_use]
    pub fn archive(&self) -> &Archive {
        &self.archive
    }

    /// The compiled core of `version`: checked against the manifest and
    /// compiled on first use, then kept.
    pub fn core(&self, version: u32) -> Result<LoadedCore> {
        if let Some(core) = self.lock().get(&version) {
            return Ok(core.clone());
        }
        // Compiled outside the lock: another thread may compile the same
        // version meanwhile, and the first to finish is kept.
        let core = self.sandbox.load(self.archive.core(version)?)?;
        Ok(self.lock().entry(version).or_insert(core).clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u32, LoadedCore>> {
        self.loaded.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Verifies `replay` with the core of the version its header names,
    /// within `budget` (the declared work is read with today's decoder and
    /// checked before the core is even loaded).
    pub fn verify(&self, replay: &[u8], budget: SandboxBudget) -> Result<ArchivedVerdict> {
        let header = skidpad_replay::read_replay_header(replay)?;
        budget.check_declared(header.step_count, header.car_count)?;
        self.core(header.simulation_version)?
            .verify(replay, declared_car_steps(&header), budget)
    }

    /// `replay`'s header as the core of its version decodes it.
    pub fn inspect(&self, replay: &[u8]) -> Result<ArchivedHeader> {
        self.core(simulation_version_of(replay)?)?.inspect(replay)
    }
}
