//! Races AI cars of mixed presets around the built-in track, on the
//! track's own surface (kerbs, grass run-off, barriers), counts laps,
//! checks that every car stays inside the barriers, and prints lap times,
//! contacts and the final world hash. The AI drivers do not avoid each
//! other, so the cars bump at the start and may be pushed onto the grass;
//! they back out of the barriers (`DriverStyle::backs_out`).
//!
//! Run: `cargo run --release -p skidpad-examples --example race`

use std::sync::Arc;

use skidpad_core::hex;
use skidpad_core::{
    DriverStyle, InitialPose, KERB_WIDTH, RUNOFF_WIDTH, Track, World, WorldConfig, preset,
};

const CARS: usize = 6;
const LAPS: usize = 3;
const DT: f64 = 1.0 / 60.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let track = Arc::new(Track::builtin("brandwood")?);
    let mut world = World::new(WorldConfig::default())?;
    world.set_ground(Arc::new(track.ground()?))?;
    let names = ["fwd_hatchback", "rwd_sports"];
    for k in 0..CARS {
        let def = preset(names[k % names.len()])?;
        let lane = if k % 2 == 0 { 2.5 } else { -2.5 };
        let id = world.add_car(
            &def,
            InitialPose {
                x: 60.0 - 10.0 * k as f64,
                y: lane,
                yaw: 0.0,
                speed: 0.0,
            },
        )?;
        // A car pushed into a barrier must back out to finish (the default
        // driver keeps its nose there: at simulation version 6 one car sat
        // against the wall for the rest of the race).
        let style = DriverStyle {
            backs_out: true,
            ..DriverStyle::default()
        };
        world.set_driver_with_style(id, Some(track.clone()), style)?;
    }

    let ids: Vec<_> = world.car_ids().collect();
    let mut last_distance: Vec<f64> = vec![0.0; CARS];
    let mut lap_start = [0.0; CARS];
    let mut behind = [0_u32; CARS];
    let mut laps: Vec<Vec<f64>> = vec![Vec::new(); CARS];
    let mut worst_offset: f64 = 0.0;
    let (mut off_road, mut contacts) = (0_u64, 0_u64);
    let half_width = track.width() / 2.0;
    // The centre of mass stays half a car's width inside the barriers.
    let barriers = half_width + KERB_WIDTH + RUNOFF_WIDTH;
    let limit = (LAPS as f64 * 200.0 / DT) as u64;
    let start_distance: Vec<f64> = ids
        .iter()
        .map(|&id| {
            let p = world.pose(id).map(|p| p.position).unwrap_or_default();
            track.locate(p.truncate()).distance
        })
        .collect();
    last_distance.copy_from_slice(&start_distance);
    while laps.iter().any(|l| l.len() < LAPS) && world.step_count() < limit {
        world.step(DT)?;
        contacts += world.contacts().len() as u64;
        let t = world.step_count() as f64 * DT;
        for (k, &id) in ids.iter().enumerate() {
            let here = track.locate(world.pose(id)?.position.truncate());
            worst_offset = worst_offset.max(here.offset.abs());
            off_road += u64::from(here.offset.abs() > half_width + KERB_WIDTH);
            // A lap ends when the car passes its own starting distance.
            let s0 = start_distance[k];
            let before = (last_distance[k] - s0).rem_euclid(track.length());
            let after = (here.distance - s0).rem_euclid(track.length());
            // A car pushed back over its line must cross it forward again
            // before a crossing ends a lap.
            if before < 0.1 * track.length() && after > 0.9 * track.length() {
                behind[k] += 1;
            } else if before > 0.9 * track.length() && after < 0.1 * track.length() {
                if behind[k] > 0 {
                    behind[k] -= 1;
                } else {
                    laps[k].push(t - lap_start[k]);
                    lap_start[k] = t;
                }
            }
            last_distance[k] = here.distance;
        }
    }

    println!(
        "{} cars, {} laps of {} ({:.0} m)",
        CARS,
        LAPS,
        track.name(),
        track.length()
    );
    for (k, l) in laps.iter().enumerate() {
        let times: Vec<String> = l.iter().map(|t| format!("{t:7.2} s")).collect();
        println!(
            "car {k} {:<15} {}",
            names[k % names.len()],
            times.join("  ")
        );
    }
    println!(
        "largest distance from the centre line: {worst_offset:.2} m (road {half_width} m, barriers {barriers} m)"
    );
    println!("car-steps beyond the kerbs: {off_road}; contacts: {contacts}");
    println!(
        "steps: {}, world hash: {}",
        world.step_count(),
        hex(&world.world_hash())
    );
    if worst_offset > barriers {
        return Err("a car went through a barrier".into());
    }
    if laps.iter().any(|l| l.len() < LAPS) {
        return Err("not every car finished".into());
    }
    Ok(())
}
