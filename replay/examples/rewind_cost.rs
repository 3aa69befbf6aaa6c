//! What a flashback costs: wall time of `ReplayRecorder::rewind` going 10 s
//! back (600 steps at 60 Hz) and of the step after it, for a one-car time
//! trial and the 20-car racing field, with keyframes every 60 and every
//! 600 steps (the Rust and the JS defaults), and the bytes a rewind adds to
//! a replay. Prints JSON; BENCHMARKS.md has the figures.
//!
//! `cargo run --release -p skidpad-replay --example rewind_cost`

use std::time::Instant;

use skidpad_core::Lod;
use skidpad_fixtures::{RACING_DT, racing_world};
use skidpad_replay::{RecorderOptions, ReplayRecorder, encode_replay};

/// Rewinds timed per case; the median is reported.
const ROUNDS: usize = 15;
/// How far back each rewind goes: 10 s at 60 Hz.
const BACK: u64 = 600;

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Median ms of a 600-step rewind and of the step after it.
fn case(cars: usize, keyframe_every: u32) -> (f64, f64) {
    let mut world = racing_world(cars, Lod::Full, true).expect("the racing field");
    let options = RecorderOptions {
        keyframe_every,
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options).expect("a recorder");
    let (mut rewinds, mut resumes) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        // A rewind lands between keyframes as often as on one: vary it.
        let ahead = BACK + 1 + (round as u64 * 37) % u64::from(keyframe_every);
        for _ in 0..ahead {
            recorder.step(&mut world, RACING_DT).expect("a step");
        }
        let to = recorder.step_count() - BACK;
        let start = Instant::now();
        recorder.rewind(&mut world, to).expect("a rewind");
        rewinds.push(start.elapsed().as_secs_f64() * 1e3);
        let start = Instant::now();
        recorder.step(&mut world, RACING_DT).expect("a step");
        resumes.push(start.elapsed().as_secs_f64() * 1e3);
    }
    (median(rewinds), median(resumes))
}

/// Bytes one rewind adds to a replay: the same recording with and without
/// its note.
fn bytes_per_rewind() -> usize {
    let mut world = racing_world(1, Lod::Full, true).expect("a car");
    let mut recorder = ReplayRecorder::new(&world, RecorderOptions::default()).expect("a recorder");
    for _ in 0..700 {
        recorder.step(&mut world, RACING_DT).expect("a step");
    }
    recorder.rewind(&mut world, 400).expect("a rewind");
    for _ in 0..100 {
        recorder.step(&mut world, RACING_DT).expect("a step");
    }
    let mut replay = recorder.finish(&world).expect("finished");
    let with = encode_replay(&replay).expect("encodes").len();
    replay.rewinds.clear();
    with - encode_replay(&replay).expect("encodes").len()
}

fn main() {
    let mut rows = Vec::new();
    for cars in [1, 20] {
        for every in [60, 600] {
            let (rewind, resume) = case(cars, every);
            rows.push(format!(
                "{{\"cars\":{cars},\"keyframe_every\":{every},\"rewind_600_steps_ms\":{rewind:.3},\"next_step_ms\":{resume:.3}}}"
            ));
        }
    }
    println!(
        "{{\"cases\":[{}],\"bytes_per_rewind\":{}}}",
        rows.join(","),
        bytes_per_rewind()
    );
}
