//! ns per car-step (one 60 Hz host step of one car): the four-wheel model at
//! the presets' 300 Hz substeps and the single-track model at 120 Hz, for 1,
//! 20 and 200 cars driven by the AI on the built-in track.
//!
//! The `_no_ai` groups remove the drivers after the warm-up, so they
//! measure the vehicle model and the world's bookkeeping alone.
//!
//! `car_step_threads` steps a 20-car field on pools of 1 and 2 threads.
//!
//! `car_step_ground` steps the same 20-car field on one thread on the
//! plane and on the built-in track's own triangle mesh (`Track::ground`,
//! flat like the plane), in one run: what the mesh's rays cost.
//!
//! `ground_ray` casts strut rays (0.9 m, nearly vertical, from above the
//! road across its width) at that mesh, through `cast_ray` (the footprint
//! grid) and through the hierarchy alone, in one run: ns per ray.
//!
//! Run: `cargo bench -p skidpad-core --bench car_step`. Criterion reports
//! time per host step of the whole world; divide by the car count, or read
//! the per-car figure that `cargo xtask bench` prints.

use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use skidpad_core::glam::DVec3;
use skidpad_core::{Ground, GroundRay, Lod, Track};
use skidpad_fixtures::{RACING_DT as DT, racing_world};

fn car_step(c: &mut Criterion) {
    let cases = [
        ("full", Lod::Full, true),
        ("single_track", Lod::SingleTrack, true),
        ("full_no_ai", Lod::Full, false),
        ("single_track_no_ai", Lod::SingleTrack, false),
    ];
    for (name, lod, ai) in cases {
        let mut group = c.benchmark_group(format!("car_step/{name}"));
        for cars in [1_usize, 20, 200] {
            let mut world = racing_world(cars, lod, ai).expect("racing field");
            group.throughput(Throughput::Elements(cars as u64));
            group.bench_with_input(BenchmarkId::from_parameter(cars), &cars, |b, _| {
                b.iter(|| world.step(DT).expect("step"));
            });
        }
        group.finish();
    }
    // The same 20-car field on pools of 1 and 2 threads, in one run: the
    // speed-up of stepping cars in parallel (feature `parallel`).
    for (name, lod) in [("full", Lod::Full), ("single_track", Lod::SingleTrack)] {
        let mut group = c.benchmark_group(format!("car_step_threads/{name}"));
        for threads in [1_usize, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("thread pool");
            let mut world = racing_world(20, lod, true).expect("racing field");
            group.throughput(Throughput::Elements(20));
            group.bench_with_input(BenchmarkId::from_parameter(threads), &threads, |b, _| {
                pool.install(|| b.iter(|| world.step(DT).expect("step")));
            });
        }
        group.finish();
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool");
    for (name, lod) in [("full", Lod::Full), ("single_track", Lod::SingleTrack)] {
        let mut group = c.benchmark_group(format!("car_step_ground/{name}"));
        for ground in ["plane", "track_mesh"] {
            let mut world = racing_world(20, lod, true).expect("racing field");
            if ground == "track_mesh" {
                // The track is flat, so the cars stand where they stood.
                let mesh = Track::builtin("brandwood")
                    .and_then(|t| t.ground())
                    .expect("track ground");
                world.set_ground(Arc::new(mesh)).expect("ground");
            }
            group.throughput(Throughput::Elements(20));
            group.bench_with_input(BenchmarkId::from_parameter(ground), &ground, |b, _| {
                pool.install(|| b.iter(|| world.step(DT).expect("step")));
            });
        }
        group.finish();
    }
}

fn ground_ray(c: &mut Criterion) {
    let track = Track::builtin("brandwood").expect("track");
    let mesh = track.ground().expect("track ground");
    // 4 096 struts spread evenly along the lap and across the road.
    let rays: Vec<GroundRay> = (0..4096)
        .map(|k| {
            let along = track.length() * f64::from(k) / 4096.0;
            let (centre, direction) = track.point_at(along);
            let across = f64::from(k % 13) - 6.0;
            let xy = centre + direction.perp() * across;
            GroundRay {
                origin: DVec3::new(xy.x, xy.y, 0.6),
                direction: DVec3::new(0.02, 0.01, -1.0).normalize(),
                max_distance: 0.9,
            }
        })
        .collect();
    let mut group = c.benchmark_group("ground_ray/brandwood");
    group.throughput(Throughput::Elements(rays.len() as u64));
    group.bench_function("grid", |b| {
        b.iter(|| rays.iter().filter(|r| mesh.cast_ray(r).is_some()).count())
    });
    group.bench_function("hierarchy", |b| {
        b.iter(|| {
            rays.iter()
                .filter(|r| mesh.cast_ray_hierarchy(r).is_some())
                .count()
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = car_step, ground_ray
}
criterion_main!(benches);
