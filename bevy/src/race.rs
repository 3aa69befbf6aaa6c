//! The race layer in Bevy: a resource that times every car with
//! skidpad's `RaceTiming` (the same laps, sectors and standings every
//! skidpad tool gives) and turns its events into Bevy messages.

use std::collections::BTreeMap;
use std::sync::Arc;

use bevy_ecs::prelude::*;
use skidpad_core::race::{Lap, RaceEvent, RaceRules, RaceTiming, Standing};
use skidpad_core::{CarId, Track, World};

use crate::cars::CarRegistry;
use crate::plugin::SkidpadWorld;

/// Times the race while it is a resource: insert one (made from the world
/// as the race starts) and read laps as [`LapCompleted`] messages and the
/// order from [`standings`](Self::standings). Cars that join later are
/// timed from where they join.
///
/// ```
/// use std::sync::Arc;
/// use bevy_app::{App, TaskPoolPlugin, Update};
/// use bevy_ecs::prelude::*;
/// use bevy_time::{TimePlugin, TimeUpdateStrategy};
/// use skidpad_bevy::{CarSpawn, LapCompleted, SkidpadPlugin, SkidpadRace, SkidpadWorld};
/// use skidpad_core::race::{GridLayout, RaceRules, grid_pose};
/// use skidpad_core::{Track, preset};
///
/// #[derive(Resource, Default)]
/// struct Laps(Vec<f64>);
///
/// let track = Arc::new(Track::builtin("brandwood")?);
/// let mut app = App::new();
/// app.add_plugins((TaskPoolPlugin::default(), TimePlugin, SkidpadPlugin::default()))
///     .insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
///     .init_resource::<Laps>()
///     .add_systems(Update, |mut laps: MessageReader<LapCompleted>, mut kept: ResMut<Laps>| {
///         kept.0.extend(laps.read().map(|l| l.lap.time()));
///     });
/// let pose = grid_pose(&track, 0, &GridLayout::default());
/// app.world_mut().spawn(CarSpawn::new(preset("rwd_sports")?, pose).driven_on(track.clone()));
/// let race = SkidpadRace::new(track, RaceRules::default(), &app.world().resource::<SkidpadWorld>());
/// app.insert_resource(race);
/// while app.world().resource::<Laps>().0.is_empty() {
///     app.update(); // the AI's first lap: about 80 s of racing
/// }
/// assert_eq!(app.world().resource::<SkidpadRace>().standings()[0].position, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Resource, Debug, Clone)]
pub struct SkidpadRace {
    track: Arc<Track>,
    timing: RaceTiming,
    /// The world's step count the timing last observed.
    observed_step: u64,
}

impl SkidpadRace {
    /// A race on `track` under `rules`, timing the cars in `world` from
    /// now (race time 0).
    #[must_use]
    pub fn new(track: Arc<Track>, rules: RaceRules, world: &World) -> Self {
        SkidpadRace {
            timing: RaceTiming::new(track.clone(), rules, world),
            track,
            observed_step: world.step_count(),
        }
    }

    /// The order now, leader first.
    #[must_use]
    pub fn standings(&self) -> Vec<Standing> {
        self.timing.standings()
    }

    /// The track the race is on.
    #[must_use]
    pub fn track(&self) -> &Arc<Track> {
        &self.track
    }

    /// The timing itself: laps, faults of the lap in progress, progress.
    #[must_use]
    pub fn timing(&self) -> &RaceTiming {
        &self.timing
    }

    /// Observes a step the world re-took in a flashback: the timing moves
    /// on, its events are not news (they were reported the first time).
    pub(crate) fn retake_step(&mut self, world: &World) -> skidpad_core::Result<()> {
        self.timing.after_step(world)?;
        self.observed_step = world.step_count();
        Ok(())
    }

    /// Takes a car that joined the world into the race, timed from where
    /// it is now.
    pub(crate) fn join(&mut self, world: &World, car: CarId) -> skidpad_core::Result<()> {
        let position = world.car(car)?.pose().position.truncate();
        self.timing.join(car, position);
        Ok(())
    }
}

/// A car completed a lap (valid or not: see [`Lap::is_valid`] and its
/// faults); the lap carries its sector times.
#[derive(Message, Debug, Clone, PartialEq)]
pub struct LapCompleted {
    /// The car's entity (`None` if it was despawned in the same step).
    pub entity: Option<Entity>,
    /// The car.
    pub car: CarId,
    /// The lap.
    pub lap: Lap,
}

/// A car ended a sector of its timed lap: passed one of the track's
/// sector boundaries, or the line (the lap's last sector, with its
/// [`LapCompleted`]). The time is the one the lap will carry in
/// `Lap::sectors`, live, so a HUD shows it without a ghost to race.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct SectorPassed {
    /// The car's entity (`None` if it was despawned in the same step).
    pub entity: Option<Entity>,
    /// The car.
    pub car: CarId,
    /// The lap's number (`Lap::number`).
    pub lap: u32,
    /// The sector it ended, from 0.
    pub sector: usize,
    /// The sector's time, s.
    pub time: f64,
    /// Race time it ended at, s.
    pub at: f64,
}

/// A car completed the race's laps.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct CarFinished {
    /// The car's entity (`None` if it was despawned in the same step).
    pub entity: Option<Entity>,
    /// The car.
    pub car: CarId,
    /// Race time of its last crossing, s.
    pub time: f64,
}

/// A car left the race before finishing (its entity was despawned).
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct CarRetired {
    /// The car.
    pub car: CarId,
    /// Race time it was first missing, s.
    pub time: f64,
}

/// The race observes the step the world just took and says what
/// happened.
pub(crate) fn time_step(
    world: Res<SkidpadWorld>,
    registry: Res<CarRegistry>,
    race: Option<ResMut<SkidpadRace>>,
    mut laps: MessageWriter<LapCompleted>,
    mut sectors: MessageWriter<SectorPassed>,
    mut finishes: MessageWriter<CarFinished>,
    mut retirements: MessageWriter<CarRetired>,
) -> Result {
    let Some(mut race) = race else {
        return Ok(());
    };
    // Nothing to observe when the world did not step (paused, refused).
    if world.step_count() == race.observed_step {
        return Ok(());
    }
    race.observed_step = world.step_count();
    // The splits each car's lap had before this step: those after it are
    // sectors ended now.
    let before: BTreeMap<CarId, usize> = race
        .timing
        .timers()
        .map(|(car, timer)| (car, timer.splits_in_progress().len()))
        .collect();
    let events = race.timing.after_step(&world)?;
    for (car, timer) in race.timing.timers() {
        let splits = timer.splits_in_progress();
        let (Some((start, _)), Some(&seen)) = (timer.lap_in_progress(), before.get(&car)) else {
            continue;
        };
        // The lap in progress's number: the laps completed, and this one.
        let lap = u32::try_from(timer.laps().len() + 1).unwrap_or(u32::MAX);
        for sector in seen.min(splits.len())..splits.len() {
            let from = if sector == 0 {
                start
            } else {
                splits[sector - 1]
            };
            sectors.write(SectorPassed {
                entity: registry.entity(car),
                car,
                lap,
                sector,
                time: splits[sector] - from,
                at: splits[sector],
            });
        }
    }
    for event in events {
        match event {
            RaceEvent::Lap { car, lap } => {
                if let Some(&time) = lap.sectors.last() {
                    sectors.write(SectorPassed {
                        entity: registry.entity(car),
                        car,
                        lap: lap.number,
                        sector: lap.sectors.len() - 1,
                        time,
                        at: lap.end,
                    });
                }
                laps.write(LapCompleted {
                    entity: registry.entity(car),
                    car,
                    lap,
                });
            }
            RaceEvent::Finished { car, time } => {
                finishes.write(CarFinished {
                    entity: registry.entity(car),
                    car,
                    time,
                });
            }
            RaceEvent::Retired { car, time } => {
                retirements.write(CarRetired { car, time });
            }
        }
    }
    Ok(())
}
