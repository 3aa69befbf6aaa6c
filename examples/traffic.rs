//! Prints `VALIDATION.md`'s traffic table: fields of 6 to 64 AI cars for
//! three laps of each built-in track's surface, drivers alone and with
//! racecraft (skills from seed 1, a stuck car reset after 10 s), finishing
//! cars, DNFs, resets, rollovers, laps and contacts
//! (`skidpad_examples::traffic_stats`). `-- TRACK CARS` runs one field only.
//!
//! `cargo run --release -p skidpad-examples --example traffic`

use skidpad_examples::traffic_stats::{HARD_IMPULSE, TrafficRace, run};

const SEED: u64 = 1;
const LAPS: u32 = 3;
/// Racecraft drivers reset a car stuck this long, s (as `skidpad demo`'s).
const RESET_AFTER: f64 = 10.0;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let fields: Vec<(String, usize)> = match args.as_slice() {
        [track, cars] => vec![(track.clone(), cars.parse().map_err(|e| format!("{e}"))?)],
        [] => ["brandwood", "hillcrest"]
            .iter()
            .flat_map(|t| [6, 12, 20, 30, 40, 64].map(|n| ((*t).to_owned(), n)))
            .collect(),
        _ => return Err("usage: traffic [TRACK CARS]".into()),
    };
    println!(
        "| track | cars | drivers | finished | DNF | resets | rollovers | car-laps | invalid laps | contacts | hard (≥ {HARD_IMPULSE} N·s) | hard per car-lap | hard body–ground | places gained | steps |"
    );
    println!("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (track, cars) in fields {
        for racecraft in [None, Some(SEED)] {
            let stats = run(&TrafficRace {
                track: track.clone(),
                cars,
                laps: LAPS,
                racecraft,
                resets_after: racecraft.map(|_| RESET_AFTER),
            })?;
            println!(
                "| {track} | {cars} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.3} | {} | {} | {} |",
                if racecraft.is_some() {
                    "racecraft"
                } else {
                    "alone"
                },
                stats.finished,
                stats.dnf,
                stats.resets,
                stats.rollovers,
                stats.car_laps,
                stats.invalid_laps,
                stats.contacts,
                stats.hard_contacts,
                stats.hard_per_car_lap(),
                stats.hard_ground,
                stats.places_gained,
                stats.steps
            );
        }
    }
    Ok(())
}
