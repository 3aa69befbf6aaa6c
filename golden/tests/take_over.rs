//! Take-over from the golden corpus: a run taken over at any step, with the
//! player's car driven as recorded, is the golden run bit for bit; one
//! driven otherwise verifies on its own, says where it began, and leaves
//! the other cars on their recordings until the player touches them.

use std::sync::Arc;

use skidpad_core::{CarInput, SIMULATION_VERSION, hex};
use skidpad_replay::{
    Followers, Limits, NoHooks, Replay, ReplayPlayer, ReplayRecorder, TakeOver,
    create_replay_world, decode_replay, encode_replay, verify,
};

const DT: f64 = 1.0 / 60.0;

fn golden(name: &str) -> Arc<Replay> {
    let bytes = skidpad_golden::corpus::file(SIMULATION_VERSION, name).expect("the corpus has it");
    Arc::new(decode_replay(&bytes).expect("a golden replay decodes"))
}

/// Every car of `mixed_field` (six cars, level-of-detail and surface changes
/// on the way) taken over at a step between keyframes, the player's car
/// given its recorded controls by the game: every later keyframe's world
/// hash is the golden one.
#[test]
fn a_take_over_driven_as_recorded_is_the_golden_run_bit_for_bit() {
    let source = golden("mixed_field.skr");
    let at = 1037;
    let mut run = TakeOver::new(source.clone(), at, 2, &Limits::default()).expect("taken over");
    let me = run.player();
    let mut recorder =
        ReplayRecorder::new(run.world(), run.recorder_options()).expect("a recorder");
    let mut compared = 0;
    for step in at..source.header.step_count {
        source.cars[2]
            .apply_step(run.world_mut(), me, step)
            .expect("the game gives its car the recorded controls");
        run.step(&mut recorder, source.dt.at(step).expect("a dt"))
            .expect("a step");
        if let Some(keyframe) = source.keyframe_at(step + 1) {
            assert_eq!(
                hex(&run.world().world_hash()),
                hex(&keyframe.world_hash),
                "the world differs from the golden run at step {}",
                step + 1
            );
            compared += 1;
        }
    }
    assert!(compared >= 5, "only {compared} keyframes compared");
    let replay = recorder.finish(run.world()).expect("finished");
    let report = verify(
        &encode_replay(&replay).expect("encodes"),
        NoHooks,
        &Limits::default(),
    )
    .expect("verifies");
    assert!(report.is_valid());
    assert_eq!(
        report.final_hash,
        source.keyframes.last().expect("a last keyframe").world_hash
    );
}

/// The 20-car race of `traffic` taken over at step 600 by car 5, which
/// brakes hard: the run verifies with no source at hand, names its origin,
/// and every other car is exactly its recorded self until car 5 first
/// touches another car.
#[test]
fn a_car_taken_over_in_a_twenty_car_race_leaves_the_others_on_their_recordings() {
    let source = golden("traffic.skr");
    let (at, player) = (600, 5);
    let mut run =
        TakeOver::new(source.clone(), at, player, &Limits::default()).expect("taken over");
    let me = run.player();
    let mut recorder =
        ReplayRecorder::new(run.world(), run.recorder_options()).expect("a recorder");
    let mut reference = ReplayPlayer::new(
        create_replay_world(&source).expect("a world"),
        source.clone(),
        NoHooks,
    )
    .expect("a player");
    reference.seek(at).expect("seeks");
    let others: Vec<_> = (0..source.cars.len())
        .filter(|&k| k != player)
        .map(|k| run.car_id(k).expect("a car"))
        .collect();
    let (mut same_steps, mut touched) = (0, false);
    for _ in at..source.header.step_count {
        let brake = CarInput {
            brake: 1.0,
            ..CarInput::default()
        };
        run.world_mut().set_input(me, brake).expect("an input");
        run.step(&mut recorder, DT).expect("a step");
        reference.advance().expect("the source plays");
        touched |= run
            .world()
            .contacts()
            .iter()
            .any(|c| c.first == me || c.second == Some(me));
        if touched {
            break;
        }
        for &car in &others {
            assert_eq!(
                run.world().car_hash(car).expect("a car"),
                reference.world().car_hash(car).expect("a car"),
                "car {car} left its recording {same_steps} steps after the take-over, untouched"
            );
        }
        same_steps += 1;
    }
    println!("the others were their recorded selves for {same_steps} steps (touched: {touched})");
    assert!(
        same_steps >= 60,
        "the others were compared for only {same_steps} steps"
    );
    // The player's car did something else: the worlds differ.
    assert_ne!(
        run.world().car_hash(me).ok(),
        reference.world().car_hash(me).ok()
    );

    let replay = recorder.finish(run.world()).expect("finished");
    let bytes = encode_replay(&replay).expect("encodes");
    let report = verify(&bytes, NoHooks, &Limits::default()).expect("verifies on its own");
    assert!(report.is_valid(), "{:?}", report.first_desync);
    let origin = decode_replay(&bytes)
        .expect("decodes")
        .header
        .take_over()
        .expect("a readable origin")
        .expect("an origin");
    assert_eq!((origin.step, origin.car), (at, player));
    assert_eq!(
        origin.source,
        hex(&source.keyframes.last().expect("a keyframe").world_hash)
    );
}

/// Followers on the AI instead: the run still verifies, and a step past
/// the source's end is refused up front.
#[test]
fn followers_can_be_the_ai_and_a_take_over_past_the_end_is_refused() {
    let source = golden("long_run.skr");
    let past = TakeOver::new(
        source.clone(),
        source.header.step_count + 1,
        0,
        &Limits::default(),
    );
    assert!(past.is_err_and(|e| e.to_string().contains("past the replay")));
    let at = 5000;
    let mut run = TakeOver::with_followers(source, at, 0, Followers::Ai, &Limits::default())
        .expect("taken over");
    let mut recorder =
        ReplayRecorder::new(run.world(), run.recorder_options()).expect("a recorder");
    let me = run.player();
    for _ in 0..300 {
        run.world_mut()
            .set_input(
                me,
                CarInput {
                    throttle: 0.5,
                    ..CarInput::default()
                },
            )
            .expect("an input");
        run.step(&mut recorder, DT).expect("a step");
    }
    let replay = recorder.finish(run.world()).expect("finished");
    let report = verify(
        &encode_replay(&replay).expect("encodes"),
        NoHooks,
        &Limits::default(),
    )
    .expect("verifies");
    assert!(report.is_valid() && report.steps == 300);
}

/// Laps are timed from the take-over: the lap car 0 was on when it was
/// taken over is not a lap, the next one is, from a flying start.
#[test]
fn the_race_layer_times_a_taken_over_run_from_its_first_crossing() {
    use skidpad_core::race::{LapStart, RaceRules, RaceTiming};
    let source = golden("long_run.skr");
    let track = Arc::new(
        source
            .header
            .track()
            .expect("a track")
            .expect("the replay names its track"),
    );
    let mut run = TakeOver::new(source, 2000, 0, &Limits::default()).expect("taken over");
    let me = run.player();
    run.world_mut()
        .set_driver(me, Some(track.clone()))
        .expect("the AI drives the player's car");
    let mut recorder =
        ReplayRecorder::new(run.world(), run.recorder_options()).expect("a recorder");
    let mut timing = RaceTiming::new(track, RaceRules::default(), run.world());
    for _ in 0..20_000 {
        run.step(&mut recorder, DT).expect("a step");
        timing.after_step(run.world()).expect("timed");
        if !timing.laps(me).expect("timed").is_empty() {
            break;
        }
    }
    let laps = timing.laps(me).expect("timed");
    assert_eq!(laps.len(), 1, "one lap after the take-over");
    // It began at the first crossing after the take-over (race time 0),
    // at speed; the part of a lap before that was an out-lap.
    assert_eq!(laps[0].kind, LapStart::Flying);
    assert!(
        laps[0].start > 1.0,
        "a lap counted from the take-over: {:?}",
        laps[0]
    );
    assert!(
        laps[0].end - laps[0].start > 20.0,
        "a whole lap: {:?}",
        laps[0]
    );
}

/// A taken-over run's start is its keyframe 0: a file whose start state
/// holds a NaN is refused when the world is set up, before any step.
#[test]
fn a_start_state_with_a_nan_is_refused_before_any_step() {
    let source = golden("mixed_field.skr");
    let mut run = TakeOver::new(source, 700, 0, &Limits::default()).expect("taken over");
    let mut recorder =
        ReplayRecorder::new(run.world(), run.recorder_options()).expect("a recorder");
    for _ in 0..60 {
        run.step(&mut recorder, DT).expect("a step");
    }
    let mut replay = recorder.finish(run.world()).expect("finished");
    // The first float of car 0's state (after the 18-byte snapshot header).
    replay.keyframes[0].cars[0].snapshot[18..26].copy_from_slice(&f64::NAN.to_le_bytes());
    let bytes = encode_replay(&replay).expect("encodes");
    let refused = verify(&bytes, NoHooks, &Limits::default()).expect_err("refused");
    assert!(
        refused.to_string().to_lowercase().contains("snapshot")
            || refused.to_string().contains("NaN"),
        "{refused}"
    );
}

/// "Start at a sector": for the golden long run's car, each sector start
/// is the step after which the car is still short of the boundary and
/// after the next step is past it, by the race layer's own distance.
#[test]
fn sector_starts_are_the_steps_just_before_each_boundary() {
    use skidpad_core::race::{RaceRules, RaceTiming};
    let source = golden("long_run.skr");
    let track = Arc::new(source.header.track().expect("a track").expect("named"));
    let starts = skidpad_replay::sector_starts(&source, 0, &Limits::default()).expect("found");
    let sectors = track.sectors().len() + 1;
    assert!(
        starts.len() >= sectors,
        "at least a lap's boundaries: {starts:?}"
    );

    let mut player = ReplayPlayer::new(
        create_replay_world(&source).unwrap(),
        source.clone(),
        NoHooks,
    )
    .expect("a player");
    let id = player.car_ids()[0];
    let mut timing = RaceTiming::new(track.clone(), RaceRules::default(), player.world());
    let mut progress = vec![None];
    while player.advance().expect("plays") {
        timing.after_step(player.world()).expect("timed");
        progress.push(timing.progress(id));
    }
    for start in &starts {
        let boundary = f64::from(start.lap - 1) * track.length()
            + match start.sector {
                1 => 0.0,
                k => track.sectors()[k as usize - 2],
            };
        let before = progress[start.step as usize].expect("timed");
        let after = progress[start.step as usize + 1].expect("timed");
        assert!(
            before < boundary && boundary <= after,
            "{start:?}: {before} m then {after} m around {boundary} m"
        );
    }
}
