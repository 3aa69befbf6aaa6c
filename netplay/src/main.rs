//! `skidpad-netplay`: the live race server (`serve`), a bot player
//! (`bot`) and the link emulator (`link`). `netplay/README.md` shows them
//! together.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use rand::RngCore;
use skidpad_netplay::bot::{BotOptions, run_bot};
use skidpad_netplay::link_proxy::run_link_proxy;
use skidpad_netplay::service::{ServiceOptions, race_service};
use skidpad_netplay::{LinkModel, RaceConfig};
use skidpad_replay::SealingKey;

mod race_files;

#[derive(Parser)]
#[command(
    name = "skidpad-netplay",
    version,
    about = "Live multiplayer races on seed 001's wire"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a race server: players sign in over WebSocket at /race.
    Serve(ServeArgs),
    /// Race one AI bot against a server and print its report as JSON.
    Bot(BotArgs),
    /// Delay a TCP connection's bytes: latency, jitter, stalls (loopback
    /// testing).
    Link(LinkArgs),
    /// Write one driver's leaderboard entry of a race this server recorded
    /// (its `race-NNN.skr`, or the `race-NNN.sks` stream): the replay with `player` and
    /// `player_car` naming the driver and their car, to submit under the
    /// driver's leaderboard token (`POST /runs`).
    Entry(EntryArgs),
    /// Make a sealing key pair: the secret goes to a new file (readable by
    /// its owner only) and the public key a leaderboard trusts is printed.
    Keygen(KeygenArgs),
}

#[derive(Args)]
struct KeygenArgs {
    /// The secret key file to create (never overwritten).
    #[arg(long, short)]
    out: PathBuf,
}

#[derive(Args)]
struct EntryArgs {
    /// The recorded race: the `.skr` the server wrote when it was over (it
    /// names every driver), or the `.sks` stream (naming only the drivers
    /// it began with).
    recording: PathBuf,
    /// The driver's name as the race knew it (the recording's `drivers`).
    #[arg(long)]
    driver: String,
    /// The leaderboard player to rank the car under (default: the
    /// driver's name); the submitting token must be this player's.
    #[arg(long)]
    player: Option<String>,
    /// Where to write the entry (`.skr`).
    #[arg(long, short)]
    out: PathBuf,
    /// Seal the entry with this server's secret key (made by `keygen`): a
    /// leaderboard that trusts its public key ranks the named driver's car
    /// only from an entry the key sealed.
    #[arg(long)]
    seal_key: Option<PathBuf>,
}

#[derive(Args)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8789")]
    listen: SocketAddr,
    /// A file of seat tokens, one per line (blank lines skipped); without
    /// it, `--seats` random tokens are made and printed.
    #[arg(long)]
    tokens: Option<PathBuf>,
    /// Seats when tokens are made, 1 to 255.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=255))]
    seats: u16,
    /// A built-in track's name, a track definition's `.json` (`skidpad
    /// track import` writes one) or a glTF scene (`.glb`, `.gltf`): the
    /// race, its players and its replays take the own track (and the
    /// scene's ground, which the map message hands every player).
    #[arg(long, default_value = "brandwood")]
    track: String,
    /// The car every player drives: a preset's name, or a car
    /// definition's `.json` (a car package: its tires may name `.tir`
    /// files beside it, `{"tir": "front.tir"}`).
    #[arg(long, default_value = "rwd_sports")]
    car: String,
    /// Laps in the race.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    laps: u32,
    /// Simulated seconds per wall-clock second (tests race faster), 0.1 to 20.
    #[arg(long, default_value_t = 1.0)]
    pace: f64,
    /// Time between pings, ms.
    #[arg(long, default_value_t = 3000, value_parser = clap::value_parser!(u64).range(10..=60_000))]
    ping_ms: u64,
    /// Smoothed latency that kicks a player (4003), ms.
    #[arg(long, default_value_t = 1000.0)]
    max_latency_ms: f64,
    /// Unanswered pings in a row that kick a player (4004).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    max_missed_pings: u32,
    /// Furthest ahead an input may name its tick.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=600))]
    max_input_lead: u32,
    /// Cars abreast on the grid.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=8))]
    grid_columns: u32,
    /// Distance between grid rows, m.
    #[arg(long, default_value_t = 8.0)]
    grid_row_spacing: f64,
    /// Record the race into this folder as a crash-safe stream
    /// (`race-000.sks`; players who join arrive in it), and as a replay
    /// naming every driver once it is over (`race-000.skr`).
    #[arg(long)]
    record: Option<PathBuf>,
    /// The race server's sealing key (a file `keygen` wrote): when the race
    /// is over, each driver collects their entry sealed with it from
    /// `GET /entry` (their seat token as `Authorization: Bearer`), and a
    /// leaderboard trusting the key ranks it under their name.
    #[arg(long, requires = "record")]
    seal_key: Option<PathBuf>,
    /// A file of spectator tokens, one per line: each signs in a
    /// spectator (no car; `nextPlayer` / `prevPlayer` switch the player
    /// it follows). None: no spectators.
    #[arg(long)]
    spectator_tokens: Option<PathBuf>,
    /// Spectators connected at once, at most.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=1000))]
    max_spectators: u32,
    /// Least time between two resets a player asks for (Backspace on the
    /// race page), s.
    #[arg(long, default_value_t = 2.0, value_parser = reset_seconds)]
    reset_interval_s: f64,
    /// How long a seat whose link dropped stays its player's, s (the AI
    /// drives the car meanwhile; signing in again with the token takes it
    /// back); 0 frees it at once.
    #[arg(long, default_value_t = 30.0, value_parser = reset_seconds)]
    reconnect_grace_s: f64,
    /// Commands (reset, nextPlayer, …) a connection may send back to back;
    /// more are dropped.
    #[arg(long, default_value = "10", value_parser = clap::value_parser!(NonZeroU32))]
    command_burst: NonZeroU32,
    /// Commands a second a connection earns back.
    #[arg(long, default_value = "20", value_parser = clap::value_parser!(NonZeroU32))]
    commands_per_second: NonZeroU32,
    /// Seats that must be taken before the race starts (0: it is on from
    /// the first join). Until the start every car is held on its grid
    /// slot, and the race is recorded from the join that fills the grid,
    /// every car at rest: each player's leaderboard entry comes from it.
    #[arg(long, default_value_t = 0)]
    start_seats: u32,
    /// Seconds from the join that fills `--start-seats` to the start.
    #[arg(long, default_value_t = 3.0)]
    countdown_s: f64,
}

#[derive(Args)]
struct BotArgs {
    /// The race's WebSocket URL.
    #[arg(long, default_value = "ws://127.0.0.1:8789/race")]
    url: String,
    /// Seat token.
    #[arg(long)]
    token: String,
    /// Name to race under.
    #[arg(long, default_value = "bot")]
    name: String,
    /// Laps to drive.
    #[arg(long, default_value_t = 3)]
    laps: u32,
    /// Ticks the prediction runs ahead of the server.
    #[arg(long, default_value_t = 20)]
    lead_ticks: u32,
    /// The server's pace.
    #[arg(long, default_value_t = 1.0)]
    pace: f64,
    /// Send the `reset` command when the car has been slower than 1 m/s
    /// this long, s.
    #[arg(long, value_parser = stuck_seconds)]
    reset_when_stuck: Option<f64>,
    /// After a dropped link (no close frame) while racing, try to sign in
    /// again once a second for this long, s (0: give up at once).
    #[arg(long, default_value_t = 25)]
    reconnect_for_s: u64,
    /// Predict every car from the server's confirmations (`all`) or only
    /// its own (`own`, drawing the others from the cars block).
    #[arg(long, value_enum, default_value_t = PredictArg::Own)]
    predict: PredictArg,
}

/// `--predict`'s values.
#[derive(Clone, Copy, clap::ValueEnum)]
enum PredictArg {
    Own,
    All,
}

fn reset_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.0..=600.0).contains(&s) => Ok(s),
        _ => Err("seconds from 0 to 600".into()),
    }
}

fn stuck_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (1.0..=3600.0).contains(&s) => Ok(s),
        _ => Err("seconds from 1 to 3600".into()),
    }
}

#[derive(Args)]
struct LinkArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8791")]
    listen: SocketAddr,
    /// The server to forward to.
    #[arg(long, default_value = "127.0.0.1:8789")]
    to: SocketAddr,
    /// One-way delay, ms.
    #[arg(long, default_value_t = 100.0)]
    latency_ms: f64,
    /// Uniform jitter, ± ms.
    #[arg(long, default_value_t = 20.0)]
    jitter_ms: f64,
    /// A stall every this many ms (0: none).
    #[arg(long, default_value_t = 0.0)]
    stall_every_ms: f64,
    /// Each stall's length, ms.
    #[arg(long, default_value_t = 0.0)]
    stall_ms: f64,
    /// Share of sends lost, percent (0 to 50): each is sent again after
    /// `--retransmit-ms` (doubling), the stream behind it waiting, as
    /// TCP does.
    #[arg(long, default_value_t = 0.0, value_parser = loss_percent)]
    loss_percent: f64,
    /// The retransmission timeout, ms.
    #[arg(long, default_value_t = 200.0)]
    retransmit_ms: f64,
    /// Seed of the delays.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn loss_percent(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if (0.0..=50.0).contains(&p) => Ok(p),
        _ => Err("a percentage from 0 to 50".into()),
    }
}

/// A file of tokens, one per line (blank lines skipped): 1 to 255 of them.
fn read_tokens(path: &std::path::Path) -> Result<Vec<String>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let tokens: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    if tokens.is_empty() || tokens.len() > 255 {
        bail!(
            "{}: 1 to 255 tokens, one per line; found {}",
            path.display(),
            tokens.len()
        );
    }
    Ok(tokens)
}

/// A sealing key from a file `keygen` wrote.
fn read_seal_key(path: &std::path::Path) -> Result<SealingKey> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    SealingKey::from_hex(&text).with_context(|| format!("{}", path.display()))
}

/// Creates `path` holding `secret`, readable and writable by its owner only;
/// an existing file is an error, so a key in use is never replaced.
fn write_secret(path: &std::path::Path, secret: &str) -> Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).with_context(|| {
        format!(
            "creating {} (an existing key is never replaced)",
            path.display()
        )
    })?;
    writeln!(file, "{secret}").with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

fn tokens(args: &ServeArgs) -> Result<Vec<String>> {
    if let Some(path) = &args.tokens {
        return read_tokens(path);
    }
    let mut rng = rand::rngs::OsRng;
    Ok((0..args.seats)
        .map(|_| {
            let mut bytes = [0_u8; 16];
            rng.fill_bytes(&mut bytes);
            bytes.iter().map(|b| format!("{b:02x}")).collect()
        })
        .collect())
}

async fn serve(args: ServeArgs) -> Result<()> {
    if !(0.1..=20.0).contains(&args.pace) {
        bail!("--pace must be within 0.1 and 20");
    }
    if !(1.0..=200.0).contains(&args.grid_row_spacing) {
        bail!("--grid-row-spacing must be within 1 and 200 m");
    }
    if !(0.0..=600.0).contains(&args.countdown_s) {
        bail!("--countdown-s must be within 0 and 600");
    }
    let seat_tokens = tokens(&args)?;
    let print_tokens = args.tokens.is_none();
    let spectator_tokens = match &args.spectator_tokens {
        Some(path) => read_tokens(path)?,
        None => Vec::new(),
    };
    if let Some(both) = spectator_tokens.iter().find(|t| seat_tokens.contains(t)) {
        bail!("the token {both:?} is both a seat's and a spectator's");
    }
    let (track, track_definition, ground) = race_files::track(&args.track)?;
    let (car, car_definition) = race_files::car(&args.car)?;
    let options = ServiceOptions {
        race: RaceConfig {
            track,
            car,
            track_definition,
            car_definition,
            ground,
            laps: args.laps,
            seat_tokens: seat_tokens.clone(),
            max_input_lead: args.max_input_lead,
            reset_interval_s: args.reset_interval_s,
            reconnect_grace_s: args.reconnect_grace_s,
            start_seats: args.start_seats,
            // At the default 60 Hz.
            countdown_ticks: (args.countdown_s * f64::from(RaceConfig::default().tick_hz)).round()
                as u32,
            grid: skidpad_core::race::GridLayout {
                columns: args.grid_columns,
                row_spacing: args.grid_row_spacing,
                ..skidpad_core::race::GridLayout::default()
            },
            ..RaceConfig::default()
        },
        pace: args.pace,
        ping_every: Duration::from_millis(args.ping_ms),
        max_latency_ms: args.max_latency_ms,
        max_missed_pings: args.max_missed_pings,
        record: args.record.clone(),
        seal_key: args
            .seal_key
            .as_deref()
            .map(read_seal_key)
            .transpose()?
            .map(std::sync::Arc::new),
        spectator_tokens,
        max_spectators: args.max_spectators as usize,
        command_burst: args.command_burst,
        commands_per_second: args.commands_per_second,
        ..ServiceOptions::default()
    };
    if let Some(dir) = &args.record {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let sealed_by = options.seal_key.as_ref().map(|key| key.public_hex());
    let service = race_service(options)?;
    let router = service.router.clone();
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    println!("race at ws://{}/race", listener.local_addr()?);
    if let Some(public) = sealed_by {
        println!(
            "entries at http://{}/entry sealed by {public}",
            listener.local_addr()?
        );
    }
    if print_tokens {
        for (seat, token) in seat_tokens.iter().enumerate() {
            println!("seat {seat}: {token}");
        }
    }
    // Ctrl-C (SIGINT) or SIGTERM (a process manager's stop) stops the
    // race, which finishes its recording; open WebSockets are not waited
    // for.
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        served = axum::serve(listener, router).into_future() => served?,
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
    tokio::task::spawn_blocking(move || service.stop()).await?;
    Ok(())
}

/// Every skidpad binary ends the same way: 0 when it did its job, 2 with
/// the cause on one line of stderr when it could not (`skidpad` adds 1 for
/// a replay that fails verification).
fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("skidpad-netplay: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}

#[tokio::main]
async fn run() -> Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    match Cli::parse().command {
        Command::Serve(args) => serve(args).await,
        Command::Bot(args) => {
            let report = run_bot(BotOptions {
                url: args.url,
                token: args.token,
                name: args.name,
                laps: args.laps,
                lead_ticks: args.lead_ticks,
                pace: args.pace,
                reset_when_stuck_s: args.reset_when_stuck,
                reconnect_for: std::time::Duration::from_secs(args.reconnect_for_s),
                predict: match args.predict {
                    PredictArg::Own => skidpad_netplay::payloads::Prediction::Own,
                    PredictArg::All => skidpad_netplay::payloads::Prediction::All,
                },
                ..BotOptions::default()
            })
            .await?;
            println!(
                "{}",
                serde_json::json!({
                    "seat": report.seat, "laps": report.laps, "checked": report.checked,
                    "mispredicted": report.mispredicted, "lateCorrections": report.late_corrections,
                    "resetsSent": report.resets_sent, "resetCorrections": report.reset_corrections,
                    "frames": report.frames,
                    "lastMiss": report.last_miss.as_ref().map(|m| serde_json::json!({
                        "tick": m.tick,
                        "fields": m.fields.iter().map(|f| f.field).collect::<Vec<_>>(),
                    })),
                    "frameBytes": report.frame_bytes, "closed": report.closed,
                    "reconnects": report.reconnects,
                    "resyncs": report.resyncs, "desyncs": report.desyncs,
                    "race": report.race.as_ref().map(|r| serde_json::json!({
                        "frames": r.frames, "confirmedTicks": r.confirmed_ticks,
                        "wrongTicks": r.wrong_ticks, "rollbacks": r.rollbacks,
                        "resimulatedTicks": r.resimulated_ticks, "desyncs": r.desyncs,
                        "corrections": r.corrections.count(),
                        "correctionP99M": r.corrections.quantile(0.99),
                        "drawnCorrectionP99M": r.drawn_corrections.quantile(0.99),
                    })),
                })
            );
            Ok(())
        }
        Command::Entry(args) => {
            let recording = std::fs::read(&args.recording)
                .with_context(|| format!("reading {}", args.recording.display()))?;
            let seal = args.seal_key.as_deref().map(read_seal_key).transpose()?;
            let entry = skidpad_netplay::leaderboard_entry(
                &recording,
                &args.driver,
                args.player.as_deref(),
                seal.as_ref(),
                &skidpad_replay::Limits::default(),
            )?;
            std::fs::write(&args.out, &entry.bytes)
                .with_context(|| format!("writing {}", args.out.display()))?;
            println!(
                "entry {} driver={:?} car={} steps={}{}{}{}",
                args.out.display(),
                args.driver,
                entry.car,
                entry.steps,
                seal.map(|key| format!(" sealed by {}", key.public_hex()))
                    .unwrap_or_default(),
                entry
                    .left_at
                    .map(|step| format!(" (the race until the driver left, at step {step})"))
                    .unwrap_or_default(),
                if entry.complete {
                    ""
                } else {
                    " (the stream was cut: its whole chunks only)"
                }
            );
            Ok(())
        }
        Command::Keygen(args) => {
            let mut seed = [0_u8; 32];
            rand::rngs::OsRng.fill_bytes(&mut seed);
            let key = SealingKey::from_seed(seed);
            write_secret(&args.out, &key.secret_hex())?;
            println!("public {}", key.public_hex());
            Ok(())
        }
        Command::Link(args) => {
            let model = LinkModel {
                latency_ms: args.latency_ms,
                jitter_ms: args.jitter_ms,
                stall_every_ms: args.stall_every_ms,
                stall_ms: args.stall_ms,
                loss: args.loss_percent / 100.0,
                retransmit_ms: args.retransmit_ms,
                seed: args.seed,
                ..LinkModel::default()
            };
            let listener = tokio::net::TcpListener::bind(args.listen).await?;
            println!("link at {} to {}", listener.local_addr()?, args.to);
            let down = LinkModel {
                seed: model.seed.wrapping_add(1),
                ..model
            };
            run_link_proxy(listener, args.to, model, down).await;
            Ok(())
        }
    }
}
