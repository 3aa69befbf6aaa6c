//! Device profiles: which axis and button of a device does what, and how
//! each axis answers. Stored as JSON, so a game ships profiles for the
//! wheels it knows and a player saves the one the calibration made.
//!
//! ```json
//! {
//!   "name": "wheel with split pedals",
//!   "steer": { "axis": 0, "travel": { "left": -1, "rest": 0, "right": 1 },
//!              "response": { "dead_zone": 0.02 } },
//!   "pedals": { "split": {
//!     "throttle": { "axis": 2, "travel": { "rest": 1, "pressed": -1 } },
//!     "brake":    { "axis": 3, "travel": { "rest": 1, "pressed": -1 },
//!                   "response": { "exponent": 1.5 } } } },
//!   "buttons": { "shift_up": 4, "shift_down": 5, "handbrake": 1 }
//! }
//! ```

use serde::{Deserialize, Serialize};

use crate::axis::{self, CentredTravel, PedalTravel, Response};
use crate::error::{InputError, Result, invalid};

/// Most axes and buttons a profile may name (the Gamepad API reports a few
/// dozen; a wheel with a button box well under 128).
pub const MAX_CONTROLS: usize = 128;

/// Largest profile accepted, bytes: a profile is a few hundred.
pub const MAX_PROFILE_BYTES: usize = 64 * 1024;

/// One frame of a device as the browser's Gamepad API (or an OS layer)
/// reports it: axes in raw units, buttons pressed or not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceReading {
    /// Axis readings, raw units (the Gamepad API's −1…1).
    pub axes: Vec<f64>,
    /// Button states.
    pub buttons: Vec<bool>,
}

impl DeviceReading {
    fn axis(&self, index: usize) -> f64 {
        // A missing axis (a device unplugged and replugged with fewer)
        // reads as NaN, which the travel maps to rest.
        self.axes.get(index).copied().unwrap_or(f64::NAN)
    }

    fn button(&self, index: Option<usize>) -> bool {
        index.is_some_and(|i| self.buttons.get(i).copied().unwrap_or(false))
    }
}

/// The steering axis.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SteerAxis {
    /// Axis index.
    pub axis: usize,
    /// End stops and rest.
    #[serde(default)]
    pub travel: CentredTravel,
    /// Dead zones, curve, saturation, inversion.
    #[serde(default)]
    pub response: Response,
}

/// One pedal on its own axis.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PedalAxis {
    /// Axis index.
    pub axis: usize,
    /// Rest and pressed readings.
    #[serde(default)]
    pub travel: PedalTravel,
    /// Dead zones, curve, saturation, inversion.
    #[serde(default)]
    pub response: Response,
}

/// How the pedals reach the device.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Pedals {
    /// Each pedal on its own axis (wheels; a gamepad's triggers).
    Split {
        /// Accelerator.
        throttle: PedalAxis,
        /// Brake.
        brake: PedalAxis,
        /// Clutch, if the device has one.
        #[serde(default)]
        clutch: Option<PedalAxis>,
    },
    /// Throttle and brake on one centred axis (older wheels, a stick):
    /// the right half accelerates and the left half brakes.
    Combined(SteerAxis),
}

/// Buttons by role; `None` leaves a role unbound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Buttons {
    /// Sequential up-shift.
    pub shift_up: Option<usize>,
    /// Sequential down-shift.
    pub shift_down: Option<usize>,
    /// Handbrake, full while held.
    pub handbrake: Option<usize>,
    /// Throttle while held (a gamepad without triggers).
    pub throttle: Option<usize>,
    /// Brake while held.
    pub brake: Option<usize>,
    /// H-pattern gate positions: the button of gear 1, 2, … in order.
    pub h_pattern: [Option<usize>; 7],
    /// H-pattern reverse gate.
    pub reverse: Option<usize>,
}

/// A device profile (see the module's example).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceProfile {
    /// Shown to the player.
    pub name: String,
    /// The steering axis, if the device steers.
    #[serde(default)]
    pub steer: Option<SteerAxis>,
    /// The pedals, if the device has analog ones.
    #[serde(default)]
    pub pedals: Option<Pedals>,
    /// Buttons by role.
    #[serde(default)]
    pub buttons: Buttons,
}

/// What a device asks for in one frame, before gear selection: every
/// field in its control range whatever the reading was.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Controls {
    /// −1 full left … +1 full right.
    pub steer: f64,
    /// 0…1.
    pub throttle: f64,
    /// 0…1.
    pub brake: f64,
    /// 0…1.
    pub handbrake: f64,
    /// 0 engaged … 1 open.
    pub clutch: f64,
}

/// What the buttons ask of the gearbox in one frame (held state; the
/// selector finds the presses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShiftButtons {
    /// Up-shift held.
    pub up: bool,
    /// Down-shift held.
    pub down: bool,
    /// The H-pattern gate held: −1 reverse, 1… a gear, `None` neutral.
    pub gate: Option<i32>,
}

impl DeviceProfile {
    /// Parses and validates a profile.
    pub fn from_json(text: &str) -> Result<DeviceProfile> {
        if text.len() > MAX_PROFILE_BYTES {
            return Err(invalid(
                "profile",
                format!("{} bytes, at most {MAX_PROFILE_BYTES}", text.len()),
            ));
        }
        let profile: DeviceProfile =
            serde_json::from_str(text).map_err(|e| InputError::Json(e.to_string()))?;
        profile.validate()?;
        Ok(profile)
    }

    /// The profile as JSON (what [`from_json`](Self::from_json) reads).
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Refuses indices past [`MAX_CONTROLS`] and settings out of range.
    pub fn validate(&self) -> Result<()> {
        let index = |field: &str, i: usize| {
            if i < MAX_CONTROLS {
                Ok(())
            } else {
                Err(invalid(
                    field,
                    format!("index {i}, at most {}", MAX_CONTROLS - 1),
                ))
            }
        };
        if let Some(s) = &self.steer {
            index("steer.axis", s.axis)?;
            s.travel.validate("steer.travel")?;
            s.response.validate("steer.response")?;
        }
        match &self.pedals {
            Some(Pedals::Split {
                throttle,
                brake,
                clutch,
            }) => {
                for (name, p) in [
                    ("throttle", Some(throttle)),
                    ("brake", Some(brake)),
                    ("clutch", clutch.as_ref()),
                ] {
                    if let Some(p) = p {
                        index(&format!("pedals.{name}.axis"), p.axis)?;
                        p.travel.validate(&format!("pedals.{name}.travel"))?;
                        p.response.validate(&format!("pedals.{name}.response"))?;
                    }
                }
            }
            Some(Pedals::Combined(c)) => {
                index("pedals.combined.axis", c.axis)?;
                c.travel.validate("pedals.combined.travel")?;
                c.response.validate("pedals.combined.response")?;
            }
            None => {}
        }
        let b = &self.buttons;
        let named = [
            ("shift_up", b.shift_up),
            ("shift_down", b.shift_down),
            ("handbrake", b.handbrake),
            ("throttle", b.throttle),
            ("brake", b.brake),
            ("reverse", b.reverse),
        ];
        for (name, i) in named
            .into_iter()
            .chain(b.h_pattern.iter().map(|&i| ("h_pattern", i)))
        {
            if let Some(i) = i {
                index(&format!("buttons.{name}"), i)?;
            }
        }
        Ok(())
    }

    /// The controls a reading asks for.
    #[must_use]
    pub fn controls(&self, reading: &DeviceReading) -> Controls {
        let mut c = Controls::default();
        if let Some(s) = &self.steer {
            c.steer = axis::centred(&s.travel, &s.response, reading.axis(s.axis));
        }
        match &self.pedals {
            Some(Pedals::Split {
                throttle,
                brake,
                clutch,
            }) => {
                let read =
                    |p: &PedalAxis| axis::pedal(&p.travel, &p.response, reading.axis(p.axis));
                c.throttle = read(throttle);
                c.brake = read(brake);
                c.clutch = clutch.as_ref().map_or(0.0, read);
            }
            Some(Pedals::Combined(a)) => {
                let v = axis::centred(&a.travel, &a.response, reading.axis(a.axis));
                (c.throttle, c.brake) = (v.max(0.0), (-v).max(0.0));
            }
            None => {}
        }
        let b = &self.buttons;
        let held = |i| if reading.button(i) { 1.0 } else { 0.0 };
        c.throttle = c.throttle.max(held(b.throttle));
        c.brake = c.brake.max(held(b.brake));
        c.handbrake = held(b.handbrake);
        c
    }

    /// The shift buttons a reading holds.
    #[must_use]
    pub fn shift_buttons(&self, reading: &DeviceReading) -> ShiftButtons {
        let b = &self.buttons;
        let gate = if reading.button(b.reverse) {
            Some(-1)
        } else {
            (1..)
                .zip(b.h_pattern)
                .find(|&(_, i)| reading.button(i))
                .map(|(gear, _)| gear)
        };
        ShiftButtons {
            up: reading.button(b.shift_up),
            down: reading.button(b.shift_down),
            gate,
        }
    }
}

/// The standard gamepad (the Gamepad API's "standard" mapping): left
/// stick steers with a small dead zone and a gentle curve, the triggers
/// are the pedals, the shoulder buttons shift, A is the handbrake.
#[must_use]
pub fn standard_gamepad() -> DeviceProfile {
    let trigger = |axis_button: usize| PedalAxis {
        axis: axis_button,
        travel: PedalTravel::default(),
        response: Response::default(),
    };
    DeviceProfile {
        name: "standard gamepad".into(),
        steer: Some(SteerAxis {
            axis: 0,
            travel: CentredTravel::default(),
            response: Response {
                dead_zone: 0.08,
                exponent: 1.6,
                ..Response::default()
            },
        }),
        // The standard mapping reports the triggers as buttons 6 and 7
        // with analog values; a page passes those values as axes 6 and 7.
        pedals: Some(Pedals::Split {
            throttle: trigger(7),
            brake: trigger(6),
            clutch: None,
        }),
        buttons: Buttons {
            shift_up: Some(5),
            shift_down: Some(4),
            handbrake: Some(0),
            ..Buttons::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WHEEL: &str = r#"{
      "name": "wheel with split pedals",
      "steer": { "axis": 0, "travel": { "left": -1, "rest": 0, "right": 1 },
                 "response": { "dead_zone": 0.02 } },
      "pedals": { "split": {
        "throttle": { "axis": 2, "travel": { "rest": 1, "pressed": -1 } },
        "brake":    { "axis": 3, "travel": { "rest": 1, "pressed": -1 },
                      "response": { "exponent": 1.5 } } } },
      "buttons": { "shift_up": 4, "shift_down": 5, "handbrake": 1 }
    }"#;

    #[test]
    fn a_wheel_profile_reads_its_axes_and_buttons() {
        let p = DeviceProfile::from_json(WHEEL).unwrap();
        let reading = DeviceReading {
            axes: vec![0.51, 0.0, -1.0, 0.0],
            buttons: vec![false, true, false, false, true, false],
        };
        let c = p.controls(&reading);
        assert!((c.steer - 0.5).abs() < 1e-12, "{}", c.steer);
        assert_eq!(c.throttle, 1.0);
        assert!((c.brake - libm::pow(0.5, 1.5)).abs() < 1e-12);
        assert_eq!(c.handbrake, 1.0);
        assert!(p.shift_buttons(&reading).up);
        assert_eq!(DeviceProfile::from_json(&p.to_json()).unwrap(), p);
    }

    #[test]
    fn a_combined_axis_splits_into_throttle_and_brake() {
        let p = DeviceProfile {
            name: "combined".into(),
            steer: None,
            pedals: Some(Pedals::Combined(SteerAxis {
                axis: 1,
                travel: CentredTravel::default(),
                response: Response::default(),
            })),
            buttons: Buttons::default(),
        };
        let at = |v: f64| {
            p.controls(&DeviceReading {
                axes: vec![0.0, v],
                buttons: vec![],
            })
        };
        assert_eq!((at(0.6).throttle, at(0.6).brake), (0.6, 0.0));
        assert_eq!((at(-0.3).throttle, at(-0.3).brake), (0.0, 0.3));
    }

    #[test]
    fn an_h_pattern_gate_and_reverse_are_read_from_buttons() {
        let mut p = standard_gamepad();
        p.buttons.h_pattern = [Some(10), Some(11), Some(12), None, None, None, None];
        p.buttons.reverse = Some(13);
        let mut buttons = vec![false; 14];
        assert_eq!(
            p.shift_buttons(&DeviceReading {
                axes: vec![],
                buttons: buttons.clone()
            })
            .gate,
            None
        );
        buttons[11] = true;
        assert_eq!(
            p.shift_buttons(&DeviceReading {
                axes: vec![],
                buttons: buttons.clone()
            })
            .gate,
            Some(2)
        );
        buttons[13] = true;
        assert_eq!(
            p.shift_buttons(&DeviceReading {
                axes: vec![],
                buttons
            })
            .gate,
            Some(-1)
        );
    }

    #[test]
    fn bad_profiles_are_refused_with_the_field_named() {
        let e =
            DeviceProfile::from_json(&WHEEL.replace("\"dead_zone\": 0.02", "\"dead_zone\": 0.7"))
                .unwrap_err();
        assert!(e.to_string().contains("steer.response.dead_zone"), "{e}");
        let e =
            DeviceProfile::from_json(&WHEEL.replace("\"axis\": 3", "\"axis\": 900")).unwrap_err();
        assert!(e.to_string().contains("pedals.brake.axis"), "{e}");
        let e = DeviceProfile::from_json(&WHEEL.replace("\"name\"", "\"nmae\"")).unwrap_err();
        assert!(matches!(e, InputError::Json(_)), "{e}");
        assert!(DeviceProfile::from_json(&" ".repeat(MAX_PROFILE_BYTES + 1)).is_err());
    }
}
