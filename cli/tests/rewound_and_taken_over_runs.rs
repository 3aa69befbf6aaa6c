//! Runs taken over from a golden replay or rewound, through the tools:
//! `skidpad verify` accepts them and says where a run began and what its
//! rewinds took back; `skidpad inspect` shows both in a line.

use std::sync::Arc;

use skidpad_cli::beside::Beside;
use skidpad_cli::{inspect, verify};
use skidpad_core::{CarInput, SIMULATION_VERSION};
use skidpad_golden::Scenario;
use skidpad_replay::{Limits, ReplayRecorder, TakeOver, decode_replay, encode_replay};

#[test]
fn verify_and_inspect_say_where_a_taken_over_run_began() {
    let bytes = skidpad_golden::corpus::file(SIMULATION_VERSION, "long_run.skr").expect("golden");
    let source = Arc::new(decode_replay(&bytes).expect("decodes"));
    let mut run = TakeOver::new(source, 900, 1, &Limits::default()).expect("taken over");
    let me = run.player();
    let mut recorder =
        ReplayRecorder::new(run.world(), run.recorder_options()).expect("a recorder");
    for _ in 0..240 {
        let input = CarInput {
            throttle: 0.4,
            steer: 0.1,
            ..CarInput::default()
        };
        run.world_mut().set_input(me, input).expect("an input");
        run.step(&mut recorder, 1.0 / 60.0).expect("a step");
    }
    let replay = recorder.finish(run.world()).expect("finished");
    let dir = tempfile::tempdir().expect("a folder");
    let file = dir.path().join("taken.skr");
    std::fs::write(&file, encode_replay(&replay).expect("encodes")).expect("written");

    let verdict = verify::verify_file(&file, &Limits::default(), Scenario::game_logic);
    assert!(verdict.ok, "{}", verdict.detail);
    assert!(
        verdict.detail.contains("taken over at step 900"),
        "{}",
        verdict.detail
    );
    assert_eq!(verdict.taken_over.as_ref().map(|o| o.car), Some(1));

    let text = inspect::inspect(&file, &Limits::default(), &Beside::default())
        .expect("inspected")
        .to_string();
    assert!(
        text.contains("car 1 taken over at step 900 of the run that ended"),
        "{text}"
    );
}

#[test]
fn verify_and_inspect_say_what_a_run_s_rewinds_took_back() {
    let mut world =
        skidpad_core::World::new(skidpad_core::WorldConfig::default()).expect("a world");
    let car = world
        .add_car(
            &skidpad_core::preset("kart").expect("a preset"),
            Default::default(),
        )
        .expect("a car");
    let mut recorder = ReplayRecorder::new(&world, skidpad_replay::RecorderOptions::default())
        .expect("a recorder");
    for round in 0..3 {
        for _ in 0..120 {
            let input = CarInput {
                throttle: 0.3 + 0.2 * f64::from(round),
                ..CarInput::default()
            };
            world.set_input(car, input).expect("an input");
            recorder.step(&mut world, 1.0 / 60.0).expect("a step");
        }
        let back = recorder.step_count() - 60;
        recorder.rewind(&mut world, back).expect("rewound");
    }
    recorder.step(&mut world, 1.0 / 60.0).expect("a step");
    let replay = recorder.finish(&world).expect("finished");
    let dir = tempfile::tempdir().expect("a folder");
    let file = dir.path().join("rewound.skr");
    std::fs::write(&file, encode_replay(&replay).expect("encodes")).expect("written");

    let verdict = verify::verify_file(&file, &Limits::default(), Scenario::game_logic);
    assert!(verdict.ok, "{}", verdict.detail);
    assert!(
        verdict
            .detail
            .contains("3 rewinds taking back 180 steps (3.0 s)"),
        "{}",
        verdict.detail
    );
    let text = inspect::inspect(&file, &Limits::default(), &Beside::default())
        .expect("inspected")
        .to_string();
    assert!(
        text.contains("rewinds           3 (taking back 180 steps, 3.0 s)"),
        "{text}"
    );
}
