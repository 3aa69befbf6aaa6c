//! Highlights of a replay, found by re-simulating it on a track: overtakes,
//! big slides, lap records and hard contacts (car to car, or a car's body
//! on the ground or a barrier), each with the step it happened at, for an
//! instant replay to jump to.

use std::collections::BTreeMap;
use std::sync::Arc;

use skidpad_core::race::{Lap, RaceEvent, RaceRules, RaceTiming};
use skidpad_core::{CarId, Track, World, channel_index};

use crate::hooks::ReplayHooks;
use crate::player::{PlayerOptions, ReplayPlayer};
use crate::replay::Replay;
use crate::world::create_replay_world;
use crate::{Limits, ReplayError, Result};

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
    /// Two cars further apart than this along the track are not racing
    /// each other for a place (one a lap down, say): no overtake, m.
    pub overtake_gap: f64,
    /// How far past another car a car must get for a pass to count, m:
    /// two cars side by side swap by centimetres and are not passing.
    pub overtake_margin: f64,
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
            overtake_gap: 50.0,
            overtake_margin: 1.0,
            contact_impulse: 500.0,
        }
    }
}

/// One car as the finder sees it after a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CarSample {
    /// The car, as the caller names it (the highlights name it so).
    pub car: CarId,
    /// Distance raced from the line, m (`RaceTiming::progress`); `None`
    /// out of the race.
    pub progress: Option<f64>,
    /// |body slip|, rad (NaN: not known).
    pub body_slip: f64,
    /// Speed, m/s.
    pub speed: f64,
}

impl CarSample {
    /// Car `car` of `world` (`id` there), with its progress in `race`
    /// (keyed by `car`); `None` when the world does not hold it.
    #[must_use]
    pub fn read(world: &World, id: CarId, car: CarId, race: &RaceTiming) -> Option<CarSample> {
        Some(CarSample {
            progress: race.progress(car),
            ..Self::untimed(world, id, car)?
        })
    }

    /// [`read`](Self::read) where no race is timed (no track): no
    /// progress, so slides and contacts only.
    #[must_use]
    pub fn untimed(world: &World, id: CarId, car: CarId) -> Option<CarSample> {
        let telemetry = world.telemetry(id).ok()?;
        Some(CarSample {
            car,
            progress: None,
            body_slip: telemetry[channel_index("body_slip")?].abs(),
            speed: telemetry[channel_index("speed")?],
        })
    }
}

/// Finds highlights step by step, as a replay plays or a race runs: what
/// [`find_highlights`] finds, for a viewer that shows them as they come.
/// Overtakes keep each close pair's order (by distance raced) and count a
/// pass when it flips by more than the margin; slides and contacts are
/// reported at their first step (the [`found`](Self::found) list raises
/// them to their largest angle or impulse as they go on); a lap record is
/// a valid lap faster than every earlier valid lap.
#[derive(Clone, Debug)]
pub struct HighlightFinder {
    options: HighlightOptions,
    best_lap: f64,
    /// The slide in progress of each sliding car: its highlight's index.
    slides: BTreeMap<CarId, usize>,
    /// Each close pair (lower id first): 1 if the first is ahead.
    order: BTreeMap<(CarId, CarId), i8>,
    /// Contacts touching in the last step: (car, other car or ground) →
    /// index of its highlight, once its impulse made one.
    touching: BTreeMap<(CarId, Option<CarId>), Option<usize>>,
    found: Vec<Highlight>,
}

impl HighlightFinder {
    /// A finder with these thresholds (each must be positive, the margin
    /// not negative).
    pub fn new(options: HighlightOptions) -> Result<HighlightFinder> {
        let positive = |v: f64| v > 0.0;
        let valid = positive(options.slide_angle)
            && positive(options.overtake_gap)
            && positive(options.contact_impulse)
            && (0.0..f64::INFINITY).contains(&options.overtake_margin);
        if !valid {
            return Err(ReplayError::InvalidArgument {
                what: "highlight options",
                reason: "slide_angle, overtake_gap and contact_impulse must be positive, overtake_margin not negative".into(),
            });
        }
        Ok(HighlightFinder {
            options,
            best_lap: f64::INFINITY,
            slides: BTreeMap::new(),
            order: BTreeMap::new(),
            touching: BTreeMap::new(),
            found: Vec::new(),
        })
    }

    /// Takes step `step` (steps played, from 1): every car in the race
    /// (`cars`), the contacts of the step as `(car, other or None for the
    /// ground, impulse)`, and the laps completed in it. Returns the
    /// highlights that began at this step.
    pub fn observe(
        &mut self,
        step: u64,
        cars: &[CarSample],
        contacts: &[(CarId, Option<CarId>, f64)],
        laps: &[(CarId, Lap)],
    ) -> &[Highlight] {
        let first_new = self.found.len();
        for (car, lap) in laps {
            if lap.is_valid() && lap.time() < self.best_lap {
                self.best_lap = lap.time();
                self.push(
                    step,
                    HighlightKind::LapRecord {
                        car: *car,
                        time: lap.time(),
                    },
                );
            }
        }
        for sample in cars {
            self.watch_slide(step, sample);
        }
        self.watch_contacts(step, contacts);
        self.watch_passes(step, cars);
        &self.found[first_new..]
    }

    /// [`observe`](Self::observe) for cars `cars` of `world` (which name
    /// them; `race`, when a race is timed, keys them the same), its
    /// contacts, and the laps `race` completed in the step.
    pub fn observe_world(
        &mut self,
        step: u64,
        world: &World,
        cars: &[CarId],
        race: Option<&RaceTiming>,
        laps: &[(CarId, Lap)],
    ) -> &[Highlight] {
        let samples: Vec<CarSample> = cars
            .iter()
            .filter_map(|&id| match race {
                Some(race) => CarSample::read(world, id, id, race),
                None => CarSample::untimed(world, id, id),
            })
            .collect();
        let contacts: Vec<_> = world
            .contacts()
            .iter()
            .map(|c| (c.first, c.second, c.impulse))
            .collect();
        self.observe(step, &samples, &contacts, laps)
    }

    /// Every highlight so far, slides and contacts at their largest.
    #[must_use]
    pub fn found(&self) -> &[Highlight] {
        &self.found
    }

    fn push(&mut self, step: u64, kind: HighlightKind) -> usize {
        self.found.push(Highlight { step, kind });
        self.found.len() - 1
    }

    fn watch_slide(&mut self, step: u64, sample: &CarSample) {
        let slip = sample.body_slip;
        let sliding =
            slip > self.options.slide_angle && sample.speed > self.options.slide_min_speed;
        match (sliding, self.slides.get(&sample.car).copied()) {
            (true, None) => {
                let k = self.push(
                    step,
                    HighlightKind::BigSlide {
                        car: sample.car,
                        angle: slip,
                    },
                );
                self.slides.insert(sample.car, k);
            }
            (true, Some(k)) => {
                if let HighlightKind::BigSlide { angle, .. } = &mut self.found[k].kind {
                    *angle = angle.max(slip);
                }
            }
            (false, _) => {
                self.slides.remove(&sample.car);
            }
        }
    }

    /// Hard contacts: a highlight when a contact's impulse first passes
    /// the threshold, raised to the largest impulse while it lasts.
    fn watch_contacts(&mut self, step: u64, contacts: &[(CarId, Option<CarId>, f64)]) {
        let mut now = BTreeMap::new();
        for &(car, other, impulse) in contacts {
            let key = (car, other);
            let mut entry = self.touching.get(&key).copied().flatten();
            match entry {
                Some(k) => {
                    if let HighlightKind::Contact { impulse: most, .. } = &mut self.found[k].kind {
                        *most = most.max(impulse);
                    }
                }
                None if impulse >= self.options.contact_impulse => {
                    entry = Some(self.push(
                        step,
                        HighlightKind::Contact {
                            car,
                            other,
                            impulse,
                        },
                    ));
                }
                None => {}
            }
            now.insert(key, entry);
        }
        self.touching = now;
    }

    /// Overtakes: each close pair's order, a pass when it flips past the
    /// margin. Pairs in id order, so the list has one order.
    fn watch_passes(&mut self, step: u64, cars: &[CarSample]) {
        let mut racing: Vec<(CarId, f64)> = cars
            .iter()
            .filter_map(|c| c.progress.filter(|p| p.is_finite()).map(|p| (c.car, p)))
            .collect();
        racing.sort_unstable_by_key(|&(car, _)| car);
        let (margin, range) = (self.options.overtake_margin, self.options.overtake_gap);
        let mut order = BTreeMap::new();
        for (i, &(a, da)) in racing.iter().enumerate() {
            for &(b, db) in &racing[i + 1..] {
                let gap = da - db;
                if gap.abs() > range {
                    continue;
                }
                let was = self.order.get(&(a, b)).copied().unwrap_or(0);
                let now = if gap > margin {
                    1
                } else if gap < -margin {
                    -1
                } else {
                    was
                };
                if was != 0 && now != was {
                    let (car, passed) = if now > 0 { (a, b) } else { (b, a) };
                    self.push(step, HighlightKind::Overtake { car, passed });
                }
                if now != 0 {
                    order.insert((a, b), now);
                }
            }
        }
        self.order = order;
    }
}

/// The replay hooks that feed every step to a finder.
struct Watcher {
    /// Laps and distance raced (laps unwrapped), by the race layer.
    race: RaceTiming,
    finder: HighlightFinder,
    /// The playback world's cars.
    cars: Vec<CarId>,
}

impl ReplayHooks for Watcher {
    fn after_step(&mut self, step: u64, world: &World) {
        // The player calls this right after stepping the world, so the
        // world holds the step's timestep.
        let laps: Vec<(CarId, Lap)> = self
            .race
            .after_step(world)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|e| match e {
                RaceEvent::Lap { car, lap } => Some((car, lap)),
                _ => None,
            })
            .collect();
        self.finder
            .observe_world(step, world, &self.cars, Some(&self.race), &laps);
    }
}

/// Re-simulates `replay` on `track` (definitions must be embedded), its
/// declared work checked against `limits` first, and returns its
/// highlights in step order.
pub fn find_highlights(
    replay: &Replay,
    track: &Track,
    options: HighlightOptions,
    limits: &Limits,
) -> Result<Vec<Highlight>> {
    let finder = HighlightFinder::new(options)?;
    let world = create_replay_world(replay)?;
    let watcher = Watcher {
        race: RaceTiming::new(Arc::new(track.clone()), RaceRules::default(), &world),
        finder,
        cars: world.car_ids().collect(),
    };
    let options = PlayerOptions {
        limits: *limits,
        ..PlayerOptions::default()
    };
    let mut player = ReplayPlayer::with_options(world, replay, watcher, options)?;
    player.play_to_end()?;
    let (_, watcher) = player.into_parts();
    let mut found = watcher.finder.found;
    found.sort_by_key(|h| h.step);
    Ok(found)
}

#[cfg(test)]
mod tests {
    use skidpad_core::race::{LapFault, LapStart};

    use super::*;

    fn car(k: u32) -> CarId {
        CarId::from_raw(k)
    }

    /// Cars at these distances raced (NaN: out of the race), not sliding.
    fn at(distances: &[f64]) -> Vec<CarSample> {
        distances
            .iter()
            .enumerate()
            .map(|(k, &d)| CarSample {
                car: car(k as u32),
                progress: Some(d).filter(|d| d.is_finite()),
                body_slip: 0.0,
                speed: 20.0,
            })
            .collect()
    }

    fn passes(finder: &mut HighlightFinder, step: u64, distances: &[f64]) -> Vec<(u32, u32)> {
        finder
            .observe(step, &at(distances), &[], &[])
            .iter()
            .filter_map(|h| match h.kind {
                HighlightKind::Overtake { car, passed } => Some((car.to_raw(), passed.to_raw())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_pass_counts_once_a_car_is_past_by_the_margin_and_only_for_a_close_place() {
        let mut finder = HighlightFinder::new(HighlightOptions::default()).unwrap();
        assert_eq!(passes(&mut finder, 1, &[10.0, 5.0, 200.0]), []);
        // Car 1 draws level (within a metre): no pass, however it flickers.
        assert_eq!(passes(&mut finder, 2, &[10.0, 10.5, 205.0]), []);
        assert_eq!(passes(&mut finder, 3, &[10.0, 9.6, 210.0]), []);
        assert_eq!(passes(&mut finder, 4, &[10.0, 11.2, 215.0]), [(1, 0)]);
        assert_eq!(passes(&mut finder, 5, &[10.0, 12.0, 220.0]), [], "once");
        // Car 0 takes the place back.
        assert_eq!(passes(&mut finder, 6, &[14.0, 12.5, 225.0]), [(0, 1)]);
        // Out of the race: passes no one, is passed by no one.
        assert_eq!(passes(&mut finder, 7, &[15.0, f64::NAN, 230.0]), []);
        // 65 m apart: not racing for a place on track.
        assert_eq!(passes(&mut finder, 8, &[300.0, f64::NAN, 235.0]), []);
    }

    #[test]
    fn lap_records_are_valid_laps_faster_than_every_earlier_one() {
        let lap = |time: f64, valid: bool| Lap {
            number: 1,
            start: 0.0,
            end: time,
            kind: LapStart::Flying,
            faults: if valid {
                Vec::new()
            } else {
                vec![LapFault::LeftTrack {
                    time: 1.0,
                    offset: 9.0,
                    limit: 7.0,
                }]
            },
            sectors: Vec::new(),
        };
        let mut finder = HighlightFinder::new(HighlightOptions::default()).unwrap();
        let mut records = Vec::new();
        for (step, laps) in [
            (
                1,
                vec![(car(0), lap(70.0, true)), (car(1), lap(60.0, false))],
            ),
            (2, vec![(car(1), lap(71.0, true))]),
            (3, vec![(car(0), lap(65.0, true))]),
        ] {
            for h in finder.observe(step, &[], &[], &laps) {
                if let HighlightKind::LapRecord { car, time } = h.kind {
                    records.push((h.step, car.to_raw(), time));
                }
            }
        }
        assert_eq!(records, [(1, 0, 70.0), (3, 0, 65.0)]);
    }

    #[test]
    fn a_contact_is_reported_at_its_first_hard_step_and_raised_while_it_lasts() {
        let mut finder = HighlightFinder::new(HighlightOptions::default()).unwrap();
        let touch = |impulse| [(car(0), Some(car(1)), impulse)];
        assert!(finder.observe(1, &[], &touch(100.0), &[]).is_empty());
        let first = finder.observe(2, &[], &touch(600.0), &[]).to_vec();
        assert_eq!(first.len(), 1);
        assert!(finder.observe(3, &[], &touch(900.0), &[]).is_empty());
        assert!(finder.observe(4, &[], &[], &[]).is_empty());
        assert!(matches!(
            finder.found()[0].kind,
            HighlightKind::Contact { impulse, .. } if impulse == 900.0
        ));
        // A new contact after they parted is a new highlight.
        assert_eq!(finder.observe(5, &[], &touch(700.0), &[]).len(), 1);
    }
}
