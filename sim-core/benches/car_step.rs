//! ns per car-step (one 60 Hz host step of one car): the four-wheel model at
//! its default 1 kHz substeps and the single-track model at 240 Hz, for 1,
//! 20 and 200 cars driven by the AI on the built-in track.
//!
//! The `_no_ai` groups remove the drivers after the warm-up, so they
//! measure the vehicle model and the world's bookkeeping alone.
//!
//! Run: `cargo bench -p skidpad-core --bench car_step`. Criterion reports
//! time per host step of the whole world; divide by the car count, or read
//! the per-car figure that `cargo xtask bench` prints.

use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use skidpad_core::{InitialPose, Lod, LodSetting, Track, World, WorldConfig, preset};

const DT: f64 = 1.0 / 60.0;

/// `cars` AI cars of alternating presets, spread around the lap and
/// already up to speed, so the bench measures racing, not standing starts.
fn racing_world(cars: usize, lod: Lod, ai: bool) -> World {
    let track = Arc::new(Track::builtin("brandwood").expect("built-in track"));
    let mut world = World::new(WorldConfig::default()).expect("default config");
    let names = ["fwd_hatchback", "rwd_sports"];
    for k in 0..cars {
        let s = track.length() * k as f64 / cars as f64;
        let (p, dir) = track.point_at(s);
        let def = preset(names[k % 2]).expect("preset");
        let pose = InitialPose {
            x: p.x,
            y: p.y,
            yaw: libm::atan2(dir.y, dir.x),
            speed: 15.0,
        };
        let id = world.add_car(&def, pose).expect("car");
        world.set_driver(id, Some(track.clone())).expect("driver");
        world.set_lod(id, LodSetting::new(lod)).expect("lod");
    }
    for _ in 0..120 {
        world.step(DT).expect("warm-up step");
    }
    if !ai {
        // Keep the inputs the drivers last wrote: the cars go on turning
        // and accelerating, without the driver's cost in the figure.
        for id in world.car_ids().collect::<Vec<_>>() {
            world.set_driver(id, None).expect("remove driver");
        }
    }
    world
}

fn car_step(c: &mut Criterion) {
    let cases = [
        ("full_1khz", Lod::Full, true),
        ("single_track_240hz", Lod::SingleTrack, true),
        ("full_1khz_no_ai", Lod::Full, false),
        ("single_track_240hz_no_ai", Lod::SingleTrack, false),
    ];
    for (name, lod, ai) in cases {
        let mut group = c.benchmark_group(format!("car_step/{name}"));
        for cars in [1_usize, 20, 200] {
            let mut world = racing_world(cars, lod, ai);
            group.throughput(Throughput::Elements(cars as u64));
            group.bench_with_input(BenchmarkId::from_parameter(cars), &cars, |b, _| {
                b.iter(|| world.step(DT).expect("step"));
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = car_step
}
criterion_main!(benches);
