//! Live multiplayer on seed 001's wire.
//!
//! The race logic and the wire take bytes and times from their caller:
//!
//! - [`Schema`] (`schema.rs`): the keys a snapshot frame may carry, each
//!   with its block kind, class, typed fields, interpolation, optional tail
//!   and roles, checked when built, with JSON in the seed's property names.
//! - [`encode_frame`] / [`decode_frame`] (`frame.rs`): the binary frame,
//!   canonical, bounded, never panicking; `FORMAT.md` has it byte by byte.
//! - [`race_schema`] (`race_schema.rs`): skidpad's keys for a race (cars,
//!   the player's exact state, contacts, laps, removals) and their rows.
//! - [`Interpolator`] (`interpolation.rs`): draws remote cars at server
//!   time − delay with each field's interpolation.
//! - [`Channel`], [`InputMessage`], [`Command`] (`messages.rs`): the
//!   message channels and the client's numbered inputs.
//! - [`RaceServer`] (`server/`): the authoritative race: seats, input
//!   scheduling, stepping, each player's frame, the start (cars held on
//!   the grid until the seats are taken and the countdown ends); its
//!   settings and reports in `race_config.rs`.
//! - [`NetClient`] (`client.rs`): prediction of the player's car, checked
//!   bit for bit against the server's state, and re-simulation;
//!   [`RaceClient`] (`race_client.rs`): every car predicted from the
//!   server's confirmations (`confirmed.rs`), rolled back to the first
//!   tick guessed wrong and checked against the server's hashes; both
//!   send their inputs through `own_inputs.rs`, and [`Predictor`] is
//!   either; [`AiPilot`] (`pilot.rs`) drives one as the AI would.
//! - [`Link`] (`link.rs`): a seeded link emulator (latency, jitter,
//!   stalls, bounded); [`LoopbackRace`] (`loopback.rs`) runs a whole
//!   online race through it in one process on a virtual clock.
//! - [`leaderboard_entry`] (`entry.rs`): one driver's copy of a race the
//!   server recorded, naming their car for a leaderboard.
//!
//! The I/O around them, with the default feature `service`: `service` (the
//! race over WebSocket, axum), `bot` (a player over WebSocket) and
//! `link_proxy` (the link emulator as a TCP proxy on loopback). Without it
//! the crate builds for wasm32.
//!
//! **Architecture Invariant:** the modules of the first list open no
//! socket, read no clock and start no thread, so the same code runs in the
//! server, a native client, the tests and the browser.
//!
//! A frame of one car, encoded and read back:
//!
//! ```
//! use skidpad_netplay::{Block, CARS_KEY, Frame, Value, decode_frame, encode_frame, race_schema};
//!
//! let schema = race_schema();
//! let mut row = vec![Value::F32(0.0); 9];
//! row[0] = Value::F32(12.3456); // x, m: travels as 12.35
//! row.extend([Value::U8(2), Value::U8(0), Value::U8(0)]); // gear 1, lap 0, flags
//! let frame = Frame { tick: 60, server_time_ms: 1000, blocks: vec![(CARS_KEY, Block::Indexed(vec![(7, Some(row))]))] };
//! let bytes = encode_frame(&schema, &frame)?;
//! let back = decode_frame(&schema, &bytes)?;
//! let Some(Block::Indexed(cars)) = back.block(&schema, "cars") else { unreachable!() };
//! assert_eq!(cars[0].1.as_ref().unwrap()[0], Value::F32(12.35));
//! assert_eq!(encode_frame(&schema, &back)?, bytes, "canonical");
//! # Ok::<(), skidpad_netplay::NetError>(())
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]

#[cfg(feature = "service")]
pub mod bot;
mod client;
mod confirmed;
mod entry;
mod error;
mod frame;
mod interpolation;
mod link;
#[cfg(feature = "service")]
pub mod link_proxy;
mod loopback;
mod messages;
mod own_inputs;
pub mod payloads;
mod pilot;
mod predictor;
mod race_client;
mod race_config;
mod race_schema;
mod schema;
mod server;
#[cfg(feature = "service")]
pub mod service;

pub use client::{MAX_PREDICTED_TICKS, Misprediction, NetClient, PredictionStats};
pub use confirmed::{
    Confirmation, HASHES_KEY, INPUTS_KEY, InputChange, PLACED_KEY, PlacedCar, Placement,
    STATES_KEY, same_input, state_hash,
};
pub use link::{Link, LinkModel};
pub use loopback::{LoopbackPlayer, LoopbackRace, PlayerPlan};
pub use messages::{
    Channel, Command, InputMessage, KeyAction, MAX_COMMAND_NAME, start_inform, start_tick_of,
};
pub use own_inputs::{DEFAULT_LEAD_SAFETY, MAX_LEAD_SAFETY};
pub use race_client::{Centimetres, Desync, MAX_RACE_AHEAD, RaceClient, RaceStats};
pub use race_config::{
    AiStint, DriverToken, HELD_INPUT, MAX_MAP_GROUND_BYTES, Outgoing, RaceConfig, SeatId,
    SeatStanding, SeatStats, ServerStats, held_at, race_ground,
};
pub use server::RaceServer;

pub use entry::{AI_STINTS_KEY, LeaderboardEntry, RecordedStint, leaderboard_entry};
pub use error::{NetError, Result};
pub use frame::{
    Block, Frame, HEADER_LEN, MAX_FRAME_LEN, Row, SNAPSHOT_FORMAT_VERSION, Value, decode_frame,
    encode_frame, round2,
};
pub use interpolation::{EntityKey, InterpolationSettings, Interpolator};
pub use pilot::AiPilot;
pub use predictor::Predictor;
pub use race_schema::{
    CARS_KEY, CONTACT_KEY, CarRow, FIRST_GAME_KEY_ID, LAP_KEY, PLAYER_KEY, PlayerRow, REMOVED_KEY,
    RemovalReason, STATE_WORDS, flags, race_schema,
};
pub use schema::{
    BlockClass, BlockKind, FieldSpec, FieldType, Interp, KeySpec, MAX_FIELDS, MAX_KEY_NAME,
    Precision, Role, Schema,
};
