//! Races in traffic, measured: a field of AI cars on a built-in track's
//! own surface (barriers, kerbs, run-off), with or without racecraft
//! (`Racecraft`), timed by the race layer. Counts what a racing game cares
//! about: cars that finish and those that do not, laps, and contacts —
//! episodes of two cars (or a car's body and the ground) touching over
//! consecutive steps, hard when one step's impulse in it reaches
//! [`HARD_IMPULSE`]. `VALIDATION.md`'s traffic table is printed from this
//! by `cargo run --release -p skidpad-examples --example traffic`.

use std::collections::BTreeMap;
use std::sync::Arc;

use skidpad_core::glam::DVec3;
use skidpad_core::race::{AiField, RaceEvent, RaceRules, RaceTiming, StandingClock, rolled_over};
use skidpad_core::{CarId, Track, World, WorldConfig};

/// A contact is hard when one step of it carries at least this normal
/// impulse, N·s: 0.4 m/s of speed change in one step for a 1.25 t car, a
/// bump a driver feels, where cars running side by side and rubbing stay
/// well under it.
pub const HARD_IMPULSE: f64 = 500.0;

const DT: f64 = 1.0 / 60.0;

/// One race to run.
#[derive(Clone, Debug)]
pub struct TrafficRace {
    /// Built-in track ([`run`]; [`run_on`] takes any track instead).
    pub track: String,
    /// Cars on the grid (presets fwd_hatchback and rwd_sports, alternating).
    pub cars: usize,
    /// Laps to race.
    pub laps: u32,
    /// Drivers race each other, with skills drawn from this seed; `None`:
    /// each drives as if alone.
    pub racecraft: Option<u64>,
    /// Drivers put their car back on the track after this many seconds
    /// stuck (`DriverStyle::resets_after`); `None`: never.
    pub resets_after: Option<f64>,
}

/// What happened.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrafficStats {
    /// Cars that completed every lap.
    pub finished: usize,
    /// Cars that did not (stuck for a minute, or out at the cut-off).
    pub dnf: usize,
    /// Resets the drivers made (stuck cars put back on the track).
    pub resets: usize,
    /// Rollovers: a car turning past 90° of roll or pitch (its roof's
    /// normal pointing down), counted once until it is upright again
    /// (within 60°, so a car rocking on its side counts once).
    pub rollovers: usize,
    /// Laps completed, over all cars (at most `laps` each).
    pub car_laps: usize,
    /// Of those, laps the race layer marked invalid (track limits).
    pub invalid_laps: usize,
    /// Car-to-car contact episodes.
    pub contacts: usize,
    /// Of those, hard ones.
    pub hard_contacts: usize,
    /// Hard body-to-ground episodes (barriers, a rolled car).
    pub hard_ground: usize,
    /// Places gained, over all cars, in the standings sampled once a
    /// second (a pass is one place gained by one car).
    pub places_gained: usize,
    /// Steps raced.
    pub steps: u64,
}

impl TrafficStats {
    /// Hard car-to-car contacts per completed car-lap.
    #[must_use]
    pub fn hard_per_car_lap(&self) -> f64 {
        self.hard_contacts as f64 / self.car_laps.max(1) as f64
    }
}

/// Open contact episodes: key → peak impulse so far.
type Episodes = BTreeMap<(CarId, Option<CarId>), f64>;

/// Runs `race` to the end (every car finished, stuck, or four minutes a
/// lap) and counts.
pub fn run(race: &TrafficRace) -> Result<TrafficStats, String> {
    let track = Track::builtin(&race.track).map_err(|e| e.to_string())?;
    run_on(Arc::new(track), race)
}

/// [`run`] on any track (a game's own, an imported circuit), on its
/// generated surface; `race.track` is not read.
pub fn run_on(track: Arc<Track>, race: &TrafficRace) -> Result<TrafficStats, String> {
    let err = |e: skidpad_core::CoreError| e.to_string();
    let mut world = World::new(WorldConfig::default()).map_err(err)?;
    world
        .set_ground(Arc::new(track.ground().map_err(err)?))
        .map_err(err)?;
    AiField::new(race.cars)
        .on_track_surface(race.resets_after)
        .racecraft(race.racecraft)
        .line_up(&mut world, &track)
        .map_err(err)?;
    let rules = RaceRules {
        laps: Some(race.laps),
        ..RaceRules::default()
    };
    let mut timing = RaceTiming::new(track.clone(), rules, &world);
    let ids: Vec<CarId> = world.car_ids().collect();
    let mut stats = TrafficStats::default();
    let mut finished = vec![false; ids.len()];
    // The race layer's rules: out after a minute standing still; a
    // rollover is the body past 90° of roll or pitch.
    let mut standing = StandingClock::new(ids.len(), DT);
    let mut rolled = vec![false; ids.len()];
    let mut open: Episodes = BTreeMap::new();
    let mut places: Vec<CarId> = Vec::new();
    let limit = u64::from(race.laps) * 60 * 240;
    let racing = |finished: &[bool], standing: &StandingClock| {
        (0..finished.len()).any(|k| !finished[k] && !standing.stuck(k))
    };
    let mut step = 0;
    while step < limit && racing(&finished, &standing) {
        world.step(DT).map_err(err)?;
        step += 1;
        for (k, id) in ids.iter().enumerate() {
            let pose = world.pose(*id).map_err(err)?;
            standing.observe(k, pose.speed);
            let up = (pose.orientation * DVec3::Z).z;
            if rolled_over(&pose) && !rolled[k] {
                stats.rollovers += 1;
                rolled[k] = true;
            } else if up > 0.5 {
                rolled[k] = false;
            }
            if world.last_step_record(*id).map_err(err)?.reset.is_some() {
                stats.resets += 1;
                // Put back on the track: no longer standing still.
                standing.restart(k);
            }
        }
        for event in timing.after_step(&world).map_err(|e| e.to_string())? {
            match event {
                RaceEvent::Lap { lap, .. } => {
                    stats.car_laps += 1;
                    stats.invalid_laps += usize::from(!lap.is_valid());
                }
                RaceEvent::Finished { car, .. } => {
                    if let Some(k) = ids.iter().position(|c| *c == car) {
                        finished[k] = true;
                    }
                }
                RaceEvent::Retired { .. } => {}
            }
        }
        count_contacts(&world, &mut open, &mut stats);
        if step % 60 == 0 {
            let order: Vec<CarId> = timing.standings().iter().map(|s| s.car).collect();
            for (place, car) in order.iter().enumerate() {
                if let Some(before) = places.iter().position(|c| c == car) {
                    stats.places_gained += before.saturating_sub(place);
                }
            }
            places = order;
        }
    }
    // Episodes still open at the end count as they stand.
    for (key, peak) in std::mem::take(&mut open) {
        close(key, peak, &mut stats);
    }
    stats.steps = step;
    stats.finished = finished.iter().filter(|f| **f).count();
    stats.dnf = ids.len() - stats.finished;
    Ok(stats)
}

/// Moves this step's contacts into the open episodes and closes those
/// that did not go on.
fn count_contacts(world: &World, open: &mut Episodes, stats: &mut TrafficStats) {
    let mut now: Episodes = BTreeMap::new();
    for c in world.contacts() {
        let peak = now.entry((c.first, c.second)).or_insert(0.0);
        *peak = peak.max(c.impulse);
    }
    for (key, peak) in std::mem::take(open) {
        match now.get_mut(&key) {
            Some(going_on) => *going_on = going_on.max(peak),
            None => close(key, peak, stats),
        }
    }
    *open = now;
}

fn close(key: (CarId, Option<CarId>), peak: f64, stats: &mut TrafficStats) {
    let hard = peak >= HARD_IMPULSE;
    if key.1.is_some() {
        stats.contacts += 1;
        stats.hard_contacts += usize::from(hard);
    } else {
        stats.hard_ground += usize::from(hard);
    }
}
