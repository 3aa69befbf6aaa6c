//! The whole-race client's cost per frame (BENCHMARKS.md, "Every car
//! predicted"), natively, and a session for the wasm twin
//! (`bindings-wasm/bench/race_client.mjs`): a race of N cars where the
//! server's AI drives every car but the measured player's (their players
//! are away), so the client's guess for them is wrong at every tick and
//! every frame goes back its whole lead, `LEAD` ticks and the frame's two.
//! The player drives the script the wasm session test drives.
//!
//! Run: `cargo run --release -p skidpad-netplay --example race_client_session -- CARS [OUT]`
//! (OUT: the session file, records of `u8 kind`, `u32` little-endian
//! length, the bytes; kind 0 the map message's JSON, 1 the first shot's
//! payload, 2 a shot's payload).

use std::time::Instant;

use cpu_time::ThreadTime;
use skidpad_core::{CarInput, WorldConfig, preset};
use skidpad_netplay::{RaceClient, RaceConfig, RaceServer, SeatId, decode_frame};

/// Ticks the client runs ahead of the server: what it steps again at each
/// frame, with the frame's own two.
const LEAD: u32 = 10;
/// Ticks measured after the first shot.
const TICKS: u32 = 600;

/// The wasm session test's driver: full throttle, the wheel left, centre,
/// right and centre in 40-tick spells.
fn input_at(tick: u32) -> CarInput {
    let steer = [-0.25, 0.0, 0.25, 0.0][(tick / 40 % 4) as usize];
    CarInput {
        throttle: 1.0,
        steer,
        ..CarInput::default()
    }
}

fn record(out: &mut Vec<u8>, kind: u8, bytes: &[u8]) {
    out.push(kind);
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let cars: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .filter(|n| (2..=64).contains(n))
        .expect("usage: race_client_session CARS(2-64) [OUT]");
    let out_path = args.next();
    let config = RaceConfig {
        seat_tokens: (0..cars).map(|i| format!("token-{i}")).collect(),
        laps: 5,
        ..RaceConfig::default()
    };
    let map = serde_json::json!({
        "track": config.track, "car": config.car, "laps": config.laps, "seat": 0,
    });
    let mut server = RaceServer::new(config).expect("a race");
    for i in 0..cars {
        server.join(&format!("token-{i}"), "p").expect("a seat");
    }
    // Everyone but seat 0 is away: the server's AI drives their cars.
    for seat in 1..cars {
        server.drop_link(SeatId(seat as u8)).expect("held seat");
    }
    server.set_predicts_all(SeatId(0), true).expect("seat 0");
    let mut session = Vec::new();
    record(&mut session, 0, map.to_string().as_bytes());
    let first = loop {
        if let Some(shot) = server.step().expect("a step").into_iter().next() {
            break shot;
        }
    };
    record(&mut session, 1, &first.frame);
    let frame = decode_frame(server.schema(), &first.frame).expect("a frame");
    let def = preset(&server.config().car).expect("the preset");
    let ground = server.world().ground().clone();
    let mut client = RaceClient::new(
        WorldConfig::default(),
        ground,
        &def,
        server.dt(),
        server.config().ticks_per_frame,
        &frame,
    )
    .expect("a client");
    client.advance_to(frame.tick + LEAD).expect("ahead");
    let (mut spent, mut frames) = (std::time::Duration::ZERO, 0_u32);
    let wall = Instant::now();
    for _ in 0..TICKS {
        let started = ThreadTime::now();
        let message = client.drive(input_at(client.tick() + 1)).expect("a tick");
        spent += started.elapsed();
        server.input(SeatId(0), message).expect("an input");
        for shot in server.step().expect("a step") {
            record(&mut session, 2, &shot.frame);
            let frame = decode_frame(server.schema(), &shot.frame).expect("a frame");
            let started = ThreadTime::now();
            let desync = client.on_frame(&frame).expect("confirmed");
            spent += started.elapsed();
            assert!(desync.is_none(), "{desync:?}");
            frames += 1;
        }
    }
    let stats = client.stats();
    assert_eq!(stats.rollbacks, u64::from(frames), "every frame goes back");
    println!(
        "{cars} cars: native client {:.0} µs a frame (2 ticks predicted, {:.1} stepped again), \
         {} frames, {:.1} s wall",
        spent.as_secs_f64() * 1e6 / f64::from(frames),
        stats.resimulated_ticks as f64 / f64::from(frames),
        frames,
        wall.elapsed().as_secs_f64(),
    );
    if let Some(path) = out_path {
        std::fs::write(&path, &session).expect("the session written");
        println!("session: {path} ({} bytes)", session.len());
    }
}
