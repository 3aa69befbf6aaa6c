//! Cars spawned and despawned while the race runs are recorded as the
//! arrivals and removals they are: the replay verifies with no desync and
//! holds the same bytes at every frame rate.

mod common;

use std::sync::Arc;

use bevy_app::FixedUpdate;
use bevy_ecs::prelude::*;
use common::{brandwood, car_ids, race_app, run_until};
use skidpad_bevy::{CarRegistry, CarSpawn, SkidpadCar, SkidpadWorld, finish_recording};
use skidpad_core::preset;
use skidpad_core::race::{GridLayout, grid_pose};
use skidpad_replay::{Limits, NoHooks, decode_replay, encode_replay, verify};

const STEPS: u64 = 600;
const JOIN_AT: u64 = 200;
const LEAVE_AT: u64 = 400;

/// At step 200 a kart joins on the grid's fourth slot (the field has
/// moved off); at step 400 the second car (id 1) is despawned.
fn comings_and_goings(
    mut commands: Commands,
    world: Res<SkidpadWorld>,
    registry: Res<CarRegistry>,
    cars: Query<(Entity, &SkidpadCar)>,
) {
    let track = brandwood();
    match world.step_count() {
        JOIN_AT => {
            let kart = Arc::new(preset("kart").unwrap());
            commands.spawn(CarSpawn {
                definition: kart,
                pose: grid_pose(&track, 3, &GridLayout::default()),
                driver: Some(track.clone()),
            });
        }
        LEAVE_AT => {
            let mut ids: Vec<_> = cars.iter().map(|(_, c)| c.id()).collect();
            ids.sort_unstable();
            let second = ids[1];
            let entity = registry.entity(second).unwrap();
            assert!(cars.get(entity).is_ok());
            commands.entity(entity).despawn();
        }
        _ => {}
    }
}

fn recorded_at(frame_hz: f64) -> Vec<u8> {
    let mut app = race_app(frame_hz, STEPS);
    app.add_systems(FixedUpdate, comings_and_goings);
    run_until(&mut app, STEPS);
    assert_eq!(
        car_ids(&mut app).len(),
        3,
        "3 cars, one joined and one gone"
    );
    let replay = finish_recording(app.world_mut()).unwrap();
    encode_replay(&replay).unwrap()
}

#[test]
fn spawned_and_despawned_cars_are_recorded_and_replay() {
    let bytes = recorded_at(60.0);
    let replay = decode_replay(&bytes).unwrap();
    assert_eq!(replay.cars.len(), 4);
    let arrival = replay.cars[3].arrival.as_ref().expect("the kart arrived");
    assert_eq!(arrival.step, JOIN_AT);
    let removed: Vec<Option<u64>> = replay.cars.iter().map(|c| c.removed_at).collect();
    assert_eq!(removed, [None, Some(LEAVE_AT), None, None]);
    let report = verify(&bytes, NoHooks, &Limits::default()).unwrap();
    assert!(report.is_valid(), "{:?}", report.first_desync);
    assert_eq!(report.steps, STEPS);
    for frame_hz in [30.0, 144.0] {
        assert!(
            recorded_at(frame_hz) == bytes,
            "the replay at {frame_hz} Hz differs"
        );
    }
}

/// A car the world refuses (a definition out of range) goes to the app's
/// error handler with the core's reason; the cars spawned before and
/// after it join in their order, and the world keeps stepping.
#[test]
fn a_refused_car_is_reported_and_the_others_join_in_order() {
    static REFUSED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    fn keep(error: BevyError, _: bevy_ecs::error::ErrorContext) {
        REFUSED.lock().unwrap().push(error.to_string());
    }
    let mut app = common::headless_app(common::frames_of(60.0));
    app.set_error_handler(keep);
    let good = preset("kart").unwrap();
    let mut bad = good.clone();
    bad.chassis.mass = -1.0;
    let at = |x: f64| skidpad_core::InitialPose {
        x,
        ..Default::default()
    };
    let first = app
        .world_mut()
        .spawn(CarSpawn::new(good.clone(), at(0.0)))
        .id();
    let refused = app.world_mut().spawn(CarSpawn::new(bad, at(10.0))).id();
    let third = app
        .world_mut()
        .spawn(CarSpawn::new(good.clone(), at(20.0)))
        .id();
    let last = app.world_mut().spawn(CarSpawn::new(good, at(30.0))).id();
    run_until(&mut app, 5);
    let id = |e: Entity| app.world().get::<SkidpadCar>(e).map(|c| c.id());
    let ids = [first, third, last].map(|e| id(e).expect("joined").to_raw());
    assert!(
        ids[0] < ids[1] && ids[1] < ids[2],
        "in spawn order: {ids:?}"
    );
    assert!(
        id(refused).is_none() && app.world().get::<CarSpawn>(refused).is_none(),
        "not tried again"
    );
    let reasons = REFUSED.lock().unwrap();
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(reasons[0].contains("mass"), "{}", reasons[0]);
}
