//! Cars that join a running recording through the recorder: the replay
//! records each arrival (step and state), keyframes hold the car from
//! then on, a player puts it in the world at that step and takes it out
//! again when seeking back before it, and files carry arrivals and refuse
//! inconsistent ones.

mod common;

use std::sync::Arc;

use common::{DT, race_world, resealed, script};
use skidpad_core::{InitialPose, Track, World, preset};
use skidpad_replay::{
    Limits, NoHooks, PlayerOptions, Replay, ReplayPlayer, ReplayRecorder, clip_replay,
    create_replay_world, decode_replay, encode_replay, verify_replay,
};

const EVERY: u32 = 60;
const STEPS: u64 = 300;
/// Steps before which a car joins: inside a keyframe interval, and at a
/// keyframe (taken before the car came).
const ARRIVALS: [u64; 2] = [45, 120];

/// A two-car AI race on brandwood that two more AI cars join, 30 m
/// behind the last, at [`ARRIVALS`]; also the world hash before every
/// step and after the last.
fn record() -> (Replay, Vec<[u8; 32]>, World) {
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = race_world(2);
    let mut recorder = ReplayRecorder::new(&world, common::brandwood_options(EVERY)).unwrap();
    let mut hashes = Vec::new();
    for step in 0..STEPS {
        if let Some(k) = ARRIVALS.iter().position(|&a| a == step) {
            let pose = common::behind_the_line(&track, 40.0 + 15.0 * k as f64, 8.0);
            let car = recorder
                .add_car(&mut world, &preset("fwd_hatchback").unwrap(), pose)
                .unwrap();
            world.set_driver(car, Some(track.clone())).unwrap();
        }
        hashes.push(world.world_hash());
        recorder.step(&mut world, DT).unwrap();
    }
    hashes.push(world.world_hash());
    (recorder.finish(&world).unwrap(), hashes, world)
}

#[test]
fn the_replay_records_each_arrival_and_keyframes_hold_the_car_from_then_on() {
    let (replay, _, _) = record();
    assert_eq!(replay.header.car_count, 4);
    let arrived: Vec<u64> = replay.cars.iter().map(|c| c.arrived_at()).collect();
    assert_eq!(arrived, [0, 0, 45, 120]);
    common::assert_streams_cover(&replay, &[300, 300, 255, 180]);
    let held = common::keyframe_cars(&replay);
    // The keyframe at 120 was taken before the fourth car came and took it
    // when it did.
    assert_eq!(
        held,
        [(0, 2), (60, 3), (120, 4), (180, 4), (240, 4), (300, 4)]
    );
}

#[test]
fn a_replay_with_arrivals_verifies_and_round_trips_through_its_file() {
    let (replay, _, world) = record();
    let report = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
    assert!(report.is_valid(), "{:?}", report.first_desync);
    assert_eq!(report.final_hash, world.world_hash());
    let bytes = encode_replay(&replay).unwrap();
    assert_eq!(decode_replay(&bytes).unwrap(), replay);
    // Its stream form announces the late cars and reads back to it.
    let stream = skidpad_replay::encode_stream(&replay).unwrap();
    let contents = skidpad_replay::read_stream(&stream, &Limits::default()).unwrap();
    assert_eq!(contents.replay, replay);
}

#[test]
fn playing_and_seeking_put_each_car_in_the_world_only_from_its_arrival() {
    let (replay, hashes, _) = record();
    let world = create_replay_world(&replay).unwrap();
    let mut player = ReplayPlayer::with_options(
        world,
        &replay,
        NoHooks,
        PlayerOptions {
            follow_step_count: true,
            ..PlayerOptions::default()
        },
    )
    .unwrap();
    assert_eq!(player.world().car_count(), 2);
    // Forward step by step: the world equals the recording's before every
    // step, with the cars that had arrived.
    for (step, hash) in hashes.iter().enumerate() {
        assert_eq!(player.step(), step as u64);
        assert_eq!(&player.world().world_hash(), hash, "step {step}");
        let expected = 2 + ARRIVALS.iter().filter(|&&a| a <= step as u64).count();
        assert_eq!(player.world().car_count(), expected, "step {step}");
        player.advance().unwrap();
    }
    // Back before, into and after each arrival.
    for target in [30, 46, 119, 120, 0, 299, 44, 45] {
        player.seek(target).unwrap();
        assert_eq!(
            player.world().world_hash(),
            hashes[target as usize],
            "seek {target}"
        );
    }
}

#[test]
fn files_refuse_arrivals_that_do_not_fit_the_recording() {
    let (replay, _, _) = record();
    let refuse = |edit: &dyn Fn(&mut Replay), needle: &str| {
        let mut bad = replay.clone();
        edit(&mut bad);
        let bytes = resealed(encode_replay(&bad).unwrap());
        let error = decode_replay(&bytes).unwrap_err().to_string();
        assert!(error.contains(needle), "{needle}: {error}");
    };
    refuse(
        &|r| r.cars[2].arrival.as_mut().unwrap().step = 0,
        "outside 1..=300",
    );
    refuse(
        &|r| r.cars[2].arrival.as_mut().unwrap().step = STEPS + 1,
        "outside 1..=300",
    );
    refuse(&|r| r.cars[3].removed_at = Some(100), "before it arrives");
}

#[test]
fn a_clip_across_an_arrival_takes_the_car_where_it_joined() {
    let (replay, _, _) = record();
    for (from, to, cars, arrived) in [
        (30, 150, 4, vec![0, 0, 15, 90]),
        (100, 200, 4, vec![0, 0, 0, 20]),
        (130, 300, 4, vec![0; 4]),
        (10, 40, 2, vec![0, 0]),
    ] {
        let clip = clip_replay(&replay, from, to, &Limits::default()).unwrap();
        assert_eq!(clip.header.car_count, cars, "{from}..{to}");
        let at: Vec<u64> = clip.cars.iter().map(|c| c.arrived_at()).collect();
        assert_eq!(at, arrived, "{from}..{to}");
        let report = verify_replay(&clip, NoHooks, &Limits::default()).unwrap();
        assert!(
            report.is_valid() && report.steps == to - from,
            "{from}..{to}"
        );
    }
}

#[test]
fn a_car_added_behind_the_recorder_is_refused_and_add_car_asks_for_every_car() {
    let hatchback = preset("fwd_hatchback").unwrap();
    let far_away = InitialPose {
        x: -500.0,
        ..InitialPose::default()
    };
    let mut world = race_world(2);
    let first = world.car_ids().next().unwrap();
    let chosen = skidpad_replay::RecorderOptions {
        cars: Some(vec![first]),
        ..common::brandwood_options(EVERY)
    };
    let mut recorder = ReplayRecorder::new(&world, chosen).unwrap();
    let refused = recorder
        .add_car(&mut world, &hatchback, far_away)
        .unwrap_err();
    assert!(refused.to_string().contains("every car"), "{refused}");
    assert_eq!(world.car_count(), 2, "nothing added");
    let mut recorder = ReplayRecorder::new(&world, common::brandwood_options(EVERY)).unwrap();
    recorder.step(&mut world, DT).unwrap();
    let behind = world.add_car(&hatchback, far_away).unwrap();
    let refused = recorder.step(&mut world, DT).unwrap_err().to_string();
    assert!(
        refused.contains(&format!("car {behind} was added")),
        "{refused}"
    );
    assert!(refused.contains("add_car"), "{refused}");
}

#[test]
fn an_instant_replay_ring_takes_cars_that_join_and_extracts_across_them() {
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = race_world(2);
    let options = skidpad_replay::RingOptions {
        part_steps: 60,
        max_seconds: 3.0,
        max_bytes: 1 << 20,
    };
    let mut ring =
        skidpad_replay::InstantReplayRing::new(&world, common::brandwood_options(60), options)
            .unwrap();
    // One car joins inside a part (through the ring), one right after a
    // part was cut (put in the world by the game and adopted).
    let (inside, at_cut) = (90, 180);
    let mut checked = 0;
    for step in 0..=400_u64 {
        if step == inside {
            let pose = common::behind_the_line(&track, 40.0, 8.0);
            let car = ring
                .add_car(&mut world, &preset("fwd_hatchback").unwrap(), pose)
                .unwrap();
            world.set_driver(car, Some(track.clone())).unwrap();
        }
        if step == at_cut {
            let pose = common::behind_the_line(&track, 55.0, 8.0);
            let car = world
                .add_car(&preset("fwd_hatchback").unwrap(), pose)
                .unwrap();
            world.set_driver(car, Some(track.clone())).unwrap();
            ring.adopt_car(&world, car).unwrap();
        }
        if [100, 150, 181, 250, 400].contains(&step) {
            for seconds in [1.0, 10.0] {
                let clip = ring.extract(&world, seconds).unwrap();
                let report = verify_replay(&clip, NoHooks, &Limits::default()).unwrap();
                assert!(
                    report.is_valid(),
                    "{step}, {seconds} s: {:?}",
                    report.first_desync
                );
                assert_eq!(report.final_hash, world.world_hash(), "{step}");
                let start = clip.header.start_step;
                let arrived = [inside, at_cut].into_iter().filter(|&a| a <= step);
                // A car that came before the extract is one of its cars
                // from the start; one that came during it arrives in it.
                let expected: Vec<u64> = [0, 0]
                    .into_iter()
                    .chain(arrived.map(|a| a.saturating_sub(start)))
                    .collect();
                let got: Vec<u64> = clip.cars.iter().map(|c| c.arrived_at()).collect();
                assert_eq!(got, expected, "{step}, {seconds} s from {start}");
                checked += 1;
            }
        }
        script(&mut world, step);
        ring.step(&mut world, DT).unwrap();
    }
    assert_eq!(checked, 10);
}
