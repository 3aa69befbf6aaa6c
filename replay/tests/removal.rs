//! Cars removed during a recording: the replay records when, keyframes
//! leave the car out from then on, playback removes it at the same step and
//! seeking back before the removal brings it back; files and streams carry
//! removals and refuse inconsistent ones. A car added to the world behind
//! a recording of every car is refused with a clear error, and the
//! recording goes on once it is removed (`tests/arrivals.rs` has the cars
//! added through the recorder).

mod common;

use common::{DT, brandwood_options, race_world, record_with_events, script};
use skidpad_core::World;
use skidpad_replay::{
    InstantReplayRing, Limits, NoHooks, PlayerOptions, RecorderOptions, Replay, ReplayPlayer,
    ReplayRecorder, RingOptions, create_replay_world, decode_replay, encode_replay, encode_stream,
    read_stream, verify_replay,
};

const EVERY: u32 = 60;
const STEPS: u64 = 300;
/// (step before which the game removes it, the car's index in the race):
/// inside a keyframe interval, right after the keyframe at 120 (which is
/// also a stream chunk's boundary), and after the last step.
const REMOVALS: [(u64, usize); 3] = [(100, 1), (120, 2), (STEPS, 3)];

fn remove_scheduled(world: &mut World, step: u64, ids: &[skidpad_core::CarId]) {
    for (at, car) in REMOVALS {
        if at == step {
            world.remove_car(ids[car]).unwrap();
        }
    }
}

fn options() -> RecorderOptions<'static> {
    brandwood_options(EVERY)
}

/// A 4-car scripted race, recorded as a replay and as a stream at once;
/// also the world hash at every step.
fn record() -> (Replay, Vec<u8>, Vec<[u8; 32]>) {
    record_with_events(STEPS, EVERY, remove_scheduled)
}

#[test]
fn the_replay_records_each_removal_and_keyframes_leave_the_car_out() {
    let (replay, _, _) = record();
    let removed: Vec<_> = replay.cars.iter().map(|c| c.removed_at).collect();
    assert_eq!(removed, [None, Some(100), Some(120), Some(STEPS)]);
    common::assert_streams_cover(&replay, &[300, 100, 120, 300]);
    let held = common::keyframe_cars(&replay);
    // The keyframe at 120 was taken before the game removed car 2 and lost
    // it when the recorder noticed; the final one was taken after car 3
    // left.
    assert_eq!(
        held,
        [(0, 4), (60, 4), (120, 2), (180, 2), (240, 2), (300, 1)]
    );
}

#[test]
fn playback_removes_the_cars_at_their_steps_and_verifies_bit_for_bit() {
    let (replay, _, hashes) = record();
    let report = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
    assert!(report.is_valid(), "{report:?}");
    assert_eq!(report.final_hash, hashes[STEPS as usize]);

    let world = create_replay_world(&replay).unwrap();
    let mut player = ReplayPlayer::new(world, &replay, NoHooks).unwrap();
    let ids = player.car_ids().to_vec();
    while player.advance().unwrap() {
        let step = player.step();
        let present: Vec<bool> = ids
            .iter()
            .map(|&c| player.world().contains_car(c))
            .collect();
        let expected: Vec<bool> = replay.cars.iter().map(|c| c.present_at(step)).collect();
        assert_eq!(present, expected, "step {step}");
        assert_eq!(
            player.world().world_hash(),
            hashes[step as usize],
            "step {step}"
        );
    }
    assert_eq!(player.desyncs(), 0);
}

#[test]
fn seeking_back_before_a_removal_brings_the_car_back() {
    let (replay, _, hashes) = record();
    let world = create_replay_world(&replay).unwrap();
    let options = PlayerOptions {
        cache_budget: 1 << 20,
        ..PlayerOptions::default()
    };
    let mut player = ReplayPlayer::with_options(world, &replay, NoHooks, options).unwrap();
    for target in [250, 50, 110, 119, 121, 99, 100, 300, 0, 130] {
        player.seek(target).unwrap();
        assert_eq!(
            player.world().world_hash(),
            hashes[target as usize],
            "after seeking to {target}"
        );
        assert_eq!(
            player.world().car_count(),
            replay.present_at(target).count()
        );
    }
    assert_eq!(player.desyncs(), 0);
}

#[test]
fn removals_survive_the_file_and_the_stream() {
    let (replay, stream, _) = record();
    let bytes = encode_replay(&replay).unwrap();
    let decoded = decode_replay(&bytes).unwrap();
    assert_eq!(decoded, replay);
    assert_eq!(encode_replay(&decoded).unwrap(), bytes);

    // The live stream wrote car 2's removal in the chunk after the
    // keyframe at 120 (the chunk ending there was already on disk); read
    // back, it is the same replay.
    let read = read_stream(&stream, &Limits::default()).unwrap();
    assert!(read.complete);
    for (i, (a, b)) in read.replay.cars.iter().zip(&replay.cars).enumerate() {
        assert_eq!(a.removed_at, b.removed_at, "car {i}");
        assert_eq!(a.inputs.len(), b.inputs.len(), "car {i}");
        assert!(a == b, "car {i}");
    }
    for (a, b) in read.replay.keyframes.iter().zip(&replay.keyframes) {
        assert_eq!((a.step, a.cars.len()), (b.step, b.cars.len()));
        assert!(a == b, "keyframe {}", a.step);
    }
    assert_eq!(read.replay.keyframes.len(), replay.keyframes.len());
    assert!(
        read.replay.header == replay.header,
        "{:?}\n{:?}",
        read.replay.header,
        replay.header
    );
    assert!(read.replay == replay);
    // A stream made from the finished replay puts it in the earlier chunk;
    // it reads back the same too.
    let rewritten = encode_stream(&replay).unwrap();
    assert_eq!(
        read_stream(&rewritten, &Limits::default()).unwrap().replay,
        replay
    );
}

#[test]
fn an_instant_replay_across_removals_plays_back() {
    let mut world = race_world(4);
    let ids: Vec<_> = world.car_ids().collect();
    let ring_options = RingOptions {
        part_steps: 45,
        ..RingOptions::default()
    };
    let mut ring = InstantReplayRing::new(&world, options(), ring_options).unwrap();
    let mut checked = 0;
    for step in 0..STEPS {
        remove_scheduled(&mut world, step, &ids);
        script(&mut world, step);
        ring.step(&mut world, DT).unwrap();
        // Moments just after each removal and in between.
        if [101, 121, 150, 299].contains(&(step + 1)) {
            let replay = ring.extract(&world, 3.0).unwrap();
            assert!(replay.cars.iter().any(|c| c.removed_at.is_some()));
            let report = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
            assert!(report.is_valid(), "at step {}: {report:?}", step + 1);
            assert_eq!(report.final_hash, world.world_hash());
            checked += 1;
        }
    }
    assert_eq!(checked, 4);
}

#[test]
fn a_replay_without_removals_has_no_removals_section() {
    let mut world = race_world(2);
    let mut recorder = ReplayRecorder::new(&world, options()).unwrap();
    for _ in 0..30 {
        recorder.step(&mut world, DT).unwrap();
    }
    let replay = recorder.finish(&world).unwrap();
    let bytes = encode_replay(&replay).unwrap();
    // Section ids are u16 after the preamble; id 9 with the required flag
    // would read 09 00 01 00.
    assert!(
        !bytes.windows(4).any(|w| w == [9, 0, 1, 0]) || {
            // (Those bytes may occur inside a payload by chance: then the
            // decoded replay must still show no removal.)
            decode_replay(&bytes)
                .unwrap()
                .cars
                .iter()
                .all(|c| c.removed_at.is_none())
        }
    );
    let mut with = replay.clone();
    with.cars[1].removed_at = Some(30);
    let removed = encode_replay(&with).unwrap();
    assert!(removed.len() > bytes.len());
}

#[test]
fn inconsistent_removals_are_refused() {
    let (replay, _, _) = record();
    let refused = |edit: &dyn Fn(&mut Replay), needle: &str| {
        let mut bad = replay.clone();
        edit(&mut bad);
        let err = encode_replay(&bad)
            .and_then(|b| decode_replay(&b))
            .expect_err(needle);
        assert!(err.to_string().contains(needle), "{err} lacks {needle:?}");
    };
    // Removed after the last step.
    refused(
        &|r| r.cars[1].removed_at = Some(STEPS + 1),
        "after the last step",
    );
    // Streams of another length than the removal says.
    refused(&|r| r.cars[1].removed_at = Some(90), "lod covers 100 steps");
    // A final keyframe without a car the removals say is still there.
    refused(&|r| r.cars[3].removed_at = None, "the keyframes alone need");
    // A player refuses an in-memory replay whose keyframes disagree.
    let mut bad = replay.clone();
    let extra = bad.keyframes[2].cars[0].clone();
    bad.keyframes[2].cars.push(extra);
    let world = create_replay_world(&bad).unwrap();
    let mut player = ReplayPlayer::new(world, &bad, NoHooks).unwrap();
    let err = player.seek(130).unwrap_err();
    assert!(
        err.to_string().contains("holds 3 cars, 2 are in the race"),
        "{err}"
    );
}

#[test]
fn a_car_added_to_a_recording_of_every_car_is_refused_and_loses_nothing() {
    let hatchback = skidpad_core::preset("fwd_hatchback").unwrap();
    let far_away = skidpad_core::InitialPose {
        x: -500.0,
        ..skidpad_core::InitialPose::default()
    };
    let mut world = race_world(2);
    let mut recorder = ReplayRecorder::new(&world, options()).unwrap();
    for _ in 0..10 {
        recorder.step(&mut world, DT).unwrap();
    }
    // Refused before the world steps, naming the car.
    let late = world.add_car(&hatchback, far_away).unwrap();
    let refused = recorder.step(&mut world, DT).unwrap_err().to_string();
    assert!(
        refused.contains(&format!("car {late} was added")),
        "{refused}"
    );
    assert!(refused.contains("add_car"), "{refused}");
    assert_eq!(world.step_count(), 10, "the world did not step");
    // Nothing recorded was lost: without the car the recording goes on,
    // and verifies.
    world.remove_car(late).unwrap();
    for _ in 0..10 {
        recorder.step(&mut world, DT).unwrap();
    }
    let replay = recorder.finish(&world).unwrap();
    let report = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
    assert!(report.is_valid() && report.steps == 20);
    assert_eq!(report.final_hash, world.world_hash());
    // A step the game took itself with the car in the world is refused
    // too, by `capture`.
    let mut world = race_world(2);
    let mut recorder = ReplayRecorder::new(&world, options()).unwrap();
    world.add_car(&hatchback, far_away).unwrap();
    world.step(DT).unwrap();
    assert!(recorder.after_step(&world).is_err());
    // A recording of chosen cars leaves the others to the game.
    let mut world = race_world(2);
    let first = world.car_ids().next().unwrap();
    let chosen = RecorderOptions {
        cars: Some(vec![first]),
        ..options()
    };
    let mut recorder = ReplayRecorder::new(&world, chosen).unwrap();
    recorder.step(&mut world, DT).unwrap();
    world.add_car(&hatchback, far_away).unwrap();
    recorder.step(&mut world, DT).unwrap();
}
