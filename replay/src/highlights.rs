//! Highlights of a replay, found by re-simulating it on a track: overtakes,
//! big slides, lap records and hard contacts (car to car, or a car's body
//! on the ground or a barrier), each with the step it happened at, for an
//! instant replay to jump to.

use std::collections::BTreeMap;

use skidpad_core::{CarId, Track, World, channel_index};

use crate::hooks::ReplayHooks;
use crate::player::ReplayPlayer;
use crate::replay::Replay;
use crate::world::create_replay_world;
use crate::{ReplayError, Result};

/// What happened.
#[derive(Clone, Debug, PartialEq)]
pub enum HighlightKind {
    /// `car` moved ahead of `passed` (by distance raced along the track)
    /// while they were close.
    Overtake {
        /// The car that passed.
        car: CarId,
        /// The car it passed.
        passed: CarId,
    },
    /// `car` slid: its body slip angle passed the threshold at speed
    /// (reported once per slide, at its start, with the largest angle the
    /// slide reached).
    BigSlide {
        /// The sliding car.
        car: CarId,
        /// Largest |body slip| during the slide, rad.
        angle: f64,
    },
    /// `car` completed a lap faster than any lap before it in the replay.
    LapRecord {
        /// The car.
        car: CarId,
        /// The lap time, s (from one line crossing to the next).
        time: f64,
    },
    /// `car` struck `other` (or, with `None`, the ground or a barrier)
    /// hard: reported once per contact, at the step it began, with the
    /// largest normal impulse of any one step while it lasted.
    Contact {
        /// The car (the lower id of a pair).
        car: CarId,
        /// The other car; `None` for the ground.
        other: Option<CarId>,
        /// Largest normal impulse in one step, N·s.
        impulse: f64,
    },
}

/// One highlight.
#[derive(Clone, Debug, PartialEq)]
pub struct Highlight {
    /// Step (from the replay's start) at which it happened.
    pub step: u64,
    /// What happened.
    pub kind: HighlightKind,
}

/// Thresholds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HighlightOptions {
    /// |body slip| that makes a slide, rad.
    pub slide_angle: f64,
    /// Speed below which a car does not count as sliding, m/s.
    pub slide_min_speed: f64,
    /// Two cars closer than this along the track can overtake, m.
    pub overtake_gap: f64,
    /// Normal impulse in one step that makes a contact a highlight, N·s
    /// (500 N·s changes a 1 250 kg car's speed by 0.4 m/s; a car resting
    /// on its roof takes about 200 per step at 60 Hz).
    pub contact_impulse: f64,
}

impl Default for HighlightOptions {
    fn default() -> Self {
        HighlightOptions {
            slide_angle: 15.0 * core::f64::consts::PI / 180.0,
            slide_min_speed: 8.0,
            overtake_gap: 30.0,
            contact_impulse: 500.0,
        }
    }
}

#[derive(Clone, Debug)]
struct CarWatch {
    /// The car's id in the playback world.
    id: CarId,
    /// Distance raced along the track, m (laps unwrapped).
    progress: Option<f64>,
    last_distance: f64,
    /// Simulated time of the last line crossing.
    lap_start: Option<f64>,
    /// Index into the highlights of the slide in progress.
    slide: Option<usize>,
}

/// The replay hooks that watch every step.
struct Watcher<'t> {
    track: &'t Track,
    options: HighlightOptions,
    dt: Vec<(u64, f64)>,
    /// Cursor into `dt`: the run, and steps of it already played.
    dt_run: usize,
    dt_used: u64,
    time: f64,
    cars: Vec<CarWatch>,
    best_lap: f64,
    found: Vec<Highlight>,
    /// Contacts touching in the last step: (car, other car or ground) →
    /// index of its highlight, once its impulse made one.
    touching: BTreeMap<(CarId, Option<CarId>), Option<usize>>,
}

impl Watcher<'_> {
    /// The dt of the step just played. Steps arrive in order (the player
    /// plays straight through), so a cursor walks the runs once in all.
    fn next_dt(&mut self) -> f64 {
        while let Some(&(n, dt)) = self.dt.get(self.dt_run) {
            if self.dt_used < n {
                self.dt_used += 1;
                return dt;
            }
            self.dt_run += 1;
            self.dt_used = 0;
        }
        0.0
    }

    /// Hard contacts: a highlight when a contact's impulse first passes
    /// the threshold, raised to the largest impulse while it lasts.
    fn watch_contacts(&mut self, step: u64, world: &World) {
        let mut now = BTreeMap::new();
        for c in world.contacts() {
            let key = (c.first, c.second);
            let mut entry = self.touching.get(&key).copied().flatten();
            match entry {
                Some(k) => {
                    if let HighlightKind::Contact { impulse, .. } = &mut self.found[k].kind {
                        *impulse = impulse.max(c.impulse);
                    }
                }
                None if c.impulse >= self.options.contact_impulse => {
                    entry = Some(self.found.len());
                    self.found.push(Highlight {
                        step,
                        kind: HighlightKind::Contact {
                            car: c.first,
                            other: c.second,
                            impulse: c.impulse,
                        },
                    });
                }
                None => {}
            }
            now.insert(key, entry);
        }
        self.touching = now;
    }

    fn watch_car(&mut self, step: u64, world: &World, i: usize) -> Option<()> {
        let car = self.cars[i].id;
        let Ok(pose) = world.pose(car) else {
            // Removed: out of the race, out of every comparison.
            self.cars[i].progress = None;
            return None;
        };
        let here = self.track.locate(pose.position.truncate());
        let length = self.track.length();
        let w = &mut self.cars[i];
        let previous = w.last_distance;
        w.last_distance = here.distance;
        let Some(progress) = w.progress else {
            w.progress = Some(here.distance);
            return Some(());
        };
        let mut delta = here.distance - previous;
        if delta < -length / 2.0 {
            delta += length;
            // Forward over the line: a lap ends (and the next starts).
            if let Some(start) = w.lap_start {
                let time = self.time - start;
                if time < self.best_lap {
                    self.best_lap = time;
                    self.found.push(Highlight {
                        step,
                        kind: HighlightKind::LapRecord { car, time },
                    });
                }
            }
            self.cars[i].lap_start = Some(self.time);
        } else if delta > length / 2.0 {
            delta -= length;
        }
        let w = &mut self.cars[i];
        w.progress = Some(progress + delta);

        let telemetry = world.telemetry(car).ok()?;
        let slip = telemetry[channel_index("body_slip")?].abs();
        let speed = telemetry[channel_index("speed")?];
        let sliding = slip > self.options.slide_angle && speed > self.options.slide_min_speed;
        match (sliding, w.slide) {
            (true, None) => {
                w.slide = Some(self.found.len());
                self.found.push(Highlight {
                    step,
                    kind: HighlightKind::BigSlide { car, angle: slip },
                });
            }
            (true, Some(k)) => {
                if let HighlightKind::BigSlide { angle, .. } = &mut self.found[k].kind {
                    *angle = angle.max(slip);
                }
            }
            (false, _) => w.slide = None,
        }
        Some(())
    }
}

impl ReplayHooks for Watcher<'_> {
    fn after_step(&mut self, step: u64, world: &World) {
        self.time += self.next_dt();
        let before: Vec<Option<f64>> = self.cars.iter().map(|c| c.progress).collect();
        for i in 0..self.cars.len() {
            let _ = self.watch_car(step, world, i);
        }
        self.watch_contacts(step, world);
        // Overtakes: a pair whose order by progress flipped this step while
        // they were close. Pairs in id order, so the list has one order.
        for a in 0..self.cars.len() {
            for b in 0..self.cars.len() {
                let (Some(a0), Some(b0)) = (before[a], before[b]) else {
                    continue;
                };
                let (Some(a1), Some(b1)) = (self.cars[a].progress, self.cars[b].progress) else {
                    continue;
                };
                if a != b && a0 < b0 && a1 > b1 && (a1 - b1).abs() < self.options.overtake_gap {
                    self.found.push(Highlight {
                        step,
                        kind: HighlightKind::Overtake {
                            car: self.cars[a].id,
                            passed: self.cars[b].id,
                        },
                    });
                }
            }
        }
    }
}

/// Re-simulates `replay` on `track` (definitions must be embedded) and
/// returns its highlights in step order.
pub fn find_highlights(
    replay: &Replay,
    track: &Track,
    options: HighlightOptions,
) -> Result<Vec<Highlight>> {
    let positive = |v: f64| v > 0.0;
    if !positive(options.slide_angle)
        || !positive(options.overtake_gap)
        || !positive(options.contact_impulse)
    {
        return Err(ReplayError::InvalidArgument {
            what: "highlight options",
            reason: "slide_angle, overtake_gap and contact_impulse must be positive".into(),
        });
    }
    let watcher = Watcher {
        track,
        options,
        dt: replay.dt.runs().collect(),
        dt_run: 0,
        dt_used: 0,
        time: 0.0,
        cars: Vec::new(),
        best_lap: f64::INFINITY,
        found: Vec::new(),
        touching: BTreeMap::new(),
    };
    let world = create_replay_world(replay)?;
    let watcher = Watcher {
        cars: world
            .car_ids()
            .map(|id| CarWatch {
                id,
                progress: None,
                last_distance: 0.0,
                lap_start: None,
                slide: None,
            })
            .collect(),
        ..watcher
    };
    let mut player = ReplayPlayer::new(world, replay, watcher)?;
    player.play_to_end()?;
    let (_, watcher) = player.into_parts();
    let mut found = watcher.found;
    found.sort_by_key(|h| h.step);
    Ok(found)
}
