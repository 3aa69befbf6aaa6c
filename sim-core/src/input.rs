//! The per-car control input: exactly 48 bytes, the unit that replays record.

use bytemuck::{Pod, Zeroable};

use crate::math;
use crate::{CoreError, Result};

/// What a driver (player or AI) asks of a car for one step.
///
/// `#[repr(C)]` and [`Pod`] so that a replay can store it as six
/// little-endian `f64`s, in this field order, with no padding.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct CarInput {
    /// −1 full left lock … +1 full right lock, as a player's stick or
    /// wheel reports it.
    ///
    /// Mind the sign: the input is positive **right**, while everything
    /// the simulation reports follows ISO 8855 and is positive **left**
    /// (yaw, yaw rate, the `steer_angle` telemetry channel, road-wheel
    /// angles). So `steer: 0.5` gives a negative `steer_angle` and a
    /// clockwise turn seen from above. Recorded replays depend on this
    /// sign; it changes only with a simulation version.
    pub steer: f64,
    /// Accelerator pedal, 0…1.
    pub throttle: f64,
    /// Brake pedal, 0…1.
    pub brake: f64,
    /// Handbrake lever, 0…1 (rear wheels).
    pub handbrake: f64,
    /// Clutch pedal, 0 engaged … 1 fully open.
    pub clutch: f64,
    /// Requested gear: negative reverse, 0 neutral (manual) or drive
    /// (automatic), positive a gear number. Rounded to the nearest integer.
    pub gear: f64,
}

const _: () = assert!(std::mem::size_of::<CarInput>() == 48);

/// Steps per unit of the analog input fields: inputs run rounded to
/// multiples of 1/65536.
pub const INPUT_RESOLUTION: f64 = 65_536.0;

/// Rounds to the nearest multiple of 1/INPUT_RESOLUTION. Scaling by a power
/// of two and rounding are exact, so this gives the same bits everywhere.
fn quantized(v: f64) -> f64 {
    math::round(v * INPUT_RESOLUTION) / INPUT_RESOLUTION + 0.0
}

impl CarInput {
    /// Size of one input record in bytes.
    pub const SIZE: usize = 48;

    /// The field names in storage order; used in error messages and by
    /// tools that print inputs.
    pub const FIELD_NAMES: [&'static str; 6] =
        ["steer", "throttle", "brake", "handbrake", "clutch", "gear"];

    /// The six fields in storage order.
    #[must_use]
    pub const fn to_array(self) -> [f64; 6] {
        [
            self.steer,
            self.throttle,
            self.brake,
            self.handbrake,
            self.clutch,
            self.gear,
        ]
    }

    /// Builds an input from the six fields in storage order.
    #[must_use]
    pub const fn from_array(v: [f64; 6]) -> Self {
        CarInput {
            steer: v[0],
            throttle: v[1],
            brake: v[2],
            handbrake: v[3],
            clutch: v[4],
            gear: v[5],
        }
    }

    /// Rejects non-finite fields, then clamps each field to its range,
    /// rounds the analog fields to [`INPUT_RESOLUTION`] and the gear to a
    /// whole number. Negative zero becomes positive zero so that inputs that
    /// mean the same thing hash the same.
    ///
    /// The rounding is finer than any game controller, keeps the bits the
    /// same whatever arithmetic produced the input (a JS host's, say), and
    /// lets a replay store inputs as small integer steps.
    pub fn sanitized(self, max_gear: i32) -> Result<CarInput> {
        for (field, value) in Self::FIELD_NAMES.iter().zip(self.to_array()) {
            if !value.is_finite() {
                return Err(CoreError::NonFiniteInput { field, value });
            }
        }
        let gear = math::round(self.gear).clamp(-1.0, f64::from(max_gear));
        Ok(CarInput {
            steer: quantized(self.steer.clamp(-1.0, 1.0)),
            throttle: quantized(self.throttle.clamp(0.0, 1.0)),
            brake: quantized(self.brake.clamp(0.0, 1.0)),
            handbrake: quantized(self.handbrake.clamp(0.0, 1.0)),
            clutch: quantized(self.clutch.clamp(0.0, 1.0)),
            gear: gear + 0.0,
        })
    }

    /// The requested gear as an integer (already rounded by
    /// [`sanitized`](Self::sanitized)).
    #[must_use]
    pub fn gear_number(&self) -> i32 {
        // The value is finite, rounded and clamped to a small range.
        self.gear as i32
    }
}
