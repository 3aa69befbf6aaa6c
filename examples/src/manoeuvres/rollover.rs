//! Rollover resistance on flat, dry ground: the static stability factor
//! from the definition, a steady-state circle driven to the limit, and
//! NHTSA's fishhook (the roll-rate-feedback fishhook of the 2002 rollover
//! rule): from an entrance speed the throttle is released and the hand
//! wheel turned at 720°/s to 6.5·A (A the angle at 0.3 g from the slowly
//! increasing steer at 80 km/h, as in FMVSS 126), held until the roll rate
//! falls to 1.5°/s, turned at 720°/s to −6.5·A, held 3 s and brought back
//! to zero in 2 s; both directions. NHTSA counts two-wheel lift when both
//! wheels of one side rise 5 cm (2 in); here a wheel counts as lifted as
//! soon as its strut leaves the ground, which is stricter.
//!
//! Quasi-static theory: a rigid car tips when its lateral acceleration
//! reaches SSF·g (SSF = half the track over the centre of mass's height),
//! and its tires cannot give more than µ·g, so a car whose SSF exceeds its
//! tires' µ slides before it lifts. Suspension roll and the fishhook's roll
//! overshoot eat into that margin; the rows show by how much.

use skidpad_core::{CarDefinition, Lod, Result, TireParameters};

use super::fmvss126::{reference_angle, steer_for};
use super::steady_state::CircleDriver;
use super::straight_line::load_weighted;
use super::{G, Rig, Stepping, drive};

/// The fishhook's data rate (as FMVSS 126's), Hz.
const STEPPING: Stepping = Stepping {
    lod: Lod::Full,
    host_hz: 200.0,
    substep_hz: None,
};
/// The fishhook's hand-wheel rate, deg/s, and its multiple of A.
const HAND_WHEEL_RATE: f64 = 720.0;
const FISHHOOK_MULTIPLE: f64 = 6.5;
/// The roll rate (deg/s) at or below which the first lobe ends.
const DWELL_ROLL_RATE: f64 = 1.5;
/// Radius of the circle driven to the limit, m (ISO 4138's 40 m).
const CIRCLE_RADIUS: f64 = 40.0;

/// Half the mean track over the centre of mass's height.
#[must_use]
pub fn static_stability_factor(def: &CarDefinition) -> f64 {
    let c = &def.chassis;
    0.5 * (c.track.front + c.track.rear) / 2.0 / c.cg_height
}

/// Load-weighted peak lateral friction coefficient at static load.
#[must_use]
pub fn peak_lateral_friction(def: &CarDefinition) -> f64 {
    load_weighted(def, TireParameters::peak_fy)
}

/// What a run did to the body's roll and the wheels' contact.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RollWatch {
    /// Largest |roll| seen, deg.
    pub peak_roll_deg: f64,
    /// Time with at least one wheel off the ground, s.
    pub one_wheel_s: f64,
    /// Time with both wheels of one side off the ground at once, s.
    pub two_wheel_s: f64,
    /// Largest |lateral acceleration| seen, g.
    pub peak_lateral_g: f64,
}

impl RollWatch {
    /// The body rolled past 90°: on its side or its roof.
    #[must_use]
    pub fn rolled_over(&self) -> bool {
        self.peak_roll_deg >= 90.0
    }

    /// Takes the car's state after one step of `dt` s.
    pub(super) fn watch(&mut self, rig: &Rig) -> Result<()> {
        self.peak_roll_deg = self
            .peak_roll_deg
            .max(rig.channel("roll")?.to_degrees().abs());
        self.peak_lateral_g = self.peak_lateral_g.max(rig.channel("ay")?.abs() / G);
        let off = |wheel: &str| -> Result<bool> {
            Ok(rig.channel(&format!("wheel_{wheel}_contact"))? < 0.5)
        };
        let [fl, fr, rl, rr] = [off("fl")?, off("fr")?, off("rl")?, off("rr")?];
        if fl || fr || rl || rr {
            self.one_wheel_s += rig.dt;
        }
        if (fl && rl) || (fr && rr) {
            self.two_wheel_s += rig.dt;
        }
        Ok(())
    }

    /// The worse of two runs, field by field.
    #[must_use]
    pub fn worst(self, other: RollWatch) -> RollWatch {
        RollWatch {
            peak_roll_deg: self.peak_roll_deg.max(other.peak_roll_deg),
            one_wheel_s: self.one_wheel_s.max(other.one_wheel_s),
            two_wheel_s: self.two_wheel_s.max(other.two_wheel_s),
            peak_lateral_g: self.peak_lateral_g.max(other.peak_lateral_g),
        }
    }
}

/// A 40 m circle driven both ways with the speed raised in steps of
/// 0.05 g of the circle's lateral acceleration (each held 8 s) until the
/// car no longer holds it (the lateral acceleration stays 0.1 g short of
/// the step's) or 1.5 g is asked: the limit, watched for roll and lift.
pub fn circle_to_limit(def: &CarDefinition) -> Result<RollWatch> {
    let mut worst = RollWatch::default();
    for direction in [1.0, -1.0] {
        let first = (0.3 * G * CIRCLE_RADIUS).sqrt();
        let mut circle = CircleDriver::new(def, Stepping::FULL, first)?;
        let mut asked = 0.3;
        while asked <= 1.5 {
            let speed = (asked * G * CIRCLE_RADIUS).sqrt();
            let (lateral, _) = circle.hold(CIRCLE_RADIUS, speed, direction)?;
            if lateral.abs() < asked - 0.1 {
                break;
            }
            asked += 0.05;
        }
        worst = worst.worst(circle.roll);
    }
    Ok(worst)
}

/// The fishhook from `speed` (m/s) for the reference angle `a_deg` (the
/// hand wheel at 0.3 g, see [`reference_angle`]), turning left first
/// (`direction` +1) or right first (−1). The hand wheel stops at the
/// steering's lock when 6.5·A lies past it.
pub fn fishhook(def: &CarDefinition, a_deg: f64, speed: f64, direction: f64) -> Result<RollWatch> {
    let lock = def.steering.feel.hand_wheel_lock.to_degrees();
    let amplitude = (FISHHOOK_MULTIPLE * a_deg).min(lock);
    let mut rig = Rig::new(def, STEPPING, speed)?;
    let mut watch = RollWatch::default();
    let ramp = amplitude / HAND_WHEEL_RATE;
    // The phases: to +A, dwell (until the roll rate drops), to −A (twice
    // the sweep), hold 3 s, back to zero in 2 s, then 2 s straight.
    let (mut t, mut dwell_end, mut phase_start) = (0.0, None::<f64>, 0.0);
    loop {
        let roll_rate = rig.channel("roll_rate")?.to_degrees();
        let angle = match dwell_end {
            None if t < ramp => HAND_WHEEL_RATE * t,
            None => {
                // The roll rate towards the first turn's outside (a left
                // turn rolls the body right-side down, positive) falls.
                if direction * roll_rate <= DWELL_ROLL_RATE {
                    dwell_end = Some(t);
                    phase_start = t;
                }
                amplitude
            }
            Some(_) => {
                let since = t - phase_start;
                let reverse = 2.0 * ramp;
                if since < reverse {
                    amplitude - HAND_WHEEL_RATE * since
                } else if since < reverse + 3.0 {
                    -amplitude
                } else if since < reverse + 5.0 {
                    -amplitude * (1.0 - (since - reverse - 3.0) / 2.0)
                } else if since < reverse + 7.0 {
                    0.0
                } else {
                    break;
                }
            }
        };
        // A dwell that never ends (the car never stops rolling out) is
        // cut at 2 s, long past any real car's roll response.
        if dwell_end.is_none() && t > ramp + 2.0 {
            dwell_end = Some(t);
            phase_start = t;
        }
        rig.step(drive(0.0, 0.0, steer_for(def, direction * angle)))?;
        watch.watch(&rig)?;
        t += rig.dt;
    }
    Ok(watch)
}

/// The fishhook at 60, 70 and 80 km/h both ways: the worst of the six.
pub fn fishhook_series(def: &CarDefinition) -> Result<RollWatch> {
    let a = reference_angle(def)?;
    let mut worst = RollWatch::default();
    for kmh in [60.0, 70.0, 80.0] {
        for direction in [1.0, -1.0] {
            worst = worst.worst(fishhook(def, a, kmh / 3.6, direction)?);
        }
    }
    Ok(worst)
}
