//! Races kept on disk, so a restart of the service keeps them. Each race is
//! the stream file its recorder wrote (`ID.sks` in the data directory,
//! `replay/FORMAT.md`'s stream format), appended as it is written: a
//! process that dies loses nothing written before it died, and the next
//! start offers the race up to its last whole chunk. At start every file
//! is read back through the same splitter that publishes a live race, so a
//! restored race serves the same bytes as it did live.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Result, SpectatorError, file};
use skidpad_replay::{StreamPieceKind, StreamSplitter};

use crate::api::Races;
use crate::race::Race;

/// The file race `id` is kept in.
fn file_of(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.sks"))
}

/// Moves an earlier race kept as `id` to `id-N` (the first free N), so a
/// new race can take the id and the earlier one stays on offer; returns
/// its new id.
pub fn set_aside(dir: &Path, id: &str) -> Result<Option<String>> {
    let current = file_of(dir, id);
    if !current.exists() {
        return Ok(None);
    }
    let free = (1u32..)
        .map(|n| format!("{id}-{n}"))
        .find(|new| !file_of(dir, new).exists())
        .ok_or_else(|| SpectatorError::NoFreeId(id.to_owned()))?;
    std::fs::rename(&current, file_of(dir, &free)).map_err(file("set aside", &current))?;
    Ok(Some(free))
}

/// Offers every race kept in `dir` (each `*.sks`, by name); returns their
/// ids. A race whose file has no end record (its service died while it
/// ran) is offered up to its last whole chunk, as ended: no one will
/// record the rest.
pub fn restore(dir: &Path, races: &Races) -> Result<Vec<String>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(file("read", dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "sks"))
        .collect();
    files.sort();
    let mut ids = Vec::new();
    for path in files {
        let Some(id) = path.file_stem().and_then(|s| s.to_str()).map(str::to_owned) else {
            continue;
        };
        let bytes = std::fs::read(&path).map_err(file("read", &path))?;
        let race = Race::new();
        let mut ended = false;
        let pieces = StreamSplitter::default().push(&bytes).map_err(|source| {
            SpectatorError::Unreadable {
                path: path.clone(),
                source,
            }
        })?;
        for (kind, piece) in pieces {
            ended |= kind == StreamPieceKind::End;
            race.publish(kind, piece)?;
        }
        if race.header().is_none() {
            // Cut before its header was whole: nothing to offer.
            continue;
        }
        if !ended {
            race.publish(StreamPieceKind::End, Vec::new())?;
        }
        races.insert(&id, race);
        ids.push(id);
    }
    Ok(ids)
}

/// A new file for race `id` in `dir`, created (it must not exist).
pub fn create(dir: &Path, id: &str) -> Result<File> {
    let path = file_of(dir, id);
    File::options()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(file("create", &path))
}

/// Publishes into a new race that a stream also being written to `file`
/// feeds; see [`crate::RaceSink::kept_in`].
#[must_use]
pub fn kept(file: File) -> (Arc<Race>, crate::RaceSink) {
    let race = Race::new();
    let sink = crate::RaceSink::new(race.clone()).kept_in(file);
    (race, sink)
}
