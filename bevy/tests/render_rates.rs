//! The plugin records the same race whatever the frame rate: a 3-car race
//! on brandwood drawn at 30, 60 and 144 frames a second gives the same
//! replay bytes, which verify with no desync and equal, byte for byte,
//! what a plain-Rust game loop with the same inputs records.

mod common;

use common::{car_ids, plain_race, race_app, run_until};
use skidpad_bevy::{SkidpadWorld, finish_recording};
use skidpad_replay::{Limits, NoHooks, encode_replay, verify};

const STEPS: u64 = 600;

fn recorded_at(frame_hz: f64) -> (Vec<u8>, [u8; 32]) {
    let mut app = race_app(frame_hz, STEPS);
    run_until(&mut app, STEPS);
    assert_eq!(car_ids(&mut app).len(), 3);
    let world = app.world().resource::<SkidpadWorld>();
    assert_eq!(
        world.step_count(),
        STEPS,
        "paused on the step at {frame_hz} Hz"
    );
    let hash = world.world_hash();
    let replay = finish_recording(app.world_mut()).expect("the recording ends");
    (encode_replay(&replay).expect("the replay encodes"), hash)
}

#[test]
fn every_frame_rate_records_the_plain_loops_replay() {
    let (plain, plain_hash) = plain_race(STEPS);
    for frame_hz in [30.0, 60.0, 144.0] {
        let (bytes, hash) = recorded_at(frame_hz);
        assert_eq!(hash, plain_hash, "final world at {frame_hz} Hz");
        assert!(
            bytes == plain,
            "replay bytes at {frame_hz} Hz differ from the plain loop's"
        );
    }
    let report = verify(&plain, NoHooks, &Limits::default()).expect("the replay verifies");
    assert!(report.is_valid(), "{:?}", report.first_desync);
    assert_eq!(report.desyncs, 0);
    assert_eq!(report.steps, STEPS);
    assert_eq!(report.final_hash, plain_hash);
}
