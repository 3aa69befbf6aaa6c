//! The input layer: from a player's keyboard, gamepad or wheel to the
//! [`CarInput`] a car runs, and from the simulated steering torque back to
//! a wheel's motor.
//!
//! - [`DeviceProfile`] (`profile.rs`): which axis and button does what, as
//!   JSON; each axis shaped by `axis.rs` (end stops, rest, dead zones,
//!   curve, saturation, inversion).
//! - [`AxisFinder`] (`calibration.rs`): finds an axis by the player moving
//!   it and records its travel.
//! - [`KeyboardDriver`] (`keyboard.rs`): rate-limited, speed-sensitive,
//!   self-centring steering and pedal ramps from on/off keys.
//! - [`GearSelector`] (`gears.rs`): automatic, sequential or H-pattern.
//! - [`InputMixer`] (`mixer.rs`): the device touched last drives.
//! - [`ForceFeedback`] (`force_feedback.rs`): gain, smoothing, clipping,
//!   and the safety limits (output cap, rate limit, runaway latch, zero
//!   when hidden or stalled).
//!
//! **Architecture Invariant:** no DOM, OS or device API here: a host (the
//! web page through the wasm package, a native game) reads its devices and
//! passes plain numbers in. Every output is in range whatever comes in,
//! NaN included, and [`car_input`] hands the core an input it accepts, so a
//! replay records exactly what the car ran.
//!
//! A frame of a keyboard player, at 60 Hz:
//!
//! ```
//! use skidpad_input::{GearMode, GearSelector, KeyboardDriver, KeyboardTuning, Keys, ShiftButtons, car_input};
//!
//! let mut keyboard = KeyboardDriver::new(KeyboardTuning::default())?;
//! let mut gears = GearSelector::new(GearMode::Sequential, 6);
//! let keys = Keys { right: true, throttle: true, ..Keys::default() };
//! let controls = keyboard.update(keys, 1.0 / 60.0, 12.0); // the car at 12 m/s
//! let gear = gears.update(ShiftButtons { up: true, ..ShiftButtons::default() });
//! let input = car_input(&controls, gear, 6); // what World::set_input takes
//! assert!(input.steer > 0.0 && input.steer < 0.05, "steering ramps in");
//! assert_eq!(input.gear, 1.0);
//! # Ok::<(), skidpad_input::InputError>(())
//! ```

mod axis;
mod calibration;
mod error;
mod force_feedback;
mod gears;
mod keyboard;
mod mixer;
mod profile;

pub use axis::{CentredTravel, PedalTravel, Response, centred, pedal};
pub use calibration::{AxisFinder, FoundAxis};
pub use error::{InputError, Result};
pub use force_feedback::{
    ClipStatistics, FeedbackFrame, ForceFeedback, ForceFeedbackSettings, Silenced,
};
pub use gears::{GearMode, GearSelector};
pub use keyboard::{KeyboardDriver, KeyboardTuning, Keys};
pub use mixer::{DeviceFrame, InputMixer, TOUCH_THRESHOLD};
pub use profile::{
    Buttons, Controls, DeviceProfile, DeviceReading, MAX_CONTROLS, MAX_PROFILE_BYTES, PedalAxis,
    Pedals, ShiftButtons, SteerAxis, standard_gamepad,
};
use skidpad_core::CarInput;

/// The car input for `controls` and a requested `gear`, as the core will
/// run it (clamped, rounded to the input resolution, the gear within
/// reverse … `top_gear`).
#[must_use]
pub fn car_input(controls: &Controls, gear: i32, top_gear: i32) -> CarInput {
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    CarInput {
        steer: finite(controls.steer),
        throttle: finite(controls.throttle),
        brake: finite(controls.brake),
        handbrake: finite(controls.handbrake),
        clutch: finite(controls.clutch),
        gear: f64::from(gear),
    }
    .sanitized(top_gear.max(1))
    // Every field is finite, the one thing `sanitized` refuses.
    .unwrap_or_default()
}
