//! The stream and the instant-replay ring beside the replay: started
//! before the first step (they wait for the cars), they take the same
//! steps; the stream file reads back as the replay the replay recording
//! made, and the ring's last seconds verify and end on the live world.

mod common;

use common::{KEYFRAME_EVERY, brandwood, race_app, recorder_options, run_until};
use skidpad_bevy::{
    SkidpadRecording, SkidpadWorld, extract_ring, finish_recording, finish_stream, start_ring,
    start_stream, stop_ring,
};
use skidpad_replay::{Limits, NoHooks, RingOptions, encode_replay, read_stream, verify};

const STEPS: u64 = 600;

#[test]
fn a_stream_and_a_ring_record_beside_the_replay() {
    let track = brandwood();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("race.sks");
    let mut app = race_app(144.0, STEPS);
    start_stream(app.world_mut(), &path, recorder_options(&track)).unwrap();
    let ring = RingOptions {
        part_steps: KEYFRAME_EVERY,
        ..RingOptions::default()
    };
    start_ring(app.world_mut(), recorder_options(&track), ring).unwrap();
    assert!(
        start_ring(app.world_mut(), recorder_options(&track), ring).is_err(),
        "one ring at a time"
    );
    run_until(&mut app, STEPS);
    let hash = app.world().resource::<SkidpadWorld>().world_hash();
    assert!(app.world().non_send::<SkidpadRecording>().ring_seconds() >= 3.0);

    let last = extract_ring(app.world_mut(), 3.0).unwrap();
    assert!(last.header.step_count >= 180 && last.header.step_count < STEPS);
    let report = verify(&encode_replay(&last).unwrap(), NoHooks, &Limits::default()).unwrap();
    assert!(report.is_valid(), "{:?}", report.first_desync);
    assert_eq!(report.final_hash, hash, "the ring ends on the live world");
    stop_ring(app.world_mut()).unwrap();

    let replay = finish_recording(app.world_mut()).unwrap();
    finish_stream(app.world_mut()).unwrap();
    let streamed = read_stream(&std::fs::read(&path).unwrap(), &Limits::default()).unwrap();
    assert!(streamed.complete);
    assert_eq!(streamed.replay.header.step_count, STEPS);
    assert!(
        encode_replay(&streamed.replay).unwrap() == encode_replay(&replay).unwrap(),
        "the stream reads back as the replay"
    );
    assert!(
        finish_stream(app.world_mut()).is_err(),
        "nothing left to finish"
    );
}
