//! Races AI cars of mixed presets around the built-in track, on the
//! track's own surface (kerbs, grass run-off, barriers) from the starting
//! grid, times them with the race layer, checks that every car stays
//! inside the barriers, and prints the standings with lap times, contacts
//! and the final world hash. The AI drivers do not avoid each
//! other, so the cars bump at the start and may be pushed onto the grass;
//! they back out of the barriers (`DriverStyle::backs_out`).
//!
//! Run: `cargo run --release -p skidpad-examples --example race`

use std::sync::Arc;

use skidpad_core::hex;
use skidpad_core::race::{CarStatus, GridLayout, RaceRules, RaceTiming, grid_pose};
use skidpad_core::{DriverStyle, KERB_WIDTH, RUNOFF_WIDTH, Track, World, WorldConfig, preset};

const CARS: usize = 6;
const LAPS: u32 = 3;
const DT: f64 = 1.0 / 60.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let track = Arc::new(Track::builtin("brandwood")?);
    let mut world = World::new(WorldConfig::default())?;
    world.set_ground(Arc::new(track.ground()?))?;
    let names = ["fwd_hatchback", "rwd_sports"];
    for k in 0..CARS {
        let def = preset(names[k % names.len()])?;
        let id = world.add_car(&def, grid_pose(&track, k, &GridLayout::default()))?;
        // A car pushed into a barrier must back out to finish (the default
        // driver keeps its nose there: at simulation version 6 one car sat
        // against the wall for the rest of the race).
        let style = DriverStyle {
            backs_out: true,
            ..DriverStyle::default()
        };
        world.set_driver_with_style(id, Some(track.clone()), style)?;
    }

    // Laps, finishing order and gaps: the race layer, as every skidpad
    // tool times them.
    let rules = RaceRules {
        laps: Some(LAPS),
        ..RaceRules::default()
    };
    let mut race = RaceTiming::new(track.clone(), rules, &world);
    let ids: Vec<_> = world.car_ids().collect();
    let mut worst_offset: f64 = 0.0;
    let (mut off_road, mut contacts) = (0_u64, 0_u64);
    let half_width = track.width() / 2.0;
    // The centre of mass stays half a car's width inside the barriers.
    let barriers = half_width + KERB_WIDTH + RUNOFF_WIDTH;
    let limit = (f64::from(LAPS) * 200.0 / DT) as u64;
    let running = |race: &RaceTiming| {
        race.standings()
            .iter()
            .any(|s| s.status == CarStatus::Running)
    };
    while running(&race) && world.step_count() < limit {
        world.step(DT)?;
        race.after_step(&world)?;
        contacts += world.contacts().len() as u64;
        for &id in &ids {
            let here = track.locate(world.pose(id)?.position.truncate());
            worst_offset = worst_offset.max(here.offset.abs());
            off_road += u64::from(here.offset.abs() > half_width + KERB_WIDTH);
        }
    }

    println!(
        "{} cars, {} laps of {} ({:.0} m); lap 1 from the standing start, * = invalid lap",
        CARS,
        LAPS,
        track.name(),
        track.length()
    );
    for s in race.standings() {
        let k = s.car.to_raw() as usize;
        let times: Vec<String> = race
            .laps(s.car)
            .unwrap_or_default()
            .iter()
            .map(|l| format!("{:7.2}{}", l.time(), if l.is_valid() { "s" } else { "*" }))
            .collect();
        let gap = s.gap.map_or(String::new(), |g| format!("+{g:.3} s"));
        println!(
            "P{} car {k} {:<15} {}  {gap}",
            s.position,
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
    if running(&race) {
        return Err("not every car finished".into());
    }
    Ok(())
}
