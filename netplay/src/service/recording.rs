//! The race on disk as it runs: a crash-safe `.sks` stream (each chunk
//! synced), which `skidpad verify` checks once finished and `skidpad
//! recover` reads after a crash. One stream holds the whole race: a player
//! who joins while it runs is an arrival in it (`StreamRecorder::adopt_car`),
//! one who leaves a removal. A race that waits for its seats is recorded
//! from the join that fills its grid; a player joining after everyone
//! finished (when the recording ended) begins the next one: `race-000.sks`,
//! `race-001.sks`, …

use std::fs::File;
use std::path::PathBuf;

use skidpad_core::{CarId, hex};
use skidpad_replay::{RecorderOptions, ReplayHeader, StreamRecorder, SyncPolicy};

use crate::entry::RecordedStint;
use crate::race_config::{AiStint, DriverToken, SeatId};
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
    /// Every seated driver the segment held a car of (there when it began
    /// or arrived later), with their seat's token.
    pub drivers: Vec<DriverToken>,
    /// The driver of each of its cars, by car index (empty for a car no
    /// seat held): the stream's header names only the first cars', so the
    /// finished replay's `drivers` metadata is set from this.
    pub names: Vec<String>,
    /// The stretches the AI drove a car whose player was away, in the
    /// segment's own car indices and steps (metadata `ai_stints`).
    pub ai_stints: Vec<RecordedStint>,
}

/// The segment being written.
struct OpenSegment {
    path: PathBuf,
    steps: u64,
    stream: StreamRecorder<'static, File>,
    drivers: Vec<DriverToken>,
    names: Vec<String>,
    /// The race's tick at the segment's step 0.
    start_tick: u32,
    /// The world's id of each of the segment's cars, by car index.
    cars: Vec<CarId>,
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
            // The recorder names the track (carrying an own one), and
            // carries an own ground.
            track: Some(race.track().clone()),
            ground: config.ground.clone(),
            metadata: vec![
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
                    names: race.drivers(),
                    start_tick: race.tick(),
                    cars: race.world().car_ids().collect(),
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
        match open.stream.after_step(race.world()) {
            Ok(()) => open.steps += 1,
            Err(e) => {
                tracing::error!(path = %open.path.display(), "the recording stopped: {e}");
                self.current = None;
            }
        }
    }

    /// A player was seated in `seat`: the open recording takes their car
    /// as it arrives. A race that waits for its seats is recorded from the
    /// join that fills the grid (every car at rest, before the countdown),
    /// so no driver's first lap holds the wait; one that has none, or
    /// whose recording ended when everyone finished, begins a recording
    /// now.
    pub(crate) fn seat_joined(&mut self, race: &RaceServer, seat: SeatId) {
        if self.is_open() {
            self.adopt(race, seat);
        } else if race.start_tick().is_some() {
            self.restart(race);
        }
    }

    /// Takes the car of the player just seated in `seat` into the open
    /// segment: it arrives there, before the next step.
    pub(crate) fn adopt(&mut self, race: &RaceServer, seat: SeatId) {
        let Some(open) = &mut self.current else {
            return;
        };
        let Some(car) = race.car_of(seat) else {
            return;
        };
        if let Err(e) = open.stream.adopt_car(race.world(), car) {
            tracing::error!(path = %open.path.display(), "the recording stopped: {e}");
            self.current = None;
            return;
        }
        let name = race.name_of(seat).unwrap_or_default().to_owned();
        if let Some(token) = race.config().seat_tokens.get(usize::from(seat.0)) {
            open.drivers.push(DriverToken {
                name: name.clone(),
                token: token.clone(),
            });
        }
        open.names.push(name);
        open.cars.push(car);
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
            names,
            start_tick,
            cars,
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
                let ai_stints = recorded_stints(race.ai_stints(), &cars, start_tick);
                Some(Finished {
                    segment,
                    drivers,
                    names,
                    ai_stints,
                })
            }
            Err(e) => {
                tracing::error!(path = %path.display(), "the recording could not be finished: {e}");
                None
            }
        }
    }
}

/// The race's AI stints that touch a segment, in its car indices and
/// steps (step 0 at `start_tick`); one still open ends with the segment.
fn recorded_stints(stints: &[AiStint], cars: &[CarId], start_tick: u32) -> Vec<RecordedStint> {
    stints
        .iter()
        .filter(|s| s.to_tick.is_none_or(|to| to > start_tick))
        .filter_map(|s| {
            let car = cars.iter().position(|&c| c == s.car)?;
            Some(RecordedStint {
                car,
                from_step: u64::from(s.from_tick.saturating_sub(start_tick)),
                to_step: s.to_tick.map(|to| u64::from(to - start_tick)),
            })
        })
        .collect()
}
