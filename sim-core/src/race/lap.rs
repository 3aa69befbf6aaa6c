//! A timed lap as the race layer gives it: how it began, its times and
//! sectors, and why it does not count when it does not (`LapTimer` makes
//! them).

use std::fmt;

/// How a lap began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LapStart {
    /// From the start of the race, at rest on the grid.
    Standing,
    /// From a crossing of the line at speed.
    Flying,
}

/// Why a lap does not count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LapFault {
    /// The centre of mass was `offset` m from the centre line (beyond
    /// `limit`) at `time`.
    LeftTrack {
        /// Race time, s.
        time: f64,
        /// |offset| from the centre line, m.
        offset: f64,
        /// The limit, m: the distance to the road's edge on that side plus
        /// the margin.
        limit: f64,
    },
    /// The car reached checkpoint `reached` before checkpoint `expected`
    /// (numbered 1 .. checkpoints − 1 within the lap; the line is the
    /// last).
    SkippedCheckpoint {
        /// Race time, s.
        time: f64,
        /// The checkpoint it reached.
        reached: u32,
        /// The checkpoint it should have reached first.
        expected: u32,
    },
    /// The car moved `distance` m along the track in one observation, past
    /// more than one checkpoint (a teleport, or an edited replay).
    Jumped {
        /// Race time, s.
        time: f64,
        /// Distance moved, m.
        distance: f64,
    },
    /// The game put the car back on the track (`World::reset_car`) at
    /// `time`: a reset run is not a clean lap.
    Reset {
        /// Race time, s.
        time: f64,
    },
}

impl LapFault {
    pub(super) fn same_kind(&self, other: &LapFault) -> bool {
        core::mem::discriminant(self) == core::mem::discriminant(other)
    }
}

impl fmt::Display for LapFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LapFault::LeftTrack {
                time,
                offset,
                limit,
            } => write!(
                f,
                "left the track at t = {time:.3} s ({offset:.1} m from the centre line, limit {limit:.1} m)"
            ),
            LapFault::SkippedCheckpoint {
                time,
                reached,
                expected,
            } => write!(
                f,
                "reached checkpoint {reached} before checkpoint {expected} at t = {time:.3} s"
            ),
            LapFault::Jumped { time, distance } => write!(
                f,
                "jumped {distance:.1} m along the track in one step at t = {time:.3} s"
            ),
            LapFault::Reset { time } => write!(f, "was reset onto the track at t = {time:.3} s"),
        }
    }
}

/// A completed lap.
#[derive(Clone, Debug, PartialEq)]
pub struct Lap {
    /// 1 for the first lap.
    pub number: u32,
    /// Race time the lap began, s: the start, or a crossing of the line.
    pub start: f64,
    /// Race time of the crossing that ended it, s.
    pub end: f64,
    /// How it began.
    pub kind: LapStart,
    /// Why it does not count; empty for a valid lap. One fault of each kind
    /// at most (the first).
    pub faults: Vec<LapFault>,
    /// Each sector's time, s, in order (`Track::sectors` cut the lap):
    /// they add up to the lap time. Empty when the car did not pass every
    /// sector boundary forward within the lap (an invalid lap).
    pub sectors: Vec<f64>,
}

impl Lap {
    /// Lap time, s: `end − start`.
    #[must_use]
    pub fn time(&self) -> f64 {
        self.end - self.start
    }

    /// True when the lap counts (no faults).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.faults.is_empty()
    }
}
