//! Work budgets: a replay that declares more work than the `Limits` allow is
//! refused from its declared sizes, by the decoder, `verify` and the player,
//! with an error naming the limit and the value.

mod common;

use std::time::Instant;

use common::{DT, race_world, record_race};
use skidpad_core::{Lod, LodSetting, preset};
use skidpad_replay::{
    Limits, NoHooks, PlayerOptions, RecorderOptions, Replay, ReplayError, ReplayPlayer,
    ReplayRecorder, Runs, create_replay_world, decode_replay, decode_replay_with, encode_replay,
    encode_replay_gzip, gzip, verify,
};

fn sample() -> Replay {
    record_race(2, 240, 60).0
}

/// Decoding `replay` within `limits` fails on `limit` with `value`.
fn check(replay: &Replay, limits: &Limits, limit: &str, value: u64) {
    let bytes = encode_replay(replay).unwrap();
    let err = decode_replay_with(&bytes, limits).unwrap_err();
    match &err {
        ReplayError::LimitExceeded {
            limit: l, value: v, ..
        } => {
            assert_eq!((*l, *v), (limit, value), "{err}");
        }
        other => panic!("expected the {limit} limit, got {other}"),
    }
    let text = err.to_string();
    assert!(
        text.contains(limit) && text.contains(&value.to_string()),
        "{text}"
    );
    // verify refuses it the same way, before simulating anything.
    assert_eq!(verify(&bytes, NoHooks, limits).unwrap_err(), err);
}

/// `err` is the limit error for `limit`.
fn assert_limit(err: &ReplayError, limit: &str) {
    assert!(
        matches!(err, ReplayError::LimitExceeded { limit: l, .. } if *l == limit),
        "expected the {limit} limit, got {err}"
    );
}

/// A replay whose header declares `steps` steps of `cars` cars and whose
/// body is empty: what an attacker sends. The decoder must refuse it from
/// the header.
fn declared(cars: u32, steps: u64) -> Replay {
    let mut r = sample();
    r.header.car_count = cars;
    r.header.step_count = steps;
    r.header.source_cars = (0..cars).map(skidpad_core::CarId::from_raw).collect();
    r.dt = Runs::from_runs([(steps, DT)]).unwrap();
    r.cars.truncate(cars as usize);
    r.definitions.truncate(cars as usize);
    r.keyframes.clear();
    r
}

#[test]
fn zero_cars_are_refused_whatever_the_steps() {
    let bytes = encode_replay(&declared(0, 1_000_000_000)).unwrap();
    assert!(bytes.len() < 4096, "a small file: {} bytes", bytes.len());
    let started = Instant::now();
    assert_eq!(decode_replay(&bytes).unwrap_err(), ReplayError::NoCars);
    assert_eq!(
        verify(&bytes, NoHooks, &Limits::default()).unwrap_err(),
        ReplayError::NoCars
    );
    assert!(started.elapsed().as_secs() < 5, "refused, not simulated");
    // Nor can one be recorded.
    let empty = skidpad_core::World::new(skidpad_core::WorldConfig::default()).unwrap();
    assert_eq!(
        ReplayRecorder::new(&empty, RecorderOptions::default()).err(),
        Some(ReplayError::NoCars)
    );
    let world = race_world(1);
    let none = RecorderOptions {
        cars: Some(Vec::new()),
        ..RecorderOptions::default()
    };
    assert_eq!(
        ReplayRecorder::new(&world, none).err(),
        Some(ReplayError::NoCars)
    );
}

#[test]
fn each_limit_names_itself_and_the_value() {
    let replay = sample();
    let small = |f: fn(&mut Limits)| {
        let mut l = Limits::default();
        f(&mut l);
        l
    };
    check(&replay, &small(|l| l.max_cars = 1), "cars", 2);
    check(&replay, &small(|l| l.max_steps = 239), "steps", 240);
    // 60 Hz steps; the script's 600 Hz override is the finest rate (the
    // presets run 300 Hz): 10 substeps a step.
    check(
        &replay,
        &small(|l| l.max_substeps_per_step = 9),
        "substeps per step",
        10,
    );
    let work = {
        let mut w = 0_u64;
        for (car, def) in replay.cars.iter().zip(&replay.definitions) {
            for (n, lod) in car.lod.runs() {
                w += n * u64::from(lod.substeps(DT, def.substep_rate));
            }
        }
        w
    };
    check(
        &replay,
        &small(|l| l.max_car_substeps = 1000),
        "car-substeps",
        work,
    );
    let mut meta = replay.clone();
    meta.header.metadata = vec![("player".into(), "x".repeat(100))];
    check(
        &meta,
        &small(|l| l.max_metadata_bytes = 105),
        "metadata bytes",
        106,
    );
    let mut state = replay.clone();
    for k in &mut state.keyframes {
        k.game_state = vec![7; 1000];
    }
    let total = 1000 * state.keyframes.len() as u64;
    check(
        &state,
        &Limits {
            max_keyframe_state_bytes: total - 1,
            ..Limits::default()
        },
        "keyframe state bytes",
        total,
    );
    let err = decode_replay_with(
        &encode_replay(&replay).unwrap(),
        &small(|l| l.max_decoded_bytes = 4096),
    )
    .unwrap_err();
    assert_limit(&err, "decoded bytes");
    // Within the limits the same replay decodes.
    assert_eq!(
        decode_replay(&encode_replay(&replay).unwrap()).unwrap(),
        replay
    );
}

#[test]
fn declared_steps_beyond_the_default_are_refused_from_the_header() {
    let steps = Limits::DEFAULT.max_steps + 1;
    check(&declared(1, steps), &Limits::default(), "steps", steps);
    check(&declared(65, 600), &Limits::default(), "cars", 65);
}

#[test]
fn a_quarter_second_step_at_ten_kilohertz_is_refused_before_simulating() {
    // The attack from the issue: dt 0.25 s with a 10 kHz substep override
    // is 2 500 substeps a step; a small file would buy hours.
    let mut world = race_world(1);
    let car = skidpad_core::CarId::from_raw(0);
    world
        .set_lod(car, LodSetting::with_rate(Lod::Full, 10_000.0))
        .unwrap();
    let mut recorder = ReplayRecorder::new(&world, RecorderOptions::default()).unwrap();
    for _ in 0..4 {
        recorder.step(&mut world, 0.25).unwrap();
    }
    let mut replay = recorder.finish(&world).unwrap();
    // Stretch the recording to 10 000 steps without re-simulating.
    replay.header.step_count = 10_000;
    replay.dt = Runs::from_runs([(10_000, 0.25)]).unwrap();
    replay.cars[0].lod =
        Runs::from_runs([(10_000, LodSetting::with_rate(Lod::Full, 10_000.0))]).unwrap();
    let started = Instant::now();
    check(&replay, &Limits::default(), "substeps per step", 2500);
    assert!(started.elapsed().as_secs() < 5);
}

#[test]
fn the_player_checks_a_replay_built_in_memory() {
    let replay = sample();
    let options = PlayerOptions {
        limits: Limits {
            max_car_substeps: 10,
            ..Limits::default()
        },
        ..PlayerOptions::default()
    };
    let world = create_replay_world(&replay).unwrap();
    let err = ReplayPlayer::with_options(world, &replay, NoHooks, options)
        .err()
        .unwrap();
    assert_limit(&err, "car-substeps");
    let world = create_replay_world(&replay).unwrap();
    let relaxed = PlayerOptions {
        limits: Limits::UNLIMITED,
        ..PlayerOptions::default()
    };
    assert!(ReplayPlayer::with_options(world, &replay, NoHooks, relaxed).is_ok());
}

#[test]
fn gzip_with_trailing_bytes_is_refused_and_a_bomb_hits_the_memory_limit() {
    let replay = sample();
    let gz = encode_replay_gzip(&replay).unwrap();
    let mut tail = gz.clone();
    tail.extend_from_slice(b"junk");
    let err = decode_replay(&tail).unwrap_err().to_string();
    assert!(err.contains("4 bytes of trailing data"), "{err}");
    // A second gzip member is trailing data too.
    let mut two = gz.clone();
    two.extend_from_slice(&gzip(b"more"));
    assert!(decode_replay(&two).is_err());
    assert_eq!(decode_replay(&gz).unwrap(), replay);

    let bomb = gzip(&vec![0_u8; 64 << 20]);
    let limits = Limits {
        max_decoded_bytes: 1 << 20,
        ..Limits::default()
    };
    let err = decode_replay_with(&bomb, &limits).unwrap_err();
    assert_limit(&err, "decoded bytes");
}

#[test]
fn the_work_of_a_recorded_replay_is_what_the_core_runs() {
    let replay = sample();
    let mut world = create_replay_world(&replay).unwrap();
    let def_rate = preset("fwd_hatchback").unwrap().substep_rate;
    // Walk the recording step by step with the core's own count.
    let mut expected = 0_u64;
    for step in 0..replay.header.step_count {
        for (i, car) in replay.cars.iter().enumerate() {
            let id = skidpad_core::CarId::from_raw(i as u32);
            let lod = car.lod.at(step).unwrap();
            world.set_lod(id, lod).unwrap();
            let dt = replay.dt.at(step).unwrap();
            let n = if lod.level == Lod::Frozen {
                0
            } else {
                world.substeps_for(id, dt).unwrap()
            };
            assert_eq!(n, lod.substeps(dt, def_rate));
            expected += u64::from(n);
        }
    }
    let lods: Vec<_> = replay.cars.iter().map(|c| &c.lod).collect();
    let work = skidpad_replay::Work::of(&replay.dt, &lods, &[def_rate, def_rate]);
    assert_eq!(work.car_substeps, expected);
    assert_eq!(work.max_substeps_per_step, 10);
}
