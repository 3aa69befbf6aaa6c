//! Small typed identifiers: cars and wheels.

use std::fmt;

/// Identifies a car within one [`World`](crate::World): a handle, not an
/// index. A new world gives out 0, 1, 2, … in the order cars are added
/// (so the same calls give the same ids) and never gives an id out twice, so a handle kept after
/// [`remove_car`](crate::World::remove_car) names no car (every call with
/// it fails with `UnknownCar`) rather than another car. Cars are stepped
/// and hashed in id order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CarId(u32);

impl CarId {
    /// The id as a number, for file formats and foreign-language bindings.
    /// It names a car only in the world that gave it out.
    #[must_use]
    pub const fn to_raw(self) -> u32 {
        self.0
    }

    /// The id a world gave out as `raw` (see [`to_raw`](Self::to_raw)).
    /// Nothing checks it here: a world answers `UnknownCar` for an id it
    /// does not hold.
    #[must_use]
    pub const fn from_raw(raw: u32) -> CarId {
        CarId(raw)
    }
}

impl fmt::Display for CarId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A wheel position. The index order (front-left, front-right, rear-left,
/// rear-right) is the evaluation order of every per-wheel loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wheel {
    /// Front left, index 0.
    FrontLeft,
    /// Front right, index 1.
    FrontRight,
    /// Rear left, index 2.
    RearLeft,
    /// Rear right, index 3.
    RearRight,
}

impl Wheel {
    /// All wheels in index order.
    pub const ALL: [Wheel; 4] = [
        Wheel::FrontLeft,
        Wheel::FrontRight,
        Wheel::RearLeft,
        Wheel::RearRight,
    ];

    /// The wheel's index, 0..4.
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The wheel with this index, or `None` outside 0..4 (a caller
    /// reporting it has [`CoreError::InvalidWheel`](crate::CoreError)).
    #[must_use]
    pub fn from_index(index: u8) -> Option<Wheel> {
        Wheel::ALL.get(usize::from(index)).copied()
    }

    /// True for the two front wheels.
    #[must_use]
    pub const fn is_front(self) -> bool {
        matches!(self, Wheel::FrontLeft | Wheel::FrontRight)
    }

    /// True for the two left wheels (positive y in the body frame).
    #[must_use]
    pub const fn is_left(self) -> bool {
        matches!(self, Wheel::FrontLeft | Wheel::RearLeft)
    }

    /// Short name used in telemetry channel names: `fl`, `fr`, `rl`, `rr`.
    #[must_use]
    pub const fn short_name(self) -> &'static str {
        match self {
            Wheel::FrontLeft => "fl",
            Wheel::FrontRight => "fr",
            Wheel::RearLeft => "rl",
            Wheel::RearRight => "rr",
        }
    }
}
