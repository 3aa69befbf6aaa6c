//! Recording real ghosts for the tests: an AI car lapping the built-in
//! track.

#![allow(dead_code)] // Each test binary uses part of this file.

use std::sync::Arc;

use skidpad_core::{CarId, Track, World, WorldConfig, preset};
use skidpad_ghost::{Ghost, GhostRecorder, GhostRecorderOptions, LapReference};

pub const DT: f64 = 1.0 / 60.0;

pub fn track() -> Arc<Track> {
    Arc::new(Track::builtin("brandwood").unwrap())
}

/// A world with one AI car at the start line, rolling at 20 m/s.
pub fn ai_world(name: &str, track: &Arc<Track>) -> (World, CarId) {
    let mut world = World::new(WorldConfig::default()).unwrap();
    let car = world
        .add_car(
            &preset(name).unwrap(),
            skidpad_core::race::pose_along(track, 0.0, 0.0, 20.0),
        )
        .unwrap();
    world.set_driver(car, Some(track.clone())).unwrap();
    (world, car)
}

/// Records `laps` laps after a 1 s run-up (so the lap starts at speed);
/// returns the ghost of the last lap, sampled every `every` steps, and the
/// world positioned at its end.
pub fn ai_lap(name: &str, every: u32) -> (Ghost, Arc<Track>) {
    let track = track();
    let (mut world, car) = ai_world(name, &track);
    let mut recorder = GhostRecorder::with_options(car, GhostRecorderOptions { every }).unwrap();
    for _ in 0..60 {
        world.step(DT).unwrap();
        recorder.after_step(&world).unwrap();
    }
    recorder.restart();
    let start = recorder.frames()[0].pose;
    let reference_start = LapReference::new(
        &Ghost::from_frames(recorder.frames().to_vec()).unwrap(),
        &track,
    );
    let mut last = 0.0;
    loop {
        world.step(DT).unwrap();
        recorder.after_step(&world).unwrap();
        let p = world.pose(car).unwrap().position;
        let d = reference_start.distance_from_start(&track, p.x, p.y);
        if d < last - track.length() / 2.0 {
            break; // crossed the start line again
        }
        last = d;
        assert!(world.step_count() < 60 * 200, "lap did not finish");
    }
    let ghost = recorder.finish().unwrap();
    assert_eq!(ghost.frames()[0].pose, start);
    (ghost, track)
}

/// f32 values spread over `[lo, hi]` in 2^24 even steps, drawn as an
/// integer. proptest's own f32 range sampler can trip an internal
/// rounding assertion (`self.low - result < initial.step`) on some seeds,
/// which made these tests fail at random; an integer draw cannot, and it
/// shrinks toward `lo`.
pub fn f32_between(lo: f32, hi: f32) -> impl proptest::strategy::Strategy<Value = f32> {
    use proptest::strategy::Strategy;
    const STEPS: u32 = 1 << 24;
    (0..=STEPS).prop_map(move |k| {
        let x = f64::from(lo) + (f64::from(hi) - f64::from(lo)) * f64::from(k) / f64::from(STEPS);
        (x as f32).clamp(lo, hi)
    })
}
