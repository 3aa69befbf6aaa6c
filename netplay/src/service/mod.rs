//! The race as a network service: an axum router with one WebSocket route,
//! `/race`, in front of a [`RaceServer`] stepped on its own thread
//! (`race_loop.rs`); each connection (`connection.rs`) signs in with a seat
//! token, then sends inputs and receives frames, HUD and standings, or
//! with a spectator token, then watches and switches the player it follows
//! (`../payloads.rs` has the JSON channels). `GET /entry` hands each driver
//! their leaderboard entry once the race is over (`entry_desk.rs`).
//!
//! **Architecture Invariant:** the race logic stays in `server/` and
//! knows nothing of sockets; this folder only moves bytes and time.

mod connection;
mod entry_desk;

mod race_loop;
mod recording;

use std::num::NonZeroU32;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use axum::Router;
use axum::extract::{State, WebSocketUpgrade};
use axum::response::Response;
use axum::routing::get;
use skidpad_replay::SealingKey;
use tokio::sync::mpsc;

use crate::error::Result;
use crate::frame::SNAPSHOT_FORMAT_VERSION;
use crate::interpolation::InterpolationSettings;
use crate::messages::Channel;
use crate::payloads::{ClientConfig, json_message};
use crate::race_config::RaceConfig;
use crate::server::RaceServer;
use race_loop::RaceCommand;

/// How the service runs its race and treats its connections.
#[derive(Clone, Debug)]
pub struct ServiceOptions {
    /// The race.
    pub race: RaceConfig,
    /// Simulated seconds per wall-clock second (1: real time).
    pub pace: f64,
    /// Time between pings (seed 001: 3 s).
    pub ping_every: Duration,
    /// Smoothed round-trip time above which a player is kicked (4003),
    /// ms (seed 001: 1 000).
    pub max_latency_ms: f64,
    /// Unanswered pings in a row that kick a player (4004; seed 001: 5).
    pub max_missed_pings: u32,
    /// Refused inputs a connection may send before it is kicked (4006).
    pub max_refused_inputs: u32,
    /// Largest message a client may send, bytes; a larger one closes the
    /// connection. An input is 30 bytes, a sign-in a few hundred.
    pub max_message_bytes: usize,
    /// How long a client may take to answer the sign-in form.
    pub auth_timeout: Duration,
    /// The delay and frame age the clients are told to draw with.
    pub interpolation: InterpolationSettings,
    /// Where to record the race (`race-NNN.sks` streams, and `race-NNN.skr` replays once over), if anywhere.
    pub record: Option<PathBuf>,
    /// The race server's sealing key: each driver's entry (`GET /entry`)
    /// carries its seal, so a leaderboard trusting the key ranks it under
    /// the driver's name. Without it the entries are unsealed.
    pub seal_key: Option<Arc<SealingKey>>,
    /// Tokens that sign in a spectator: no car, the frames without a
    /// player block, and `nextPlayer` / `prevPlayer` to switch the player
    /// whose HUD it is sent. A token may be used by several spectators;
    /// one that is also a seat's signs in a spectator (the binary refuses
    /// such a pair).
    pub spectator_tokens: Vec<String>,
    /// Spectators connected at once, at most (4002 past it).
    pub max_spectators: usize,
    /// Commands (seed 001's key strings) a connection may send back to
    /// back (default 10). A person pressing N and P never comes near; a
    /// flood beyond it is dropped, not a violation, so it costs the race
    /// loop nothing.
    pub command_burst: NonZeroU32,
    /// Commands a second a connection earns back (default 20).
    pub commands_per_second: NonZeroU32,
}

impl Default for ServiceOptions {
    fn default() -> Self {
        ServiceOptions {
            race: RaceConfig::default(),
            pace: 1.0,
            ping_every: Duration::from_secs(3),
            max_latency_ms: 1000.0,
            max_missed_pings: 5,
            max_refused_inputs: 120,
            max_message_bytes: 4096,
            auth_timeout: connection::DEFAULT_AUTH_TIMEOUT,
            interpolation: InterpolationSettings::default(),
            record: None,
            seal_key: None,
            spectator_tokens: Vec::new(),
            max_spectators: 64,
            command_burst: NonZeroU32::new(10).unwrap_or(NonZeroU32::MIN),
            commands_per_second: NonZeroU32::new(20).unwrap_or(NonZeroU32::MIN),
        }
    }
}

/// What every connection shares.
pub(crate) struct Shared {
    commands: mpsc::Sender<RaceCommand>,
    config_message: Vec<u8>,
    options: ServiceOptions,
    entries: Arc<entry_desk::EntryDesk>,
}

/// A running race: the router that serves it and its thread.
pub struct RaceService {
    /// Serves `/race` and `/entry`.
    pub router: Router,
    thread: Option<JoinHandle<()>>,
    stop: Arc<AtomicBool>,
}

impl RaceService {
    /// Stops the race after its current tick, finishes its recording and
    /// waits for its thread.
    pub fn stop(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Builds the race, starts its thread and returns the router that serves
/// it. The race runs until [`RaceService::stop`] (or every router clone
/// and connection is gone).
pub fn race_service(options: ServiceOptions) -> Result<RaceService> {
    let race = RaceServer::new(options.race.clone())?;
    let config = ClientConfig {
        snapshot_format_version: SNAPSHOT_FORMAT_VERSION,
        tick_hz: options.race.tick_hz,
        ticks_per_frame: options.race.ticks_per_frame,
        max_input_lead: options.race.max_input_lead,
        interpolation_delay_ms: options.interpolation.delay_ms,
        max_frame_age_ms: options.interpolation.max_frame_age_ms,
        schema: serde_json::from_str(&race.schema().to_json()).expect("the schema's JSON parses"),
        entries: options.record.is_some(),
    };
    let (commands, receiver) = mpsc::channel(1024);
    let pace = options.pace;
    // The recorder is made on the race's thread (it is not Send).
    let record = options.record.clone();
    let watching = race_loop::Watching {
        tokens: options.spectator_tokens.clone(),
        most: options.max_spectators,
    };
    let entries = Arc::new(entry_desk::EntryDesk::new(
        options.seal_key.clone(),
        options.record.is_some(),
    ));
    let desk = entries.clone();
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = stop.clone();
    let thread = std::thread::Builder::new()
        .name("skidpad-race".into())
        .spawn(move || {
            let recording = record.map(recording::Recording::new);
            race_loop::run(race, receiver, pace, &watching, recording, &desk, stopping);
        })
        .map_err(|e| crate::NetError::Refused {
            reason: format!("cannot start the race thread: {e}"),
        })?;
    let shared = Arc::new(Shared {
        commands,
        config_message: json_message(Channel::Config, &config),
        options,
        entries,
    });
    Ok(RaceService {
        router: Router::new()
            .route("/race", get(upgrade))
            .route(
                "/entry",
                get(entry_desk::get_entry).layer(entry_desk::cross_origin()),
            )
            .with_state(shared),
        thread: Some(thread),
        stop,
    })
}

/// How many times the message limit the WebSocket layer reads before it
/// gives up on a message.
const TRANSPORT_SLACK: usize = 64;

async fn upgrade(State(shared): State<Arc<Shared>>, ws: WebSocketUpgrade) -> Response {
    // The transport reads up to this much, so that a message over the
    // protocol's limit is answered with a 4005 naming its size rather
    // than a dropped connection; still bounded per connection.
    let limit = shared
        .options
        .max_message_bytes
        .saturating_mul(TRANSPORT_SLACK);
    ws.max_message_size(limit)
        .max_frame_size(limit)
        .on_upgrade(move |socket| connection::serve(socket, shared))
}
