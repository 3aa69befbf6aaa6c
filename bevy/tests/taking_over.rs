//! Take-over through the plugin: a run started at step 600 of a recorded
//! three-car race, with an AI car handed to the player, records the same
//! bytes as the same take-over in plain Rust (`skidpad_replay::TakeOver`);
//! rewound inside, its followers replay their recordings from the step it
//! went back to; refusals change nothing.

mod common;

use std::sync::Arc;

use bevy_app::App;
use bevy_time::TimeUpdateStrategy;
use common::{headless_app, race_app, run_until};
use skidpad_bevy::{
    CarControls, CarMotion, SkidpadCar, SkidpadWorld, TakeOverError, TakeOverRun, TakeOverStart,
    finish_recording, rewind, take_over,
};
use skidpad_core::CarInput;
use skidpad_replay::{Limits, NoHooks, Replay, ReplayRecorder, TakeOver, encode_replay, verify};

const AT: u64 = 600;
const TAKEN: usize = 2;
const RUN: u64 = 300;

/// An app with the plugin and no car: a take-over brings them.
fn app() -> App {
    headless_app(TimeUpdateStrategy::FixedTimesteps(1))
}

fn source() -> Arc<Replay> {
    let mut app = race_app(60.0, 1_200);
    run_until(&mut app, 1_200);
    Arc::new(finish_recording(app.world_mut()).unwrap())
}

/// The player's input `k` steps into the run: brake, then turn in.
fn player_input(k: u64) -> CarInput {
    if k < 120 {
        CarInput {
            brake: 0.6,
            ..CarInput::default()
        }
    } else {
        CarInput {
            throttle: 0.5,
            steer: -0.3,
            ..CarInput::default()
        }
    }
}

/// Runs the taken-over app to `k` steps into the run, writing the
/// player's controls before each step.
fn drive(app: &mut App, start: u64, to: u64) {
    let player = app.world().resource::<TakeOverRun>().player();
    while app.world().resource::<SkidpadWorld>().step_count() < start + to {
        let k = app.world().resource::<SkidpadWorld>().step_count() - start;
        app.world_mut()
            .entity_mut(player)
            .insert(CarControls(player_input(k)));
        app.update();
    }
}

#[test]
fn a_take_over_in_bevy_records_what_the_plain_take_over_records() {
    let source = source();

    let mut plain = TakeOver::new(source.clone(), AT, TAKEN, &Limits::default()).unwrap();
    let mut recorder = ReplayRecorder::new(plain.world(), plain.recorder_options()).unwrap();
    let me = plain.player();
    for k in 0..RUN {
        plain.world_mut().set_input(me, player_input(k)).unwrap();
        plain.step(&mut recorder, 1.0 / 60.0).unwrap();
    }
    let expected = encode_replay(&recorder.finish(plain.world()).unwrap()).unwrap();

    let mut app = app();
    let player = take_over(
        app.world_mut(),
        TakeOverStart::new(source.clone(), AT, TAKEN),
    )
    .unwrap();
    let start = app.world().resource::<TakeOverRun>().start_step();
    assert_eq!(
        app.world().get::<SkidpadCar>(player).map(|c| c.id()),
        Some(me)
    );
    assert_eq!(app.world().resource::<TakeOverRun>().origin().step, AT);
    // Every car of the source is an entity, drawn where the source had it.
    for index in 0..3 {
        let entity = app.world().resource::<TakeOverRun>().entity(index).unwrap();
        assert!(app.world().get::<CarMotion>(entity).is_some());
    }
    drive(&mut app, start, RUN);
    let run = finish_recording(app.world_mut()).unwrap();
    assert_eq!(
        encode_replay(&run).unwrap(),
        expected,
        "the same bytes as plain Rust"
    );
    assert!(
        verify(&expected, NoHooks, &Limits::default())
            .unwrap()
            .is_valid()
    );
}

#[test]
fn a_rewind_in_a_taken_over_run_takes_the_followers_back_too() {
    let source = source();
    let mut unbroken = app();
    take_over(
        unbroken.world_mut(),
        TakeOverStart::new(source.clone(), AT, TAKEN),
    )
    .unwrap();
    let start = unbroken.world().resource::<TakeOverRun>().start_step();
    drive(&mut unbroken, start, RUN);
    let expected = unbroken.world().resource::<SkidpadWorld>().world_hash();

    let mut app = app();
    take_over(
        app.world_mut(),
        TakeOverStart::new(source.clone(), AT, TAKEN),
    )
    .unwrap();
    drive(&mut app, start, 250);
    rewind(app.world_mut(), start + 70).unwrap();
    drive(&mut app, start, 200);
    rewind(app.world_mut(), start + 150).unwrap();
    drive(&mut app, start, RUN);
    assert_eq!(
        app.world().resource::<SkidpadWorld>().world_hash(),
        expected,
        "the followers replayed their recordings from where the run went back to"
    );
    let run = finish_recording(app.world_mut()).unwrap();
    let report = verify(&encode_replay(&run).unwrap(), NoHooks, &Limits::default()).unwrap();
    assert!(report.is_valid());
    assert_eq!(report.final_hash, expected);
    assert_eq!(report.rewinds.count, 2);
    assert_eq!(
        run.header.take_over().unwrap().map(|t| (t.step, t.car)),
        Some((AT, TAKEN))
    );
}

#[test]
fn refused_take_overs_change_nothing() {
    let source = source();
    // A step past the source's end, a car it does not have.
    for (step, car) in [(1_201, 0), (AT, 7)] {
        let mut app = app();
        let refused = take_over(
            app.world_mut(),
            TakeOverStart::new(source.clone(), step, car),
        );
        assert!(matches!(refused, Err(TakeOverError::Replay(_))));
        assert_eq!(app.world().resource::<SkidpadWorld>().car_count(), 0);
        assert!(!app.world().contains_resource::<TakeOverRun>());
    }
    // A world that already holds cars (or a running recording).
    let mut app = race_app(60.0, 10);
    run_until(&mut app, 5);
    let hash = app.world().resource::<SkidpadWorld>().world_hash();
    let refused = take_over(app.world_mut(), TakeOverStart::new(source, AT, TAKEN));
    assert!(matches!(refused, Err(TakeOverError::CarsPresent)));
    assert_eq!(app.world().resource::<SkidpadWorld>().world_hash(), hash);
}
