//! FMVSS 126 (electronic stability control) as the regulation writes it
//! (49 CFR 571.126 S7, with NHTSA's test procedure TP-126 for the data
//! processing): the reference hand-wheel angle A from slowly increasing
//! steers at 80 km/h, then the 0.7 Hz sine with a 500 ms dwell at its
//! second peak, coasting from 80 km/h, in a series of amplitudes from
//! 1.5·A in 0.5·A steps to the greater of 6.5·A and 270° (at most 300°),
//! counter-clockwise first and then clockwise first, on a dry surface.
//!
//! Data are sampled at 200 Hz. The hand-wheel angle is filtered with a
//! 10 Hz, the yaw rate and lateral acceleration with a 6 Hz 12-pole
//! phaseless Butterworth (a sixth-order filter run forwards and
//! backwards). Beginning of steer (BOS): the filtered hand wheel first
//! reaches 5° in the first lobe's direction; completion of steer (COS):
//! after the dwell, it first comes back within 5° of zero. ψ_peak: the
//! first local peak of the yaw rate after the hand wheel changes sign.
//! A run passes when the yaw rate 1.0 s after COS is at most 35 % of
//! ψ_peak, at most 20 % 1.75 s after COS, and, for amplitudes of 5·A and
//! more, the centre of mass has moved at least 1.83 m sideways from its
//! initial path 1.07 s after BOS (vehicles up to 3 500 kg; the model gives
//! the position directly, where the standard integrates the lateral
//! acceleration twice).

use core::f64::consts::PI;

use skidpad_core::{CarDefinition, Lod, Result};

use super::{G, Rig, Stepping, drive};

/// The test speed, m/s (80 km/h).
const SPEED: f64 = 80.0 / 3.6;
/// The standard's sampling rate, Hz.
const RATE: f64 = 200.0;
const STEPPING: Stepping = Stepping {
    lod: Lod::Full,
    host_hz: RATE,
    substep_hz: None,
};
/// Seconds driven straight at the test speed before steering.
const LEAD_IN: f64 = 1.0;
/// Hand-wheel rate of the slowly increasing steer, deg/s.
const SIS_RATE: f64 = 13.5;
/// The sine's frequency, Hz, and the dwell, s.
const FREQUENCY: f64 = 0.7;
const DWELL: f64 = 0.5;

/// The hand-wheel input (deg, positive left) as a steer input.
pub(super) fn steer_for(def: &CarDefinition, hand_wheel_deg: f64) -> f64 {
    def.steering
        .input_for_hand_wheel(hand_wheel_deg.to_radians())
}

/// A sixth-order Butterworth low-pass as three biquads (bilinear
/// transform, Q of each pole pair), run forwards then backwards: twelve
/// poles and no phase lag. The ends are padded with their own values for
/// a second so the filter starts and ends settled.
#[must_use]
pub fn phaseless_low_pass(samples: &[f64], rate: f64, cutoff: f64) -> Vec<f64> {
    if samples.is_empty() {
        return Vec::new();
    }
    let pad = rate as usize;
    let first = samples[0];
    let last = samples[samples.len() - 1];
    let mut x: Vec<f64> = std::iter::repeat_n(first, pad)
        .chain(samples.iter().copied())
        .chain(std::iter::repeat_n(last, pad))
        .collect();
    let w0 = 2.0 * PI * cutoff / rate;
    let (sin, cos) = w0.sin_cos();
    let pass = |x: &mut Vec<f64>| {
        for k in 1..=3 {
            let q = 1.0 / (2.0 * ((2 * k - 1) as f64 * PI / 12.0).cos());
            let alpha = sin / (2.0 * q);
            let a0 = 1.0 + alpha;
            let (b0, b1, b2) = (
                (1.0 - cos) / 2.0 / a0,
                (1.0 - cos) / a0,
                (1.0 - cos) / 2.0 / a0,
            );
            let (a1, a2) = (-2.0 * cos / a0, (1.0 - alpha) / a0);
            // Started at rest on the first sample (unit DC gain).
            let (mut x1, mut x2, mut y1, mut y2) = (x[0], x[0], x[0], x[0]);
            for v in x.iter_mut() {
                let y = b0 * *v + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
                (x2, x1, y2, y1) = (x1, *v, y1, y);
                *v = y;
            }
        }
    };
    pass(&mut x);
    x.reverse();
    pass(&mut x);
    x.reverse();
    x[pad..pad + samples.len()].to_vec()
}

/// Holds the test speed with the throttle (before steering, and in the
/// slowly increasing steer).
struct SpeedHold {
    integral: f64,
}

impl SpeedHold {
    fn throttle(&mut self, rig: &Rig) -> Result<f64> {
        let error = SPEED - rig.speed()?;
        self.integral = (self.integral + error * rig.dt).clamp(-2.0, 2.0);
        Ok((0.3 * error + 0.3 * self.integral + 0.2).clamp(0.0, 1.0))
    }
}

/// One slowly increasing steer at 80 km/h, to the left (`direction` +1)
/// or the right (−1): the hand-wheel angle (deg) at 0.3 g on the line
/// fitted to |a_y| against the hand wheel between 0.1 and 0.375 g.
///
/// # Errors
/// The simulation fails, or the car never reaches 0.375 g.
pub fn slowly_increasing_steer(def: &CarDefinition, direction: f64) -> Result<f64> {
    let mut rig = Rig::new(def, STEPPING, SPEED)?;
    let mut hold = SpeedHold { integral: 0.0 };
    let lock = def.steering.feel.hand_wheel_lock.to_degrees();
    let (mut hand_wheel, mut lateral) = (Vec::new(), Vec::new());
    let mut t = 0.0;
    loop {
        let angle = SIS_RATE * (t - LEAD_IN).max(0.0);
        if angle > lock || t > LEAD_IN + 60.0 {
            break;
        }
        let throttle = hold.throttle(&rig)?;
        rig.step(drive(throttle, 0.0, steer_for(def, direction * angle)))?;
        t += rig.dt;
        hand_wheel.push(angle);
        lateral.push(rig.channel("ay")?.abs() / G);
        if lateral.last().is_some_and(|&a| a > 0.55) {
            break;
        }
    }
    let lateral = phaseless_low_pass(&lateral, RATE, 6.0);
    let points: Vec<(f64, f64)> = hand_wheel
        .iter()
        .zip(&lateral)
        .filter(|&(_, &a)| (0.1..=0.375).contains(&a))
        .map(|(&h, &a)| (h, a))
        .collect();
    if points.len() < 10 {
        return Err(skidpad_core::CoreError::InvalidArgument {
            what: "car for the slowly increasing steer",
            reason: "it never held 0.1–0.375 g before the lock".to_owned(),
        });
    }
    let n = points.len() as f64;
    let (mx, my) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
    let (sxy, sxx) = points.iter().fold((0.0, 0.0), |(a, b), (x, y)| {
        (a + (x - mx) * (y - my), b + (x - mx) * (x - mx))
    });
    let slope = sxy / sxx;
    Ok(mx + (0.3 - my) / slope)
}

/// A from three slowly increasing steers each way, averaged and rounded
/// to 0.1° as the standard asks (the model repeats itself to the bit, so
/// the three runs of a direction agree exactly).
///
/// # Errors
/// As [`slowly_increasing_steer`].
pub fn reference_angle(def: &CarDefinition) -> Result<f64> {
    let mut sum = 0.0;
    for direction in [1.0, -1.0] {
        for _ in 0..3 {
            sum += slowly_increasing_steer(def, direction)?;
        }
    }
    Ok((sum / 6.0 * 10.0).round() / 10.0)
}

/// The hand wheel of a sine with dwell of `amplitude` deg at `t` s after
/// its start, first lobe to the left (`direction` +1) or right (−1).
fn sine_with_dwell_angle(amplitude: f64, direction: f64, t: f64) -> f64 {
    let period = 1.0 / FREQUENCY;
    let omega = 2.0 * PI * FREQUENCY;
    let wave = if t < 0.0 {
        0.0
    } else if t < 0.75 * period {
        (omega * t).sin()
    } else if t < 0.75 * period + DWELL {
        -1.0
    } else if t < period + DWELL {
        (omega * (t - DWELL)).sin()
    } else {
        0.0
    };
    direction * amplitude * wave
}

/// What one sine-with-dwell run gave.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DwellRun {
    /// Hand-wheel amplitude, deg.
    pub amplitude: f64,
    /// +1 counter-clockwise (left) first, −1 clockwise first.
    pub direction: f64,
    /// Yaw rate 1.0 s and 1.75 s after COS over ψ_peak.
    pub ratio_1_0: f64,
    pub ratio_1_75: f64,
    /// Lateral displacement 1.07 s after BOS, m (towards the first lobe).
    pub displacement: f64,
}

/// One sine with dwell, coasting from 80 km/h.
///
/// # Errors
/// The simulation fails.
pub fn sine_with_dwell_run(
    def: &CarDefinition,
    amplitude: f64,
    direction: f64,
) -> Result<DwellRun> {
    let mut rig = Rig::new(def, STEPPING, SPEED)?;
    let mut hold = SpeedHold { integral: 0.0 };
    let total = LEAD_IN + 1.0 / FREQUENCY + DWELL + 1.75 + 1.0;
    let steps = (total * RATE).round() as usize;
    let (mut hand_wheel, mut yaw, mut lateral_position) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..steps {
        let t = k as f64 / RATE;
        let angle = sine_with_dwell_angle(amplitude, direction, t - LEAD_IN);
        // Coasting: the throttle is released as the steer begins.
        let throttle = if t < LEAD_IN {
            hold.throttle(&rig)?
        } else {
            0.0
        };
        rig.step(drive(throttle, 0.0, steer_for(def, angle)))?;
        hand_wheel.push(angle);
        yaw.push(rig.channel("yaw_rate")?.to_degrees());
        // The car starts at the origin heading along x: its initial path
        // is the x axis.
        lateral_position.push(rig.world.pose(rig.car)?.position.y);
    }
    let hand_wheel = phaseless_low_pass(&hand_wheel, RATE, 10.0);
    let yaw = phaseless_low_pass(&yaw, RATE, 6.0);
    let time = |k: usize| (k + 1) as f64 / RATE;
    let index = |t: f64| {
        ((t * RATE).round() as usize)
            .saturating_sub(1)
            .min(yaw.len() - 1)
    };
    let signed = |v: f64| v * direction;
    let bos = (0..hand_wheel.len())
        .find(|&k| signed(hand_wheel[k]) >= 5.0)
        .map_or(LEAD_IN, time);
    let dwell_end = LEAD_IN + 0.75 / FREQUENCY + DWELL;
    let cos = (index(dwell_end)..hand_wheel.len())
        .find(|&k| hand_wheel[k].abs() <= 5.0)
        .map_or(LEAD_IN + 1.0 / FREQUENCY + DWELL, time);
    // The hand wheel changes sign half a period in; ψ_peak is the first
    // local peak after that, in the second lobe's direction.
    let sign_change = index(LEAD_IN + 0.5 / FREQUENCY);
    let second = |k: usize| -signed(yaw[k]);
    let peak = (sign_change + 1..yaw.len() - 1)
        .find(|&k| second(k) > 0.0 && second(k) >= second(k - 1) && second(k) >= second(k + 1))
        .map_or(f64::NAN, second);
    Ok(DwellRun {
        amplitude,
        direction,
        ratio_1_0: second(index(cos + 1.0)) / peak,
        ratio_1_75: second(index(cos + 1.75)) / peak,
        displacement: signed(lateral_position[index(bos + 1.07)] - lateral_position[index(bos)]),
    })
}

/// The amplitude series for reference angle `a` (deg): 1.5·A in 0.5·A
/// steps to the greater of 6.5·A and 270°, at most 300°.
#[must_use]
pub fn amplitudes(a: f64) -> Vec<f64> {
    let last = (6.5 * a).clamp(270.0, 300.0);
    let mut series: Vec<f64> = (3..)
        .map(|k| f64::from(k) * 0.5 * a)
        .take_while(|&x| x < last - 1e-9)
        .collect();
    series.push(last);
    series
}

/// A whole FMVSS 126 test of one car.
#[derive(Clone, Debug, PartialEq)]
pub struct Fmvss126 {
    /// The reference hand-wheel angle A, deg.
    pub reference_angle: f64,
    pub runs: Vec<DwellRun>,
}

impl Fmvss126 {
    /// The largest yaw ratios of the series, 1.0 s and 1.75 s after COS.
    #[must_use]
    pub fn worst_ratios(&self) -> (f64, f64) {
        self.runs.iter().fold((f64::MIN, f64::MIN), |(a, b), r| {
            (a.max(r.ratio_1_0), b.max(r.ratio_1_75))
        })
    }

    /// The smallest lateral displacement among the runs of 5·A and more.
    #[must_use]
    pub fn least_displacement(&self) -> f64 {
        self.runs
            .iter()
            .filter(|r| r.amplitude >= 5.0 * self.reference_angle - 1e-9)
            .map(|r| r.displacement)
            .fold(f64::MAX, f64::min)
    }

    /// Every run within the standard's limits.
    #[must_use]
    pub fn passes(&self) -> bool {
        let (at_1_0, at_1_75) = self.worst_ratios();
        at_1_0 <= 0.35 && at_1_75 <= 0.20 && self.least_displacement() >= 1.83
    }
}

/// The whole test: A, then the series counter-clockwise first and
/// clockwise first.
///
/// # Errors
/// The simulation fails, or the slowly increasing steer does.
pub fn fmvss_126(def: &CarDefinition) -> Result<Fmvss126> {
    let reference_angle = reference_angle(def)?;
    let mut runs = Vec::new();
    for direction in [1.0, -1.0] {
        for amplitude in amplitudes(reference_angle) {
            runs.push(sine_with_dwell_run(def, amplitude, direction)?);
        }
    }
    Ok(Fmvss126 {
        reference_angle,
        runs,
    })
}
