//! Force feedback: the steering torque the simulation reports, turned
//! into a command for a wheel's motor, with the safety limits a wheel on
//! a desk needs.
//!
//! The command is the torque over the device's peak torque, times the
//! gain, smoothed, then clipped to `max_output` (0.4 of the peak by
//! default: enough to feel the car, too little to hurt a wrist) and rate
//! limited. It is zero while the page is hidden, while updates have
//! stalled for `stall_timeout` (a frozen tab must not leave a motor
//! pulling), and latched to zero when the wheel spins faster than
//! `runaway_speed`, which means the player let go while the wheel was
//! being driven: it stays off until [`ForceFeedback::rearm`].

use serde::{Deserialize, Serialize};

use crate::error::{Result, check_range};

/// Force-feedback settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ForceFeedbackSettings {
    /// The device's peak torque, N·m (the command's full scale).
    pub device_peak_torque: f64,
    /// Gain on the simulated hand-wheel torque, 0…2.
    pub gain: f64,
    /// Smoothing time constant, s (0: none).
    pub smoothing: f64,
    /// Largest command, share of the device's peak, 0…1.
    pub max_output: f64,
    /// Largest change of the command, share of peak per second.
    pub max_rate: f64,
    /// Wheel speed above which the output latches to zero, rad/s.
    pub runaway_speed: f64,
    /// Updates older than this zero the output, s.
    pub stall_timeout: f64,
}

impl Default for ForceFeedbackSettings {
    fn default() -> Self {
        ForceFeedbackSettings {
            device_peak_torque: 2.5,
            gain: 1.0,
            smoothing: 0.01,
            max_output: 0.4,
            max_rate: 20.0,
            runaway_speed: 10.0,
            stall_timeout: 0.25,
        }
    }
}

impl ForceFeedbackSettings {
    /// Refuses settings out of range.
    pub fn validate(&self) -> Result<()> {
        let check =
            |name: &str, v, lo, hi| check_range(format!("force_feedback.{name}"), v, lo, hi);
        check("device_peak_torque", self.device_peak_torque, 0.1, 100.0)?;
        check("gain", self.gain, 0.0, 2.0)?;
        check("smoothing", self.smoothing, 0.0, 1.0)?;
        check("max_output", self.max_output, 0.0, 1.0)?;
        check("max_rate", self.max_rate, 0.1, 1000.0)?;
        check("runaway_speed", self.runaway_speed, 0.5, 100.0)?;
        check("stall_timeout", self.stall_timeout, 0.01, 5.0)
    }
}

/// Why the output is zero, when it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Silenced {
    /// The page is hidden.
    Hidden,
    /// No simulation update for longer than the stall timeout.
    Stalled,
    /// The wheel ran away; latched until re-armed.
    Runaway,
}

/// What one frame of force feedback reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FeedbackFrame {
    /// Now, s (a monotonic clock).
    pub now: f64,
    /// When the simulation last reported a torque, s.
    pub last_update: f64,
    /// The simulated hand-wheel torque, N·m (positive: pulls right).
    pub torque: f64,
    /// The wheel's angular speed as the device reports it, rad/s.
    pub wheel_speed: f64,
    /// Whether the page (or window) is visible.
    pub visible: bool,
}

/// Counts for a settings screen: how often the command was clipped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClipStatistics {
    /// Frames computed.
    pub frames: u64,
    /// Frames whose command was clipped at `max_output`.
    pub clipped: u64,
}

/// The force-feedback stage.
#[derive(Clone, Debug, PartialEq)]
pub struct ForceFeedback {
    settings: ForceFeedbackSettings,
    smoothed: f64,
    output: f64,
    last_now: Option<f64>,
    latched: bool,
    stats: ClipStatistics,
}

impl ForceFeedback {
    /// A stage with `settings` (validated), output zero.
    pub fn new(settings: ForceFeedbackSettings) -> Result<ForceFeedback> {
        settings.validate()?;
        Ok(ForceFeedback {
            settings,
            smoothed: 0.0,
            output: 0.0,
            last_now: None,
            latched: false,
            stats: ClipStatistics::default(),
        })
    }

    /// The command for this frame, −`max_output`…+`max_output` of the
    /// device's peak (positive: pull right), and why it is zero if it is
    /// silenced. Non-finite readings count as a stall.
    pub fn update(&mut self, f: FeedbackFrame) -> (f64, Option<Silenced>) {
        let s = self.settings;
        let dt = match self.last_now {
            Some(before) if f.now.is_finite() && f.now > before => (f.now - before).min(1.0),
            _ => 0.0,
        };
        if f.now.is_finite() {
            self.last_now = Some(f.now);
        }
        if f.wheel_speed.is_finite() && f.wheel_speed.abs() > s.runaway_speed {
            self.latched = true;
        }
        let stalled = !(f.now.is_finite()
            && f.last_update.is_finite()
            && f.torque.is_finite()
            && f.now - f.last_update <= s.stall_timeout);
        let silenced = if self.latched {
            Some(Silenced::Runaway)
        } else if !f.visible {
            Some(Silenced::Hidden)
        } else if stalled {
            Some(Silenced::Stalled)
        } else {
            None
        };
        if silenced.is_some() {
            // Off at once, not ramped: safety before smoothness.
            self.smoothed = 0.0;
            self.output = 0.0;
            return (0.0, silenced);
        }
        let demand = s.gain * f.torque / s.device_peak_torque;
        self.smoothed = if s.smoothing > 0.0 {
            self.smoothed + (demand - self.smoothed) * (dt / (s.smoothing + dt))
        } else {
            demand
        };
        self.stats.frames += 1;
        let clipped = self.smoothed.clamp(-s.max_output, s.max_output);
        if clipped != self.smoothed {
            self.stats.clipped += 1;
        }
        let step = s.max_rate * dt;
        self.output = clipped.clamp(self.output - step, self.output + step);
        (self.output, None)
    }

    /// Clears a runaway latch (the player took the wheel again and said
    /// so).
    pub fn rearm(&mut self) {
        self.latched = false;
    }

    /// Clip counts since the stage was made.
    #[must_use]
    pub fn statistics(&self) -> ClipStatistics {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(now: f64, torque: f64) -> FeedbackFrame {
        FeedbackFrame {
            now,
            last_update: now,
            torque,
            wheel_speed: 0.0,
            visible: true,
        }
    }

    fn settle(ff: &mut ForceFeedback, torque: f64) -> f64 {
        let mut out = 0.0;
        for k in 0..200 {
            out = ff.update(frame(f64::from(k) / 100.0, torque)).0;
        }
        out
    }

    #[test]
    fn the_command_follows_the_torque_and_is_capped_at_the_safe_share() {
        let mut ff = ForceFeedback::new(ForceFeedbackSettings::default()).unwrap();
        assert!((settle(&mut ff, 0.5) - 0.2).abs() < 1e-9, "0.5 of 2.5 N·m");
        assert!(
            (settle(&mut ff, -10.0) + 0.4).abs() < 1e-12,
            "capped at 0.4"
        );
        assert!(ff.statistics().clipped > 0);
    }

    #[test]
    fn the_rate_limit_bounds_each_frames_change() {
        let mut ff = ForceFeedback::new(ForceFeedbackSettings {
            smoothing: 0.0,
            ..ForceFeedbackSettings::default()
        })
        .unwrap();
        ff.update(frame(0.0, 0.0));
        let (out, _) = ff.update(frame(0.01, 10.0));
        assert!((out - 0.2).abs() < 1e-12, "20 per second × 10 ms: {out}");
    }

    #[test]
    fn runaway_latches_to_zero_until_rearmed() {
        let mut ff = ForceFeedback::new(ForceFeedbackSettings::default()).unwrap();
        settle(&mut ff, 1.0);
        let spin = FeedbackFrame {
            wheel_speed: 12.0,
            ..frame(3.0, 1.0)
        };
        assert_eq!(ff.update(spin), (0.0, Some(Silenced::Runaway)));
        assert_eq!(ff.update(frame(3.01, 1.0)), (0.0, Some(Silenced::Runaway)));
        ff.rearm();
        assert_eq!(ff.update(frame(3.02, 1.0)).1, None);
    }

    #[test]
    fn a_hidden_page_or_a_stall_zeroes_the_output_at_once() {
        let mut ff = ForceFeedback::new(ForceFeedbackSettings::default()).unwrap();
        settle(&mut ff, 1.0);
        let hidden = FeedbackFrame {
            visible: false,
            ..frame(3.0, 1.0)
        };
        assert_eq!(ff.update(hidden), (0.0, Some(Silenced::Hidden)));
        let stalled = FeedbackFrame {
            last_update: 2.7,
            ..frame(3.0, 1.0)
        };
        assert_eq!(ff.update(stalled), (0.0, Some(Silenced::Stalled)));
        assert_eq!(
            ff.update(frame(3.0, f64::NAN)),
            (0.0, Some(Silenced::Stalled))
        );
    }
}
