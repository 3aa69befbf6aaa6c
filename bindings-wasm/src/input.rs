//! The input layer for JavaScript (`skidpad-input`): a page reads its
//! keyboard and gamepads and passes plain numbers in; these classes turn
//! them into the controls and `CarInput` a car runs, and the steering
//! torque into a force-feedback command. Profiles are the JSON files the
//! Rust crate reads (snake_case); options objects are camelCase.

use js_sys::{Array, Object, Reflect, Uint8Array};
use skidpad_input as input;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::args::{self, field, object_of_numbers};
use crate::error::{JsResult, range_error};

fn input_error(e: input::InputError) -> JsValue {
    range_error(e.to_string())
}

/// `{steer, throttle, brake, handbrake, clutch}` as a plain object.
fn controls_object(c: &input::Controls) -> JsResult<JsValue> {
    object_of_numbers(&[
        ("steer", c.steer),
        ("throttle", c.throttle),
        ("brake", c.brake),
        ("handbrake", c.handbrake),
        ("clutch", c.clutch),
    ])
}

/// Reads `{steer, throttle, brake, handbrake, clutch}`; absent fields are
/// 0, NaN is left to the layer (which reads it as rest).
fn controls_arg(value: &JsValue, what: &str) -> JsResult<input::Controls> {
    let read = |name: &str| -> JsResult<f64> {
        let v = field(value, name)?;
        if v.is_undefined() {
            return Ok(0.0);
        }
        v.as_f64()
            .ok_or_else(|| range_error(format!("{what}.{name} must be a number")))
    };
    Ok(input::Controls {
        steer: read("steer")?,
        throttle: read("throttle")?,
        brake: read("brake")?,
        handbrake: read("handbrake")?,
        clutch: read("clutch")?,
    })
}

fn bool_field(value: &JsValue, name: &str, what: &str) -> JsResult<bool> {
    args::bool_or(&field(value, name)?, &format!("{what}.{name}"), false)
}

/// Reads `{up, down, gate}` (gate: −1 reverse, a gear, or null).
fn shift_arg(value: &JsValue) -> JsResult<input::ShiftButtons> {
    let gate = field(value, "gate")?;
    let gate = if gate.is_undefined() || gate.is_null() {
        None
    } else {
        let g = args::number(&gate, "shift.gate")?;
        if g.fract() != 0.0 || !(-1.0..=64.0).contains(&g) {
            return Err(range_error(format!(
                "shift.gate must be -1 or a gear up to 64, got {g}"
            )));
        }
        Some(g as i32)
    };
    Ok(input::ShiftButtons {
        up: bool_field(value, "up", "shift")?,
        down: bool_field(value, "down", "shift")?,
        gate,
    })
}

fn shift_object(s: &input::ShiftButtons) -> JsResult<JsValue> {
    let o = Object::new();
    Reflect::set(&o, &"up".into(), &s.up.into())?;
    Reflect::set(&o, &"down".into(), &s.down.into())?;
    let gate = s.gate.map_or(JsValue::NULL, JsValue::from);
    Reflect::set(&o, &"gate".into(), &gate)?;
    Ok(o.into())
}

/// Button states from a `Uint8Array` (non-zero: pressed).
fn buttons_arg(value: &JsValue) -> JsResult<Vec<bool>> {
    if value.is_undefined() || value.is_null() {
        return Ok(Vec::new());
    }
    let bytes = value
        .dyn_ref::<Uint8Array>()
        .map(Uint8Array::to_vec)
        .ok_or_else(|| range_error("buttons must be a Uint8Array (1 pressed, 0 not)"))?;
    Ok(bytes.into_iter().map(|b| b != 0).collect())
}

/// Reads a number option, keeping `default` when absent.
fn option(options: &JsValue, key: &str, default: f64) -> JsResult<f64> {
    args::number_or(&field(options, key)?, key, default)
}

/// An optional boolean of an options object.
fn bool_option(options: &JsValue, key: &str, default: bool) -> JsResult<bool> {
    args::bool_or(&field(options, key)?, key, default)
}

/// A device profile: which axis and button does what.
#[wasm_bindgen]
pub struct DeviceProfile {
    inner: input::DeviceProfile,
}

#[wasm_bindgen]
impl DeviceProfile {
    /// Parses and validates a profile (the JSON `skidpad-input` reads);
    /// a bad one throws RangeError naming the field.
    #[wasm_bindgen(js_name = fromJson)]
    pub fn from_json(text: &JsValue) -> JsResult<DeviceProfile> {
        let text = args::string(text, "profile")?;
        input::DeviceProfile::from_json(&text)
            .map(|inner| DeviceProfile { inner })
            .map_err(input_error)
    }

    /// The browser's standard gamepad mapping: left stick steers,
    /// triggers (passed as axes 6 and 7) are the pedals, shoulders shift,
    /// A is the handbrake.
    #[wasm_bindgen(js_name = standardGamepad)]
    #[must_use]
    pub fn standard_gamepad() -> DeviceProfile {
        DeviceProfile {
            inner: input::standard_gamepad(),
        }
    }

    /// The profile as JSON.
    #[wasm_bindgen(js_name = toJson)]
    #[must_use]
    pub fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// The profile's name.
    #[wasm_bindgen(getter)]
    #[must_use]
    pub fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// The controls a frame asks for: `axes` raw (NaN reads as rest),
    /// `buttons` 1 pressed, 0 not.
    #[wasm_bindgen(unchecked_return_type = "Controls")]
    pub fn controls(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Float64Array")] axes: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] buttons: JsValue,
    ) -> JsResult<JsValue> {
        let reading = input::DeviceReading {
            axes: args::f64s(&axes, "axes")?,
            buttons: buttons_arg(&buttons)?,
        };
        controls_object(&self.inner.controls(&reading))
    }

    /// The shift buttons a frame holds.
    #[wasm_bindgen(js_name = shiftButtons, unchecked_return_type = "ShiftButtons")]
    pub fn shift_buttons(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] buttons: JsValue,
    ) -> JsResult<JsValue> {
        let reading = input::DeviceReading {
            axes: Vec::new(),
            buttons: buttons_arg(&buttons)?,
        };
        shift_object(&self.inner.shift_buttons(&reading))
    }
}

/// Keys to smooth controls: rate-limited, speed-sensitive, self-centring
/// steering and ramped pedals.
#[wasm_bindgen]
pub struct KeyboardControls {
    inner: input::KeyboardDriver,
}

#[wasm_bindgen]
impl KeyboardControls {
    /// `tuning` may set `steerRate`, `centringRate`, `authoritySpeed`,
    /// `minAuthority`, `throttleRise`, `throttleFall`, `brakeRise`,
    /// `brakeFall` and `speedSensitiveRates` (a boolean, on by default; see
    /// `KeyboardTuning`); out-of-range values throw.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "KeyboardTuning")] tuning: JsValue,
    ) -> JsResult<KeyboardControls> {
        let d = input::KeyboardTuning::default();
        let tuning = input::KeyboardTuning {
            steer_rate: option(&tuning, "steerRate", d.steer_rate)?,
            centring_rate: option(&tuning, "centringRate", d.centring_rate)?,
            authority_speed: option(&tuning, "authoritySpeed", d.authority_speed)?,
            min_authority: option(&tuning, "minAuthority", d.min_authority)?,
            throttle_rise: option(&tuning, "throttleRise", d.throttle_rise)?,
            throttle_fall: option(&tuning, "throttleFall", d.throttle_fall)?,
            brake_rise: option(&tuning, "brakeRise", d.brake_rise)?,
            brake_fall: option(&tuning, "brakeFall", d.brake_fall)?,
            speed_sensitive_rates: bool_option(
                &tuning,
                "speedSensitiveRates",
                d.speed_sensitive_rates,
            )?,
        };
        input::KeyboardDriver::new(tuning)
            .map(|inner| KeyboardControls { inner })
            .map_err(input_error)
    }

    /// The controls after `dt` seconds with `keys` held (`{left, right,
    /// throttle, brake, handbrake, clutch}`), the car at `speed` m/s.
    #[wasm_bindgen(unchecked_return_type = "Controls")]
    pub fn update(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Keys")] keys: JsValue,
        dt: f64,
        speed: f64,
    ) -> JsResult<JsValue> {
        let keys = input::Keys {
            left: bool_field(&keys, "left", "keys")?,
            right: bool_field(&keys, "right", "keys")?,
            throttle: bool_field(&keys, "throttle", "keys")?,
            brake: bool_field(&keys, "brake", "keys")?,
            handbrake: bool_field(&keys, "handbrake", "keys")?,
            clutch: bool_field(&keys, "clutch", "keys")?,
        };
        controls_object(&self.inner.update(keys, dt, speed))
    }

    /// Back to rest.
    pub fn reset(&mut self) {
        self.inner.reset();
    }
}

/// Shift buttons to a requested gear.
#[wasm_bindgen]
pub struct GearSelector {
    inner: input::GearSelector,
}

#[wasm_bindgen]
impl GearSelector {
    /// `mode` is `automatic`, `sequential` or `h_pattern`; `topGear` the
    /// car's forward gears.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "GearMode")] mode: JsValue,
        #[wasm_bindgen(js_name = topGear)] top_gear: JsValue,
    ) -> JsResult<GearSelector> {
        let mode = match args::string(&mode, "mode")?.as_str() {
            "automatic" => input::GearMode::Automatic,
            "sequential" => input::GearMode::Sequential,
            "h_pattern" => input::GearMode::HPattern,
            other => {
                return Err(range_error(format!(
                    "mode must be automatic, sequential or h_pattern, got {other:?}"
                )));
            }
        };
        let top = args::whole(&top_gear, "topGear", 64.0)?;
        Ok(GearSelector {
            inner: input::GearSelector::new(mode, top as i32),
        })
    }

    /// The requested gear after this frame's `{up, down, gate}`.
    pub fn update(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "ShiftButtons")] buttons: JsValue,
    ) -> JsResult<i32> {
        Ok(self.inner.update(shift_arg(&buttons)?))
    }

    /// The gear requested now.
    #[wasm_bindgen(getter)]
    #[must_use]
    pub fn gear(&self) -> i32 {
        self.inner.gear()
    }
}

/// Several devices: the one touched last drives.
#[wasm_bindgen]
pub struct InputMixer {
    inner: input::InputMixer,
}

impl Default for InputMixer {
    fn default() -> Self {
        InputMixer::new()
    }
}

#[wasm_bindgen]
impl InputMixer {
    /// A mixer with no device chosen.
    #[wasm_bindgen(constructor)]
    #[must_use]
    pub fn new() -> InputMixer {
        InputMixer {
            inner: input::InputMixer::new(),
        }
    }

    /// This frame's devices, each `{controls, shift}`, in a fixed order;
    /// returns `{device, controls, shift}` of the one driving (`device`
    /// null and rest controls before any touch).
    #[wasm_bindgen(unchecked_return_type = "MixedInput")]
    pub fn update(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "DeviceFrame[]")] devices: JsValue,
    ) -> JsResult<JsValue> {
        let list = devices
            .dyn_ref::<Array>()
            .ok_or_else(|| range_error("devices must be an array of {controls, shift}"))?;
        let mut frames = Vec::new();
        for d in list.iter() {
            frames.push(input::DeviceFrame {
                controls: controls_arg(&field(&d, "controls")?, "controls")?,
                shift: shift_arg(&field(&d, "shift")?)?,
            });
        }
        let (device, frame) = self.inner.update(&frames);
        let o = Object::new();
        let device = device.map_or(JsValue::NULL, |i| JsValue::from(i as u32));
        Reflect::set(&o, &"device".into(), &device)?;
        Reflect::set(&o, &"controls".into(), &controls_object(&frame.controls)?)?;
        Reflect::set(&o, &"shift".into(), &shift_object(&frame.shift)?)?;
        Ok(o.into())
    }
}

/// Finds the axis a player moves, for calibration.
#[wasm_bindgen]
pub struct AxisFinder {
    inner: input::AxisFinder,
}

#[wasm_bindgen]
impl AxisFinder {
    /// Starts with the device at rest; axes in `skip` (already assigned)
    /// are ignored.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "Float64Array")] rest: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "Uint32Array")] skip: JsValue,
    ) -> JsResult<AxisFinder> {
        let skip = if skip.is_undefined() || skip.is_null() {
            Vec::new()
        } else {
            args::u32s(&skip, "skip")?
        };
        let skip: Vec<usize> = skip.into_iter().map(|i| i as usize).collect();
        Ok(AxisFinder {
            inner: input::AxisFinder::new(&args::f64s(&rest, "rest")?, &skip),
        })
    }

    /// Takes one frame of axis readings.
    pub fn observe(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Float64Array")] axes: JsValue,
    ) -> JsResult<()> {
        self.inner.observe(&args::f64s(&axes, "axes")?);
        Ok(())
    }

    /// The axis found, `{axis, rest, low, high, centred, pedal}` (the
    /// travels as a profile stores them, or null where the movement does
    /// not give one), or null before any axis moved far enough.
    #[wasm_bindgen(unchecked_return_type = "FoundAxis | null")]
    pub fn found(&self) -> JsResult<JsValue> {
        let Some(f) = self.inner.found() else {
            return Ok(JsValue::NULL);
        };
        let o = object_of_numbers(&[
            ("axis", f.axis as f64),
            ("rest", f.rest),
            ("low", f.low),
            ("high", f.high),
        ])?;
        let centred = match f.centred() {
            Some(t) => {
                object_of_numbers(&[("left", t.left), ("rest", t.rest), ("right", t.right)])?
            }
            None => JsValue::NULL,
        };
        let pedal = match f.pedal() {
            Some(t) => object_of_numbers(&[("rest", t.rest), ("pressed", t.pressed)])?,
            None => JsValue::NULL,
        };
        Reflect::set(&o, &"centred".into(), &centred)?;
        Reflect::set(&o, &"pedal".into(), &pedal)?;
        Ok(o)
    }
}

/// The steering torque to a force-feedback command, with safety limits.
#[wasm_bindgen]
pub struct ForceFeedback {
    inner: input::ForceFeedback,
}

#[wasm_bindgen]
impl ForceFeedback {
    /// `settings` may set `devicePeakTorque`, `gain`, `smoothing`,
    /// `maxOutput`, `maxRate`, `runawaySpeed`, `stallTimeout` (see
    /// `ForceFeedbackSettings`); out-of-range values throw.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "ForceFeedbackSettings")] settings: JsValue,
    ) -> JsResult<ForceFeedback> {
        let d = input::ForceFeedbackSettings::default();
        let s = input::ForceFeedbackSettings {
            device_peak_torque: option(&settings, "devicePeakTorque", d.device_peak_torque)?,
            gain: option(&settings, "gain", d.gain)?,
            smoothing: option(&settings, "smoothing", d.smoothing)?,
            max_output: option(&settings, "maxOutput", d.max_output)?,
            max_rate: option(&settings, "maxRate", d.max_rate)?,
            runaway_speed: option(&settings, "runawaySpeed", d.runaway_speed)?,
            stall_timeout: option(&settings, "stallTimeout", d.stall_timeout)?,
        };
        input::ForceFeedback::new(s)
            .map(|inner| ForceFeedback { inner })
            .map_err(input_error)
    }

    /// The command for `{now, lastUpdate, torque, wheelSpeed, visible}`
    /// (s, s, N·m, rad/s): `{output, silenced}`, output a share of the
    /// device's peak (positive: pull right), silenced `hidden`, `stalled`,
    /// `runaway` or null.
    #[wasm_bindgen(unchecked_return_type = "FeedbackCommand")]
    pub fn update(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "FeedbackFrame")] frame: JsValue,
    ) -> JsResult<JsValue> {
        // Non-numbers throw; NaN is passed on (the stage reads it as a
        // stall, which zeroes the output).
        let read = |key: &str| -> JsResult<f64> {
            field(&frame, key)?
                .as_f64()
                .ok_or_else(|| range_error(format!("frame.{key} must be a number")))
        };
        let f = input::FeedbackFrame {
            now: read("now")?,
            last_update: read("lastUpdate")?,
            torque: read("torque")?,
            wheel_speed: read("wheelSpeed")?,
            visible: args::bool_or(&field(&frame, "visible")?, "frame.visible", true)?,
        };
        let (output, silenced) = self.inner.update(f);
        let o = object_of_numbers(&[("output", output)])?;
        let silenced = match silenced {
            None => JsValue::NULL,
            Some(input::Silenced::Hidden) => "hidden".into(),
            Some(input::Silenced::Stalled) => "stalled".into(),
            Some(input::Silenced::Runaway) => "runaway".into(),
        };
        Reflect::set(&o, &"silenced".into(), &silenced)?;
        Ok(o)
    }

    /// Clears a runaway latch.
    pub fn rearm(&mut self) {
        self.inner.rearm();
    }

    /// `{frames, clipped}`: how often the command hit `maxOutput`.
    #[wasm_bindgen(unchecked_return_type = "{ frames: number, clipped: number }")]
    pub fn statistics(&self) -> JsResult<JsValue> {
        let s = self.inner.statistics();
        object_of_numbers(&[("frames", s.frames as f64), ("clipped", s.clipped as f64)])
    }
}

/// The `CarInput` for `controls` and a requested `gear`, as the core will
/// run it (clamped, rounded to the input resolution, gear within reverse
/// … `topGear`).
#[wasm_bindgen(js_name = carInputFrom, unchecked_return_type = "CarInput")]
pub fn car_input_from(
    #[wasm_bindgen(unchecked_param_type = "Controls")] controls: JsValue,
    gear: JsValue,
    #[wasm_bindgen(js_name = topGear)] top_gear: JsValue,
) -> JsResult<JsValue> {
    let controls = controls_arg(&controls, "controls")?;
    let gear = args::number(&gear, "gear")?;
    if gear.fract() != 0.0 || !(-1.0..=64.0).contains(&gear) {
        return Err(range_error(format!("gear must be -1 … 64, got {gear}")));
    }
    let top = args::whole(&top_gear, "topGear", 64.0)?;
    let i = input::car_input(&controls, gear as i32, top as i32);
    let fields: Vec<(&str, f64)> = skidpad_core::CarInput::FIELD_NAMES
        .into_iter()
        .zip(i.to_array())
        .collect();
    object_of_numbers(&fields)
}
