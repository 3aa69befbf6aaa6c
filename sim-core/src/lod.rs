//! Level of detail: which vehicle model steps a car, and how finely.

use crate::math;
use crate::{CoreError, Result};

/// Default substep rate of the single-track model, in Hz: two substeps of
/// a 60 Hz host step. At this rate an AI lap is within 0.5 % of the lap at
/// four times it and a 0–100 km/h launch within 2 % (`VALIDATION.md`).
/// Before the clutch caught the engine inside a substep (simulation
/// version 9) this rate was 180 Hz: at 120 Hz the slipping clutch
/// overshot the speed match on its light engine side and the rear-drive
/// car's lap came out 14 to 31 % slower than at 480 Hz.
pub const SINGLE_TRACK_DEFAULT_RATE: f64 = 120.0;
/// Lowest substep-rate override accepted, in Hz.
pub const MIN_SUBSTEP_RATE: f64 = 30.0;
/// Highest substep-rate override accepted, in Hz.
pub const MAX_SUBSTEP_RATE: f64 = 10_000.0;

/// Which model steps a car.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lod {
    /// The four-wheel model with suspension (the default).
    #[default]
    Full,
    /// The planar single-track (bicycle) model.
    SingleTrack,
    /// Not stepped at all: the state keeps its bits.
    Frozen,
}

impl Lod {
    /// Stable numeric code used in snapshots and replays.
    #[must_use]
    pub const fn code(self) -> u8 {
        match self {
            Lod::Full => 0,
            Lod::SingleTrack => 1,
            Lod::Frozen => 2,
        }
    }

    /// The level with this code.
    pub fn from_code(code: u8) -> Result<Lod> {
        match code {
            0 => Ok(Lod::Full),
            1 => Ok(Lod::SingleTrack),
            2 => Ok(Lod::Frozen),
            _ => Err(CoreError::InvalidArgument {
                what: "level of detail",
                reason: format!("unknown code {code}"),
            }),
        }
    }
}

/// A level plus an optional substep-rate override.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LodSetting {
    /// The model.
    pub level: Lod,
    /// Substeps per second; `None` uses the model's default (the
    /// definition's rate for `Full`, [`SINGLE_TRACK_DEFAULT_RATE`] for
    /// `SingleTrack`).
    pub substep_rate: Option<f64>,
}

impl LodSetting {
    /// A level with its default rate.
    #[must_use]
    pub const fn new(level: Lod) -> Self {
        LodSetting {
            level,
            substep_rate: None,
        }
    }

    /// A level with an explicit substep rate.
    #[must_use]
    pub const fn with_rate(level: Lod, rate_hz: f64) -> Self {
        LodSetting {
            level,
            substep_rate: Some(rate_hz),
        }
    }

    /// The substep rate this setting runs at, Hz, for a car whose
    /// definition asks for `definition_rate`.
    #[must_use]
    pub fn rate(self, definition_rate: f64) -> f64 {
        match (self.level, self.substep_rate) {
            (_, Some(rate)) => rate,
            (Lod::SingleTrack, None) => SINGLE_TRACK_DEFAULT_RATE,
            _ => definition_rate,
        }
    }

    /// Substeps a host step of `dt` costs: `max(1, round(dt · rate))`, or 0
    /// when frozen (a frozen car is not stepped). Work budgets for untrusted
    /// replays are computed with this, so it is the count the model runs.
    #[must_use]
    pub fn substeps(self, dt: f64, definition_rate: f64) -> u32 {
        if self.level == Lod::Frozen {
            return 0;
        }
        substep_count(dt, self.rate(definition_rate))
    }

    /// Checks the override's range.
    pub fn validated(self) -> Result<LodSetting> {
        if let Some(rate) = self.substep_rate
            && !(rate.is_finite() && (MIN_SUBSTEP_RATE..=MAX_SUBSTEP_RATE).contains(&rate))
        {
            return Err(CoreError::InvalidArgument {
                what: "substep rate",
                reason: format!(
                    "must be finite and in [{MIN_SUBSTEP_RATE}, {MAX_SUBSTEP_RATE}] Hz, got {rate}"
                ),
            });
        }
        Ok(self)
    }
}

/// `max(1, round(dt · rate))`: how many substeps a host step of `dt` is cut
/// into at `rate` Hz. dt ≤ 0.25 s and rate ≤ 10 kHz keep it inside u32;
/// larger products saturate.
#[must_use]
pub fn substep_count(dt: f64, rate: f64) -> u32 {
    (math::round(dt * rate) as u32).max(1)
}
