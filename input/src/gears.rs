//! The gear selector: what the player's gear controls ask of the gearbox,
//! as the `gear` field of a `CarInput` (negative reverse, 0 neutral or
//! drive, positive a gear).

use serde::{Deserialize, Serialize};

use crate::profile::ShiftButtons;

/// How the player selects gears.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GearMode {
    /// An automatic gearbox: drive (0), or reverse after a down-shift
    /// press in drive; an up-shift press in reverse returns to drive.
    #[default]
    Automatic,
    /// Up and down one gear per press, from reverse through neutral to
    /// the top gear.
    Sequential,
    /// The gate held: its gear, or neutral when no gate is held.
    HPattern,
}

/// Turns shift buttons into a requested gear, press by press.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GearSelector {
    mode: GearMode,
    top: i32,
    gear: i32,
    held: ShiftButtons,
}

impl GearSelector {
    /// A selector for a car with `top` forward gears (at least 1), in
    /// drive (automatic) or neutral.
    #[must_use]
    pub fn new(mode: GearMode, top: i32) -> GearSelector {
        GearSelector {
            mode,
            top: top.max(1),
            gear: 0,
            held: ShiftButtons::default(),
        }
    }

    /// The selector's mode.
    #[must_use]
    pub fn mode(&self) -> GearMode {
        self.mode
    }

    /// The requested gear after this frame's buttons. A press counts on
    /// the frame a button goes down, so a held button shifts once.
    pub fn update(&mut self, buttons: ShiftButtons) -> i32 {
        let up = buttons.up && !self.held.up;
        let down = buttons.down && !self.held.down;
        self.held = buttons;
        match self.mode {
            GearMode::Automatic => {
                if down && self.gear == 0 {
                    self.gear = -1;
                } else if up && self.gear == -1 {
                    self.gear = 0;
                }
            }
            GearMode::Sequential => {
                if up {
                    self.gear = (self.gear + 1).min(self.top);
                }
                if down {
                    self.gear = (self.gear - 1).max(-1);
                }
            }
            GearMode::HPattern => {
                self.gear = buttons.gate.map_or(0, |g| g.clamp(-1, self.top));
            }
        }
        self.gear
    }

    /// The gear requested now.
    #[must_use]
    pub fn gear(&self) -> i32 {
        self.gear
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UP: ShiftButtons = ShiftButtons {
        up: true,
        down: false,
        gate: None,
    };
    const DOWN: ShiftButtons = ShiftButtons {
        up: false,
        down: true,
        gate: None,
    };
    const NONE: ShiftButtons = ShiftButtons {
        up: false,
        down: false,
        gate: None,
    };

    #[test]
    fn sequential_shifts_once_per_press_within_reverse_and_top() {
        let mut s = GearSelector::new(GearMode::Sequential, 3);
        assert_eq!(s.update(UP), 1);
        assert_eq!(s.update(UP), 1, "held: no second shift");
        for _ in 0..5 {
            s.update(NONE);
            s.update(UP);
        }
        assert_eq!(s.gear(), 3, "stops at the top gear");
        for _ in 0..6 {
            s.update(NONE);
            s.update(DOWN);
        }
        assert_eq!(s.gear(), -1, "stops at reverse");
    }

    #[test]
    fn automatic_goes_between_drive_and_reverse() {
        let mut s = GearSelector::new(GearMode::Automatic, 6);
        assert_eq!(s.update(UP), 0, "drive stays drive");
        s.update(NONE);
        assert_eq!(s.update(DOWN), -1);
        s.update(NONE);
        assert_eq!(s.update(UP), 0);
    }

    #[test]
    fn h_pattern_follows_the_gate() {
        let mut s = GearSelector::new(GearMode::HPattern, 5);
        let gate = |g| ShiftButtons { gate: g, ..NONE };
        assert_eq!(s.update(gate(Some(3))), 3);
        assert_eq!(s.update(gate(None)), 0);
        assert_eq!(s.update(gate(Some(-1))), -1);
        assert_eq!(s.update(gate(Some(7))), 5, "a gate past the top is the top");
    }
}
