//! The figures a handling run is compared on, with the tolerances the
//! reference package set before its first run (the data's README), and
//! the same code reading both the measured and the simulated recording.

use super::drive::Manoeuvre;
use super::trace::{Channel, Recording};

/// Standard gravity, m/s².
const G: f64 = 9.80665;
/// The published steering ratio and wheelbase the understeer gradient is
/// read at (the data's README; 101.4 in).
const RATIO: f64 = 14.0;
const WHEELBASE: f64 = 2.576;
/// The linear range of the slowly increasing steer: lateral acceleration
/// rising through 1–4 m/s².
const LINEAR_RANGE: (f64, f64) = (1.0, 4.0);
/// The step steer's steady window, s.
const STEADY: (f64, f64) = (10.0, 16.0);

/// How far a figure may be from the measured one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    /// A fraction of the measured value.
    Relative(f64),
    /// In the figure's unit.
    Absolute(f64),
}

impl Tolerance {
    /// True when `value` is within tolerance of `measured`.
    #[must_use]
    pub fn accepts(self, value: f64, measured: f64) -> bool {
        match self {
            Tolerance::Relative(f) => (value - measured).abs() <= f * measured.abs(),
            Tolerance::Absolute(a) => (value - measured).abs() <= a,
        }
    }

    /// As the tables print it.
    #[must_use]
    pub fn describe(self, unit: &str) -> String {
        match self {
            Tolerance::Relative(f) => format!("± {:.0} %", f * 100.0),
            Tolerance::Absolute(a) => format!("± {a} {unit}"),
        }
    }
}

/// One compared figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Metric {
    pub manoeuvre: Manoeuvre,
    pub name: &'static str,
    pub unit: &'static str,
    /// The figure the data's README reads from the measured traces.
    pub published: f64,
    pub tolerance: Tolerance,
}

const fn metric(
    manoeuvre: Manoeuvre,
    name: &'static str,
    unit: &'static str,
    published: f64,
    tolerance: Tolerance,
) -> Metric {
    Metric {
        manoeuvre,
        name,
        unit,
        published,
        tolerance,
    }
}

use Manoeuvre::{Lc12, Lc22, Sis, Step};
use Tolerance::{Absolute, Relative};

/// The 17 figures, in the order [`figures`] returns them per manoeuvre.
/// Tolerances: gains ±15 %, understeer gradient ±1 deg/g, maximum lateral
/// acceleration ±10 %, roll ±25 %, steady step values ±10 %, response
/// times ±0.08 s, overshoot ±10 points, lane-change peaks ±15 % (roll
/// ±25 %).
#[rustfmt::skip]
pub const METRICS: [Metric; 17] = [
    metric(Sis, "yaw-rate gain", "deg/s per deg", 0.18, Relative(0.15)),
    metric(Sis, "lateral-acceleration gain", "m/s² per 100°", 3.6, Relative(0.15)),
    metric(Sis, "understeer gradient at ratio 14", "deg/g", 7.4, Absolute(1.0)),
    metric(Sis, "maximum lateral acceleration", "m/s²", 7.05, Relative(0.10)),
    metric(Sis, "roll gradient", "deg/g", 3.63, Relative(0.25)),
    metric(Step, "steady lateral acceleration", "m/s²", 5.54, Relative(0.10)),
    metric(Step, "steady yaw rate", "deg/s", 27.1, Relative(0.10)),
    metric(Step, "steady roll", "deg", 1.89, Relative(0.25)),
    metric(Step, "yaw-rate response time", "s", 0.28, Absolute(0.08)),
    metric(Step, "lateral-acceleration response time", "s", 0.28, Absolute(0.08)),
    metric(Step, "yaw-rate overshoot", "%", 0.77, Absolute(10.0)),
    metric(Lc12, "peak lateral acceleration", "m/s²", 5.57, Relative(0.15)),
    metric(Lc12, "peak yaw rate", "deg/s", 27.6, Relative(0.15)),
    metric(Lc12, "peak roll", "deg", 2.13, Relative(0.25)),
    metric(Lc22, "peak lateral acceleration", "m/s²", 6.21, Relative(0.15)),
    metric(Lc22, "peak yaw rate", "deg/s", 22.1, Relative(0.15)),
    metric(Lc22, "peak roll", "deg", 3.42, Relative(0.25)),
];

/// Least-squares slope of y on x.
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), &(x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let (sxy, sxx) = points.iter().fold((0.0, 0.0), |(a, b), &(x, y)| {
        (a + (x - mx) * (y - my), b + (x - mx) * (x - mx))
    });
    sxy / sxx
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    sum / n as f64
}

/// The samples of the slowly increasing steer's linear range: lateral
/// acceleration within `LINEAR_RANGE`, before its peak.
fn linear_samples(r: &Recording) -> Vec<usize> {
    let peak = (0..r.len())
        .max_by(|&a, &b| r.lateral[a].total_cmp(&r.lateral[b]))
        .unwrap_or(0);
    (0..peak)
        .filter(|&i| (LINEAR_RANGE.0..=LINEAR_RANGE.1).contains(&r.lateral[i]))
        .collect()
}

fn sis_figures(r: &Recording) -> Vec<f64> {
    let linear = linear_samples(r);
    let pairs = |f: &dyn Fn(usize) -> (f64, f64)| linear.iter().map(|&i| f(i)).collect::<Vec<_>>();
    let yaw_gain = slope(&pairs(&|i| (r.hand_wheel[i], r.yaw_rate[i])));
    let lateral_gain = 100.0 * slope(&pairs(&|i| (r.hand_wheel[i], r.lateral[i])));
    // δ − L/R against a_y/g, with δ the hand wheel over the published
    // ratio and L/R = L·r/v: both in degrees.
    let understeer = slope(&pairs(&|i| {
        let kinematic = WHEELBASE * r.yaw_rate[i] / r.speed[i];
        (r.lateral[i] / G, r.hand_wheel[i] / RATIO - kinematic)
    }));
    let window = (1.0 / r.dt).round() as usize;
    let max_lateral = r
        .lateral
        .windows(window.max(1))
        .map(|w| mean(w.iter().copied()))
        .fold(f64::MIN, f64::max);
    let roll_gradient = slope(&pairs(&|i| (r.lateral[i] / G, -r.roll[i])));
    vec![
        yaw_gain,
        lateral_gain,
        understeer,
        max_lateral,
        roll_gradient,
    ]
}

/// The first sample time at or after `from` where `values` reach `level`.
fn first_reaching(r: &Recording, values: &[f64], level: f64, from: f64) -> f64 {
    (0..r.len())
        .find(|&i| r.time(i) >= from && values[i] >= level)
        .map_or(f64::NAN, |i| r.time(i))
}

/// The mean of `values` over the step steer's steady window.
fn steady_mean(r: &Recording, values: &[f64]) -> f64 {
    mean(
        (0..r.len())
            .filter(|&i| (STEADY.0..=STEADY.1).contains(&r.time(i)))
            .map(|i| values[i]),
    )
}

fn step_figures(r: &Recording) -> Vec<f64> {
    let steady = |values: &[f64]| steady_mean(r, values);
    let (hand_wheel, lateral, yaw) = (
        steady(&r.hand_wheel),
        steady(&r.lateral),
        steady(&r.yaw_rate),
    );
    let roll = -steady(&r.roll);
    let t50 = first_reaching(r, &r.hand_wheel, 0.5 * hand_wheel, r.start);
    let yaw_time = first_reaching(r, &r.yaw_rate, 0.9 * yaw, t50) - t50;
    let lateral_time = first_reaching(r, &r.lateral, 0.9 * lateral, t50) - t50;
    let peak_yaw = (0..r.len())
        .filter(|&i| r.time(i) >= t50 && r.time(i) <= STEADY.1)
        .map(|i| r.yaw_rate[i])
        .fold(f64::MIN, f64::max);
    let overshoot = 100.0 * (peak_yaw - yaw) / yaw;
    vec![lateral, yaw, roll, yaw_time, lateral_time, overshoot]
}

/// The speed a step steer's car had in its steady window, m/s: in a
/// steady turn a_y = v·r, so the mean lateral acceleration over the mean
/// yaw rate (in rad/s). The measured runs record no speed of their own.
#[must_use]
pub fn steady_speed(r: &Recording) -> f64 {
    steady_mean(r, &r.lateral) / steady_mean(r, &r.yaw_rate).to_radians()
}

fn lane_change_figures(r: &Recording) -> Vec<f64> {
    let peak = |values: &[f64]| values.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    vec![peak(&r.lateral), peak(&r.yaw_rate), peak(&r.roll)]
}

/// `manoeuvre`'s figures from a recording, in [`METRICS`]' order.
#[must_use]
pub fn figures(manoeuvre: Manoeuvre, recording: &Recording) -> Vec<f64> {
    match manoeuvre {
        Manoeuvre::Sis => sis_figures(recording),
        Manoeuvre::Step => step_figures(recording),
        Manoeuvre::Lc12 | Manoeuvre::Lc22 => lane_change_figures(recording),
    }
}

/// The channels whose traces are compared, with the largest RMS
/// difference allowed as a fraction of the measured range.
pub const TRACES: [(Channel, &str, f64); 3] = [
    (Channel::Lateral, "lateral acceleration", 0.15),
    (Channel::YawRate, "yaw rate", 0.15),
    (Channel::Roll, "roll", 0.25),
];

/// The RMS difference of `channel` between a simulated and the measured
/// recording over the measured span, as a fraction of the measured range.
#[must_use]
pub fn trace_error(simulated: &Recording, measured: &Recording, channel: Channel) -> f64 {
    let values = measured.channel(channel);
    let range = values.iter().fold(f64::MIN, |m, &v| m.max(v))
        - values.iter().fold(f64::MAX, |m, &v| m.min(v));
    let squares = mean((0..measured.len()).map(|i| {
        let d = simulated.at(channel, measured.time(i)) - values[i];
        d * d
    }));
    squares.sqrt() / range
}
