//! Flashback: a recorded world rewound a hundred times to random depths
//! lands each time bit for bit where it was, and the file verifies, ends
//! on the live world's hash and says what the rewinds took back; rewinds
//! outside the rules are refused; hostile rewind records are refused by
//! the decoder.

mod common;

use std::collections::BTreeMap;

use common::{DT, race_world};
use skidpad_core::{CarInput, World};
use skidpad_replay::{
    Limits, NoHooks, RecorderOptions, Replay, ReplayRecorder, Rewind, decode_replay, encode_replay,
    encode_stream, verify,
};

/// A small deterministic generator, so the test is the same every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below
    }
}

/// Three AI cars and one the "player" drives with wavering inputs.
fn world() -> World {
    let mut world = race_world(4);
    let player = world.car_ids().next().expect("a car");
    world
        .set_driver(player, None)
        .expect("the player drives it");
    world
}

fn options() -> RecorderOptions<'static> {
    RecorderOptions {
        keyframe_every: 60,
        ..RecorderOptions::default()
    }
}

#[test]
fn a_hundred_rewinds_land_bit_for_bit_and_the_run_verifies() {
    let mut world = world();
    let player = world.car_ids().next().expect("a car");
    let mut recorder = ReplayRecorder::new(&world, options()).expect("a recorder");
    let mut random = Lcg(7);
    // The world hash at every step of the current timeline.
    let mut hashes = BTreeMap::from([(0_u64, world.world_hash())]);
    let (mut rewinds, mut abandoned) = (0, 0);
    while rewinds < 100 {
        for _ in 0..10 + random.next(50) {
            let input = CarInput {
                steer: (random.next(200) as f64 - 100.0) / 400.0,
                throttle: random.next(100) as f64 / 100.0,
                ..CarInput::default()
            };
            world.set_input(player, input).expect("an input");
            recorder.step(&mut world, DT).expect("a step");
            hashes.insert(recorder.step_count(), world.world_hash());
        }
        let now = recorder.step_count();
        let to = now - 1 - random.next(now.min(600));
        recorder
            .rewind(&mut world, to)
            .expect("a rewind within the window");
        assert_eq!(
            world.world_hash(),
            hashes[&to],
            "rewind {rewinds} to step {to} did not land where the world was"
        );
        hashes.retain(|&step, _| step <= to);
        abandoned += now - to;
        rewinds += 1;
    }
    for _ in 0..120 {
        recorder.step(&mut world, DT).expect("a step");
    }
    let replay = recorder.finish(&world).expect("finished");
    let bytes = encode_replay(&replay).expect("encodes");
    assert_eq!(decode_replay(&bytes).expect("decodes"), replay);
    let report = verify(&bytes, NoHooks, &Limits::default()).expect("verifies");
    assert!(report.is_valid(), "{:?}", report.first_desync);
    assert_eq!(report.final_hash, world.world_hash());
    assert_eq!(report.rewinds.count, 100);
    assert_eq!(report.rewinds.steps, abandoned);
    assert!((report.rewinds.seconds - abandoned as f64 * DT).abs() < 1e-9);
    // Fewer records than rewinds: a rewind past earlier ones folds them in.
    assert!(replay.rewinds.len() <= 100);
    assert!(replay.rewinds.windows(2).all(|w| w[0].at < w[1].at));
}

#[test]
fn rewinds_outside_the_rules_are_refused_and_change_nothing() {
    let mut world = world();
    let mut recorder = ReplayRecorder::new(
        &world,
        RecorderOptions {
            rewind_window: 100,
            ..options()
        },
    )
    .expect("a recorder");
    for _ in 0..300 {
        recorder.step(&mut world, DT).expect("a step");
    }
    let before = world.world_hash();
    for (to, says) in [
        (150, "past the rewind window"),
        (300, "not before"),
        (301, "not before"),
    ] {
        let refused = recorder.rewind(&mut world, to).expect_err("refused");
        assert!(refused.to_string().contains(says), "{refused}");
        assert_eq!(world.world_hash(), before);
        assert_eq!(recorder.step_count(), 300);
    }
    // A car the recording does not hold would not go back with the world.
    let mut chosen = ReplayRecorder::new(
        &world,
        RecorderOptions {
            cars: Some(world.car_ids().take(2).collect()),
            ..options()
        },
    )
    .expect("a recorder");
    for _ in 0..10 {
        chosen.step(&mut world, DT).expect("a step");
    }
    let refused = chosen.rewind(&mut world, 5).expect_err("refused");
    assert!(
        refused.to_string().contains("every car must go back"),
        "{refused}"
    );

    // Ghosts embedded would have to go back too.
    let mut world = self::world();
    let mut ghosts = ReplayRecorder::new(
        &world,
        RecorderOptions {
            embed_ghosts: true,
            ..options()
        },
    )
    .expect("a recorder");
    for _ in 0..10 {
        ghosts.step(&mut world, DT).expect("a step");
    }
    assert!(ghosts.rewind(&mut world, 5).is_err());
}

/// A rewound run, encoded: the note is in the file, a stream cannot carry
/// it, and hostile notes are refused naming the rewind.
#[test]
fn rewind_records_are_checked_when_decoded() {
    let mut world = world();
    let mut recorder = ReplayRecorder::new(&world, options()).expect("a recorder");
    for _ in 0..200 {
        recorder.step(&mut world, DT).expect("a step");
    }
    recorder.rewind(&mut world, 150).expect("rewound");
    for _ in 0..100 {
        recorder.step(&mut world, DT).expect("a step");
    }
    let replay = recorder.finish(&world).expect("finished");
    assert_eq!(
        replay.rewinds,
        vec![Rewind {
            at: 150,
            count: 1,
            steps: 50,
            seconds: (0..50).map(|_| DT).sum(),
        }]
    );
    assert!(encode_stream(&replay).is_err_and(|e| e.to_string().contains("rewinds")));

    let with = |rewinds: Vec<Rewind>| -> Replay {
        Replay {
            rewinds,
            ..replay.clone()
        }
    };
    let ok = Rewind {
        at: 100,
        count: 1,
        steps: 10,
        seconds: 10.0 * DT,
    };
    for (hostile, says) in [
        (vec![ok, ok], "out of order"),
        (vec![Rewind { at: 251, ..ok }], "past the recording"),
        (vec![Rewind { count: 0, ..ok }], "at least one"),
        (vec![Rewind { count: 11, ..ok }], "at least one"),
        (
            vec![Rewind {
                seconds: f64::NAN,
                ..ok
            }],
            "abandoning",
        ),
        (
            vec![Rewind {
                seconds: 100.0,
                ..ok
            }],
            "abandoning",
        ),
    ] {
        let bytes = encode_replay(&with(hostile)).expect("encodes");
        let refused = decode_replay(&bytes).expect_err("refused");
        let said = refused.to_string();
        assert!(said.contains("rewinds") && said.contains(says), "{said}");
    }
}
