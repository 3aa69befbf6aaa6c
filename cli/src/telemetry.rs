//! `skidpad telemetry REPLAY --car N --format csv|motec-csv|ld`: one car's
//! telemetry for spreadsheets and analysis tools. The formats themselves
//! are the `skidpad-telemetry` crate's (shared with the wasm package);
//! this module reads the replay, plays it with the command's limits and
//! game logic, and gives the writers their files: the MoTeC formats' rows
//! wait in an unnamed temporary file, and a `.ld` and its `.ldx` are each
//! written atomically.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use indicatif::ProgressBar;
use skidpad_replay::{Limits, Replay};
pub use skidpad_telemetry::rows::RowFilter;
use skidpad_telemetry::rows::{Row, Walk, walk};
use skidpad_telemetry::{TelemetryError, csv, motec::LogInfo, motec_csv, motec_ld};

use crate::atomic;
use crate::beside::Beside;
use crate::files::{self, GameLogic};

/// The replay at `replay_path`, decoded within `limits`, and the walk
/// over car `car`'s rows that `filter` keeps, its progress on `progress`.
fn with_walk<T>(
    replay_path: &Path,
    car: u32,
    filter: &RowFilter,
    (limits, beside, game_logic, progress): (&Limits, &Beside, GameLogic, &ProgressBar),
    write: impl FnOnce(&Replay, &mut Walk<'_>) -> Result<T>,
) -> Result<T> {
    let replay = files::load_replay(replay_path, limits, beside)?;
    progress.set_length(replay.header.step_count);
    // A writer walks the rows once.
    let mut player = Some(files::straight_player(&replay, limits, game_logic)?);
    let mut walk_rows = |each: &mut dyn FnMut(&Row<'_>) -> skidpad_telemetry::Result<()>| {
        let player = player.take().expect("a writer walks the rows once");
        walk(&replay, player, car, filter, &mut || progress.inc(1), each)
    };
    write(&replay, &mut walk_rows)
}

/// A telemetry error in the command's words: the flag that set what was
/// refused, where one did.
pub fn flagged(e: TelemetryError) -> anyhow::Error {
    match &e {
        TelemetryError::Laps { .. } | TelemetryError::NoRowsInLaps { .. } => {
            anyhow::anyhow!("--laps: {e}")
        }
        TelemetryError::Stride => anyhow::anyhow!("--stride: {e}"),
        TelemetryError::Rate { stride, .. } => anyhow::anyhow!("--stride {stride}: {e}"),
        TelemetryError::TooLong { .. } => anyhow::anyhow!("{e} (--laps, --stride)"),
        _ => e.into(),
    }
}

/// What a log says about car `car` of the replay at `replay_path`.
fn log_info(replay: &Replay, car: u32, replay_path: &Path) -> LogInfo {
    let file_name = replay_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    LogInfo::new(replay, car, &file_name)
}

fn spool() -> Result<std::fs::File> {
    tempfile::tempfile().context("cannot make a temporary file for the rows")
}

/// Writes car `car`'s telemetry from `replay_path` as CSV to `out`, the
/// rows `filter` keeps; returns the rows written (besides the headers).
pub fn export_csv(
    replay_path: &Path,
    car: u32,
    filter: &RowFilter,
    out: &mut dyn std::io::Write,
    (limits, beside): (&Limits, &Beside),
    game_logic: GameLogic,
    progress: &ProgressBar,
) -> Result<u64> {
    with_walk(
        replay_path,
        car,
        filter,
        (limits, beside, game_logic, progress),
        |_, walk| csv::write_csv(out, walk).map_err(flagged),
    )
}

/// Writes car `car`'s telemetry from `replay_path` as MoTeC CSV to `out`,
/// the rows `filter` keeps; returns the rows written.
pub fn export_motec_csv(
    replay_path: &Path,
    car: u32,
    filter: &RowFilter,
    out: &mut dyn std::io::Write,
    (limits, beside): (&Limits, &Beside),
    game_logic: GameLogic,
    progress: &ProgressBar,
) -> Result<u64> {
    with_walk(
        replay_path,
        car,
        filter,
        (limits, beside, game_logic, progress),
        |replay, walk| {
            let info = log_info(replay, car, replay_path);
            motec_csv::write_motec_csv(out, &info, filter, &mut spool()?, walk).map_err(flagged)
        },
    )
}

/// Where the beacons file of `ld` goes: beside it, `.ldx`.
#[must_use]
pub fn ldx_path(ld: &Path) -> PathBuf {
    ld.with_extension("ldx")
}

/// Writes car `car`'s telemetry from `replay_path` to `ld_path` (MoTeC
/// `.ld`) and its lap beacons to [`ldx_path`], each atomically; returns
/// the rows (samples per channel) written.
pub fn export_ld(
    replay_path: &Path,
    car: u32,
    filter: &RowFilter,
    ld_path: &Path,
    (limits, beside): (&Limits, &Beside),
    game_logic: GameLogic,
    progress: &ProgressBar,
) -> Result<u64> {
    atomic::check_target(ld_path)?;
    atomic::check_target(&ldx_path(ld_path))?;
    let log = with_walk(
        replay_path,
        car,
        filter,
        (limits, beside, game_logic, progress),
        |replay, walk| {
            let info = log_info(replay, car, replay_path);
            atomic::write_atomic_file(ld_path, |file, _| {
                motec_ld::write_ld(file, &info, filter.stride, &mut spool()?, walk).map_err(flagged)
            })
        },
    )?;
    atomic::write_atomic(&ldx_path(ld_path), log.ldx.as_bytes())?;
    Ok(log.rows)
}
