//! The figures of BENCHMARKS.md's "Every car predicted" from a whole race
//! on the virtual-clock loopback (`LoopbackRace`): 8 players that predict
//! every car (`RaceClient`), in a pack for 3 minutes of racing, each link
//! 100 ms ± 20 ms each way without losses and with 2 % (each made good as
//! TCP does, `LinkModel::loss`), driving as the AI would with a lean into
//! the neighbour after the start. Printed: desyncs, the share of confirmed ticks guessed wrong
//! and of frames that went back, the re-simulated ticks a frame, the
//! corrections (physics and drawn, p50/p99/largest) and the bytes a player
//! receives a second. Then the server's CPU a tick with 8, 32 and 64
//! players whose inputs change at every tick, every player predicting its
//! own car and every player predicting every car (the confirmations, the
//! hashes and each player's larger frame): the cost of the mode.
//!
//! Run: `cargo run --release -p skidpad-netplay --example whole_race_figures`
//! (`-- server`: the server's figures only).

use cpu_time::ThreadTime;
use skidpad_core::CarInput;
use skidpad_core::race::GridLayout;
use skidpad_netplay::{
    InputMessage, LinkModel, LoopbackRace, PlayerPlan, RaceConfig, RaceServer, SeatId,
};

fn lean_left(tick: u32) -> f64 {
    if (60..120).contains(&tick) { -0.3 } else { 0.0 }
}

fn lean_right(tick: u32) -> f64 {
    if (150..200).contains(&tick) { 0.3 } else { 0.0 }
}

/// The server's thread CPU a tick, µs, over `ticks` ticks of `players`
/// seats whose inputs change at every tick (a steering sweep each, out of
/// step with the others), all predicting every car or none.
fn server_us_per_tick(players: usize, all: bool, ticks: u32) -> f64 {
    let config = RaceConfig {
        seat_tokens: (0..players).map(|i| format!("token-{i}")).collect(),
        laps: 100,
        ..RaceConfig::default()
    };
    let mut server = RaceServer::new(config).expect("a race");
    for i in 0..players {
        let seat = server.join(&format!("token-{i}"), "p").expect("a seat");
        server.set_predicts_all(seat, all).expect("a seat");
    }
    let mut spent = std::time::Duration::ZERO;
    for tick in 1..=ticks {
        let started = ThreadTime::now();
        for seat in 0..players {
            // A triangle sweep of the wheel, ±0.3, 90 ticks a period.
            let phase = (tick as usize + seat * 7) % 90;
            let steer = (phase as f64 / 45.0 - 1.0).abs() * 0.6 - 0.3;
            let input = CarInput {
                throttle: 0.6,
                steer,
                ..CarInput::default()
            };
            let message = InputMessage {
                seq: tick,
                tick: server.tick() + 1,
                input,
            };
            server.input(SeatId(seat as u8), message).expect("an input");
        }
        server.step().expect("a step");
        spent += started.elapsed();
    }
    spent.as_secs_f64() * 1e6 / f64::from(ticks)
}

fn main() {
    if std::env::args().nth(1).as_deref() != Some("server") {
        pack_race(LinkModel::default());
        pack_race(LinkModel {
            loss: 0.02,
            ..LinkModel::default()
        });
    }
    for players in [8, 32, 64] {
        let own = server_us_per_tick(players, false, 1200);
        let all = server_us_per_tick(players, true, 1200);
        println!(
            "server, {players} players: {own:.0} µs a tick predicting their own car, \
             {all:.0} µs predicting every car ({:.1} % and {:.1} % of a core at 60 ticks)",
            own * 60.0 / 1e4,
            all * 60.0 / 1e4,
        );
    }
}

/// 8 players in a pack for 3 minutes, every car predicted: the
/// prediction's figures.
fn pack_race(link: LinkModel) {
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
    let mut race = LoopbackRace::new(config, link, &plans).expect("a race");
    race.run_laps(3, 60 * 180).expect("the race runs");
    let seconds = race.server().race_time();
    println!(
        "8 players, {:.0} % loss: {seconds:.1} s of race, {} contact episodes",
        link.loss * 100.0,
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
