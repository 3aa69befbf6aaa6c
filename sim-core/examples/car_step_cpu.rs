//! CPU time per car-step of the racing field on one thread, for
//! `cargo xtask bench`: it alternates runs of this program with runs of the
//! wasm build under node, so both are measured in the same minutes of a
//! noisy machine, and counts this program's instructions under callgrind.
//!
//! Usage: `car_step_cpu full|single_track ROUNDS STEPS_PER_ROUND [GROUND]`,
//! GROUND `plane` (the default: the benchmarks' racing field on z = 0) or
//! a built-in track's name (the same 20 AI cars spread along that track's
//! centre line, on its own surface mesh, racing as a game's race does).
//! Only public API of every core since version 5, so the previous core's
//! build runs it too. Prints
//! JSON: `cpu_ns_per_car_step` (one value per round), `cars`, and
//! `stepped_car_substeps`: every model substep taken by `World::step` in
//! the whole run, warm-ups included, which is what callgrind counts with
//! `--toggle-collect=skidpad_core::world::World::step`.
//!
//! CPU time is the stepping thread's own (`CLOCK_THREAD_CPUTIME_ID`), so
//! time the machine gave to other work does not count.

use std::sync::Arc;

use skidpad_core::{Lod, LodSetting, Track, World, WorldConfig, preset};
use skidpad_fixtures::{RACING_DT, RACING_WARM_UP_STEPS, racing_world};

const CARS: usize = 20;

/// Nanoseconds this thread has run on a CPU (CLOCK_THREAD_CPUTIME_ID, to
/// the nanosecond; `/proc/thread-self/schedstat` moves in scheduler ticks
/// of several milliseconds on some kernels, which quantised the figure).
fn thread_cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// `CARS` AI cars spread evenly along `track`'s centre line at 20 m/s,
/// alternating two presets, on the track's own surface; warmed up like the
/// racing field.
fn field_on(track: &str, lod: Lod) -> World {
    let track = Arc::new(Track::builtin(track).expect("a built-in track"));
    let mut world = World::new(WorldConfig::default()).expect("world");
    world
        .set_ground(Arc::new(track.ground().expect("track surface")))
        .expect("ground");
    for k in 0..CARS {
        let pose = skidpad_core::race::pose_along(
            &track,
            track.length() * k as f64 / CARS as f64,
            0.0,
            20.0,
        );
        let name = if k % 2 == 0 {
            "rwd_sports"
        } else {
            "fwd_hatchback"
        };
        let car = world
            .add_car(&preset(name).expect("preset"), pose)
            .expect("car");
        world.set_driver(car, Some(track.clone())).expect("driver");
        world.set_lod(car, LodSetting::new(lod)).expect("lod");
    }
    for _ in 0..RACING_WARM_UP_STEPS {
        world.step(RACING_DT).expect("warm-up step");
    }
    world
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let lod = match args.first().map(String::as_str) {
        Some("single_track") => Lod::SingleTrack,
        _ => Lod::Full,
    };
    let number =
        |i: usize, default: u64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let rounds = number(1, 5);
    let steps = number(2, 60);
    let ground = args.get(3).map_or("plane", String::as_str).to_owned();
    // One thread: the figure is the model's cost, comparable with wasm's.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool");
    let (per_round, stepped) = pool.install(|| {
        let mut world = if ground == "plane" {
            racing_world(CARS, lod, true).expect("racing field")
        } else {
            field_on(&ground, lod)
        };
        let warm_up = RACING_WARM_UP_STEPS + steps;
        for _ in 0..steps {
            world.step(RACING_DT).expect("warm-up step");
        }
        let ids: Vec<_> = world.car_ids().collect();
        let substeps_per_step: u64 = ids
            .into_iter()
            .map(|c| u64::from(world.substeps_for(c, RACING_DT).expect("car")))
            .sum();
        let mut per_round = Vec::new();
        for _ in 0..rounds {
            let start = thread_cpu_ns();
            for _ in 0..steps {
                world.step(RACING_DT).expect("step");
            }
            let ns = thread_cpu_ns() - start;
            per_round.push(ns as f64 / (steps * CARS as u64) as f64);
        }
        (per_round, substeps_per_step * (warm_up + steps * rounds))
    });
    let values: Vec<String> = per_round.iter().map(|v| format!("{v:.1}")).collect();
    println!(
        "{{\"cpu_ns_per_car_step\":[{}],\"stepped_car_substeps\":{stepped},\"cars\":{CARS}}}",
        values.join(",")
    );
}
