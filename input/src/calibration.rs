//! Finding an axis by moving it: the player is asked to turn the wheel to
//! both stops (or press a pedal to the floor); the axis that moved
//! furthest from where it rested is the one, and the readings seen give
//! its travel.

use crate::axis::{CentredTravel, PedalTravel};
use crate::profile::MAX_CONTROLS;

/// Least movement, raw units, that counts as the player moving an axis
/// (the Gamepad API's −1…1 spans 2): above the drift of a resting axis.
const MIN_MOVEMENT: f64 = 0.5;

/// An axis found, with the readings seen on it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FoundAxis {
    /// Axis index.
    pub axis: usize,
    /// Its reading when the search started.
    pub rest: f64,
    /// Lowest reading seen.
    pub low: f64,
    /// Highest reading seen.
    pub high: f64,
}

impl FoundAxis {
    /// The travel of a centred axis (a wheel turned to both stops).
    /// `None` if it was not moved both ways from rest.
    #[must_use]
    pub fn centred(&self) -> Option<CentredTravel> {
        let travel = CentredTravel {
            left: self.low,
            rest: self.rest,
            right: self.high,
        };
        travel.validate("axis").ok().map(|()| travel)
    }

    /// The travel of a pedal: rest where it started, pressed at the end
    /// it moved to.
    #[must_use]
    pub fn pedal(&self) -> Option<PedalTravel> {
        let pressed = if self.high - self.rest >= self.rest - self.low {
            self.high
        } else {
            self.low
        };
        let travel = PedalTravel {
            rest: self.rest,
            pressed,
        };
        travel.validate("axis").ok().map(|()| travel)
    }
}

/// Watches every axis of a device for the one the player moves.
#[derive(Clone, Debug, PartialEq)]
pub struct AxisFinder {
    rest: Vec<f64>,
    low: Vec<f64>,
    high: Vec<f64>,
    /// Axes not to consider (already assigned to another role).
    skip: Vec<usize>,
}

impl AxisFinder {
    /// Starts a search with the device at rest; axes in `skip` are
    /// ignored. Only the first [`MAX_CONTROLS`] axes are watched, and a
    /// reading that is not finite never counts.
    #[must_use]
    pub fn new(rest: &[f64], skip: &[usize]) -> AxisFinder {
        let rest: Vec<f64> = rest.iter().take(MAX_CONTROLS).copied().collect();
        AxisFinder {
            low: rest.clone(),
            high: rest.clone(),
            rest,
            skip: skip.to_vec(),
        }
    }

    /// Takes one frame of readings.
    pub fn observe(&mut self, axes: &[f64]) {
        for (i, &v) in axes.iter().enumerate().take(self.rest.len()) {
            if v.is_finite() && self.rest[i].is_finite() {
                self.low[i] = self.low[i].min(v);
                self.high[i] = self.high[i].max(v);
            }
        }
    }

    /// The axis moved furthest from rest, once it moved at least half the
    /// standard range; the lowest index on a tie.
    #[must_use]
    pub fn found(&self) -> Option<FoundAxis> {
        let mut best: Option<(f64, usize)> = None;
        for i in 0..self.rest.len() {
            if self.skip.contains(&i) || !self.rest[i].is_finite() {
                continue;
            }
            let moved = self.high[i] - self.low[i];
            if moved >= MIN_MOVEMENT && best.is_none_or(|(m, _)| moved > m) {
                best = Some((moved, i));
            }
        }
        best.map(|(_, axis)| FoundAxis {
            axis,
            rest: self.rest[axis],
            low: self.low[axis],
            high: self.high[axis],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_axis_moved_furthest_is_found_with_its_travel() {
        let mut f = AxisFinder::new(&[0.02, 1.0, 1.0, 0.0], &[]);
        assert_eq!(f.found(), None, "nothing moved yet");
        // A pedal bumped a little, the wheel turned to both stops.
        for (wheel, pedal) in [(-0.5, 0.9), (-1.0, 0.8), (0.3, 1.0), (0.98, 1.0)] {
            f.observe(&[wheel, pedal, 1.0, f64::NAN]);
        }
        let found = f.found().unwrap();
        assert_eq!((found.axis, found.low, found.high), (0, -1.0, 0.98));
        let travel = found.centred().unwrap();
        assert_eq!((travel.left, travel.rest, travel.right), (-1.0, 0.02, 0.98));
        // Then the brake, skipping the wheel: pressed from +1 to −1.
        let mut f = AxisFinder::new(&[0.0, 1.0, 1.0], &[0]);
        f.observe(&[1.0, 1.0, -1.0]);
        let brake = f.found().unwrap();
        assert_eq!(brake.axis, 2);
        let p = brake.pedal().unwrap();
        assert_eq!((p.rest, p.pressed), (1.0, -1.0));
        assert_eq!(brake.centred(), None, "moved one way only");
    }
}
