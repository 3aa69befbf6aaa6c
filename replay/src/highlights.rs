//! Highlights of a replay, found by re-simulating it on a track: overtakes,
//! big slides, lap records and hard contacts (car to car, or a car's body
//! on the ground or a barrier), each with the step it happened at, for an
//! instant replay to jump to.

use std::collections::BTreeMap;
use std::sync::Arc;

use skidpad_core::race::{RaceEvent, RaceRules, RaceTiming};
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
    /// `car` completed a valid lap faster than any valid lap before it in
    /// the replay (as the race layer, `skidpad_core::race`, times laps).
    LapRecord {
        /// The car.
        car: CarId,
        /// The lap time, s.
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
    /// Index into the highlights of the slide in progress.
    slide: Option<usize>,
}

/// The replay hooks that watch every step.
struct Watcher {
    /// Laps and distance raced (laps unwrapped), by the race layer.
    race: RaceTiming,
    options: HighlightOptions,
    cars: Vec<CarWatch>,
    best_lap: f64,
    found: Vec<Highlight>,
    /// Contacts touching in the last step: (car, other car or ground) →
    /// index of its highlight, once its impulse made one.
    touching: BTreeMap<(CarId, Option<CarId>), Option<usize>>,
}

impl Watcher {
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

    /// Lap records among the laps the race layer timed this step.
    fn watch_laps(&mut self, step: u64, events: Vec<RaceEvent>) {
        for event in events {
            if let RaceEvent::Lap { car, lap } = event
                && lap.is_valid()
                && lap.time() < self.best_lap
            {
                self.best_lap = lap.time();
                self.found.push(Highlight {
                    step,
                    kind: HighlightKind::LapRecord {
                        car,
                        time: lap.time(),
                    },
                });
            }
        }
    }

    fn watch_car(&mut self, step: u64, world: &World, i: usize) -> Option<()> {
        let car = self.cars[i].id;
        let w = &mut self.cars[i];
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

impl ReplayHooks for Watcher {
    fn after_step(&mut self, step: u64, world: &World) {
        let progress = |race: &RaceTiming, cars: &[CarWatch]| -> Vec<Option<f64>> {
            cars.iter().map(|c| race.progress(c.id)).collect()
        };
        let before = progress(&self.race, &self.cars);
        // The player calls this right after stepping the world, so the
        // world holds the step's timestep.
        let events = self.race.after_step(world).unwrap_or_default();
        self.watch_laps(step, events);
        let after = progress(&self.race, &self.cars);
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
                let (Some(a1), Some(b1)) = (after[a], after[b]) else {
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
    let world = create_replay_world(replay)?;
    let watcher = Watcher {
        race: RaceTiming::new(Arc::new(track.clone()), RaceRules::default(), &world),
        options,
        cars: world
            .car_ids()
            .map(|id| CarWatch { id, slide: None })
            .collect(),
        best_lap: f64::INFINITY,
        found: Vec::new(),
        touching: BTreeMap::new(),
    };
    let mut player = ReplayPlayer::new(world, replay, watcher)?;
    player.play_to_end()?;
    let (_, watcher) = player.into_parts();
    let mut found = watcher.found;
    found.sort_by_key(|h| h.step);
    Ok(found)
}
