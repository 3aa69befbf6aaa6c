//! Contacts and resets: two cars driven into each other are reported as
//! `CarContact` messages naming both entities; a `ResetCar` written at a
//! step puts the car where it says before the next step, and the replay
//! records it as a reset and verifies.

mod common;

use bevy_app::{FixedUpdate, Update};
use bevy_ecs::prelude::*;
use common::{frames_of, headless_app};
use skidpad_bevy::{
    CarContact, CarControls, CarMotion, CarSpawn, ResetCar, SkidpadWorld, finish_recording,
    start_recording,
};
use skidpad_core::{CarInput, InitialPose, preset};
use skidpad_replay::{Limits, NoHooks, encode_replay, verify};

const RESET_AT: u64 = 150;
const RESET_TO: InitialPose = InitialPose {
    x: 100.0,
    y: 30.0,
    yaw: 1.0,
    speed: 0.0,
};

#[derive(Resource, Default)]
struct Heard(Vec<CarContact>);

#[derive(Component)]
struct ToReset;

fn listen(mut contacts: MessageReader<CarContact>, mut heard: ResMut<Heard>) {
    heard.0.extend(contacts.read().copied());
}

fn reset_once(
    world: Res<SkidpadWorld>,
    car: Query<Entity, With<ToReset>>,
    mut resets: MessageWriter<ResetCar>,
) {
    if world.step_count() == RESET_AT {
        resets.write(ResetCar {
            entity: car.single().unwrap(),
            pose: RESET_TO,
        });
    }
}

#[test]
fn contacts_are_reported_and_a_reset_is_recorded() {
    let mut app = headless_app(frames_of(60.0));
    app.init_resource::<Heard>()
        .add_systems(Update, listen)
        .add_systems(FixedUpdate, reset_once);
    let definition = preset("fwd_hatchback").unwrap();
    let throttle = CarControls(CarInput {
        throttle: 0.4,
        ..CarInput::default()
    });
    // Head on, 20 m apart at 8 m/s each.
    let a = app
        .world_mut()
        .spawn((
            CarSpawn::new(
                definition.clone(),
                InitialPose {
                    x: -10.0,
                    speed: 8.0,
                    ..InitialPose::default()
                },
            ),
            throttle,
            ToReset,
        ))
        .id();
    let facing = InitialPose {
        x: 10.0,
        yaw: std::f64::consts::PI,
        speed: 8.0,
        ..InitialPose::default()
    };
    let b = app
        .world_mut()
        .spawn((CarSpawn::new(definition, facing), throttle))
        .id();
    start_recording(app.world_mut(), Default::default()).unwrap();
    while app.world().resource::<SkidpadWorld>().step_count() <= RESET_AT {
        app.update();
    }
    let heard = &app.world().resource::<Heard>().0;
    let between: Vec<&CarContact> = heard.iter().filter(|c| c.second.is_some()).collect();
    assert!(
        !between.is_empty(),
        "the cars met: {} contacts",
        heard.len()
    );
    assert!(
        between
            .iter()
            .all(|c| c.first == Some(a) && c.second == Some(b))
    );
    assert!(between.iter().any(|c| c.contact.impulse > 0.0));

    let moved = app.world().get::<CarMotion>(a).unwrap().pose.position;
    assert!(
        (moved.x - RESET_TO.x).abs() < 0.5 && (moved.y - RESET_TO.y).abs() < 0.5,
        "reset to {moved}"
    );
    let replay = finish_recording(app.world_mut()).unwrap();
    assert_eq!(replay.cars[0].resets.len(), 1);
    assert_eq!(replay.cars[1].resets.len(), 0);
    let report = verify(
        &encode_replay(&replay).unwrap(),
        NoHooks,
        &Limits::default(),
    )
    .unwrap();
    assert!(report.is_valid(), "{:?}", report.first_desync);
}
