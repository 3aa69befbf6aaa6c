//! The figures of BENCHMARKS.md's "Every car predicted" from a whole race
//! on the virtual-clock loopback (`LoopbackRace`): 8 players that predict
//! every car (`RaceClient`), in a pack for 3 laps, each link 100 ms ± 20 ms
//! each way, driving as the AI would with a lean into the neighbour after
//! the start. Printed: desyncs, the share of confirmed ticks guessed wrong
//! and of frames that went back, the re-simulated ticks a frame, the
//! corrections (physics and drawn, p50/p99/largest) and the bytes a player
//! receives a second.
//!
//! Run: `cargo run --release -p skidpad-netplay --example whole_race_figures`

use skidpad_core::race::GridLayout;
use skidpad_netplay::{LinkModel, LoopbackRace, PlayerPlan, RaceConfig};

fn lean_left(tick: u32) -> f64 {
    if (60..120).contains(&tick) { -0.3 } else { 0.0 }
}

fn lean_right(tick: u32) -> f64 {
    if (150..200).contains(&tick) { 0.3 } else { 0.0 }
}

fn main() {
    const PLAYERS: usize = 8;
    let config = RaceConfig {
        seat_tokens: (0..PLAYERS).map(|i| format!("token-{i}")).collect(),
        grid: GridLayout {
            column_spacing: 3.5,
            row_spacing: 7.0,
            ..GridLayout::default()
        },
        laps: 3,
        ..RaceConfig::default()
    };
    let plans: Vec<PlayerPlan> = (0..PLAYERS)
        .map(|i| PlayerPlan {
            predict_all: true,
            adaptive_lead: true,
            nudge: if i % 2 == 1 { lean_left } else { lean_right },
            ..PlayerPlan::default()
        })
        .collect();
    let mut race = LoopbackRace::new(config, LinkModel::default(), &plans).expect("a race");
    let finished = race.run_laps(3, 60 * 600).expect("the race runs");
    let seconds = race.server().race_time();
    println!(
        "8 players, 3 laps {}: {seconds:.1} s of race, {} contact episodes",
        if finished { "finished" } else { "NOT finished" },
        race.server().stats().contacts
    );
    let (mut confirmed, mut wrong, mut frames, mut rollbacks, mut again) = (0, 0, 0, 0, 0);
    let mut desyncs = 0;
    for player in race.players() {
        let client = player.race_client().expect("a whole-race client");
        let s = client.stats();
        confirmed += s.confirmed_ticks;
        wrong += s.wrong_ticks;
        frames += s.frames;
        rollbacks += s.rollbacks;
        again += s.resimulated_ticks;
        desyncs += s.desyncs;
        println!(
            "seat {}: corrections {} (p50 {:.2} m, p99 {:.2} m, largest {:.2} m), \
             drawn p50 {:.3} m p99 {:.3} m; {:.0} bytes a second received",
            client.seat(),
            s.corrections.count(),
            s.corrections.quantile(0.5),
            s.corrections.quantile(0.99),
            s.largest_correction,
            s.drawn_corrections.quantile(0.5),
            s.drawn_corrections.quantile(0.99),
            player.frame_bytes as f64 / seconds,
        );
    }
    let share = |a: u64, b: u64| 100.0 * a as f64 / b.max(1) as f64;
    println!(
        "all: {desyncs} desyncs; {:.1} % of confirmed ticks guessed wrong, {:.1} % of frames \
         went back, {:.1} ticks stepped again a frame",
        share(wrong, confirmed),
        share(rollbacks, frames),
        again as f64 / frames.max(1) as f64,
    );
}
