//! One analog axis from a raw device reading to a control value: the
//! calibrated travel (end stops and rest position), then the response
//! (dead zones, curve, saturation).
//!
//! A centred axis (a wheel, a stick) maps its left stop, rest and right
//! stop to −1, 0 and +1; a pedal maps its rest to 0 and its pressed stop
//! to 1. Readings past a stop clamp to it, and a reading that is not a
//! number (a device that went away mid-frame) reads as rest: the car never
//! gets a NaN from the input layer.

use serde::{Deserialize, Serialize};

use crate::error::{Result, check_range, invalid};

/// Where a centred axis's travel ends and rests, in the device's raw
/// units (the browser's Gamepad API reports −1…1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CentredTravel {
    /// Reading at the left end stop.
    pub left: f64,
    /// Reading at rest (a wheel centred, a stick let go).
    pub rest: f64,
    /// Reading at the right end stop.
    pub right: f64,
}

impl Default for CentredTravel {
    fn default() -> Self {
        CentredTravel {
            left: -1.0,
            rest: 0.0,
            right: 1.0,
        }
    }
}

/// Where a pedal rests and where it bottoms out, raw units. Either order:
/// many pedals read +1 at rest and −1 pressed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PedalTravel {
    /// Reading with the foot off.
    pub rest: f64,
    /// Reading pressed to the floor.
    pub pressed: f64,
}

impl Default for PedalTravel {
    fn default() -> Self {
        PedalTravel {
            rest: 0.0,
            pressed: 1.0,
        }
    }
}

/// How a calibrated axis answers: magnitudes below `dead_zone` read 0,
/// magnitudes above `1 − outer_dead_zone` read full, the span between
/// is stretched over 0…1, raised to `exponent` (above 1: finer near rest)
/// and scaled by `saturation` (the output at full travel).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Response {
    /// Inner dead zone, share of the travel, 0…0.5.
    pub dead_zone: f64,
    /// Outer dead zone, share of the travel, 0…0.5.
    pub outer_dead_zone: f64,
    /// Response curve exponent, 0.2…5 (1: linear).
    pub exponent: f64,
    /// Output at full travel, 0.05…1.
    pub saturation: f64,
    /// Reverses the axis (a stick whose right reads negative).
    pub invert: bool,
}

impl Default for Response {
    fn default() -> Self {
        Response {
            dead_zone: 0.0,
            outer_dead_zone: 0.0,
            exponent: 1.0,
            saturation: 1.0,
            invert: false,
        }
    }
}

impl Response {
    /// Refuses settings outside their ranges; `field` prefixes the names.
    pub fn validate(&self, field: &str) -> Result<()> {
        let check = |name: &str, v, lo, hi| check_range(format!("{field}.{name}"), v, lo, hi);
        check("dead_zone", self.dead_zone, 0.0, 0.5)?;
        check("outer_dead_zone", self.outer_dead_zone, 0.0, 0.5)?;
        check("exponent", self.exponent, 0.2, 5.0)?;
        check("saturation", self.saturation, 0.05, 1.0)?;
        if self.dead_zone + self.outer_dead_zone >= 0.9 {
            return Err(invalid(
                field,
                "the dead zones leave less than a tenth of the travel",
            ));
        }
        Ok(())
    }

    /// Shapes a magnitude in 0…1 (anything else is clamped; NaN reads 0).
    #[must_use]
    pub fn shape(&self, magnitude: f64) -> f64 {
        let m = if magnitude.is_nan() {
            0.0
        } else {
            magnitude.clamp(0.0, 1.0)
        };
        let live = 1.0 - self.dead_zone - self.outer_dead_zone;
        let stretched = ((m - self.dead_zone) / live).clamp(0.0, 1.0);
        // libm, not std: the same bits in the browser and on a server that
        // replays the same device readings.
        let curved = if self.exponent == 1.0 {
            stretched
        } else {
            libm::pow(stretched, self.exponent)
        };
        (curved * self.saturation).clamp(0.0, 1.0)
    }
}

impl CentredTravel {
    /// Refuses stops that are not finite or not on either side of rest.
    pub fn validate(&self, field: &str) -> Result<()> {
        let values = [self.left, self.rest, self.right];
        if !values.iter().all(|v| v.is_finite()) {
            return Err(invalid(field, "end stops and rest must be finite"));
        }
        let increasing = self.left < self.rest && self.rest < self.right;
        let decreasing = self.left > self.rest && self.rest > self.right;
        if !(increasing || decreasing) {
            return Err(invalid(
                field,
                format!(
                    "rest {} must lie strictly between the stops {} and {}",
                    self.rest, self.left, self.right
                ),
            ));
        }
        Ok(())
    }

    /// The reading as −1 (left stop) … +1 (right stop), 0 at rest; NaN
    /// reads as rest.
    #[must_use]
    pub fn normalise(&self, raw: f64) -> f64 {
        if raw.is_nan() {
            return 0.0;
        }
        let (towards, sign) = if (raw - self.rest) * (self.right - self.rest) >= 0.0 {
            (self.right, 1.0)
        } else {
            (self.left, -1.0)
        };
        (sign * (raw - self.rest) / (towards - self.rest)).clamp(-1.0, 1.0)
    }
}

impl PedalTravel {
    /// Refuses a pedal whose stops are not finite or coincide.
    pub fn validate(&self, field: &str) -> Result<()> {
        if !(self.rest.is_finite() && self.pressed.is_finite()) || self.rest == self.pressed {
            return Err(invalid(
                field,
                format!(
                    "rest {} and pressed {} must be finite and differ",
                    self.rest, self.pressed
                ),
            ));
        }
        Ok(())
    }

    /// The reading as 0 (rest) … 1 (pressed); NaN reads as rest.
    #[must_use]
    pub fn normalise(&self, raw: f64) -> f64 {
        if raw.is_nan() {
            return 0.0;
        }
        ((raw - self.rest) / (self.pressed - self.rest)).clamp(0.0, 1.0)
    }
}

/// A centred axis: its travel and response. Output −1…+1.
#[must_use]
pub fn centred(travel: &CentredTravel, response: &Response, raw: f64) -> f64 {
    let x = travel.normalise(raw);
    let x = if response.invert { -x } else { x };
    let shaped = response.shape(x.abs());
    if x < 0.0 { -shaped } else { shaped }
}

/// A pedal: its travel and response. Output 0…1.
#[must_use]
pub fn pedal(travel: &PedalTravel, response: &Response, raw: f64) -> f64 {
    let x = travel.normalise(raw);
    response.shape(if response.invert { 1.0 - x } else { x })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_linear_axis_passes_its_travel_through() {
        let r = Response::default();
        let t = CentredTravel::default();
        for raw in [-1.0, -0.5, 0.0, 0.25, 1.0] {
            assert_eq!(centred(&t, &r, raw), raw);
        }
        assert_eq!(centred(&t, &r, 3.0), 1.0, "past the stop clamps");
        assert_eq!(centred(&t, &r, f64::NAN), 0.0, "NaN reads as rest");
    }

    #[test]
    fn dead_zones_cut_the_ends_and_stretch_the_rest() {
        let r = Response {
            dead_zone: 0.1,
            outer_dead_zone: 0.1,
            ..Response::default()
        };
        assert_eq!(r.shape(0.05), 0.0);
        assert_eq!(r.shape(0.1), 0.0);
        assert!((r.shape(0.5) - 0.5).abs() < 1e-12, "the middle stays put");
        assert_eq!(r.shape(0.9), 1.0);
        assert_eq!(r.shape(0.95), 1.0);
        assert!((r.shape(0.3) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn the_curve_softens_the_centre_and_saturation_caps_the_end() {
        let r = Response {
            exponent: 2.0,
            saturation: 0.8,
            ..Response::default()
        };
        assert!((r.shape(0.5) - 0.2).abs() < 1e-12, "0.5² × 0.8");
        assert!((r.shape(1.0) - 0.8).abs() < 1e-12);
    }

    #[test]
    fn travel_maps_asymmetric_stops_and_reversed_pedals() {
        // A wheel resting off-centre, with a shorter right side.
        let t = CentredTravel {
            left: -1.0,
            rest: 0.1,
            right: 0.6,
        };
        assert_eq!(t.normalise(0.1), 0.0);
        assert_eq!(t.normalise(0.6), 1.0);
        assert_eq!(t.normalise(-1.0), -1.0);
        assert!((t.normalise(0.35) - 0.5).abs() < 1e-12);
        // A pedal reading +1 at rest and −1 on the floor.
        let p = PedalTravel {
            rest: 1.0,
            pressed: -1.0,
        };
        assert_eq!(p.normalise(1.0), 0.0);
        assert_eq!(p.normalise(-1.0), 1.0);
        assert_eq!(p.normalise(0.0), 0.5);
        assert_eq!(p.normalise(f64::NAN), 0.0);
    }

    #[test]
    fn inversion_flips_a_centred_axis_and_a_pedal() {
        let r = Response {
            invert: true,
            ..Response::default()
        };
        assert_eq!(centred(&CentredTravel::default(), &r, 0.5), -0.5);
        assert_eq!(pedal(&PedalTravel::default(), &r, 0.25), 0.75);
    }

    #[test]
    fn bad_settings_are_refused_by_name() {
        let r = Response {
            exponent: 9.0,
            ..Response::default()
        };
        let e = r.validate("steer").unwrap_err().to_string();
        assert!(e.contains("steer.exponent"), "{e}");
        let t = CentredTravel {
            left: 0.0,
            rest: 0.0,
            right: 1.0,
        };
        assert!(t.validate("steer.travel").is_err());
        assert!(
            PedalTravel {
                rest: 1.0,
                pressed: 1.0
            }
            .validate("throttle")
            .is_err()
        );
    }
}
