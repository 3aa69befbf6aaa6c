//! Record, then play: bit for bit, with seeks, game state and re-syncs.

mod common;

use common::{DT, LapGame, record_lap_game, record_race};
use proptest::prelude::*;
use skidpad_core::{CarId, SIMULATION_VERSION, World};
use skidpad_replay::{
    NoHooks, PlayerOptions, RecorderOptions, ReplayError, ReplayPlayer, ReplayRecorder,
    StreamRecorder, SyncPolicy, create_replay_world,
};

#[test]
fn playback_matches_the_recording_at_every_step() {
    let (replay, hashes, _) = record_race(4, 1500, 240);
    assert!(
        replay.cars[0].lod.run_count() > 1,
        "the script changed levels of detail"
    );
    assert!(
        replay.cars[0].surfaces[1].run_count() > 1,
        "and wheel surfaces"
    );
    let mut player =
        ReplayPlayer::new(create_replay_world(&replay).unwrap(), &replay, NoHooks).unwrap();
    assert_eq!(player.world().world_hash(), hashes[0]);
    let mut step = 0;
    while player.advance().unwrap() {
        step += 1;
        assert_eq!(
            player.world().world_hash(),
            hashes[step],
            "diverged at step {step}"
        );
    }
    assert_eq!(step, 1500);
    assert_eq!(player.desyncs(), 0);
    assert!(player.first_desync().is_none());
}

#[test]
fn a_reset_behind_the_recorders_back_is_resynced_at_the_next_keyframe() {
    let mut world = common::race_world(3);
    let mut recorder = ReplayRecorder::new(
        &world,
        RecorderOptions {
            keyframe_every: 100,
            ..RecorderOptions::default()
        },
    )
    .unwrap();
    let mut early = None;
    let mut hashes = vec![world.world_hash()];
    for step in 0..400 {
        if step == 20 {
            early = Some(world.snapshot(CarId::from_raw(1)).unwrap());
        }
        if step == 150 {
            // The game resets car 1 to where it was at step 20; the replay
            // cannot see this.
            world
                .restore(CarId::from_raw(1), early.as_ref().unwrap())
                .unwrap();
        }
        recorder.step(&mut world, DT).unwrap();
        hashes.push(world.world_hash());
    }
    let replay = recorder.finish(&world).unwrap();
    let mut player =
        ReplayPlayer::new(create_replay_world(&replay).unwrap(), &replay, NoHooks).unwrap();
    player.play_to_end().unwrap();
    assert_eq!(player.desyncs(), 1);
    let report = player.first_desync().unwrap();
    assert_eq!(report.step, 200);
    assert_eq!(report.cars, vec![CarId::from_raw(1)]);
    let fields: Vec<&str> = report.fields.iter().map(|f| f.field).collect();
    assert!(
        fields.contains(&"position.x") && fields.contains(&"elapsed"),
        "{fields:?}"
    );
    assert!(
        report
            .fields
            .iter()
            .all(|f| f.car == CarId::from_raw(1) && f.recorded != f.simulated)
    );
    assert_eq!(
        player.world().world_hash(),
        hashes[400],
        "in sync again at the end"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn seek_to_n_equals_playing_n_steps(targets in prop::collection::vec(0..=600_u64, 1..12), budget in prop_oneof![Just(0_usize), Just(64 << 20)]) {
        let (replay, hashes, _) = shared_race();
        let options = PlayerOptions { cache_budget: budget, ..PlayerOptions::default() };
        let mut player = ReplayPlayer::with_options(create_replay_world(replay).unwrap(), replay, NoHooks, options).unwrap();
        for &n in &targets {
            player.seek(n).unwrap();
            prop_assert_eq!(player.step(), n);
            prop_assert_eq!(player.world().world_hash(), hashes[n as usize], "after seek({})", n);
        }
        prop_assert_eq!(player.desyncs(), 0);
    }
}

/// One recording shared by the proptest cases.
fn shared_race() -> &'static (skidpad_replay::Replay, Vec<[u8; 32]>, World) {
    static RACE: std::sync::OnceLock<(skidpad_replay::Replay, Vec<[u8; 32]>, World)> =
        std::sync::OnceLock::new();
    RACE.get_or_init(|| record_race(3, 600, 150))
}

#[test]
fn seeking_past_the_end_is_an_error() {
    let (replay, _, _) = shared_race();
    let mut player =
        ReplayPlayer::new(create_replay_world(replay).unwrap(), replay, NoHooks).unwrap();
    assert!(matches!(
        player.seek(601),
        Err(ReplayError::InvalidArgument { .. })
    ));
    player.seek(600).unwrap();
    assert!(!player.advance().unwrap());
}

#[test]
fn the_cache_fills_while_playing_and_stays_in_budget() {
    let (replay, _, _) = shared_race();
    let options = PlayerOptions {
        cache_budget: 20_000,
        ..PlayerOptions::default()
    };
    let mut player = ReplayPlayer::with_options(
        create_replay_world(replay).unwrap(),
        replay,
        NoHooks,
        options,
    )
    .unwrap();
    player.play_to_end().unwrap();
    let (interval, points, bytes) = player.cache_stats();
    assert!(points > 0 && bytes <= 20_000, "{interval} {points} {bytes}");
}

#[test]
fn a_lap_timer_in_keyframe_state_gives_the_same_laps_after_seeks() {
    let (replay, recorded) = record_lap_game(2400, 300);
    assert!(
        recorded.crossings.len() >= 2,
        "car 0 crossed x = 100 during the run: {:?}",
        recorded.crossings
    );

    let world = create_replay_world(&replay).unwrap();
    let mut player = ReplayPlayer::new(world, &replay, LapGame::default()).unwrap();
    player.play_to_end().unwrap();
    assert_eq!(player.hooks().timer.crossings, recorded.crossings);

    for target in [1900_u64, 350, 1200, 5, 2399, 700] {
        player.seek(target).unwrap();
        let expected: Vec<u64> = recorded
            .crossings
            .iter()
            .copied()
            .filter(|&c| c < target)
            .collect();
        assert_eq!(
            player.hooks().timer.crossings,
            expected,
            "after seek({target})"
        );
    }
    player.play_to_end().unwrap();
    assert_eq!(player.hooks().timer.crossings, recorded.crossings);
    assert_eq!(player.desyncs(), 0);
    assert_eq!(player.hooks().restores[0], 0, "on_restore ran at the start");
}

#[test]
fn wrong_worlds_and_versions_are_refused() {
    let (replay, _, _) = shared_race();
    let small = common::race_world(2);
    assert!(matches!(
        ReplayPlayer::new(small, replay, NoHooks),
        Err(ReplayError::CarCount {
            world: 2,
            replay: 3
        })
    ));
    let mut old = replay.clone();
    old.header.simulation_version = SIMULATION_VERSION + 1;
    let err = ReplayPlayer::new(create_replay_world(&old).unwrap(), &old, NoHooks)
        .err()
        .unwrap();
    assert!(
        matches!(err, ReplayError::SimulationVersion { .. }),
        "{err}"
    );
    let text = err.to_string();
    assert!(
        text.contains(&SIMULATION_VERSION.to_string())
            && text.contains(&(SIMULATION_VERSION + 1).to_string()),
        "{text}"
    );
}

#[test]
fn the_recorder_refuses_steps_it_did_not_see() {
    let mut world = common::race_world(2);
    let mut recorder = ReplayRecorder::new(&world, RecorderOptions::default()).unwrap();
    recorder.step(&mut world, DT).unwrap();
    world.step(DT).unwrap();
    recorder.after_step(&world).unwrap();
    world.step(DT).unwrap();
    world.step(DT).unwrap();
    assert!(matches!(
        recorder.after_step(&world),
        Err(ReplayError::StepsNotRecorded { .. })
    ));
    assert!(
        ReplayRecorder::new(
            &world,
            RecorderOptions {
                keyframe_every: 0,
                ..RecorderOptions::default()
            }
        )
        .is_err()
    );
    let dupes = RecorderOptions {
        cars: Some(vec![CarId::from_raw(0), CarId::from_raw(0)]),
        ..RecorderOptions::default()
    };
    assert!(ReplayRecorder::new(&world, dupes).is_err());
}

#[test]
fn a_reserve_of_input_memory_records_the_same_replay() {
    // The reserve only decides where inputs are written: none, less than
    // the race (recording goes on past it) and more than the race give the
    // same replay.
    let record = |reserve_steps| {
        let mut world = common::race_world(3);
        let options = RecorderOptions {
            keyframe_every: 100,
            reserve_steps,
            ..RecorderOptions::default()
        };
        let mut recorder = ReplayRecorder::new(&world, options).unwrap();
        for step in 0..300 {
            common::script(&mut world, step);
            recorder.step(&mut world, DT).unwrap();
        }
        recorder.finish(&world).unwrap()
    };
    let plain = record(0);
    assert_eq!(plain.cars[0].inputs.len(), 300);
    assert_eq!(record(1), plain);
    assert_eq!(record(100_000), plain);
    // A reserve past the cap is refused up front, not attempted.
    let world = common::race_world(3);
    let too_much = RecorderOptions {
        reserve_steps: u64::MAX,
        ..RecorderOptions::default()
    };
    assert!(matches!(
        ReplayRecorder::new(&world, too_much),
        Err(ReplayError::InvalidArgument {
            what: "reserve_steps",
            ..
        })
    ));
}

#[test]
fn without_follow_step_count_the_cars_still_match() {
    let (replay, _, recording) = shared_race();
    let options = PlayerOptions {
        follow_step_count: false,
        ..PlayerOptions::default()
    };
    let mut world = create_replay_world(replay).unwrap();
    world.set_step_count(5_000);
    let mut player = ReplayPlayer::with_options(world, replay, NoHooks, options).unwrap();
    player.play_to_end().unwrap();
    assert_eq!(
        player.desyncs(),
        0,
        "car hashes match whatever the counter says"
    );
    assert_eq!(player.world().step_count(), 5_600);
    for id in recording.car_ids() {
        assert_eq!(
            player.world().car_hash(id).unwrap(),
            recording.car_hash(id).unwrap()
        );
    }
    assert_ne!(player.world().world_hash(), recording.world_hash());
}

#[test]
fn a_player_that_owns_its_replay_plays_the_same_bits() {
    let (replay, hashes, _) = shared_race();
    // The player keeps the replay alive itself (as the wasm bindings do).
    let owned = std::sync::Arc::new(replay.clone());
    let world = create_replay_world(&owned).unwrap();
    let mut player = ReplayPlayer::new(world, owned, NoHooks).unwrap();
    player.seek(450).unwrap();
    assert_eq!(player.world().world_hash(), hashes[450]);
    player.seek(120).unwrap();
    assert_eq!(player.world().world_hash(), hashes[120]);
    player.play_to_end().unwrap();
    assert_eq!(player.world().world_hash(), hashes[600]);
    assert_eq!(player.desyncs(), 0);
}

/// Records the hash the world has when `after_step` runs.
struct HashAfterEachStep(Vec<(u64, [u8; 32])>);

impl skidpad_replay::ReplayHooks for HashAfterEachStep {
    fn after_step(&mut self, step: u64, world: &World) {
        self.0.push((step, world.world_hash()));
    }
}

#[test]
fn after_step_sees_every_verified_step_once_with_the_stepped_world() {
    let (replay, hashes, _) = record_race(3, 300, 120);
    let bytes = skidpad_replay::encode_replay(&replay).unwrap();
    let mut seen = HashAfterEachStep(Vec::new());
    let report =
        skidpad_replay::verify(&bytes, &mut seen, &skidpad_replay::Limits::default()).unwrap();
    assert!(report.is_valid());
    let expected: Vec<(u64, [u8; 32])> = (1..=300).map(|s| (s, hashes[s as usize])).collect();
    assert_eq!(seen.0, expected);
}

/// One timestep per frame: an observer records the timestep the world ran,
/// read from the world; one handed a different timestep refuses it.
#[test]
#[allow(deprecated)]
fn observers_record_the_timestep_the_world_ran() {
    let mut world = common::race_world(2);
    assert_eq!(world.last_timestep(), None, "no step yet");
    let mut recorder = ReplayRecorder::new(&world, RecorderOptions::default()).unwrap();
    let mut stream = StreamRecorder::new(
        &world,
        RecorderOptions::default(),
        Vec::new(),
        SyncPolicy::Never,
    )
    .unwrap();
    let odd = 1.0 / 64.0;
    for dt in [DT, odd, DT] {
        world.step(dt).unwrap();
        assert_eq!(world.last_timestep(), Some(dt));
        recorder.after_step(&world).unwrap();
        stream.after_step(&world).unwrap();
    }
    world.step(DT).unwrap();
    // Handed again, the timestep must be the world's to the bit.
    let refused = recorder.capture(&world, DT + f64::EPSILON).unwrap_err();
    assert!(
        matches!(refused, ReplayError::TimestepMismatch { .. }),
        "{refused}"
    );
    assert!(
        refused
            .to_string()
            .contains("the world's last step ran 0.016666666666666666 s"),
        "{refused}"
    );
    recorder.capture(&world, DT).unwrap();
    stream.capture(&world, DT).unwrap();
    let replay = recorder.finish(&world).unwrap();
    let dts: Vec<f64> = (0..4).map(|k| replay.dt.at(k).unwrap()).collect();
    assert_eq!(
        dts,
        [DT, odd, DT, DT],
        "the recording holds what the world ran"
    );
    // A world whose step count was set has no step to record.
    world.set_step_count(world.step_count() + 1);
    assert_eq!(world.last_timestep(), None);
}
