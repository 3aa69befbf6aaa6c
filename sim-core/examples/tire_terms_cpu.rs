//! What the tire's full curves (load- and sign-dependent curvature,
//! shifts; simulation versions 13 and 14) and the Magic Formula's
//! combined-slip weighting cost per substep: 20 AI hatchbacks on a real
//! tire file's import (Project Chrono's SUV tire), stepped with every term
//! the file gives (`all`, the weighting included), with every term but the
//! weighting (`similarity`: the slips combine by the similarity method),
//! or with the terms added in versions 13 and 14 set to zero as well
//! (`symmetric`, the curves version 12 had).
//! Count each under callgrind and compare the instructions spent in the
//! tire's code (`tire.rs` and `tire/`, whose curves are inlined into the
//! wheel) per car-substep; the runs' trajectories differ, so the whole
//! step's count differs by more than the tire's own work does:
//!
//! ```sh
//! cargo build --release -p skidpad-core --example tire_terms_cpu
//! for terms in all similarity symmetric; do
//!   valgrind --tool=callgrind --callgrind-out-file=/tmp/tire-$terms.out \
//!     target/release/examples/tire_terms_cpu $terms 240
//!   callgrind_annotate /tmp/tire-$terms.out | grep vehicle/tire \
//!     | awk '{gsub(",", "", $1); s += $1} END {print s}'
//! done
//! ```
//!
//! Prints JSON: `stepped_car_substeps` (what the counts divide by) and the
//! wall-clock ns per car-step.

use std::sync::Arc;
use std::time::Instant;

use skidpad_core::{Track, World, WorldConfig, parse_tir, preset};
use skidpad_fixtures::RACING_DT;

const CARS: usize = 20;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let terms = args.first().map_or("", String::as_str).to_owned();
    let (similarity, symmetric) = match terms.as_str() {
        "all" => (false, false),
        "similarity" => (true, false),
        "symmetric" => (true, true),
        _ => {
            eprintln!("usage: tire_terms_cpu all|similarity|symmetric [STEPS]");
            std::process::exit(2);
        }
    };
    let steps: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(240);
    let mut tire = parse_tir(include_str!("../tests/data/tir/suv_Pac02Tire.tir"))
        .expect("the SUV tire imports")
        .parameters;
    if similarity {
        tire.combined_slip = None;
    }
    if symmetric {
        for term in [
            &mut tire.pex2,
            &mut tire.pex3,
            &mut tire.pex4,
            &mut tire.phx1,
            &mut tire.phx2,
            &mut tire.pvx1,
            &mut tire.pvx2,
            &mut tire.pey2,
            &mut tire.pey3,
            &mut tire.phy1,
            &mut tire.phy2,
            &mut tire.pvy1,
            &mut tire.pvy2,
        ] {
            *term = 0.0;
        }
    }
    let mut car = preset("fwd_hatchback").expect("preset");
    car.tires.front = tire.clone();
    car.tires.rear = tire;
    let track = Arc::new(Track::builtin("brandwood").expect("brandwood"));
    let mut world = World::new(WorldConfig::default()).expect("world");
    for k in 0..CARS {
        let pose = skidpad_core::race::pose_along(
            &track,
            track.length() * k as f64 / CARS as f64,
            0.0,
            20.0,
        );
        let id = world.add_car(&car, pose).expect("car");
        world.set_driver(id, Some(track.clone())).expect("driver");
    }
    let substeps_per_step: u64 = world
        .car_ids()
        .collect::<Vec<_>>()
        .into_iter()
        .map(|c| u64::from(world.substeps_for(c, RACING_DT).expect("car")))
        .sum();
    let start = Instant::now();
    for _ in 0..steps {
        world.step(RACING_DT).expect("step");
    }
    let ns = start.elapsed().as_nanos() as f64 / (steps * CARS as u64) as f64;
    println!(
        "{{\"terms\":\"{terms}\",\"stepped_car_substeps\":{},\"ns_per_car_step\":{ns:.1}}}",
        substeps_per_step * steps
    );
}
