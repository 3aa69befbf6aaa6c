//! Cars the game resets during a recording (`World::reset_car`): the
//! replay records the pose before the step, playback resets the car at
//! the same step bit for bit, seeking across a reset lands on the recorded
//! states, and files, streams and instant replays carry resets; a file
//! whose resets section is damaged is refused with the reason.

mod common;

use common::{DT, brandwood_options, race_world, record_with_events, resealed, script};
use skidpad_core::{CarId, InitialPose, World};
use skidpad_replay::{
    CarReset, InstantReplayRing, Limits, NoHooks, PlayerOptions, RecorderOptions, Replay,
    ReplayPlayer, ReplayRecorder, RingOptions, create_replay_world, decode_replay, encode_replay,
    read_resets_any_version, read_stream, verify_replay,
};

const EVERY: u32 = 60;
const STEPS: u64 = 300;
/// (step before which the game resets it, the car's index, where to):
/// inside a keyframe interval, right after the keyframe at 120 (a stream
/// chunk's boundary), two cars before one step, and car 1 a second time.
const RESETS: [(u64, usize, InitialPose); 4] = [
    (
        100,
        1,
        InitialPose {
            x: 30.0,
            y: 5.0,
            yaw: 0.5,
            speed: 0.0,
        },
    ),
    (
        120,
        2,
        InitialPose {
            x: -20.0,
            y: 15.0,
            yaw: -1.0,
            speed: 8.0,
        },
    ),
    (
        120,
        3,
        InitialPose {
            x: 60.0,
            y: -10.0,
            yaw: 3.0,
            speed: 2.0,
        },
    ),
    (
        250,
        1,
        InitialPose {
            x: 0.0,
            y: 40.0,
            yaw: 1.5,
            speed: 12.0,
        },
    ),
];

fn reset_scheduled(world: &mut World, step: u64, ids: &[CarId]) {
    for (at, car, pose) in RESETS {
        if at == step {
            world.reset_car(ids[car], pose).unwrap();
        }
    }
}

fn options() -> RecorderOptions<'static> {
    brandwood_options(EVERY)
}

/// A 4-car scripted race recorded as a replay and a stream at once, and
/// the world hash at every step (after the step's resets: the state the
/// step starts from is the one a keyframe there restores and plays on
/// from, because the player resets again before the step).
fn record() -> (Replay, Vec<u8>, Vec<[u8; 32]>) {
    record_with_events(STEPS, EVERY, reset_scheduled)
}

#[test]
fn the_replay_records_each_reset_before_its_step() {
    let (replay, _, _) = record();
    let resets: Vec<Vec<CarReset>> = replay.cars.iter().map(|c| c.resets.clone()).collect();
    let expected = |car: usize| -> Vec<CarReset> {
        RESETS
            .iter()
            .filter(|r| r.1 == car)
            .map(|&(step, _, pose)| CarReset { step, pose })
            .collect()
    };
    assert_eq!(resets, (0..4).map(expected).collect::<Vec<_>>());
    assert_eq!(replay.cars[1].reset_before(250).map(|p| p.y), Some(40.0));
    assert_eq!(replay.cars[1].reset_before(251), None);
}

#[test]
fn playback_resets_the_cars_at_their_steps_bit_for_bit() {
    let (replay, _, hashes) = record();
    let report = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
    assert!(report.is_valid(), "{report:?}");
    assert_eq!(report.final_hash, hashes[STEPS as usize]);
    // Without its resets the same inputs give another race: the resets
    // are what the replay plays, not a coincidence.
    let mut without = replay.clone();
    for car in &mut without.cars {
        car.resets.clear();
    }
    let report = verify_replay(&without, NoHooks, &Limits::default()).unwrap();
    assert!(!report.is_valid());
}

#[test]
fn seeking_across_resets_lands_on_the_recorded_states() {
    let (replay, _, hashes) = record();
    let world = create_replay_world(&replay).unwrap();
    let options = PlayerOptions {
        cache_budget: 1 << 20,
        ..PlayerOptions::default()
    };
    let mut player = ReplayPlayer::with_options(world, &replay, NoHooks, options).unwrap();
    for target in [260, 50, 101, 99, 121, 119, 120, 251, 0, 300, 130] {
        player.seek(target).unwrap();
        // A hash after the step before `target`: the recorded hash at
        // `target` is after its resets, which the player makes only when
        // it plays the step.
        let recorded = if RESETS.iter().any(|r| r.0 == target) {
            None
        } else {
            Some(hashes[target as usize])
        };
        if let Some(h) = recorded {
            assert_eq!(player.world().world_hash(), h, "after seeking to {target}");
        }
    }
    assert_eq!(player.desyncs(), 0);
}

#[test]
fn resets_survive_the_file_the_stream_and_the_instant_replay() {
    let (replay, stream, _) = record();
    let bytes = encode_replay(&replay).unwrap();
    let decoded = decode_replay(&bytes).unwrap();
    assert_eq!(decoded, replay);
    assert_eq!(encode_replay(&decoded).unwrap(), bytes);
    let read = read_stream(&stream, &Limits::default()).unwrap();
    assert!(read.complete);
    assert!(read.replay == replay);

    let mut world = race_world(4);
    let ids: Vec<_> = world.car_ids().collect();
    let ring_options = RingOptions {
        part_steps: 45,
        ..RingOptions::default()
    };
    let mut ring = InstantReplayRing::new(&world, options(), ring_options).unwrap();
    for step in 0..STEPS {
        reset_scheduled(&mut world, step, &ids);
        script(&mut world, step);
        ring.step(&mut world, DT).unwrap();
        if [101, 125, 299].contains(&(step + 1)) {
            let replay = ring.extract(&world, 2.0).unwrap();
            assert!(replay.cars.iter().any(|c| !c.resets.is_empty()));
            let report = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
            assert!(report.is_valid(), "at step {}: {report:?}", step + 1);
        }
    }
}

/// The resets section's payload range in a plain replay file.
fn resets_payload(bytes: &[u8]) -> std::ops::Range<usize> {
    let mut at = 8;
    loop {
        let id = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let len = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        if id == 10 {
            return at + 8..at + 8 + len;
        }
        assert_ne!(id, 0, "no resets section");
        at += 8 + len;
    }
}

#[test]
fn a_damaged_resets_section_is_refused_with_the_reason() {
    let (replay, _, _) = record();
    let bytes = encode_replay(&replay).unwrap();
    let payload = resets_payload(&bytes);
    let refused = |edit: &dyn Fn(&mut Vec<u8>)| -> String {
        let mut b = bytes.clone();
        edit(&mut b);
        decode_replay(&resealed(b)).unwrap_err().to_string()
    };
    // Marked optional: a reader that skipped it would play another race.
    let flag = payload.start - 6;
    let e = refused(&|b| b[flag] = 0);
    assert!(e.contains("resets has the wrong required flag"), "{e}");
    // The first record: car index, step, x.
    let first = payload.start + 4;
    let e = refused(&|b| b[first..first + 4].copy_from_slice(&9u32.to_le_bytes()));
    assert!(e.contains("reset of car 9 of 4"), "{e}");
    let e = refused(&|b| b[first + 4..first + 12].copy_from_slice(&5000u64.to_le_bytes()));
    assert!(e.contains("did not play"), "{e}");
    let e = refused(&|b| b[first + 12..first + 20].copy_from_slice(&f64::NAN.to_le_bytes()));
    assert!(e.contains("x must be finite"), "{e}");
    // The second record (step 120) moved before the first (step 100).
    let second = first + 44;
    let e = refused(&|b| b[second + 4..second + 12].copy_from_slice(&50u64.to_le_bytes()));
    assert!(e.contains("out of order"), "{e}");
    // A count past the section's bytes.
    let e =
        refused(&|b| b[payload.start..payload.start + 4].copy_from_slice(&1000u32.to_le_bytes()));
    assert!(e.contains("cannot fit"), "{e}");
}

#[test]
fn a_recording_does_not_end_between_a_reset_and_its_step() {
    let reset_after_30 = || {
        let mut world = race_world(2);
        let car = world.car_ids().nth(1).unwrap();
        let mut recorder = ReplayRecorder::new(&world, options()).unwrap();
        for step in 0..30 {
            script(&mut world, step);
            recorder.step(&mut world, DT).unwrap();
        }
        world.reset_car(car, RESETS[0].2).unwrap();
        assert_eq!(world.pending_reset(car).unwrap(), Some(RESETS[0].2));
        (world, recorder)
    };
    let (world, recorder) = reset_after_30();
    let e = recorder.finish(&world).unwrap_err().to_string();
    assert!(e.contains("was reset after the last recorded step"), "{e}");
    // One more step records the reset; then the recording ends and plays.
    let (mut world, mut recorder) = reset_after_30();
    recorder.step(&mut world, DT).unwrap();
    let replay = recorder.finish(&world).unwrap();
    assert_eq!(
        replay.cars[1].resets,
        [CarReset {
            step: 30,
            pose: RESETS[0].2
        }]
    );
    let report = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
    assert!(report.is_valid(), "{report:?}");
    assert_eq!(report.final_hash, world.world_hash());
}

#[test]
fn an_ai_drivers_own_reset_is_recorded_and_played_without_the_driver() {
    use skidpad_core::{DriverStyle, Track, WorldConfig, preset};
    // A sports car nosed into Brandwood's left barrier 200 m into the lap,
    // its driver not backing out but resetting it after 5 s stuck.
    let track = std::sync::Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = World::new(WorldConfig::default()).unwrap();
    world
        .set_ground(std::sync::Arc::new(track.ground().unwrap()))
        .unwrap();
    let (p, dir) = track.point_at(200.0);
    let at = p + dir.perp() * (track.width() / 2.0 + 10.0);
    let pose = InitialPose {
        x: at.x,
        y: at.y,
        yaw: dir.y.atan2(dir.x) + 70f64.to_radians(),
        speed: 0.0,
    };
    let car = world.add_car(&preset("rwd_sports").unwrap(), pose).unwrap();
    let style = DriverStyle {
        resets_after: Some(5.0),
        ..DriverStyle::default()
    };
    world
        .set_driver_with_style(car, Some(track.clone()), style)
        .unwrap();
    let mut recorder = ReplayRecorder::new(&world, options()).unwrap();
    for _ in 0..60 * 12 {
        recorder.step(&mut world, DT).unwrap();
    }
    let replay = recorder.finish(&world).unwrap();
    assert_eq!(
        replay.cars[0].resets.len(),
        1,
        "{:?}",
        replay.cars[0].resets
    );
    let bytes = encode_replay(&replay).unwrap();
    let report =
        verify_replay(&decode_replay(&bytes).unwrap(), NoHooks, &Limits::default()).unwrap();
    assert!(report.is_valid(), "{report:?}");
    assert_eq!(report.final_hash, world.world_hash());
}

/// The golden corpus's `resets.skr` of `version`.
fn golden_resets(version: u32) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../golden/v{version}/resets.skr"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A replay of an older simulation version cannot be decoded here (the
/// archive of old cores plays it), yet its resets can be read: version
/// 11's golden `resets.skr` names the three resets golden/README.md
/// lists, and this version's copy of the same scenario decodes to the
/// same cars and steps through both readers.
#[test]
fn the_resets_of_an_older_versions_replay_are_read_without_decoding_it() {
    let old = golden_resets(11);
    assert!(
        decode_replay(&old).is_err(),
        "version 11 is not this core's"
    );
    let steps = |resets: &[Vec<CarReset>]| -> Vec<(usize, u64)> {
        let mut all: Vec<(usize, u64)> = resets
            .iter()
            .enumerate()
            .flat_map(|(car, r)| r.iter().map(move |r| (car, r.step)))
            .collect();
        all.sort_by_key(|&(car, step)| (step, car));
        all
    };
    let read = read_resets_any_version(&old).unwrap();
    assert_eq!(steps(&read), [(1, 700), (2, 1200), (0, 1500)]);

    let current = golden_resets(skidpad_core::SIMULATION_VERSION);
    let decoded = decode_replay(&current).unwrap();
    let by_decode: Vec<Vec<CarReset>> = decoded.cars.iter().map(|c| c.resets.clone()).collect();
    assert_eq!(read_resets_any_version(&current).unwrap(), by_decode);
    assert_eq!(steps(&by_decode), steps(&read));

    // Gzip reads the same; a damaged file is refused, not half read.
    let zipped = skidpad_replay::gzip(&old);
    assert_eq!(read_resets_any_version(&zipped).unwrap(), read);
    let mut damaged = old.clone();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 1;
    let error = read_resets_any_version(&damaged).unwrap_err().to_string();
    assert!(error.contains("checksum"), "{error}");
    assert!(read_resets_any_version(&old[..old.len() - 1]).is_err());
    // A replay without resets: every car's list is empty.
    let flat = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../golden/v11/flat_lap.skr"),
    )
    .unwrap();
    assert_eq!(read_resets_any_version(&flat).unwrap(), vec![Vec::new()]);
}
