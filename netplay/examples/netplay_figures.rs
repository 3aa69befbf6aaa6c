//! The multiplayer figures of BENCHMARKS.md ("Live multiplayer"), from
//! whole races on the virtual-clock loopback (`LoopbackRace`), so they do
//! not depend on the machine's timers or network:
//!
//! - wire bytes per remote car per second at 30 frames a second, from the
//!   frames 8- and 20-player races actually sent;
//! - the server's CPU per second of race for 8, 32 and 64 players (one
//!   thread: the inputs taken, the step, the frames built), as a share of
//!   one core;
//! - the client's CPU per frame (two predicted ticks and one check) and
//!   for a reconciliation after a misprediction;
//! - input-to-acknowledgement latency with 0 and 100 ms ± 20 ms links.
//!
//! Run: `cargo run --release -p skidpad-netplay --example netplay_figures`

use std::time::Duration;

use cpu_time::ThreadTime;
use skidpad_core::race::GridLayout;
use skidpad_core::{CarInput, WorldConfig};
use skidpad_netplay::{
    Block, LinkModel, LoopbackRace, NetClient, PLAYER_KEY, PlayerPlan, RaceConfig, RaceServer,
    Value, decode_frame,
};

const TICK_HZ: f64 = 60.0;

fn config(players: usize) -> RaceConfig {
    RaceConfig {
        seat_tokens: (0..players).map(|i| format!("token-{i}")).collect(),
        grid: GridLayout {
            columns: 2,
            ..GridLayout::default()
        },
        laps: 100,
        ..RaceConfig::default()
    }
}

fn race(players: usize, link: LinkModel, adaptive: bool) -> LoopbackRace {
    let plan = PlayerPlan {
        adaptive_lead: adaptive,
        lead_ticks: if adaptive { 40 } else { 17 },
        ..PlayerPlan::default()
    };
    LoopbackRace::new(config(players), link, &vec![plan; players]).expect("a race")
}

/// Mean frame bytes one player received over `ticks` ticks of racing.
fn mean_frame_bytes(players: usize, ticks: u32) -> f64 {
    let mut race = race(
        players,
        LinkModel {
            latency_ms: 0.0,
            jitter_ms: 0.0,
            ..LinkModel::default()
        },
        false,
    );
    for _ in 0..ticks {
        race.tick().expect("a tick");
    }
    let p = &race.players()[0];
    p.frame_bytes as f64 / p.frames as f64
}

/// Server CPU per tick (inputs, step, frames) with `players`, µs.
fn server_us_per_tick(players: usize, ticks: u32) -> f64 {
    let mut race = race(players, LinkModel::default(), false);
    // Everyone seated and moving first.
    for _ in 0..120 {
        race.tick().expect("a tick");
    }
    let mut server = Duration::ZERO;
    for _ in 0..ticks {
        let t = ThreadTime::now();
        race.deliver_inputs().expect("inputs");
        race.step_server().expect("a step");
        server += t.elapsed();
        race.run_clients().expect("clients");
    }
    server.as_secs_f64() * 1e6 / f64::from(ticks)
}

/// Client CPU: per frame (two ticks predicted, one check that matches),
/// and per reconciliation of `lead` ticks, µs.
fn client_us(lead: u32, frames: u32) -> (f64, f64) {
    let mut server = RaceServer::new(config(1)).expect("a server");
    let seat = server.join("token-0", "me").expect("a seat");
    let mut shots = Vec::new();
    while shots.is_empty() {
        shots = server.step().expect("a step");
    }
    let first = decode_frame(server.schema(), &shots[0].frame).expect("a frame");
    let def = skidpad_core::preset("rwd_sports").expect("a preset");
    let dt = 1.0 / TICK_HZ;
    let ground = server.world().ground().clone();
    // A client from the first shot, predicted to `tick` + lead.
    let client_at = |tick: u32| {
        let mut c = NetClient::new(WorldConfig::default(), ground.clone(), &def, dt, &first)
            .expect("a client");
        c.advance_to(tick + lead).expect("the lead");
        c
    };
    let mut client = client_at(first.tick);
    let input = CarInput {
        throttle: 0.8,
        steer: 0.05,
        ..CarInput::default()
    };
    let (mut per_frame, mut reconcile) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..frames {
        let t = ThreadTime::now();
        let sent = [
            client.drive(input).expect("a tick"),
            client.drive(input).expect("a tick"),
        ];
        per_frame += t.elapsed();
        for m in sent {
            server.input(seat, m).expect("an input");
        }
        let mut out = Vec::new();
        while out.is_empty() {
            out = server.step().expect("a step");
        }
        let frame = decode_frame(server.schema(), &out[0].frame).expect("a frame");
        let t = ThreadTime::now();
        let miss = client.on_frame(&frame).expect("a check");
        per_frame += t.elapsed();
        assert!(miss.is_none(), "the prediction is exact");
        // The same frame with one bit of the car's state changed: the
        // client re-simulates its lead.
        let mut wrong = frame.clone();
        if let Some((_, Block::Indexed(rows))) =
            wrong.blocks.iter_mut().find(|(k, _)| *k == PLAYER_KEY)
            && let Some(row) = rows[0].1.as_mut()
            && let Value::U32(w) = &mut row[10]
        {
            *w ^= 1;
        }
        let mut twin = client_at(frame.tick);
        let t = ThreadTime::now();
        let _ = twin.on_frame(&wrong).expect("a reconciliation");
        reconcile += t.elapsed();
    }
    let n = f64::from(frames);
    (
        per_frame.as_secs_f64() * 1e6 / n,
        reconcile.as_secs_f64() * 1e6 / n,
    )
}

/// Median and 95th percentile of input-to-acknowledgement latency, ms,
/// over the second half of `ticks` (the first lets the leads settle).
fn ack_latency(link: LinkModel, ticks: u32) -> (f64, f64) {
    let mut race = race(2, link, true);
    for _ in 0..ticks / 2 {
        race.tick().expect("a tick");
    }
    let settled: Vec<usize> = race
        .players()
        .iter()
        .map(|p| p.ack_latencies_ms.len())
        .collect();
    for _ in 0..ticks / 2 {
        race.tick().expect("a tick");
    }
    let mut all: Vec<f64> = race
        .players()
        .iter()
        .zip(settled)
        .flat_map(|(p, from)| p.ack_latencies_ms[from..].iter().copied())
        .collect();
    all.sort_by(f64::total_cmp);
    let at = |q: f64| all[((all.len() - 1) as f64 * q) as usize];
    (at(0.5), at(0.95))
}

fn main() {
    println!("| figure | value |");
    println!("|---|---:|");
    let one = mean_frame_bytes(1, 600);
    for players in [8, 20] {
        let frame = mean_frame_bytes(players, 600);
        let per_car = (frame - one) / (players - 1) as f64 * 30.0;
        println!("| frame bytes per player, {players} players (30 Hz) | {frame:.0} |");
        println!("| wire bytes per remote car per second, {players} players | {per_car:.0} |");
    }
    for players in [8, 32, 64] {
        let us = server_us_per_tick(players, 600);
        println!("| server CPU per tick, {players} players, µs | {us:.0} |");
        println!(
            "| server share of one core at 60 Hz, {players} players | {:.1} % |",
            us * TICK_HZ / 1e4
        );
    }
    for lead in [6, 24] {
        let (frame, reconcile) = client_us(lead, 300);
        println!(
            "| client CPU per frame (2 ticks predicted, 1 check), lead {lead} ticks, µs | {frame:.0} |"
        );
        println!(
            "| client reconciliation after a misprediction, lead {lead} ticks, µs | {reconcile:.0} |"
        );
    }
    let still = LinkModel {
        latency_ms: 0.0,
        jitter_ms: 0.0,
        ..LinkModel::default()
    };
    for (name, link) in [("0 ms", still), ("100 ms ± 20 ms", LinkModel::default())] {
        let (median, p95) = ack_latency(link, 60 * 120);
        println!(
            "| input to acknowledgement, link {name} each way: median / p95, ms | {median:.0} / {p95:.0} |"
        );
    }
}
