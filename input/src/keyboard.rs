//! Driving with keys: on/off keys become smooth controls. Steering moves
//! at a limited rate towards the held side, returns to centre faster when
//! released, and its reach shrinks with speed (a key held at 50 m/s would
//! otherwise ask for full lock and spin the car); the pedals ramp up and
//! down instead of jumping.
//!
//! Speed-sensitive rates (on by default): both steering rates shrink with
//! the reach, so a key takes the same time to reach the speed's lock and
//! to come back at any speed. At race speed a tap then moves the wheels a
//! little, as a person holding a line needs, instead of a third of the
//! reach in a frame. Only keys are shaped this way: a wheel or a stick is
//! read as it is (`DeviceProfile`), its rate the player's own hands.

use serde::{Deserialize, Serialize};

use crate::error::{Result, invalid};
use crate::profile::Controls;

/// The keys held in one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Keys {
    /// Steer left.
    pub left: bool,
    /// Steer right.
    pub right: bool,
    /// Accelerate.
    pub throttle: bool,
    /// Brake.
    pub brake: bool,
    /// Handbrake.
    pub handbrake: bool,
    /// Clutch.
    pub clutch: bool,
}

/// How keys turn into controls. Rates are in control units per second.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct KeyboardTuning {
    /// Steering speed towards the held side.
    pub steer_rate: f64,
    /// Steering speed back to centre with no key (or the other key) held.
    pub centring_rate: f64,
    /// Speed at which the steering's reach is halved, m/s.
    pub authority_speed: f64,
    /// The least reach at any speed, share of full lock.
    pub min_authority: f64,
    /// Throttle rise and fall.
    pub throttle_rise: f64,
    /// Throttle fall.
    pub throttle_fall: f64,
    /// Brake rise.
    pub brake_rise: f64,
    /// Brake fall.
    pub brake_fall: f64,
    /// Scale both steering rates with the speed's reach
    /// ([`authority`](Self::authority)): the same time to lock and back
    /// at any speed. Off: the rates hold at every speed.
    pub speed_sensitive_rates: bool,
}

impl Default for KeyboardTuning {
    /// Full lock in 0.4 s and back in 0.25 s, at a standstill and (speed-
    /// sensitive rates) to the reach of any speed; half the reach at 25 m/s
    /// and at least 20 %; throttle full in 0.25 s, brake in 0.15 s, both
    /// released in 0.1 s.
    fn default() -> Self {
        KeyboardTuning {
            steer_rate: 2.5,
            centring_rate: 4.0,
            authority_speed: 25.0,
            min_authority: 0.2,
            throttle_rise: 4.0,
            throttle_fall: 10.0,
            brake_rise: 6.5,
            brake_fall: 10.0,
            speed_sensitive_rates: true,
        }
    }
}

impl KeyboardTuning {
    /// Refuses rates that are not positive and finite, and reaches
    /// outside (0, 1].
    pub fn validate(&self) -> Result<()> {
        let rates = [
            ("steer_rate", self.steer_rate),
            ("centring_rate", self.centring_rate),
            ("authority_speed", self.authority_speed),
            ("throttle_rise", self.throttle_rise),
            ("throttle_fall", self.throttle_fall),
            ("brake_rise", self.brake_rise),
            ("brake_fall", self.brake_fall),
        ];
        for (name, v) in rates {
            if !(v.is_finite() && v > 0.0 && v <= 1000.0) {
                return Err(invalid(
                    format!("keyboard.{name}"),
                    format!("must be in (0, 1000], got {v}"),
                ));
            }
        }
        if !(self.min_authority > 0.0 && self.min_authority <= 1.0) {
            return Err(invalid(
                "keyboard.min_authority",
                format!("must be in (0, 1], got {}", self.min_authority),
            ));
        }
        Ok(())
    }

    /// The steering's reach at `speed` m/s: 1 at rest, ½ at
    /// `authority_speed`, never below `min_authority`.
    #[must_use]
    pub fn authority(&self, speed: f64) -> f64 {
        let v = if speed.is_finite() { speed.abs() } else { 0.0 };
        let r = v / self.authority_speed;
        (1.0 / (1.0 + r * r)).max(self.min_authority)
    }
}

/// The keyboard's state between frames.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KeyboardDriver {
    tuning: KeyboardTuning,
    controls: Controls,
}

/// Moves `from` towards `to` by at most `rate · dt`.
fn approach(from: f64, to: f64, rate: f64, dt: f64) -> f64 {
    let step = rate * dt;
    if to > from {
        (from + step).min(to)
    } else {
        (from - step).max(to)
    }
}

impl KeyboardDriver {
    /// A keyboard with `tuning` (validated).
    pub fn new(tuning: KeyboardTuning) -> Result<KeyboardDriver> {
        tuning.validate()?;
        Ok(KeyboardDriver {
            tuning,
            controls: Controls::default(),
        })
    }

    /// The controls after `dt` seconds with `keys` held, the car at
    /// `speed` m/s. A `dt` that is not a positive number changes nothing.
    pub fn update(&mut self, keys: Keys, dt: f64, speed: f64) -> Controls {
        let dt = if dt.is_finite() && dt > 0.0 {
            dt.min(1.0)
        } else {
            0.0
        };
        let t = &self.tuning;
        let c = &mut self.controls;
        let reach = t.authority(speed);
        let held = f64::from(i8::from(keys.right) - i8::from(keys.left));
        let target = held * reach;
        // Towards the held side at the steering rate; towards centre
        // (released, or the other side held, until the centre is passed)
        // at the faster centring rate.
        let outward = held != 0.0 && (c.steer == 0.0 || c.steer.signum() == held);
        let rate = if outward && target.abs() >= c.steer.abs() {
            t.steer_rate
        } else {
            t.centring_rate
        };
        let rate = if t.speed_sensitive_rates {
            rate * reach
        } else {
            rate
        };
        c.steer = approach(c.steer, target, rate, dt).clamp(-1.0, 1.0);
        let pedal = |v: f64, on: bool, rise: f64, fall: f64| {
            if on {
                approach(v, 1.0, rise, dt)
            } else {
                approach(v, 0.0, fall, dt)
            }
        };
        c.throttle = pedal(c.throttle, keys.throttle, t.throttle_rise, t.throttle_fall);
        c.brake = pedal(c.brake, keys.brake, t.brake_rise, t.brake_fall);
        c.handbrake = if keys.handbrake { 1.0 } else { 0.0 };
        c.clutch = if keys.clutch { 1.0 } else { 0.0 };
        *c
    }

    /// Back to rest (a restart).
    pub fn reset(&mut self) {
        self.controls = Controls::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(k: &mut KeyboardDriver, keys: Keys, seconds: f64, speed: f64) -> Controls {
        let mut c = Controls::default();
        for _ in 0..(seconds * 60.0) as usize {
            c = k.update(keys, 1.0 / 60.0, speed);
        }
        c
    }

    #[test]
    fn steering_ramps_to_the_speeds_reach_and_centres_faster() {
        let mut k = KeyboardDriver::new(KeyboardTuning::default()).unwrap();
        let right = Keys {
            right: true,
            ..Keys::default()
        };
        let c = k.update(right, 0.1, 0.0);
        assert!((c.steer - 0.25).abs() < 1e-12, "{}", c.steer);
        assert_eq!(run(&mut k, right, 1.0, 0.0).steer, 1.0, "full lock at rest");
        let c = k.update(Keys::default(), 0.1, 0.0);
        assert!((c.steer - 0.6).abs() < 1e-12, "centres at 4 per second");
        let mut fast = KeyboardDriver::new(KeyboardTuning::default()).unwrap();
        let c = run(&mut fast, right, 1.0, 25.0);
        // (Within a second at any speed: see the speed-sensitive rates.)
        assert!(
            (c.steer - 0.5).abs() < 1e-12,
            "half the reach at 25 m/s: {}",
            c.steer
        );
        assert!((run(&mut fast, right, 1.0, 200.0).steer - 0.2).abs() < 1e-12);
    }

    #[test]
    fn speed_sensitive_rates_take_the_same_time_to_the_reach_and_back() {
        let right = Keys {
            right: true,
            ..Keys::default()
        };
        let mut k = KeyboardDriver::new(KeyboardTuning::default()).unwrap();
        // At 25 m/s the reach is 0.5: a tenth of a second moves the wheel
        // a quarter of it, the reach comes in 0.4 s and centre 0.25 s on.
        let c = k.update(right, 0.1, 25.0);
        assert!((c.steer - 0.125).abs() < 1e-12, "{}", c.steer);
        assert!((k.update(right, 0.3, 25.0).steer - 0.5).abs() < 1e-12);
        assert!(k.update(Keys::default(), 0.25, 25.0).steer.abs() < 1e-12);
        // Off: the standstill rates at every speed.
        let mut fixed = KeyboardDriver::new(KeyboardTuning {
            speed_sensitive_rates: false,
            ..KeyboardTuning::default()
        })
        .unwrap();
        assert!((fixed.update(right, 0.1, 25.0).steer - 0.25).abs() < 1e-12);
    }

    #[test]
    fn the_other_key_swings_through_centre() {
        let mut k = KeyboardDriver::new(KeyboardTuning::default()).unwrap();
        run(
            &mut k,
            Keys {
                left: true,
                ..Keys::default()
            },
            1.0,
            0.0,
        );
        let right = Keys {
            right: true,
            ..Keys::default()
        };
        // Back to centre at 4 per second (0.25 s), then out at 2.5.
        let c = k.update(right, 0.25, 0.0);
        assert!(c.steer.abs() < 1e-12, "{}", c.steer);
        let c = k.update(right, 0.1, 0.0);
        assert!((c.steer - 0.25).abs() < 1e-12);
        // Both keys: back to centre.
        let both = Keys {
            left: true,
            right: true,
            ..Keys::default()
        };
        assert_eq!(run(&mut k, both, 0.5, 0.0).steer, 0.0);
    }

    #[test]
    fn pedals_ramp_and_bad_steps_change_nothing() {
        let mut k = KeyboardDriver::new(KeyboardTuning::default()).unwrap();
        let gas = Keys {
            throttle: true,
            ..Keys::default()
        };
        assert!((k.update(gas, 0.125, 0.0).throttle - 0.5).abs() < 1e-12);
        assert_eq!(k.update(gas, f64::NAN, f64::NAN).throttle, 0.5);
        assert_eq!(k.update(gas, -1.0, 0.0).throttle, 0.5);
        assert_eq!(k.update(Keys::default(), 0.05, 0.0).throttle, 0.0);
        let bad = KeyboardTuning {
            steer_rate: 0.0,
            ..KeyboardTuning::default()
        };
        assert!(KeyboardDriver::new(bad).is_err());
    }
}
