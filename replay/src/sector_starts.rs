//! Where a take-over can begin at a boundary of a record: for one car of
//! a replay, the step just before it crossed each sector boundary and the
//! line, lap by lap. "Start at sector 2 of the record" takes the record
//! over there ([`TakeOver`](crate::TakeOver)), so the player drives that
//! sector on from the record's own state with the record beside them.

use std::sync::Arc;

use skidpad_core::race::{RaceRules, RaceTiming};

use crate::player::PlayerOptions;
use crate::world::create_replay_world;
use crate::{Limits, NoHooks, Replay, ReplayError, ReplayPlayer, Result};

/// A step of a replay just before one of its cars entered a sector.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct SectorStart {
    /// The lap the sector belongs to, from 1.
    pub lap: u32,
    /// The sector entered, from 1 (1: the line, starting lap `lap`).
    pub sector: u32,
    /// The replay's step (since its start) just before the crossing: the
    /// car crosses during the next step.
    pub step: u64,
    /// Race time of the crossing, s (the replay's start is 0).
    pub time: f64,
}

/// Every sector start of car `car` (by index in the replay) in its
/// completed laps, in order, found by timing the replay as every skidpad
/// tool times it; the replay's declared work is checked against `limits`
/// before a step is played. A lap that missed a boundary (an invalid lap
/// without sector times) gives only its line. Refused for a replay that
/// names no track or a car it does not hold.
///
/// ```
/// # use std::sync::Arc;
/// # use skidpad_core::{InitialPose, Track, World, WorldConfig, preset, race::{GridLayout, grid_pose}};
/// # use skidpad_replay::{RecorderOptions, ReplayRecorder};
/// use skidpad_replay::{Limits, TakeOver, sector_starts};
/// # let track = Arc::new(Track::builtin("brandwood")?);
/// # let mut world = World::new(WorldConfig::default())?;
/// # world.set_ground(Arc::new(track.ground()?))?;
/// # let car = world.add_car(&preset("rwd_sports")?, grid_pose(&track, 0, &GridLayout::default()))?;
/// # world.set_driver(car, Some(track.clone()))?;
/// # let options = RecorderOptions { track: Some(track), ..RecorderOptions::default() };
/// # let mut recorder = ReplayRecorder::new(&world, options)?;
/// # for _ in 0..6_000 { recorder.step(&mut world, 1.0 / 60.0)?; }
/// let record = Arc::new(recorder.finish(&world)?); // an AI lap and a bit
/// let starts = sector_starts(&record, 0, &Limits::default())?;
/// // Sectors 2 and 3 of lap 1, then the line starting lap 2.
/// let found: Vec<(u32, u32)> = starts.iter().map(|s| (s.lap, s.sector)).collect();
/// assert_eq!(found, [(1, 2), (1, 3), (2, 1)]);
/// let sector_two = TakeOver::new(record.clone(), starts[0].step, 0, &Limits::default())?;
/// # let _ = sector_two;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sector_starts(
    replay: &Arc<Replay>,
    car: usize,
    limits: &Limits,
) -> Result<Vec<SectorStart>> {
    let track = replay
        .header
        .track()?
        .ok_or_else(|| ReplayError::InvalidArgument {
            what: "sector starts",
            reason: "the replay names no track, so it has no sectors".into(),
        })?;
    if car >= replay.cars.len() {
        return Err(ReplayError::InvalidArgument {
            what: "sector starts",
            reason: format!("the replay has {} car(s): no car {car}", replay.cars.len()),
        });
    }
    let options = PlayerOptions {
        limits: *limits,
        ..PlayerOptions::default()
    };
    let mut player = ReplayPlayer::with_options(
        create_replay_world(replay)?,
        replay.clone(),
        NoHooks,
        options,
    )?;
    let id = player.car_ids()[car];
    let mut timing = RaceTiming::new(Arc::new(track), RaceRules::default(), player.world());
    // Race time after each step (index 0: the start).
    let mut times = vec![0.0];
    let mut starts = Vec::new();
    let mut laps_seen = 0;
    while player.advance()? {
        timing.after_step(player.world())?;
        times.push(timing.time());
        // A car that joined the recording later is timed from its arrival.
        if timing.laps(id).is_none() && player.world().contains_car(id) {
            let position = player.world().car(id)?.pose().position.truncate();
            timing.join(id, position);
        }
        let laps = timing.laps(id).unwrap_or_default();
        for lap in &laps[laps_seen..] {
            let mut boundary = lap.start;
            for k in 1..lap.sectors.len() {
                boundary += lap.sectors[k - 1];
                starts.push(start_at(&times, lap.number, k as u32 + 1, boundary));
            }
            starts.push(start_at(&times, lap.number + 1, 1, lap.end));
        }
        laps_seen = laps.len();
    }
    Ok(starts)
}

/// The sector start crossed at race time `time`: the last step whose
/// race time is before it.
fn start_at(times: &[f64], lap: u32, sector: u32, time: f64) -> SectorStart {
    let step = times.partition_point(|&t| t < time).saturating_sub(1) as u64;
    SectorStart {
        lap,
        sector,
        step,
        time,
    }
}
