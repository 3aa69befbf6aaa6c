//! `PlaybackClock`: plays a replay from a wall clock at any speed, for
//! slow motion, fast forward and rewind (a kill-cam).
//!
//! Playback time advances by wall-clock time × speed, never by one step
//! per frame, so a replay looks the same at any frame rate. Each tick the
//! player is sought to the last step at or before the playback time
//! (forward by stepping on, backward from the nearest keyframe or cached
//! point: rewinding is re-simulation, bit for bit), and the tick returns
//! how far the playback time lies toward the next step, for the display to
//! interpolate poses.

use crate::hooks::ReplayHooks;
use crate::player::ReplayPlayer;
use crate::replay::Replay;
use crate::{ReplayError, Result};

/// Slowest and fastest playback speeds accepted (either direction).
pub const MIN_PLAYBACK_SPEED: f64 = 1.0 / 64.0;
/// See [`MIN_PLAYBACK_SPEED`].
pub const MAX_PLAYBACK_SPEED: f64 = 64.0;

/// A replay's playback time, driven by the wall clock.
#[derive(Clone, Debug)]
pub struct PlaybackClock {
    /// Steps and their dt, as runs.
    dt: Vec<(u64, f64)>,
    duration: f64,
    time: f64,
    speed: f64,
    paused: bool,
}

impl PlaybackClock {
    /// A clock at the start of `replay`, playing at `speed` (negative plays
    /// backwards).
    pub fn new(replay: &Replay, speed: f64) -> Result<Self> {
        let mut clock = PlaybackClock {
            dt: replay.dt.runs().collect(),
            duration: replay.duration(),
            time: 0.0,
            speed: 1.0,
            paused: false,
        };
        clock.set_speed(speed)?;
        Ok(clock)
    }

    /// Sets the speed: ±1/64 to ±64 (¼ is slow motion, −1 rewinds).
    pub fn set_speed(&mut self, speed: f64) -> Result<()> {
        if !(MIN_PLAYBACK_SPEED..=MAX_PLAYBACK_SPEED).contains(&speed.abs()) {
            return Err(ReplayError::InvalidArgument {
                what: "playback speed",
                reason: format!(
                    "|{speed}| must be within {MIN_PLAYBACK_SPEED} and {MAX_PLAYBACK_SPEED}"
                ),
            });
        }
        self.speed = speed;
        Ok(())
    }

    /// Pauses or resumes; a paused clock ignores wall time.
    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
    }

    /// Playback time, s from the replay's start.
    #[must_use]
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Moves the playback time to `time` (clamped to the replay).
    pub fn jump_to(&mut self, time: f64) {
        self.time = time.clamp(0.0, self.duration);
    }

    /// The step at or before playback time `time`, and the fraction (0 …
    /// 1) of the next step's dt that `time` lies past it.
    #[must_use]
    pub fn step_at(&self, time: f64) -> (u64, f64) {
        let mut step = 0;
        let mut start = 0.0;
        for &(n, dt) in &self.dt {
            let span = n as f64 * dt;
            if time < start + span {
                let into = ((time - start) / dt).floor().clamp(0.0, (n - 1) as f64);
                let at = start + into * dt;
                return (step + into as u64, ((time - at) / dt).clamp(0.0, 1.0));
            }
            step += n;
            start += span;
        }
        (step, 0.0)
    }

    /// Advances the playback time by `wall_seconds` × speed (clamped to
    /// the replay), seeks `player` to the step at or before it and returns
    /// the interpolation fraction toward the next step.
    pub fn tick<H: ReplayHooks>(
        &mut self,
        player: &mut ReplayPlayer<'_, H>,
        wall_seconds: f64,
    ) -> Result<f64> {
        if !(wall_seconds.is_finite() && wall_seconds >= 0.0) {
            return Err(ReplayError::InvalidArgument {
                what: "wall_seconds",
                reason: format!("{wall_seconds} is not a finite, non-negative time"),
            });
        }
        if !self.paused {
            self.jump_to(self.time + wall_seconds * self.speed);
        }
        let (step, alpha) = self.step_at(self.time);
        player.seek(step)?;
        Ok(alpha)
    }
}
