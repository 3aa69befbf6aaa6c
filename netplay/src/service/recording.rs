//! The race on disk as it runs: crash-safe `.sks` streams (each chunk
//! synced), which `skidpad verify` checks once finished and `skidpad
//! recover` reads after a crash. A replay holds the cars it starts with
//! (and can lose them), so a player joining a running race starts a new
//! segment: `race-000.sks`, `race-001.sks`, … Each segment is a whole
//! replay of the server's world from the join to the next.

use std::fs::File;
use std::path::PathBuf;

use skidpad_core::hex;
use skidpad_replay::{RecorderOptions, ReplayHeader, StreamRecorder, SyncPolicy};

use crate::race_config::DriverToken;
use crate::server::RaceServer;

/// A finished segment, for the log and the tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Its file.
    pub path: PathBuf,
    /// Steps it holds.
    pub steps: u64,
    /// The server world's hash when it ended.
    pub world_hash: String,
}

/// A segment just ended, with who drove in it.
pub(crate) struct Finished {
    pub segment: Segment,
    /// Every driver seated when the segment began (its cars), with their
    /// seat's token.
    pub drivers: Vec<DriverToken>,
}

/// The segment being written.
struct OpenSegment {
    path: PathBuf,
    steps: u64,
    stream: StreamRecorder<'static, File>,
    drivers: Vec<DriverToken>,
}

/// The segments being written.
pub(crate) struct Recording {
    dir: PathBuf,
    next: u32,
    current: Option<OpenSegment>,
}

impl Recording {
    pub(crate) fn new(dir: PathBuf) -> Recording {
        Recording {
            dir,
            next: 0,
            current: None,
        }
    }

    /// Starts the next segment from the world as it is now (when it has
    /// cars), ending the current one if it is still open.
    pub(crate) fn restart(&mut self, race: &RaceServer) {
        self.finish(race);
        if race.world().car_count() == 0 {
            return;
        }
        let path = self.dir.join(format!("race-{:03}.sks", self.next));
        self.next += 1;
        let config = race.config();
        let options = RecorderOptions {
            metadata: vec![
                ("track".into(), config.track.clone()),
                ("laps".into(), config.laps.to_string()),
                ("recorded_by".into(), "skidpad-netplay".into()),
                (
                    ReplayHeader::DRIVERS_KEY.into(),
                    serde_json::json!(race.drivers()).to_string(),
                ),
            ],
            ..RecorderOptions::default()
        };
        let started = File::create(&path)
            .map_err(|e| e.to_string())
            .and_then(|file| {
                StreamRecorder::new(race.world(), options, file, SyncPolicy::EveryChunk)
                    .map_err(|e| e.to_string())
            });
        match started {
            Ok(stream) => {
                self.current = Some(OpenSegment {
                    path,
                    steps: 0,
                    stream,
                    drivers: race.driver_tokens(),
                });
            }
            Err(e) => tracing::error!(path = %path.display(), "cannot record the race: {e}"),
        }
    }

    /// Records the step the race just took.
    pub(crate) fn capture(&mut self, race: &RaceServer) {
        let Some(open) = &mut self.current else {
            return;
        };
        match open.stream.capture(race.world(), race.dt()) {
            Ok(()) => open.steps += 1,
            Err(e) => {
                tracing::error!(path = %open.path.display(), "the recording stopped: {e}");
                self.current = None;
            }
        }
    }

    /// Whether a segment is being written.
    pub(crate) fn is_open(&self) -> bool {
        self.current.is_some()
    }

    /// Ends the current segment with its end record.
    pub(crate) fn finish(&mut self, race: &RaceServer) -> Option<Finished> {
        let OpenSegment {
            path,
            steps,
            stream,
            drivers,
        } = self.current.take()?;
        match stream.finish(race.world()) {
            Ok(_) => {
                let segment = Segment {
                    path,
                    steps,
                    world_hash: hex(&race.world().world_hash()),
                };
                // The one line a tool can rely on: where, how long, which hash.
                println!(
                    "recorded {} steps={} world_hash={}",
                    segment.path.display(),
                    segment.steps,
                    segment.world_hash
                );
                Some(Finished { segment, drivers })
            }
            Err(e) => {
                tracing::error!(path = %path.display(), "the recording could not be finished: {e}");
                None
            }
        }
    }
}
