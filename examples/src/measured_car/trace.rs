//! Measured and simulated channels on one time grid: the digitised CSV
//! polylines read and resampled, and a run's samples, so both sides of a
//! comparison go through the same metric code.

/// A digitised `t,value` polyline: not evenly sampled, and a time may
/// repeat where the plot steps.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    points: Vec<(f64, f64)>,
}

impl Trace {
    /// Reads `t,value` lines after a header line (CRLF or LF).
    ///
    /// # Errors
    /// A line that is not two finite numbers, times that go backwards, or
    /// fewer than two points.
    pub fn parse(csv: &str) -> Result<Trace, String> {
        let mut points: Vec<(f64, f64)> = Vec::new();
        for (index, line) in csv.lines().enumerate().skip(1) {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let number = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite());
            let (t, v) = line
                .split_once(',')
                .and_then(|(t, v)| Some((number(t)?, number(v)?)))
                .ok_or_else(|| format!("line {}: expected `t,value`, found `{line}`", index + 1))?;
            if points.last().is_some_and(|&(last, _)| t < last) {
                return Err(format!("line {}: time {t} goes backwards", index + 1));
            }
            points.push((t, v));
        }
        if points.len() < 2 {
            return Err("a trace needs at least two points".to_owned());
        }
        Ok(Trace { points })
    }

    /// First time, s.
    #[must_use]
    pub fn start(&self) -> f64 {
        self.points[0].0
    }

    /// Last time, s.
    #[must_use]
    pub fn end(&self) -> f64 {
        self.points[self.points.len() - 1].0
    }

    /// The value at `t`, linear between points; where a time repeats, the
    /// last value written for it holds from that time on. Constant beyond
    /// the ends.
    #[must_use]
    pub fn at(&self, t: f64) -> f64 {
        let after = self.points.partition_point(|&(time, _)| time <= t);
        if after == 0 {
            return self.points[0].1;
        }
        if after == self.points.len() {
            return self.points[after - 1].1;
        }
        let (t0, v0) = self.points[after - 1];
        let (t1, v1) = self.points[after];
        v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    }
}

/// The channels a handling run is compared on, sampled every `dt` from
/// `start`: hand wheel (deg, positive left), lateral acceleration in the
/// road plane (m/s², positive left), yaw rate (deg/s, positive left),
/// roll (deg, in the measurements' sign: negative in a left turn) and
/// speed (m/s).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recording {
    pub start: f64,
    pub dt: f64,
    pub hand_wheel: Vec<f64>,
    pub lateral: Vec<f64>,
    pub yaw_rate: Vec<f64>,
    pub roll: Vec<f64>,
    pub speed: Vec<f64>,
}

/// One channel of a [`Recording`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    HandWheel,
    Lateral,
    YawRate,
    Roll,
}

impl Recording {
    /// The samples of `channel`.
    #[must_use]
    pub fn channel(&self, channel: Channel) -> &[f64] {
        match channel {
            Channel::HandWheel => &self.hand_wheel,
            Channel::Lateral => &self.lateral,
            Channel::YawRate => &self.yaw_rate,
            Channel::Roll => &self.roll,
        }
    }

    /// Number of samples.
    #[must_use]
    pub fn len(&self) -> usize {
        self.hand_wheel.len()
    }

    /// True without samples.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.hand_wheel.is_empty()
    }

    /// The time of sample `i`, s.
    #[must_use]
    pub fn time(&self, i: usize) -> f64 {
        self.start + i as f64 * self.dt
    }

    /// `channel` at time `t`, linear between samples, constant beyond.
    #[must_use]
    pub fn at(&self, channel: Channel, t: f64) -> f64 {
        let samples = self.channel(channel);
        let x = ((t - self.start) / self.dt).max(0.0);
        let i = (x as usize).min(samples.len() - 1);
        let j = (i + 1).min(samples.len() - 1);
        let f = (x - i as f64).clamp(0.0, 1.0);
        samples[i] + (samples[j] - samples[i]) * f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_time_steps_and_the_ends_hold() {
        let trace = Trace::parse("t,x\r\n0,0\r\n1,10\r\n1,20\r\n2,40\r\n").unwrap();
        assert_eq!(trace.at(-1.0), 0.0);
        assert_eq!(trace.at(0.5), 5.0);
        assert_eq!(trace.at(1.0), 20.0);
        assert_eq!(trace.at(1.5), 30.0);
        assert_eq!(trace.at(9.0), 40.0);
        assert!(Trace::parse("t,x\n1,0\n0,1\n").is_err());
        assert!(Trace::parse("t,x\n1,nan\n2,1\n").is_err());
    }
}
