//! A player drives through `skidpad-input`: the keyboard's speed-sensitive
//! ramps advance once per simulation step with the step's timestep (the
//! recorded inputs equal a `KeyboardDriver` run by hand on the same keys
//! and speeds), a gamepad touched takes over with its profile's shaping,
//! and a key pressed gives the keyboard back.

mod common;

use common::{frames_of, headless_app};

use bevy_input::ButtonInput;
use bevy_input::gamepad::{Gamepad, GamepadAxis, GamepadButton};
use bevy_input::keyboard::KeyCode;
use skidpad_bevy::{CarControls, CarMotion, CarSpawn, PlayerInput, SkidpadWorld, standard_reading};
use skidpad_core::{InitialPose, preset};
use skidpad_input::{
    GearMode, GearSelector, KeyboardDriver, KeyboardTuning, Keys, ShiftButtons, car_input,
    standard_gamepad,
};

const DT: f64 = 1.0 / 60.0;

#[test]
fn keys_then_a_pad_then_keys_again_drive_the_car() {
    // Frames of 1/144 s: the ramps must follow steps, not frames.
    let mut app = headless_app(frames_of(144.0));
    app.insert_resource(ButtonInput::<KeyCode>::default());
    let definition = preset("rwd_sports").unwrap();
    let top_gear = definition.top_gear();
    let car = app
        .world_mut()
        .spawn((
            CarSpawn::new(definition, InitialPose::default()),
            PlayerInput::standard(),
        ))
        .id();
    {
        let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
        keys.press(KeyCode::ArrowUp);
        keys.press(KeyCode::ArrowRight);
    }
    // The same keys through a driver of our own, step by step, at the
    // speed the car had before each step.
    let mut driver = KeyboardDriver::new(KeyboardTuning::default()).unwrap();
    let mut gears = GearSelector::new(GearMode::Automatic, top_gear);
    let held = Keys {
        throttle: true,
        right: true,
        ..Keys::default()
    };
    let mut speed = 0.0;
    let mut checked = 0;
    while app.world().resource::<SkidpadWorld>().step_count() < 45 {
        let before = app.world().resource::<SkidpadWorld>().step_count();
        app.update();
        let world = app.world().resource::<SkidpadWorld>();
        let stepped = world.step_count() - before;
        // Compare frames that ran exactly one step (most at 144 fps).
        if stepped == 1 {
            let expected = car_input(
                &driver.update(held, DT, speed),
                gears.update(ShiftButtons::default()),
                top_gear,
            );
            let ran = world.input(world.car_ids().next().unwrap()).unwrap();
            assert_eq!(ran, expected, "step {}", world.step_count());
            checked += 1;
        } else {
            for _ in 0..stepped {
                let _ = driver.update(held, DT, speed);
            }
            let _ = gears.update(ShiftButtons::default());
        }
        speed = app.world().get::<CarMotion>(car).map_or(0.0, |m| m.speed);
    }
    assert!(checked > 30, "{checked} steps compared");
    let steer = app.world().get::<CarControls>(car).unwrap().0.steer;
    assert!(
        steer > 0.0 && steer < 1.0,
        "the keyboard ramps the steering in: {steer}"
    );

    // A pad's stick and trigger move: the pad drives, shaped by its profile.
    let mut pad = Gamepad::default();
    pad.analog_mut().set(GamepadAxis::LeftStickX, -0.5);
    pad.analog_mut().set(GamepadButton::RightTrigger2, 0.8);
    let reading = standard_reading(&pad);
    app.world_mut().spawn(pad);
    app.update();
    app.update();
    let controls = app.world().get::<CarControls>(car).unwrap().0;
    let profile = standard_gamepad().controls(&reading);
    assert!(
        profile.steer < -0.2 && profile.throttle > 0.7,
        "{profile:?}"
    );
    assert_eq!(
        (controls.steer, controls.throttle),
        (
            car_input(&profile, 1, top_gear).steer,
            car_input(&profile, 1, top_gear).throttle
        )
    );

    // The brake key: the keyboard drives again.
    app.world_mut()
        .resource_mut::<ButtonInput<KeyCode>>()
        .press(KeyCode::ArrowDown);
    app.update();
    app.update();
    let controls = app.world().get::<CarControls>(car).unwrap().0;
    assert!(
        controls.brake > 0.0 && controls.steer > 0.0,
        "the keyboard is back: {controls:?}"
    );
}
