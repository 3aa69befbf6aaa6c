//! Players at the controls: the keyboard and every gamepad Bevy sees,
//! through `skidpad-input` (the play page's own layer): speed-sensitive
//! keyboard steering, the device profile's axis shaping, the mixer that
//! lets the device touched last drive, and the gear selector. Runs once
//! per simulation step, with the step's exact timestep, so the keyboard's
//! ramps are the same at any frame rate.

use bevy_ecs::prelude::*;
use bevy_input::ButtonInput;
use bevy_input::gamepad::{Gamepad, GamepadAxis, GamepadButton};
use bevy_input::keyboard::KeyCode;
use skidpad_input::{
    DeviceFrame, DeviceProfile, DeviceReading, GearMode, GearSelector, InputError, InputMixer,
    KeyboardDriver, KeyboardTuning, Keys, ShiftButtons, car_input, standard_gamepad,
};

use crate::cars::{CarControls, CarMotion, CarSpawn, SkidpadCar};
use crate::plugin::{SimulationRate, SkidpadWorld};

/// Which key does what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyBindings {
    /// Steer left.
    pub left: KeyCode,
    /// Steer right.
    pub right: KeyCode,
    /// Accelerate.
    pub throttle: KeyCode,
    /// Brake.
    pub brake: KeyCode,
    /// Handbrake.
    pub handbrake: KeyCode,
    /// Clutch.
    pub clutch: KeyCode,
    /// Shift up (drive, in an automatic).
    pub shift_up: KeyCode,
    /// Shift down (reverse from rest, in an automatic).
    pub shift_down: KeyCode,
}

impl Default for KeyBindings {
    /// The play page's keys: arrows, space for the handbrake, C the
    /// clutch, E and Q to shift.
    fn default() -> Self {
        KeyBindings {
            left: KeyCode::ArrowLeft,
            right: KeyCode::ArrowRight,
            throttle: KeyCode::ArrowUp,
            brake: KeyCode::ArrowDown,
            handbrake: KeyCode::Space,
            clutch: KeyCode::KeyC,
            shift_up: KeyCode::KeyE,
            shift_down: KeyCode::KeyQ,
        }
    }
}

/// Put this on a car's entity and the player drives it: every step its
/// [`CarControls`] come from the keyboard (by [`KeyBindings`]) or a
/// gamepad (by a `skidpad-input` device profile), whichever was touched
/// last.
///
/// ```
/// use bevy_app::App;
/// use bevy_input::InputPlugin;
/// use skidpad_bevy::{CarSpawn, CarWheels, PlayerInput, PoseInterpolation, SkidpadPlugin};
/// use skidpad_core::{InitialPose, preset};
///
/// let mut app = App::new();
/// app.add_plugins((InputPlugin, SkidpadPlugin::default()));
/// // The player's car: driven by keys or pad, drawn smoothly, with wheels.
/// let car = CarSpawn::new(preset("rwd_sports")?, InitialPose::default());
/// app.world_mut().spawn((car, PlayerInput::standard(), PoseInterpolation, CarWheels));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Component, Debug, Clone)]
// Controls from the spawn on, so the car's first step has the devices'.
#[require(CarControls)]
pub struct PlayerInput {
    bindings: KeyBindings,
    keyboard: KeyboardDriver,
    pad: DeviceProfile,
    mixer: InputMixer,
    gear_mode: GearMode,
    /// Made at the first step, when the car's top gear is known.
    gears: Option<GearSelector>,
}

impl PlayerInput {
    /// The default keys, keyboard tuning, the standard gamepad profile
    /// and an automatic gearbox selector.
    #[must_use]
    pub fn standard() -> Self {
        PlayerInput::new(
            KeyBindings::default(),
            KeyboardTuning::default(),
            standard_gamepad(),
            GearMode::Automatic,
        )
        .expect("the default tuning and profile are valid")
    }

    /// Chosen keys, keyboard tuning, pad profile and gear selector; a
    /// tuning or profile out of range is refused.
    pub fn new(
        bindings: KeyBindings,
        tuning: KeyboardTuning,
        pad: DeviceProfile,
        gear_mode: GearMode,
    ) -> Result<Self, InputError> {
        pad.validate()?;
        Ok(PlayerInput {
            bindings,
            keyboard: KeyboardDriver::new(tuning)?,
            pad,
            mixer: InputMixer::new(),
            gear_mode,
            gears: None,
        })
    }
}

/// A Bevy gamepad as the browser's standard mapping reports it, the
/// layout `skidpad-input`'s profiles name axes and buttons by: sticks on
/// axes 0–3 (down positive), the analog triggers' values as axes 6 and 7
/// (as the play page passes them), buttons in the standard order.
#[must_use]
pub fn standard_reading(pad: &Gamepad) -> DeviceReading {
    use GamepadButton as B;
    let axis = |a: GamepadAxis| f64::from(pad.get(a).unwrap_or(0.0));
    let analog = |b: GamepadButton| f64::from(pad.get(b).unwrap_or(0.0));
    let buttons = [
        B::South,
        B::East,
        B::West,
        B::North,
        B::LeftTrigger,
        B::RightTrigger,
        B::LeftTrigger2,
        B::RightTrigger2,
        B::Select,
        B::Start,
        B::LeftThumb,
        B::RightThumb,
        B::DPadUp,
        B::DPadDown,
        B::DPadLeft,
        B::DPadRight,
        B::Mode,
    ];
    DeviceReading {
        axes: vec![
            axis(GamepadAxis::LeftStickX),
            -axis(GamepadAxis::LeftStickY),
            axis(GamepadAxis::RightStickX),
            -axis(GamepadAxis::RightStickY),
            0.0,
            0.0,
            analog(B::LeftTrigger2),
            analog(B::RightTrigger2),
        ],
        buttons: buttons.iter().map(|&b| pad.pressed(b)).collect(),
    }
}

type Driven<'a> = (
    &'a mut PlayerInput,
    &'a mut CarControls,
    Option<&'a CarMotion>,
    Option<&'a SkidpadCar>,
    Option<&'a CarSpawn>,
);

/// Each player's controls for the next step, from the devices as they
/// are this frame.
pub(crate) fn read_devices(
    keys: Option<Res<ButtonInput<KeyCode>>>,
    pads: Query<(Entity, &Gamepad)>,
    world: Res<SkidpadWorld>,
    rate: Res<SimulationRate>,
    mut players: Query<Driven>,
) {
    if players.is_empty() {
        return;
    }
    // Pads in entity order: the mixer tells devices apart by position.
    let mut pads: Vec<(Entity, &Gamepad)> = pads.iter().collect();
    pads.sort_unstable_by_key(|&(entity, _)| entity);
    for (mut player, mut controls, motion, car, spawn) in &mut players {
        let top_gear = match (car, spawn) {
            (Some(car), _) => world.definition(car.id()).map_or(1, |d| d.top_gear()),
            (None, Some(spawn)) => spawn.definition.top_gear(),
            (None, None) => 1,
        };
        let held = |k: KeyCode| keys.as_ref().is_some_and(|keys| keys.pressed(k));
        let b = player.bindings;
        let pressed = Keys {
            left: held(b.left),
            right: held(b.right),
            throttle: held(b.throttle),
            brake: held(b.brake),
            handbrake: held(b.handbrake),
            clutch: held(b.clutch),
        };
        let speed = motion.map_or(0.0, |m| m.speed);
        let mut frames = vec![DeviceFrame {
            controls: player.keyboard.update(pressed, rate.dt, speed),
            shift: ShiftButtons {
                up: held(b.shift_up),
                down: held(b.shift_down),
                gate: None,
            },
        }];
        for (_, pad) in &pads {
            let reading = standard_reading(pad);
            frames.push(DeviceFrame {
                controls: player.pad.controls(&reading),
                shift: player.pad.shift_buttons(&reading),
            });
        }
        let (_, driving) = player.mixer.update(&frames);
        let mode = player.gear_mode;
        let gears = player
            .gears
            .get_or_insert_with(|| GearSelector::new(mode, top_gear));
        let gear = gears.update(driving.shift);
        controls.0 = car_input(&driving.controls, gear, top_gear);
    }
}
