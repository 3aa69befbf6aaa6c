//! A recorded session between this native server and a native client, the
//! fixture the wasm package's test replays (`bindings-wasm/tests/
//! netplay.test.mjs`): the browser's client must send the same input bytes
//! and predict every state of the native server bit for bit.
//!
//! The file is rebuilt here on every run and must equal the committed one;
//! a change of simulated bits (a new `SIMULATION_VERSION`) changes it, and
//! `SKIDPAD_WRITE_FIXTURES=1 cargo test -p skidpad-netplay --test
//! wasm_session` writes the new one.
//!
//! Layout: records of `u8 kind`, `u32` little-endian length, the bytes;
//! kind 0 the first shot's payload, 1 an input message the client sent
//! (channel byte included), 2 a shot's payload.

use skidpad_core::{CarInput, WorldConfig, preset};
use skidpad_netplay::{Channel, NetClient, RaceConfig, RaceServer, decode_frame};

/// Ticks the client starts ahead of its first shot.
const LEAD: u32 = 4;
/// Ticks the session lasts after the first shot.
const TICKS: u32 = 240;

/// The scripted driver, also written in the JS test: full throttle, the
/// wheel left, centre, right and centre in 40-tick spells (values exact in
/// binary, so both languages make the same input).
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

fn session() -> Vec<u8> {
    let config = RaceConfig {
        seat_tokens: vec!["token".into()],
        laps: 1,
        ..RaceConfig::default()
    };
    let mut server = RaceServer::new(config).unwrap();
    let seat = server.join("token", "wasm").unwrap();
    let mut shots = Vec::new();
    while shots.is_empty() {
        shots = server.step().unwrap();
    }
    let mut out = Vec::new();
    record(&mut out, 0, &shots[0].frame);
    let first = decode_frame(server.schema(), &shots[0].frame).unwrap();
    let def = preset(&server.config().car).unwrap();
    let ground = server.world().ground().clone();
    let mut client =
        NetClient::new(WorldConfig::default(), ground, &def, server.dt(), &first).unwrap();
    client.advance_to(first.tick + LEAD).unwrap();
    for _ in 0..TICKS {
        let message = client.drive(input_at(client.tick() + 1)).unwrap();
        let mut bytes = vec![Channel::Input as u8];
        bytes.extend_from_slice(&message.encode());
        record(&mut out, 1, &bytes);
        server.input(seat, message).unwrap();
        for shot in server.step().unwrap() {
            let frame = decode_frame(server.schema(), &shot.frame).unwrap();
            assert!(
                client.on_frame(&frame).unwrap().is_none(),
                "the native prediction is exact"
            );
            record(&mut out, 2, &shot.frame);
        }
    }
    assert!(client.stats().checked > 100);
    out
}

#[test]
fn the_wasm_packages_session_fixture_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bindings-wasm/tests/data/netplay_session.bin");
    let now = session();
    if std::env::var_os("SKIDPAD_WRITE_FIXTURES").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &now).unwrap();
    }
    let committed = std::fs::read(&path)
        .expect("the fixture is committed (SKIDPAD_WRITE_FIXTURES=1 writes it)");
    assert!(
        committed == now,
        "{} is stale: SKIDPAD_WRITE_FIXTURES=1 cargo test -p skidpad-netplay --test wasm_session",
        path.display()
    );
}
