//! `GhostPlayer::pose_at` on a 5-minute, 60 Hz ghost (18 000 frames):
//! sequential playback (one 60 Hz frame forward per call) and random
//! lookups (a fixed pseudo-random sequence of times over the whole ghost).
//!
//! Run: `cargo bench -p skidpad-ghost --bench pose_at`

use criterion::{Criterion, criterion_group, criterion_main};
use skidpad_ghost::{Ghost, GhostFrame, GhostPlayer, GhostPose};

const FRAMES: usize = 5 * 60 * 60;
const DT: f32 = 1.0 / 60.0;

/// A car driving circles with some pitch and roll: every channel moves.
fn five_minute_ghost() -> Ghost {
    let frames = (0..FRAMES)
        .map(|k| {
            let t = k as f32 * DT;
            let a = t * 0.3;
            GhostFrame {
                t,
                pose: GhostPose {
                    x: 200.0 * a.cos(),
                    y: 200.0 * a.sin(),
                    z: 0.5 + 0.01 * (t * 7.0).sin(),
                    yaw: skidpad_ghost::wrap_angle(a + std::f32::consts::FRAC_PI_2),
                    pitch: 0.02 * (t * 1.3).sin(),
                    roll: -0.04,
                    steer: 0.05,
                    speed: 60.0,
                },
            }
        })
        .collect();
    Ghost::from_frames(frames).expect("valid ghost")
}

fn pose_at(c: &mut Criterion) {
    let ghost = five_minute_ghost();
    let end = ghost.end_time();
    let mut player = GhostPlayer::new(ghost);
    let mut pose = GhostPose::default();

    let mut t = 0.0_f32;
    c.bench_function("ghost_pose_at/sequential", |b| {
        b.iter(|| {
            t += DT;
            if t > end {
                t = 0.0;
            }
            player.pose_at_into(t, &mut pose).expect("finite time");
            pose.x
        })
    });

    // xorshift: a cheap, fixed sequence, so runs compare.
    let mut state = 0x9e37_79b9_u32;
    c.bench_function("ghost_pose_at/random", |b| {
        b.iter(|| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let t = (state >> 8) as f32 / (1 << 24) as f32 * end;
            player.pose_at_into(t, &mut pose).expect("finite time");
            pose.x
        })
    });
}

/// Bytes per frame of a 60 Hz AI lap, written for `cargo xtask bench`
/// when `SKIDPAD_BENCH_OUT` names a directory.
fn ai_lap_size() {
    use std::sync::Arc;

    use skidpad_core::{Track, World, WorldConfig, preset};
    use skidpad_ghost::{LapCutter, encode_ghost};

    let Ok(dir) = std::env::var("SKIDPAD_BENCH_OUT") else {
        return;
    };
    let track = Arc::new(Track::builtin("brandwood").expect("track"));
    let mut world = World::new(WorldConfig::default()).expect("world");
    let car = world
        .add_car(
            &preset("rwd_sports").expect("preset"),
            skidpad_core::race::pose_along(&track, 0.0, 0.0, 20.0),
        )
        .expect("car");
    world.set_driver(car, Some(track.clone())).expect("driver");
    let mut cutter = LapCutter::new(car, track, &world).expect("cutter");
    let lap = loop {
        world.step(1.0 / 60.0).expect("step");
        if let Some(lap) = cutter.after_step(&world).expect("sample") {
            break lap;
        }
    };
    let per_frame = encode_ghost(&lap.ghost).unwrap().len() as f64 / lap.ghost.len() as f64;
    std::fs::write(
        std::path::Path::new(&dir).join("ghost-bench.json"),
        format!("{{\"ghost_bytes_per_frame\":{per_frame}}}"),
    )
    .expect("write bench json");
}

fn pose_at_and_size(c: &mut Criterion) {
    ai_lap_size();
    pose_at(c);
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(std::time::Duration::from_secs(3));
    targets = pose_at_and_size
}
criterion_main!(benches);
