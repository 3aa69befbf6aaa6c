//! `skidpad telemetry REPLAY --car N`: one car's every telemetry channel
//! as CSV, a row per recorded step (or every `--stride`-th), for
//! spreadsheets and analysis tools.
//!
//! Two header rows: the column names, then their units. The columns are
//! `step`, `race_time` (s, the replay's clock), the race layer's `lap`
//! (laps completed + 1 once the car is past the line), `lap_time` (s into
//! that lap) and `lap_distance` (m along the centre line from the line,
//! resetting each lap so laps overlay), then every channel of
//! `CHANNELS.md` in order. The
//! lap columns are empty for a replay that names no track
//! (`ReplayHeader::TRACK_KEY`) and on an out-lap. Values are written in
//! Rust's shortest round-trip form, so a row reads back to the exact
//! telemetry. A car the recording removed has its channel fields empty
//! from the step it was removed at. Rows are written as they are made: a
//! replay of any length streams through a fixed amount of memory.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Result, bail};
use indicatif::ProgressBar;
use skidpad_core::CHANNELS;
use skidpad_core::race::{RaceRules, RaceTiming};
use skidpad_replay::Limits;

use crate::files::{self, GameLogic};

/// The columns before the channels, with their units.
const LEADING: [(&str, &str); 5] = [
    ("step", "1"),
    ("race_time", "s"),
    ("lap", "1"),
    ("lap_time", "s"),
    ("lap_distance", "m"),
];

fn header(out: &mut dyn Write) -> Result<()> {
    let names = LEADING
        .iter()
        .map(|(n, _)| *n)
        .chain(CHANNELS.iter().map(|c| c.name));
    let units = LEADING
        .iter()
        .map(|(_, u)| *u)
        .chain(CHANNELS.iter().map(|c| c.unit));
    writeln!(out, "{}", names.collect::<Vec<_>>().join(","))?;
    writeln!(out, "{}", units.collect::<Vec<_>>().join(","))?;
    Ok(())
}

/// A value, or an empty field.
fn field(out: &mut dyn Write, value: Option<f64>) -> Result<()> {
    match value {
        Some(v) => write!(out, ",{v}")?,
        None => write!(out, ",")?,
    }
    Ok(())
}

/// Writes car `car`'s telemetry from `replay_path` as CSV to `out`, every
/// `stride`-th step; returns the rows written (besides the headers).
pub fn export_csv(
    replay_path: &Path,
    car: u32,
    stride: u64,
    out: &mut dyn Write,
    limits: &Limits,
    game_logic: GameLogic,
    progress: &ProgressBar,
) -> Result<u64> {
    if stride == 0 {
        bail!("--stride must be at least 1");
    }
    let replay = files::load_replay(replay_path, limits)?;
    let cars = replay.cars.len();
    let Some(index) = usize::try_from(car).ok().filter(|&c| c < cars) else {
        bail!(
            "{} has {cars} car(s) (0 to {}): no car {car}",
            replay_path.display(),
            cars.saturating_sub(1)
        );
    };
    progress.set_length(replay.header.step_count);
    let track = replay.header.track()?.map(Arc::new);
    let length = track.as_ref().map(|t| t.length());
    let mut player = files::straight_player(&replay, limits, game_logic)?;
    let id = player.car_ids()[index];
    let mut race = track.map(|t| RaceTiming::new(t, RaceRules::default(), player.world()));
    header(out)?;
    let mut time = 0.0;
    let mut rows = 0;
    while let Some((step, dt)) = files::next_step(&mut player, &replay)? {
        progress.inc(1);
        time += dt;
        let world = player.world();
        if let Some(race) = race.as_mut() {
            race.observe(world, dt);
        }
        if (step - 1) % stride != 0 {
            continue;
        }
        write!(out, "{step},{time}")?;
        let timer = race
            .as_ref()
            .and_then(|r| r.timers().find(|(c, _)| *c == id).map(|(_, t)| t));
        let progress_m = race.as_ref().and_then(|r| r.progress(id));
        let on_lap = progress_m.filter(|p| *p >= 0.0);
        let laps_done = timer.map(|t| t.laps().len() as f64);
        field(out, on_lap.and(laps_done.map(|n| n + 1.0)))?;
        let lap_start = timer
            .and_then(|t| t.lap_in_progress())
            .map(|(start, _)| start);
        field(
            out,
            lap_start.map(|s| race.as_ref().map_or(0.0, |r| r.time()) - s),
        )?;
        field(out, on_lap.zip(length).map(|(p, l)| p.rem_euclid(l)))?;
        if world.contains_car(id) {
            for value in world.telemetry(id)? {
                write!(out, ",{value}")?;
            }
        } else {
            // Removed: empty fields from the step it was removed at.
            for _ in 0..CHANNELS.len() {
                write!(out, ",")?;
            }
        }
        writeln!(out)?;
        rows += 1;
    }
    out.flush()?;
    Ok(rows)
}
