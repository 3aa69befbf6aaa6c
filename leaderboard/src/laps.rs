//! Lap times from the re-simulated car's path, never from the replay's
//! claims: the lap line is the track's distance 0, each crossing is timed
//! by interpolating within the step, and a lap counts only if the car
//! passed every checkpoint in order and stayed within the track limits.

use std::sync::Arc;

use glam::DVec2;
use serde::{Deserialize, Serialize};
use skidpad_core::Track;

/// Checkpoints per lap: the line and seven more, evenly spaced along the
/// centre line. A lap that misses one (a cut across the infield) is
/// invalid.
pub const CHECKPOINTS: usize = 8;

/// How far the centre of mass may stray beyond the track's edge, m, before
/// the lap is invalid (a car half over a kerb is still on the track).
pub const TRACK_LIMIT_MARGIN: f64 = 1.0;

/// One completed lap.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lap {
    /// 1 for the first lap started at the line.
    pub lap: u32,
    /// Lap time, s, line to line.
    pub time: f64,
    /// True when every checkpoint was passed in order within track limits.
    pub valid: bool,
    /// Why the lap does not count (empty when valid).
    pub invalid_reasons: Vec<String>,
}

/// Watches one car's position after every step and cuts laps.
#[derive(Debug)]
pub struct LapTimer {
    track: Arc<Track>,
    /// Time and track distance after the previous step.
    last: Option<(f64, f64)>,
    /// When the lap in progress began; `None` until the car first crosses
    /// the line forward (the out-lap is not timed).
    lap_start: Option<f64>,
    /// The next checkpoint the lap in progress must pass (1 ..
    /// CHECKPOINTS; CHECKPOINTS means all passed).
    next_checkpoint: usize,
    reasons: Vec<String>,
    laps: Vec<Lap>,
}

impl LapTimer {
    /// A timer for `track`.
    #[must_use]
    pub fn new(track: Arc<Track>) -> Self {
        LapTimer {
            track,
            last: None,
            lap_start: None,
            next_checkpoint: 1,
            reasons: Vec::new(),
            laps: Vec::new(),
        }
    }

    /// The car's centre of mass at `time` (s since the replay began).
    pub fn observe(&mut self, time: f64, position: DVec2) {
        let at = self.track.locate(position);
        self.check_limits(time, at.offset);
        let length = self.track.length();
        let Some((t0, s0)) = self.last.replace((time, at.distance)) else {
            return;
        };
        // The car moves a few metres a step, so a change of more than half
        // a lap is a wrap across the line.
        let mut delta = at.distance - s0;
        if delta < -length / 2.0 {
            delta += length;
        } else if delta > length / 2.0 {
            delta -= length;
        }
        let travelled = s0 + delta;
        if travelled < 0.0 {
            // Backwards over the line: the lap in progress cannot count.
            self.lap_start = None;
            return;
        }
        let spacing = length / CHECKPOINTS as f64;
        let before = (s0 / spacing) as usize;
        let after = ((travelled / spacing) as usize).min(CHECKPOINTS);
        if after > before + 1 && self.lap_start.is_some() {
            self.invalidate(
                "jumped",
                format!("jumped {delta:.1} m along the track in one step at t = {time:.3} s"),
            );
        }
        for checkpoint in before + 1..=after {
            if checkpoint == CHECKPOINTS {
                let crossing = t0 + (length - s0) / delta * (time - t0);
                self.cross_line(crossing);
            } else if checkpoint == self.next_checkpoint {
                self.next_checkpoint += 1;
            } else if self.lap_start.is_some() {
                self.invalidate(
                    "reached checkpoint",
                    format!(
                        "reached checkpoint {checkpoint} before checkpoint {}",
                        self.next_checkpoint
                    ),
                );
                self.next_checkpoint = checkpoint + 1;
            }
        }
    }

    /// Laps completed so far.
    #[must_use]
    pub fn laps(&self) -> &[Lap] {
        &self.laps
    }

    /// The fastest valid lap's time, s.
    #[must_use]
    pub fn best_valid(&self) -> Option<f64> {
        self.laps
            .iter()
            .filter(|l| l.valid)
            .map(|l| l.time)
            .min_by(f64::total_cmp)
    }

    fn check_limits(&mut self, time: f64, offset: f64) {
        let limit = self.track.width() / 2.0 + TRACK_LIMIT_MARGIN;
        if offset.abs() > limit && self.lap_start.is_some() {
            self.invalidate(
                "left the track",
                format!(
                    "left the track at t = {time:.3} s ({:.1} m from the centre line, limit {limit:.1} m)",
                    offset.abs()
                ),
            );
        }
    }

    /// One reason per kind of fault (`reason` starts with `kind`) is
    /// enough to read; the first is kept.
    fn invalidate(&mut self, kind: &str, reason: String) {
        if !self.reasons.iter().any(|r| r.starts_with(kind)) {
            self.reasons.push(reason);
        }
    }

    fn cross_line(&mut self, at: f64) {
        if let Some(start) = self.lap_start {
            let mut reasons = std::mem::take(&mut self.reasons);
            if self.next_checkpoint < CHECKPOINTS && reasons.is_empty() {
                reasons.push(format!(
                    "missed checkpoint {} of {}",
                    self.next_checkpoint,
                    CHECKPOINTS - 1
                ));
            }
            self.laps.push(Lap {
                lap: self.laps.len() as u32 + 1,
                time: at - start,
                valid: reasons.is_empty(),
                invalid_reasons: reasons,
            });
        }
        self.lap_start = Some(at);
        self.next_checkpoint = 1;
        self.reasons.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brandwood() -> Arc<Track> {
        Arc::new(Track::builtin("brandwood").unwrap())
    }

    /// Drives the centre line at `speed` m/s from `start` m for `seconds`,
    /// sampling at 60 Hz, with `offset(s)` m to the left of it.
    fn drive(
        timer: &mut LapTimer,
        start: f64,
        speed: f64,
        seconds: f64,
        offset: impl Fn(f64) -> f64,
    ) {
        let track = timer.track.clone();
        let steps = (seconds * 60.0) as u64;
        for k in 0..=steps {
            let t = k as f64 / 60.0;
            let s = start + speed * t;
            let (p, d) = track.point_at(s);
            let left = DVec2::new(-d.y, d.x);
            timer.observe(t, p + left * offset(s));
        }
    }

    #[test]
    fn laps_on_the_centre_line_take_length_over_speed() {
        let track = brandwood();
        let mut timer = LapTimer::new(track.clone());
        let speed = 40.0;
        let lap = track.length() / speed;
        drive(&mut timer, track.length() - 20.0, speed, 3.2 * lap, |_| 0.0);
        let laps = timer.laps();
        assert_eq!(laps.len(), 3, "{laps:?}");
        for l in laps {
            assert!(l.valid, "{l:?}");
            assert!((l.time - lap).abs() < 0.05, "{} vs {lap}", l.time);
        }
        assert_eq!(
            timer.best_valid(),
            Some(laps[0].time.min(laps[1].time).min(laps[2].time))
        );
    }

    #[test]
    fn leaving_the_track_invalidates_only_that_lap() {
        let track = brandwood();
        let mut timer = LapTimer::new(track.clone());
        let length = track.length();
        let wide = track.width() / 2.0 + TRACK_LIMIT_MARGIN + 0.5;
        let speed = 40.0;
        // Off track in the middle of the second lap only.
        let off = move |s: f64| {
            let along = s - (length - 20.0);
            if along > length * 1.4 && along < length * 1.45 {
                wide
            } else {
                0.0
            }
        };
        drive(&mut timer, length - 20.0, speed, 3.2 * length / speed, off);
        let valid: Vec<bool> = timer.laps().iter().map(|l| l.valid).collect();
        assert_eq!(valid, [true, false, true]);
        assert!(timer.laps()[1].invalid_reasons[0].starts_with("left the track"));
    }

    #[test]
    fn a_cut_that_skips_checkpoints_is_invalid() {
        let track = brandwood();
        let length = track.length();
        let mut timer = LapTimer::new(track.clone());
        let mut t = 0.0;
        let mut s = length - 20.0;
        let sample = |timer: &mut LapTimer, s: f64, t: f64| {
            timer.observe(t, track.point_at(s).0);
        };
        // Over the line, then jump from 10 % to 45 % of the lap (as a car
        // teleported by an edited replay would), then on to the line.
        while s < length * 1.1 {
            sample(&mut timer, s, t);
            s += 0.5;
            t += 1.0 / 60.0;
        }
        s = length * 1.45;
        while s < length * 2.05 {
            sample(&mut timer, s, t);
            s += 0.5;
            t += 1.0 / 60.0;
        }
        let laps = timer.laps();
        assert_eq!(laps.len(), 1);
        assert!(!laps[0].valid);
        assert!(laps[0].invalid_reasons[0].starts_with("jumped"), "{laps:?}");
    }

    #[test]
    fn reversing_over_the_line_cancels_the_lap() {
        let track = brandwood();
        let length = track.length();
        let mut timer = LapTimer::new(track.clone());
        // Forward over the line (lap starts), back over it, forward again.
        for (k, s) in [length - 2.0, 1.0, length - 1.0, 0.5, 3.0]
            .iter()
            .enumerate()
        {
            timer.observe(k as f64, track.point_at(*s).0);
        }
        assert!(timer.laps().is_empty(), "no lap was driven");
        assert!(
            timer.lap_start.is_some(),
            "timing restarted at the last crossing"
        );
    }
}
