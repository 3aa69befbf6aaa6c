//! Rollback with GGRS: a SyncTest session (every frame rolled back two
//! frames and simulated again, the checksums compared) of 8 cars driven
//! into each other for 10 000 frames, skidpad's state registered by
//! `skidpad_rollback` and checksummed by the world hash: no mismatch, and
//! the cars did touch.

#![cfg(feature = "rollback")]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use bevy_app::{App, TaskPoolPlugin, Update};
use bevy_ecs::prelude::*;
use bevy_ggrs::prelude::*;
use bevy_ggrs::{LocalInputs, LocalPlayers};
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use bevy_transform::TransformPlugin;
use skidpad_bevy::{
    CarContact, CarControls, CarSpawn, SkidpadPlugin, SkidpadRollback, SkidpadSystems,
    SkidpadWorld, join_spawned_cars,
};
use skidpad_core::{CarInput, InitialPose, preset};

const CARS: usize = 8;
const FRAMES: u32 = 10_000;

/// One player's input: steer (−100…100) and throttle (0…100), as bytes.
type Config = GgrsConfig<[u8; 2], usize>;

/// Which player drives the car.
#[derive(Component, Clone, Copy)]
struct Seat(usize);

/// New frames' inputs (ReadInputs runs once per new frame, never in a
/// re-simulation): each player weaves on its own rhythm at 60 % throttle.
#[derive(Resource, Default)]
struct NewFrames(u32);

fn read_inputs(mut commands: Commands, players: Res<LocalPlayers>, mut frames: ResMut<NewFrames>) {
    frames.0 += 1;
    let mut inputs = HashMap::new();
    for &handle in &players.0 {
        let phase = (frames.0 / (30 + 7 * handle as u32)) % 4;
        let steer: i8 = [-40, 0, 40, 0][phase as usize];
        inputs.insert(handle, [steer as u8, 60]);
    }
    commands.insert_resource(LocalInputs::<Config>(inputs.into_iter().collect()));
}

fn apply_inputs(inputs: Res<PlayerInputs<Config>>, mut cars: Query<(&Seat, &mut CarControls)>) {
    for (seat, mut controls) in &mut cars {
        let ([steer, throttle], _) = inputs[seat.0];
        controls.0 = CarInput {
            steer: f64::from(steer as i8) / 100.0,
            throttle: f64::from(throttle) / 100.0,
            ..CarInput::default()
        };
    }
}

#[derive(Resource, Default)]
struct Seen {
    contacts: usize,
    mismatches: usize,
}

fn count_contacts(mut contacts: MessageReader<CarContact>, mut seen: ResMut<Seen>) {
    seen.contacts += contacts.read().filter(|c| c.second.is_some()).count();
}

/// A SyncTest app of 8 cars in two rows facing each other, in the world
/// at frame 0.
fn synctest_app() -> App {
    let mut builder = SessionBuilder::<Config>::new()
        .with_num_players(CARS)
        .unwrap()
        .with_check_distance(2);
    for handle in 0..CARS {
        builder = builder.add_player(PlayerType::Local, handle).unwrap();
    }
    let session = builder.start_synctest_session().unwrap();
    let mut app = App::new();
    app.add_plugins((TaskPoolPlugin::default(), TimePlugin, TransformPlugin))
        .add_plugins(GgrsPlugin::<Config>::default())
        .add_plugins(SkidpadPlugin::default().in_schedule(GgrsSchedule))
        .skidpad_rollback()
        .insert_resource(RollbackFrameRate(60))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / 60.0,
        )))
        .insert_resource(Session::SyncTest(session))
        .init_resource::<NewFrames>()
        .init_resource::<Seen>()
        .add_systems(ReadInputs, read_inputs)
        .add_systems(GgrsSchedule, apply_inputs.before(SkidpadSystems::Input))
        .add_systems(Update, count_contacts);
    app.world_mut()
        .add_observer(|_: On<SyncTestMismatch>, mut seen: ResMut<Seen>| {
            seen.mismatches += 1;
        });
    // Two rows of four, 4 m apart, the rows facing each other 14 m apart.
    let definition = preset("fwd_hatchback").unwrap();
    for seat in 0..CARS {
        let (row, column) = (seat / 4, seat % 4);
        let pose = InitialPose {
            x: if row == 0 { -7.0 } else { 7.0 },
            y: 4.0 * column as f64 - 6.0,
            yaw: if row == 0 { 0.0 } else { std::f64::consts::PI },
            speed: 6.0,
        };
        app.world_mut().spawn((
            CarSpawn::new(definition.clone(), pose),
            Seat(seat),
            Rollback,
        ));
    }
    // Frame 0 holds every car.
    join_spawned_cars(app.world_mut()).unwrap();
    app
}

#[test]
fn eight_cars_in_contact_roll_back_without_a_mismatch() {
    let mut app = synctest_app();
    for _ in 0..FRAMES {
        app.update();
    }
    let steps = app.world().resource::<SkidpadWorld>().step_count();
    let seen = app.world().resource::<Seen>();
    assert_eq!(seen.mismatches, 0, "checksum mismatches");
    assert!(
        steps + 2 >= u64::from(FRAMES) - 5,
        "the session advanced: {steps} steps"
    );
    assert!(seen.contacts > 0, "the cars touched");
    println!(
        "{steps} steps, each checked after a 2-frame rollback; {} car-to-car contacts reported",
        seen.contacts
    );
}

/// The check itself: state outside the rollback (a counter no snapshot
/// restores) that steers a car makes every re-simulation differ, and the
/// world's checksum catches it.
#[test]
fn state_outside_the_rollback_is_caught_by_the_world_checksum() {
    static RUNS: AtomicU32 = AtomicU32::new(0);
    fn drift(mut cars: Query<(&Seat, &mut CarControls)>) {
        let runs = RUNS.fetch_add(1, Ordering::Relaxed);
        for (seat, mut controls) in &mut cars {
            if seat.0 == 0 {
                controls.0.steer = f64::from(runs % 7) / 10.0;
            }
        }
    }
    let mut app = synctest_app();
    app.add_systems(
        GgrsSchedule,
        drift.after(apply_inputs).before(SkidpadSystems::Input),
    );
    for _ in 0..60 {
        app.update();
    }
    assert!(
        app.world().resource::<Seen>().mismatches > 0,
        "no mismatch was seen"
    );
}
