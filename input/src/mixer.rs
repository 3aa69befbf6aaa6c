//! Several devices at once (a keyboard and a pad, a wheel and a pad): the
//! one touched last drives, whole, so two half-pressed devices never add
//! up to an input neither player meant.

use crate::profile::{Controls, ShiftButtons};

/// What one device asks for in a frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DeviceFrame {
    /// Its controls.
    pub controls: Controls,
    /// Its shift buttons.
    pub shift: ShiftButtons,
}

/// How far a control must move between frames to count as a touch: above
/// a resting stick's noise.
pub const TOUCH_THRESHOLD: f64 = 0.05;

/// Picks the device that drives.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputMixer {
    last: Vec<DeviceFrame>,
    active: Option<usize>,
}

fn touched(before: &DeviceFrame, now: &DeviceFrame) -> bool {
    let (a, b) = (before.controls, now.controls);
    let moved = [
        (a.steer, b.steer),
        (a.throttle, b.throttle),
        (a.brake, b.brake),
        (a.handbrake, b.handbrake),
        (a.clutch, b.clutch),
    ]
    .iter()
    .any(|(x, y)| (x - y).abs() > TOUCH_THRESHOLD);
    moved || before.shift != now.shift
}

impl InputMixer {
    /// A mixer with no device chosen yet.
    #[must_use]
    pub fn new() -> InputMixer {
        InputMixer::default()
    }

    /// This frame's devices, in a fixed order (device 0, 1, …); returns
    /// the index of the device that drives and its frame. A device
    /// touched since the last frame takes over; when several are touched
    /// at once the one driving keeps driving, else the lowest index wins.
    /// Before any touch (and with no devices) nothing drives: rest.
    pub fn update(&mut self, devices: &[DeviceFrame]) -> (Option<usize>, DeviceFrame) {
        if self.last.len() != devices.len() {
            // Devices came or went: a new device is compared with rest, so
            // one that arrives with a stick or pedal held is being used
            // (a page that lists its pads only once they report); the
            // driver is kept if it is still there.
            self.last.resize(devices.len(), DeviceFrame::default());
            self.active = self.active.filter(|&i| i < devices.len());
        }
        let touched_now: Vec<usize> = (0..devices.len())
            .filter(|&i| touched(&self.last[i], &devices[i]))
            .collect();
        if !touched_now.is_empty() && !self.active.is_some_and(|a| touched_now.contains(&a)) {
            self.active = Some(touched_now[0]);
        }
        self.last.copy_from_slice(devices);
        let frame = self.active.map(|i| devices[i]).unwrap_or_default();
        (self.active, frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steering(v: f64) -> DeviceFrame {
        DeviceFrame {
            controls: Controls {
                steer: v,
                ..Controls::default()
            },
            shift: ShiftButtons::default(),
        }
    }

    #[test]
    fn the_last_device_touched_drives() {
        let mut m = InputMixer::new();
        let (idle, rest) = m.update(&[steering(0.0), steering(0.0)]);
        assert_eq!((idle, rest), (None, DeviceFrame::default()));
        assert_eq!(m.update(&[steering(0.0), steering(0.5)]).0, Some(1));
        // Device 1 holds still; device 0's noise is below the threshold.
        assert_eq!(
            m.update(&[steering(0.03), steering(0.5)]),
            (Some(1), steering(0.5))
        );
        assert_eq!(
            m.update(&[steering(-0.4), steering(0.5)]),
            (Some(0), steering(-0.4))
        );
        // Both move: the driver keeps driving.
        assert_eq!(m.update(&[steering(-0.2), steering(0.9)]).0, Some(0));
        // A device unplugged: the list shrinks, the driver is kept if
        // it is still there.
        assert_eq!(m.update(&[steering(-0.2)]).0, Some(0));
        // A device plugged in with its stick held is being used; one at
        // rest is not.
        assert_eq!(m.update(&[steering(-0.2), steering(0.0)]).0, Some(0));
        assert_eq!(
            m.update(&[steering(-0.2), steering(0.0), steering(0.7)]).0,
            Some(2)
        );
    }
}
