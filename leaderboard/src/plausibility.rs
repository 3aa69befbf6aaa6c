//! Input patterns no human hand produces. A replay that re-simulates
//! exactly can still come from a bot or a tool-assisted run; these checks
//! report such patterns as flags for a moderator and never reject a run on
//! their own (a steering wheel with a noisy sensor, or a scripted
//! benchmark, can trip them honestly).

use serde::{Deserialize, Serialize};
use skidpad_core::{CarInput, Lod, LodSetting, SurfaceId};

/// A steer change this large within one step (a quarter of the full
/// range) is a jump; a hand on a wheel or a smoothed keyboard makes few.
pub const STEER_JUMP: f64 = 0.25;
/// The share of steps with a steer jump above which the run is flagged.
pub const STEER_JUMP_SHARE: f64 = 0.2;
/// Periods (steps) searched for inputs that repeat exactly.
pub const MAX_REPEAT_PERIOD: usize = 120;
/// A changing input that repeats exactly for this long is flagged, s.
pub const REPEAT_SECONDS: f64 = 1.0;
/// Fewer steps than this are too short to judge the steering.
const MIN_STEPS: u64 = 60;

/// Something a moderator should look at.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Flag {
    /// `steer_jitter`, `input_repeats`, `reduced_detail` or
    /// `other_surface`.
    pub kind: String,
    /// What was seen, in words.
    pub detail: String,
}

/// Watches the ranked car's inputs, level of detail and surfaces, step by
/// step, in bounded memory (the last `MAX_REPEAT_PERIOD` inputs).
#[derive(Debug)]
pub struct InputAudit {
    steps: u64,
    seconds: f64,
    steer_jumps: u64,
    /// The last inputs, newest at `(steps - 1) % MAX_REPEAT_PERIOD`.
    recent: Vec<[f64; 6]>,
    /// Per period p (index p - 1): how many steps in a row the input has
    /// equalled the input p steps before.
    repeat_run: Vec<u64>,
    /// The last step at which the input changed.
    last_change: u64,
    /// The longest exact repeat of a changing input: (steps, period, dt).
    longest_repeat: (u64, usize, f64),
    reduced_detail_steps: u64,
    other_surface_steps: u64,
}

impl Default for InputAudit {
    fn default() -> Self {
        InputAudit {
            steps: 0,
            seconds: 0.0,
            steer_jumps: 0,
            recent: Vec::with_capacity(MAX_REPEAT_PERIOD),
            repeat_run: vec![0; MAX_REPEAT_PERIOD],
            last_change: 0,
            longest_repeat: (0, 0, 0.0),
            reduced_detail_steps: 0,
            other_surface_steps: 0,
        }
    }
}

impl InputAudit {
    /// One step of `dt` s that ran with `input`, `lod` and `surfaces`.
    pub fn observe(&mut self, dt: f64, input: CarInput, lod: LodSetting, surfaces: [SurfaceId; 4]) {
        let now = input.to_array();
        let n = self.steps as usize;
        if let Some(previous) = n.checked_sub(1).map(|k| self.recent[k % MAX_REPEAT_PERIOD]) {
            if (now[0] - previous[0]).abs() > STEER_JUMP {
                self.steer_jumps += 1;
            }
            if now != previous {
                self.last_change = self.steps;
            }
        }
        for period in 1..=MAX_REPEAT_PERIOD.min(n) {
            let earlier = self.recent[(n - period) % MAX_REPEAT_PERIOD];
            let run = &mut self.repeat_run[period - 1];
            *run = if earlier == now { *run + 1 } else { 0 };
            // Periodic with period p and changed within the last p steps:
            // a pattern, not a held input.
            let changing = self.steps - self.last_change < period as u64;
            if changing && *run > self.longest_repeat.0 && *run >= 2 * period as u64 {
                self.longest_repeat = (*run, period, dt);
            }
        }
        if n < MAX_REPEAT_PERIOD {
            self.recent.push(now);
        } else {
            self.recent[n % MAX_REPEAT_PERIOD] = now;
        }
        if lod.level != Lod::Full || lod.substep_rate.is_some() {
            self.reduced_detail_steps += 1;
        }
        if surfaces.iter().any(|s| *s != SurfaceId::default()) {
            self.other_surface_steps += 1;
        }
        self.steps += 1;
        self.seconds += dt;
    }

    /// The flags this run earned.
    #[must_use]
    pub fn flags(&self) -> Vec<Flag> {
        let mut flags = Vec::new();
        let share = self.steer_jumps as f64 / self.steps.max(1) as f64;
        if self.steps >= MIN_STEPS && share > STEER_JUMP_SHARE {
            flags.push(Flag {
                kind: "steer_jitter".into(),
                detail: format!(
                    "steer moved more than {STEER_JUMP} in one step on {:.0} % of {} steps",
                    share * 100.0,
                    self.steps
                ),
            });
        }
        let (run, period, dt) = self.longest_repeat;
        if run as f64 * dt >= REPEAT_SECONDS {
            flags.push(Flag {
                kind: "input_repeats".into(),
                detail: format!(
                    "a changing input repeated exactly every {period} steps for {run} steps ({:.2} s)",
                    run as f64 * dt
                ),
            });
        }
        if self.reduced_detail_steps > 0 {
            flags.push(Flag {
                kind: "reduced_detail".into(),
                detail: format!(
                    "ran {} of {} steps with another model or substep rate than the full model's own",
                    self.reduced_detail_steps, self.steps
                ),
            });
        }
        if self.other_surface_steps > 0 {
            flags.push(Flag {
                kind: "other_surface".into(),
                detail: format!(
                    "a wheel was on a surface other than the default on {} of {} steps",
                    self.other_surface_steps, self.steps
                ),
            });
        }
        flags
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn audit(inputs: impl IntoIterator<Item = CarInput>) -> Vec<String> {
        let mut audit = InputAudit::default();
        for input in inputs {
            audit.observe(
                1.0 / 60.0,
                input,
                LodSetting::default(),
                [SurfaceId::default(); 4],
            );
        }
        audit.flags().into_iter().map(|f| f.kind).collect()
    }

    fn steer(v: f64) -> CarInput {
        CarInput {
            steer: v,
            throttle: 1.0,
            ..CarInput::default()
        }
    }

    #[test]
    fn a_smooth_human_like_input_is_not_flagged() {
        // A slow, non-periodic sweep with a held throttle.
        let inputs = (0..2000).map(|k| steer((k as f64 * 0.013).sin() * (k as f64 * 0.0021).sin()));
        assert!(audit(inputs).is_empty());
    }

    #[test]
    fn a_held_input_is_not_a_pattern() {
        assert!(audit((0..600).map(|_| steer(0.3))).is_empty());
    }

    #[test]
    fn steering_that_jumps_every_step_is_flagged() {
        let inputs = (0..300).map(|k| steer(if k % 2 == 0 { 0.6 } else { -0.6 }));
        let flags = audit(inputs);
        assert!(flags.contains(&"steer_jitter".to_owned()), "{flags:?}");
        assert!(flags.contains(&"input_repeats".to_owned()), "{flags:?}");
    }

    #[test]
    fn a_frame_perfect_repeated_sequence_is_flagged() {
        // A 37-step sequence of small, smooth steer values played 4 times:
        // no jumps, but no human repeats analog values exactly.
        let pattern: Vec<CarInput> = (0..37).map(|k| steer(k as f64 / 100.0)).collect();
        let flags = audit(pattern.iter().copied().cycle().take(37 * 4));
        assert_eq!(flags, ["input_repeats"]);
    }

    #[test]
    fn reduced_detail_and_other_surfaces_are_reported() {
        let mut audit = InputAudit::default();
        let single_track = LodSetting::new(Lod::SingleTrack);
        audit.observe(
            1.0 / 60.0,
            steer(0.0),
            single_track,
            [SurfaceId::default(); 4],
        );
        audit.observe(
            1.0 / 60.0,
            steer(0.0),
            LodSetting::default(),
            [SurfaceId(2); 4],
        );
        let kinds: Vec<String> = audit.flags().into_iter().map(|f| f.kind).collect();
        assert_eq!(kinds, ["reduced_detail", "other_surface"]);
    }
}
