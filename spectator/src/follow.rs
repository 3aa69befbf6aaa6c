//! Races another process records: every `*.sks` stream in a directory
//! (`skidpad-netplay serve --record DIR`'s segments, or any
//! `StreamRecorder` writing a file) is offered under its file name and
//! read on as it grows, so a race recorded elsewhere is spectated live
//! through this service without a wire of its own. The recorder appends
//! whole records and syncs them; a record still being written is simply
//! not whole yet, and waits for the next look.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::error::{Result, SpectatorError, file};
use skidpad_replay::{StreamPieceKind, StreamSplitter};

use crate::api::Races;
use crate::race::Race;

/// Most bytes read from one file in one look, so one large file does not
/// hold up the others.
const READ_PER_LOOK: u64 = 16 << 20;
/// Largest stream followed, bytes: past it the race is ended where it is
/// (a 20-car race streams about 1 kB a car-second, so this is hours).
const MOST_BYTES: u64 = 1 << 30;
/// Most files followed at once.
const MOST_FILES: usize = 1024;

/// One file being followed.
struct Followed {
    race: Arc<Race>,
    splitter: StreamSplitter,
    /// Bytes read so far.
    read: u64,
    /// Its end record came, or it broke off: nothing more is read.
    done: bool,
}

/// Follows the streams in one directory.
pub struct Follower {
    dir: PathBuf,
    races: Races,
    files: BTreeMap<PathBuf, Followed>,
}

/// What one look found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Look {
    /// Races offered for the first time.
    pub offered: Vec<String>,
    /// Races that ended (their end record came, or they broke off).
    pub ended: Vec<String>,
    /// Files that could not be followed, and why.
    pub refused: Vec<String>,
}

impl Follower {
    /// Follows `dir`'s streams, offering each in `races` under its file
    /// name (without `.sks`) unless that id is already on offer.
    #[must_use]
    pub fn new(dir: PathBuf, races: Races) -> Follower {
        Follower {
            dir,
            races,
            files: BTreeMap::new(),
        }
    }

    /// Looks at the directory once: new files are offered once their
    /// header is whole, grown ones read on.
    ///
    /// # Errors
    /// The directory cannot be read.
    pub fn look(&mut self) -> Result<Look> {
        let mut look = Look::default();
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .map_err(file("read", &self.dir))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "sks"))
            .collect();
        paths.sort();
        for path in paths {
            let Some(id) = path.file_stem().and_then(|s| s.to_str()).map(str::to_owned) else {
                continue;
            };
            if !self.files.contains_key(&path) {
                if self.races.contains(&id) || self.files.len() >= MOST_FILES {
                    continue;
                }
                self.files.insert(
                    path.clone(),
                    Followed {
                        race: Race::new(),
                        splitter: StreamSplitter::default(),
                        read: 0,
                        done: false,
                    },
                );
            }
            let followed = self.files.get_mut(&path).expect("inserted above");
            if followed.done {
                continue;
            }
            let had_header = followed.race.header().is_some();
            let outcome = read_on(&path, followed);
            if !had_header && followed.race.header().is_some() {
                self.races.insert(&id, followed.race.clone());
                look.offered.push(id.clone());
            }
            match outcome {
                Ok(true) => {
                    followed.done = true;
                    look.ended.push(id);
                }
                Ok(false) => {}
                Err(e) => {
                    // What was whole stays on offer, as ended.
                    followed.done = true;
                    if followed.race.header().is_some() {
                        let _ = followed.race.publish(StreamPieceKind::End, Vec::new());
                        look.ended.push(id);
                    }
                    look.refused.push(format!("{}: {e}", path.display()));
                }
            }
        }
        Ok(look)
    }
}

/// Reads what `path` gained since the last look and publishes the pieces
/// it completes; true once the stream's end record came.
fn read_on(path: &Path, followed: &mut Followed) -> Result<bool> {
    let mut file = File::open(path).map_err(file("open", path))?;
    let len = file.metadata()?.len();
    if len < followed.read {
        return Err(SpectatorError::Shrank);
    }
    if len > MOST_BYTES {
        return Err(SpectatorError::TooLarge(MOST_BYTES));
    }
    let take = (len - followed.read).min(READ_PER_LOOK);
    if take == 0 {
        return Ok(false);
    }
    file.seek(SeekFrom::Start(followed.read))?;
    let mut bytes = Vec::with_capacity(take as usize);
    file.take(take).read_to_end(&mut bytes)?;
    followed.read += bytes.len() as u64;
    let mut ended = false;
    for (kind, piece) in followed.splitter.push(&bytes)? {
        ended |= kind == StreamPieceKind::End;
        followed.race.publish(kind, piece)?;
    }
    Ok(ended)
}

/// Looks at `dir` every `every` on a thread of its own until `stop` is
/// set, printing what each look offered, ended or refused.
pub fn spawn(
    dir: PathBuf,
    races: Races,
    every: Duration,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut follower = Follower::new(dir, races);
        while !stop.load(Ordering::Relaxed) {
            match follower.look() {
                Ok(look) => {
                    for id in look.offered {
                        println!("following race {id}");
                    }
                    for id in look.ended {
                        println!("race {id} ended");
                    }
                    for why in look.refused {
                        eprintln!("skidpad-spectator: not followed further: {why}");
                    }
                }
                Err(e) => eprintln!("skidpad-spectator: {e:#}"),
            }
            std::thread::sleep(every);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_a_stream_is_refused_and_offers_nothing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("junk.sks"), vec![0xAB; 4096]).unwrap();
        let races = Races::default();
        let mut follower = Follower::new(dir.path().to_owned(), races.clone());
        let look = follower.look().unwrap();
        assert!(look.offered.is_empty(), "{look:?}");
        assert_eq!(look.refused.len(), 1, "{look:?}");
        assert!(!races.contains("junk"));
        // Refused once, not again on every look.
        assert_eq!(follower.look().unwrap(), Look::default());
    }
}
