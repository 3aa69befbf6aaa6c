//! The walk every format writes from: one car's row at each recorded step
//! (or every `stride`-th), with the race layer's lap, lap time and lap
//! distance, given as the step is made, so nothing accumulates.

use std::sync::Arc;

use crate::{Result, TelemetryError};
use skidpad_core::race::{Lap, RaceRules, RaceTiming};
use skidpad_replay::{Replay, ReplayHooks, ReplayPlayer};

/// One written step.
#[derive(Debug)]
pub struct Row<'a> {
    /// The step, from 1.
    pub step: u64,
    /// The replay's clock after the step, s.
    pub time: f64,
    /// The race layer's lap (laps completed + 1) once the car is past the
    /// line; `None` on an out-lap or without a track.
    pub lap: Option<u32>,
    /// Seconds into the lap in progress.
    pub lap_time: Option<f64>,
    /// Metres along the centre line from the line, resetting each lap.
    pub lap_distance: Option<f64>,
    /// The car's telemetry in `CHANNELS` order; `None` once the recording
    /// removed the car.
    pub values: Option<&'a [f64]>,
}

/// Which rows to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowFilter {
    /// Every N-th step (1: every step).
    pub stride: u64,
    /// Only rows of these laps (the `lap` column), inclusive.
    pub laps: Option<(u32, u32)>,
}

impl Default for RowFilter {
    fn default() -> Self {
        RowFilter {
            stride: 1,
            laps: None,
        }
    }
}

impl RowFilter {
    /// Parses a range of laps, `A-B` (or `A`): laps from 1, A ≤ B.
    pub fn parse_laps(text: &str) -> Result<(u32, u32)> {
        let refused = |reason| TelemetryError::Laps {
            text: text.to_owned(),
            reason,
        };
        let parse = |t: &str| -> Result<u32> {
            t.trim()
                .parse::<u32>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| refused("laps are numbered from 1 (e.g. 2-4)"))
        };
        let (first, last) = match text.split_once('-') {
            Some((a, b)) => (parse(a)?, parse(b)?),
            None => (parse(text)?, parse(text)?),
        };
        if first > last {
            return Err(refused("the first lap is after the last"));
        }
        Ok((first, last))
    }
}

/// What a walk saw besides its rows.
#[derive(Debug, Default)]
pub struct Walked {
    /// Rows given.
    pub rows: u64,
    /// The car's completed laps, from the race layer.
    pub laps: Vec<Lap>,
    /// The track's key, when the replay names one.
    pub track: Option<String>,
    /// The replay's fixed step, when every step has one dt (the sample
    /// rate of an export).
    pub dt: Option<f64>,
    /// The replay's clock at the end, s.
    pub duration: f64,
}

/// A walk over rows as a format writer sees it: called once with what to
/// do with each row, it walks and tells what it saw. [`walk`] with its
/// player and car bound is one.
pub type Walk<'w> = dyn FnMut(&mut dyn FnMut(&Row<'_>) -> Result<()>) -> Result<Walked> + 'w;

/// Plays `replay` through `player` (a fresh straight pass) and calls
/// `each` with car `car`'s row at every step `filter` keeps, as the step
/// is made; `tick` is called once per step (a progress bar's). A replay of
/// any length walks through a fixed amount of memory.
pub fn walk<H: ReplayHooks>(
    replay: &Replay,
    mut player: ReplayPlayer<'_, H>,
    car: u32,
    filter: &RowFilter,
    tick: &mut dyn FnMut(),
    each: &mut dyn FnMut(&Row<'_>) -> Result<()>,
) -> Result<Walked> {
    if filter.stride == 0 {
        return Err(TelemetryError::Stride);
    }
    let cars = replay.cars.len();
    let Some(index) = usize::try_from(car).ok().filter(|&c| c < cars) else {
        return Err(TelemetryError::NoCar { car, cars });
    };
    let track = replay.header.track()?.map(Arc::new);
    let length = track.as_ref().map(|t| t.length());
    if filter.laps.is_some() && track.is_none() {
        return Err(TelemetryError::NoTrack);
    }
    let mut walked = Walked {
        track: replay.header.metadata_value("track").map(str::to_owned),
        ..Walked::default()
    };
    let id = player.car_ids()[index];
    let mut race = track.map(|t| RaceTiming::new(t, RaceRules::default(), player.world()));
    let mut time = 0.0;
    let mut dts = (None::<f64>, true);
    while player.advance()? {
        let step = player.step();
        let dt = replay.dt.at(step - 1).unwrap_or(0.0);
        tick();
        time += dt;
        dts = match dts {
            (None, _) => (Some(dt), true),
            (Some(first), same) => (Some(first), same && first.to_bits() == dt.to_bits()),
        };
        let world = player.world();
        if let Some(race) = race.as_mut() {
            race.after_step(world)?;
        }
        if (step - 1) % filter.stride != 0 {
            continue;
        }
        let timer = race
            .as_ref()
            .and_then(|r| r.timers().find(|(c, _)| *c == id).map(|(_, t)| t));
        let on_lap = race
            .as_ref()
            .and_then(|r| r.progress(id))
            .filter(|p| *p >= 0.0);
        let lap = on_lap.and(timer.map(|t| t.laps().len() as u32 + 1));
        if let Some((first, last)) = filter.laps
            && !lap.is_some_and(|l| (first..=last).contains(&l))
        {
            continue;
        }
        let lap_start = timer
            .and_then(|t| t.lap_in_progress())
            .map(|(start, _)| start);
        let row = Row {
            step,
            time,
            lap,
            lap_time: lap_start.map(|s| race.as_ref().map_or(0.0, |r| r.time()) - s),
            lap_distance: on_lap.zip(length).map(|(p, l)| p.rem_euclid(l)),
            values: if world.contains_car(id) {
                Some(world.telemetry(id)?)
            } else {
                None
            },
        };
        each(&row)?;
        walked.rows += 1;
    }
    walked.duration = time;
    walked.dt = dts.0.filter(|_| dts.1);
    walked.laps = race
        .as_ref()
        .and_then(|r| {
            r.timers()
                .find(|(c, _)| *c == id)
                .map(|(_, t)| t.laps().to_vec())
        })
        .unwrap_or_default();
    if let Some((first, last)) = filter.laps
        && walked.rows == 0
    {
        return Err(TelemetryError::NoRowsInLaps {
            car,
            first,
            last,
            started: walked.laps.len() + 1,
        });
    }
    Ok(walked)
}
