//! Clips: a stretch of a replay, cut out as a replay of its own, plays and
//! verifies bit for bit and ends on the world the original had at that
//! step, with the original's metadata; cars removed before or during the
//! stretch are carried as they were; a stretch outside the replay is
//! refused.

use skidpad_core::Lod;
use skidpad_replay::{
    Limits, NoHooks, RecorderOptions, ReplayRecorder, clip_replay, decode_replay, encode_replay,
    verify_replay,
};

const DT: f64 = 1.0 / 60.0;

/// A 600-step, 6-car AI race that loses car 4 after step 99 and car 2
/// after step 299, with the world hash after every step.
fn race() -> (skidpad_replay::Replay, Vec<[u8; 32]>) {
    let mut world = skidpad_fixtures::racing_world(6, Lod::Full, true).unwrap();
    let ids: Vec<_> = world.car_ids().collect();
    let mut recorder = ReplayRecorder::new(
        &world,
        RecorderOptions {
            keyframe_every: 60,
            metadata: vec![("player".into(), "ann".into())],
            ..RecorderOptions::default()
        },
    )
    .unwrap();
    let mut hashes = vec![world.world_hash()];
    for step in 1..=600 {
        if step == 100 {
            world.remove_car(ids[4]).unwrap();
        }
        if step == 300 {
            world.remove_car(ids[2]).unwrap();
        }
        recorder.step(&mut world, DT).unwrap();
        hashes.push(world.world_hash());
    }
    let replay = decode_replay(&encode_replay(&recorder.finish(&world).unwrap()).unwrap()).unwrap();
    (replay, hashes)
}

#[test]
fn a_clip_verifies_on_its_own_and_ends_where_the_race_was() {
    let (replay, hashes) = race();
    for (from, to) in [(0, 600), (150, 420), (299, 301), (590, 600)] {
        let clip = clip_replay(&replay, from, to, &Limits::default()).unwrap();
        let clip = decode_replay(&encode_replay(&clip).unwrap()).unwrap();
        assert_eq!(clip.header.step_count, to - from);
        assert_eq!(clip.header.metadata_value("player"), Some("ann"));
        let report = verify_replay(&clip, NoHooks, &Limits::default()).unwrap();
        assert_eq!(report.desyncs, 0, "clip {from}..{to}");
        assert_eq!(report.final_hash, hashes[to as usize], "clip {from}..{to}");
        // A car removed before the clip's first step is not in it (car 4
        // went after step 99, car 2 after step 299, before the next ran).
        let expected_cars = 6 - usize::from(from >= 99) - usize::from(from >= 299);
        assert_eq!(clip.cars.len(), expected_cars, "clip {from}..{to}");
    }
}

#[test]
fn a_stretch_outside_the_replay_is_refused() {
    let (replay, _) = race();
    for (from, to) in [(10, 10), (20, 10), (0, 601)] {
        let err = clip_replay(&replay, from, to, &Limits::default()).unwrap_err();
        assert!(err.to_string().contains("not a stretch"), "{err}");
    }
}
