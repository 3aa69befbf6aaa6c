//! `RaceTiming`: a field of cars timed together, and the standings.
//!
//! Gaps are taken at timing points, as a circuit's timing loops take them:
//! each checkpoint of each lap is a point, the first car to reach a point
//! sets its time there, and a car's gap is its own time at the last point
//! it reached minus that first time. Only the first times are kept (one per
//! point the leader has reached), so memory grows with the race's length,
//! never with the number of observations.

use std::sync::Arc;

use glam::DVec2;

use super::lap::{Lap, LapFault};
use super::lap_timer::{LapTimer, RaceRules};
use crate::{CarId, CoreError, Result, Track, World};

/// Where a car stands in the race.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CarStatus {
    /// Still racing.
    Running,
    /// Completed the race's laps at this race time, s.
    Finished(f64),
    /// Left the race (removed from the world) at this race time, s.
    Retired(f64),
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// 1 for the leader.
    pub position: u32,
    /// The car.
    pub car: CarId,
    /// Laps completed.
    pub laps: u32,
    /// Distance raced from the line, m (negative on the grid).
    pub progress: f64,
    /// Time behind the leader at the last timing point this car reached,
    /// s; `None` before its first (and 0 for the leader).
    pub gap: Option<f64>,
    /// The last completed lap's time, s.
    pub last_lap: Option<f64>,
    /// The fastest valid lap's time, s.
    pub best_lap: Option<f64>,
    /// Running, finished or retired.
    pub status: CarStatus,
}

/// Something the timing saw happen.
#[derive(Clone, Debug, PartialEq)]
pub enum RaceEvent {
    /// `car` completed a lap.
    Lap {
        /// The car.
        car: CarId,
        /// The lap.
        lap: Lap,
    },
    /// `car` completed the race's laps.
    Finished {
        /// The car.
        car: CarId,
        /// Race time of its last crossing, s.
        time: f64,
    },
    /// `car` left the world.
    Retired {
        /// The car.
        car: CarId,
        /// Race time it was first missing, s.
        time: f64,
    },
}

#[derive(Clone, Debug)]
struct Entry {
    car: CarId,
    timer: LapTimer,
    status: CarStatus,
    /// The last timing point reached and the race time it was reached.
    point: Option<(i64, f64)>,
}

/// Times every car of a race.
#[derive(Clone, Debug)]
pub struct RaceTiming {
    track: Arc<Track>,
    rules: RaceRules,
    /// Race time of the last observation, s.
    time: f64,
    /// Cars in id order.
    cars: Vec<Entry>,
    /// Race time at which the first car reached each timing point (point
    /// `k` is `k` checkpoint spacings from the line).
    first_at: Vec<f64>,
}

impl RaceTiming {
    /// Times the cars of `world` from now (race time 0): each car's
    /// position now is its start.
    #[must_use]
    pub fn new(track: Arc<Track>, rules: RaceRules, world: &World) -> Self {
        let positions: Vec<(CarId, DVec2)> = world
            .car_ids()
            .filter_map(|id| Some((id, world.pose(id).ok()?.position.truncate())))
            .collect();
        RaceTiming::from_positions(track, rules, &positions)
    }

    /// Times cars from their start positions (race time 0), for a host
    /// that has positions but no `World` (a viewer reading poses).
    #[must_use]
    pub fn from_positions(track: Arc<Track>, rules: RaceRules, start: &[(CarId, DVec2)]) -> Self {
        let mut cars: Vec<Entry> = start
            .iter()
            .map(|&(car, _)| Entry {
                car,
                timer: LapTimer::new(track.clone(), rules),
                status: CarStatus::Running,
                point: None,
            })
            .collect();
        cars.sort_by_key(|e| e.car);
        cars.dedup_by_key(|e| e.car);
        let mut timing = RaceTiming {
            track,
            rules,
            time: 0.0,
            cars,
            first_at: Vec::new(),
        };
        for &(car, position) in start {
            if let Ok(i) = timing.cars.binary_search_by_key(&car, |e| e.car) {
                timing.cars[i].timer.observe(0.0, position);
            }
        }
        timing
    }

    /// Times a car that joins the race now (a player joining a running
    /// online race): its start is `position` at the current race time, so
    /// its first lap is timed from there. A car already timed is left as
    /// it is (returns false).
    pub fn join(&mut self, car: CarId, position: DVec2) -> bool {
        let Err(i) = self.cars.binary_search_by_key(&car, |e| e.car) else {
            return false;
        };
        let mut timer = LapTimer::new(self.track.clone(), self.rules);
        timer.observe(self.time, position);
        self.cars.insert(
            i,
            Entry {
                car,
                timer,
                status: CarStatus::Running,
                point: None,
            },
        );
        true
    }

    /// Observes `world` after the step it has just taken, timed by the
    /// timestep the world ran ([`World::last_timestep`]): as
    /// [`observe`](Self::observe) otherwise. Fails when the world has not
    /// stepped since its step count was set.
    pub fn after_step(&mut self, world: &World) -> Result<Vec<RaceEvent>> {
        let dt = world
            .last_timestep()
            .ok_or_else(|| CoreError::InvalidArgument {
                what: "race timing",
                reason:
                    "the world has not stepped since its step count was set: no step to observe"
                        .into(),
            })?;
        #[allow(deprecated)]
        Ok(self.observe(world, dt))
    }

    /// Observes `world` after a step of `dt` seconds. A car missing from
    /// the world is retired; a car reset before the step loses its lap in
    /// progress (see [`note_reset`](Self::note_reset)); a car the world
    /// gained is timed from this observation on, as if it joined now (a
    /// replay's player puts a late car in the world when it arrives, so
    /// this is its arrival; a game adding a car between steps calls
    /// [`join`](Self::join) then instead, to time it from there).
    #[deprecated(note = "use after_step, which reads the timestep from the world")]
    pub fn observe(&mut self, world: &World, dt: f64) -> Vec<RaceEvent> {
        // A reset came before the step just taken.
        let before = self.time;
        for entry in &mut self.cars {
            if world
                .last_step_record(entry.car)
                .is_ok_and(|r| r.reset.is_some())
            {
                entry.timer.note_reset(before);
            }
        }
        let time = self.time + dt;
        let position = |car| world.pose(car).ok().map(|p| p.position.truncate());
        let mut positions: Vec<(CarId, Option<DVec2>)> =
            self.cars.iter().map(|e| (e.car, position(e.car))).collect();
        let arrived = world
            .car_ids()
            .filter(|&car| self.cars.binary_search_by_key(&car, |e| e.car).is_err());
        positions.extend(arrived.map(|car| (car, position(car))));
        self.observe_positions(time, &positions)
    }

    /// The game reset `car` onto the track (`World::reset_car`) since the
    /// last observation: its lap in progress does not count. `observe`
    /// notices resets itself, from the world's step records; a caller of
    /// `observe_positions` says so here.
    pub fn note_reset(&mut self, car: CarId) {
        if let Ok(i) = self.cars.binary_search_by_key(&car, |e| e.car) {
            let time = self.time;
            self.cars[i].timer.note_reset(time);
        }
    }

    /// Observes the cars' positions at race time `time` (s); `None` for a
    /// car no longer in the race. Cars not listed are not observed; a
    /// listed car not timed yet that has a position joins the race now
    /// (its first observation, as [`join`](Self::join)).
    pub fn observe_positions(
        &mut self,
        time: f64,
        positions: &[(CarId, Option<DVec2>)],
    ) -> Vec<RaceEvent> {
        self.time = time;
        let mut events = Vec::new();
        for &(car, position) in positions {
            let Ok(i) = self.cars.binary_search_by_key(&car, |e| e.car) else {
                if let Some(position) = position {
                    self.join(car, position);
                }
                continue;
            };
            let entry = &mut self.cars[i];
            if !matches!(entry.status, CarStatus::Running) {
                continue;
            }
            let Some(position) = position else {
                entry.status = CarStatus::Retired(time);
                events.push(RaceEvent::Retired { car, time });
                continue;
            };
            let previous = entry.timer.last_observation();
            let lap = entry.timer.observe(time, position);
            if let (Some((t0, p0)), Some(p1)) = (previous, entry.timer.progress()) {
                self.note_points(i, (t0, p0), (time, p1));
            }
            let entry = &mut self.cars[i];
            if let Some(lap) = lap {
                let end = lap.end;
                let number = lap.number;
                events.push(RaceEvent::Lap { car, lap });
                if self.rules.laps.is_some_and(|laps| number >= laps) {
                    entry.status = CarStatus::Finished(end);
                    events.push(RaceEvent::Finished { car, time: end });
                }
            }
        }
        events
    }

    /// Timing points passed moving from progress `p0` to `p1`, each timed
    /// by interpolation within the observation.
    fn note_points(&mut self, i: usize, (t0, p0): (f64, f64), (time, p1): (f64, f64)) {
        if p1 <= p0 {
            return;
        }
        let spacing = self.track.length() / f64::from(self.rules.checkpoints.max(2));
        let from = (p0 / spacing).floor() as i64 + 1;
        let to = (p1 / spacing).floor() as i64;
        let reached = self.cars[i].point.map_or(-1, |(k, _)| k);
        for k in from.max(0).max(reached + 1)..=to {
            let at = t0 + (k as f64 * spacing - p0) / (p1 - p0) * (time - t0);
            let slot = k as usize;
            if slot >= self.first_at.len() {
                self.first_at.resize(slot + 1, at);
            }
            self.cars[i].point = Some((k, at));
        }
    }

    /// The cars' timers, in id order.
    pub fn timers(&self) -> impl Iterator<Item = (CarId, &LapTimer)> {
        self.cars.iter().map(|e| (e.car, &e.timer))
    }

    /// One car's completed laps.
    #[must_use]
    pub fn laps(&self, car: CarId) -> Option<&[Lap]> {
        self.cars
            .binary_search_by_key(&car, |e| e.car)
            .ok()
            .map(|i| self.cars[i].timer.laps())
    }

    /// Why a car's lap in progress will not count, so far (see
    /// [`LapTimer::faults_in_progress`]); `None` for an unknown car.
    #[must_use]
    pub fn faults_in_progress(&self, car: CarId) -> Option<&[LapFault]> {
        self.cars
            .binary_search_by_key(&car, |e| e.car)
            .ok()
            .map(|i| self.cars[i].timer.faults_in_progress())
    }

    /// Distance raced from the line by a car still in the race, m (see
    /// [`LapTimer::progress`]); `None` for a retired or unknown car.
    #[must_use]
    pub fn progress(&self, car: CarId) -> Option<f64> {
        let entry = &self.cars[self.cars.binary_search_by_key(&car, |e| e.car).ok()?];
        if matches!(entry.status, CarStatus::Retired(_)) {
            return None;
        }
        entry.timer.progress()
    }

    /// Race time of the last observation, s.
    #[must_use]
    pub fn time(&self) -> f64 {
        self.time
    }

    /// The standings: finished cars by finishing time, then running cars
    /// by distance raced, then retired cars by distance raced; ties by id.
    #[must_use]
    pub fn standings(&self) -> Vec<Standing> {
        let rank = |e: &Entry| match e.status {
            CarStatus::Finished(t) => (0, t),
            CarStatus::Running => (1, -e.timer.progress().unwrap_or(f64::NEG_INFINITY)),
            CarStatus::Retired(_) => (2, -e.timer.progress().unwrap_or(f64::NEG_INFINITY)),
        };
        let mut order: Vec<&Entry> = self.cars.iter().collect();
        order.sort_by(|a, b| {
            let (ka, kb) = (rank(a), rank(b));
            ka.0.cmp(&kb.0)
                .then(ka.1.total_cmp(&kb.1))
                .then(a.car.cmp(&b.car))
        });
        order
            .iter()
            .enumerate()
            .map(|(k, e)| Standing {
                position: k as u32 + 1,
                car: e.car,
                laps: e.timer.laps().len() as u32,
                progress: e.timer.progress().unwrap_or(0.0),
                gap: e.point.map(|(p, t)| t - self.first_at[p as usize]),
                last_lap: e.timer.laps().last().map(Lap::time),
                best_lap: e.timer.best_valid().map(Lap::time),
                status: e.status,
            })
            .collect()
    }
}
