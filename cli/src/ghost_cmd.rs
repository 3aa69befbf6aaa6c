//! `skidpad ghost REPLAY --car N --lap K -o FILE`: re-simulate a replay
//! and export one lap of one car as a ghost.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Result, bail};
use serde::Serialize;
use skidpad_ghost::{LapCutter, encode_ghost};
use skidpad_replay::Limits;

use crate::atomic;
use crate::beside::Beside;
use crate::files::{self, GameLogic};

/// What was exported.
#[derive(Clone, Debug, Serialize)]
pub struct GhostExport {
    /// Car index in the replay.
    pub car: u32,
    /// Lap number (1 = first).
    pub lap: u32,
    /// Lap time, s.
    pub time: f64,
    /// Frames written.
    pub frames: usize,
    /// Bytes written.
    pub bytes: usize,
}

/// Re-simulates `replay_path` with `game_logic` and writes lap `lap` of
/// car `car` to `out`. Work is bounded by `limits`.
pub fn export_lap(
    replay_path: &Path,
    car: u32,
    lap: u32,
    out: &Path,
    (limits, beside): (&Limits, &Beside),
    game_logic: GameLogic,
) -> Result<GhostExport> {
    if lap == 0 {
        bail!("laps count from 1");
    }
    let replay = files::load_replay(replay_path, limits, beside)?;
    if car as usize >= replay.cars.len() {
        bail!(
            "the replay has {} cars (0..{}), not car {car}",
            replay.cars.len(),
            replay.cars.len()
        );
    }
    let track = Arc::new(files::track_of(&replay)?);
    let mut player = files::straight_player(&replay, limits, game_logic)?;
    let id = player
        .car_id(car as usize)
        .ok_or_else(|| anyhow::anyhow!("the replay has no car {car}"))?;
    let mut cutter = LapCutter::new(id, track, player.world())?;
    while player.advance()? {
        if let Some(done) = cutter.after_step(player.world())?
            && done.lap.number == lap
        {
            let bytes = encode_ghost(&done.ghost)?;
            atomic::write_atomic(out, &bytes)?;
            return Ok(GhostExport {
                car,
                lap,
                time: done.lap.time(),
                frames: done.ghost.len(),
                bytes: bytes.len(),
            });
        }
    }
    bail!(
        "car {car} completed {} laps in the replay, not {lap}",
        cutter.laps()
    )
}
