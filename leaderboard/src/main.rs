//! `skidpad-leaderboard`: the leaderboard service's command line.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Parser;
use skidpad_leaderboard::accounts::check_player_name;
use skidpad_leaderboard::api::{ApiOptions, DEFAULT_MAX_UNFINISHED_RUNS, DEFAULT_MAX_UPLOAD};
use skidpad_leaderboard::boards::Boards;
use skidpad_leaderboard::budget::BoardBudget;
use skidpad_leaderboard::limits::{DEFAULT_REQUEST_TIMEOUT, RateLimit};
use skidpad_leaderboard::registry::BoardRegistry;
use skidpad_leaderboard::seals::SealPolicy;
use skidpad_leaderboard::service::{Role, serve};
use skidpad_leaderboard::store::Store;
use skidpad_leaderboard::worker::{DEFAULT_DRAIN, WorkerOptions};
use tokio::net::TcpListener;

/// Accepts replays, verifies them on a queue, ranks verified laps.
/// `--role`'s words; the library's [`Role`] knows no command line.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum RoleArg {
    /// The API and workers (the single-machine default).
    All,
    /// The HTTP API only; workers run elsewhere on the same database.
    Api,
    /// Workers only.
    Worker,
}

impl From<RoleArg> for Role {
    fn from(arg: RoleArg) -> Role {
        match arg {
            RoleArg::All => Role::All,
            RoleArg::Api => Role::Api,
            RoleArg::Worker => Role::Worker,
        }
    }
}

/// The operator's commands; without one, the service runs.
#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Players' API tokens.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Copies a SQLite database to a new file while the service runs
    /// (`VACUUM INTO`: one consistent snapshot, compacted). PostgreSQL has
    /// its own tools (pg_dump, base backups).
    Backup {
        /// The new file; it must not exist.
        #[arg(long)]
        to: PathBuf,
    },
}

#[derive(clap::Subcommand, Debug)]
enum TokenCommand {
    /// Issues a token for a player (created if new) and prints it: the
    /// only time it is shown.
    Issue {
        /// The player's name.
        #[arg(long)]
        player: String,
        /// May delete runs, ban players and re-verify.
        #[arg(long)]
        admin: bool,
    },
    /// Revokes every token of a player.
    Revoke {
        /// The player's name.
        #[arg(long)]
        player: String,
    },
    /// Lists players, their live tokens and bans, as JSON lines.
    List,
}

#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// `sqlite:PATH` (created if missing) or `postgres://USER@HOST:PORT/DB`.
    #[arg(
        long,
        global = true,
        default_value = "sqlite:leaderboard.db",
        env = "SKIDPAD_LEADERBOARD_DATABASE"
    )]
    database: String,
    /// What this process runs: the API and workers, or one of them.
    #[arg(long, value_enum, default_value = "all")]
    role: RoleArg,
    /// Address the API listens on (with `--role worker`, only when
    /// `--serve-metrics` asks for it).
    #[arg(long, default_value = "127.0.0.1:8787")]
    listen: String,
    /// With `--role worker`: serve this process's `/metrics` (its workers'
    /// verdicts and verification seconds, the shared queue's depth) and
    /// `/health/live` on `--listen`.
    #[arg(long)]
    serve_metrics: bool,
    /// Worker tasks (default: the number of cores).
    #[arg(long)]
    workers: Option<usize>,
    /// Seconds a claimed job is held without renewal; a dead worker's job
    /// is taken by another worker after this.
    #[arg(long, default_value_t = 30.0)]
    lease_seconds: f64,
    /// Seconds a worker may go on with its job after SIGTERM; past them it
    /// puts the job back in the queue (another worker takes it at once)
    /// and the process exits.
    #[arg(long, default_value_t = DEFAULT_DRAIN.as_secs_f64())]
    drain_seconds: f64,
    /// Largest upload, bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_UPLOAD)]
    max_upload: usize,
    /// Seconds a whole request may take (headers, body, answer); a slower
    /// upload is cut with 408.
    #[arg(long, default_value_t = DEFAULT_REQUEST_TIMEOUT.as_secs_f64())]
    request_timeout: f64,
    /// Uploads and re-verifications one address may make at once (0: no
    /// limit); past it, 429 with Retry-After.
    #[arg(long, default_value_t = RateLimit::default().burst)]
    upload_burst: u32,
    /// Seconds for an address to earn back one upload.
    #[arg(long, default_value_t = RateLimit::default().every.as_secs_f64())]
    upload_every: f64,
    /// Uploads one player's token may make at once from any addresses (0:
    /// no limit); past it, 429 with Retry-After.
    #[arg(long, default_value_t = RateLimit::default().burst)]
    player_burst: u32,
    /// Seconds for a player to earn back one upload.
    #[arg(long, default_value_t = RateLimit::default().every.as_secs_f64())]
    player_every: f64,
    /// Most cars in a submitted replay (the ranked car and its rivals).
    #[arg(long, default_value_t = BoardBudget::default().max_cars)]
    max_cars: u32,
    /// Most steps in a submitted replay.
    #[arg(long, default_value_t = BoardBudget::default().max_steps)]
    max_steps: u64,
    /// Most car-steps (cars × steps) a submitted replay may cost.
    #[arg(long, default_value_t = BoardBudget::default().max_car_steps)]
    max_car_steps: u64,
    /// A JSON file of the tracks ranked here and their rules (rivals
    /// beside the ranked car, longest run); without it every built-in
    /// track is open within the budget above. See `leaderboard/README.md`.
    #[arg(long, value_name = "FILE")]
    boards: Option<std::path::PathBuf>,
    /// Runs one player may have waiting for or under verification; past
    /// it, 429 with Retry-After.
    #[arg(long, default_value_t = DEFAULT_MAX_UNFINISHED_RUNS)]
    max_unfinished_runs: u32,
    /// Requests one address may have in flight at once, uploads trickling
    /// in included (0: no cap); past it, 429 with Retry-After.
    #[arg(long, default_value_t = skidpad_leaderboard::in_flight::DEFAULT_REQUESTS_PER_ADDRESS)]
    max_requests_per_address: u32,
    /// A race server whose sealed entries are ranked: its public key, as
    /// `skidpad-netplay keygen` prints it (repeat for more servers). An
    /// online race's entry (its replay names its drivers) is ranked only
    /// with a trusted server's seal.
    #[arg(long = "trust-race-server", value_name = "PUBLIC_KEY")]
    trust_race_servers: Vec<String>,
    /// Rank only runs sealed by a trusted race server (a board of online
    /// races: a copy of a race stripped of its drivers' names is refused
    /// too).
    #[arg(long)]
    sealed_only: bool,
    /// Only the operator issues tokens (`token issue`): `POST /players`
    /// answers 403.
    #[arg(long)]
    closed_sign_up: bool,
    /// Race the demo field (as `skidpad demo`), write it to --demo-out
    /// and submit its replay before serving, under a token it issues
    /// itself for the demo's player (printed).
    #[arg(long)]
    demo: bool,
    /// Where --demo writes its files.
    #[arg(long, default_value = "skidpad-demo")]
    demo_out: PathBuf,
    /// Also serve the web app on the API's address: `/play` (drive a
    /// time trial and submit it here) and `/view` (the replay viewer).
    /// Its assets come from `cargo xtask viewer` in this checkout.
    #[arg(long)]
    play: bool,
    /// Log one JSON object per line (fields, the run's span) for a log
    /// collector, instead of text.
    #[arg(long, global = true)]
    log_json: bool,
}

/// Every skidpad binary ends the same way: 0 when it did its job, 2 with
/// the cause on one line of stderr when it could not (`skidpad` adds 1 for
/// a replay that fails verification).
fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("skidpad-leaderboard: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}

#[tokio::main]
async fn run() -> Result<()> {
    let args = Args::parse();
    // Logs to stderr: stdout carries what scripts read (the address, the
    // demo's token, a command's answer). Colour only on a terminal.
    let logs = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,sqlx=warn".into()),
        );
    if args.log_json {
        logs.json().init();
    } else {
        logs.init();
    }
    match &args.command {
        Some(Command::Token(command)) => return token_command(&args.database, command).await,
        Some(Command::Backup { to }) => {
            let store = Store::open(&args.database)
                .await
                .with_context(|| format!("cannot open the database {}", args.database))?;
            store.backup_to(to).await?;
            println!("backed up {} to {}", args.database, to.display());
            return Ok(());
        }
        None => {}
    }
    anyhow::ensure!(
        args.lease_seconds.is_finite() && args.lease_seconds >= 0.3,
        "--lease-seconds must be at least 0.3"
    );
    anyhow::ensure!(
        args.drain_seconds.is_finite() && (0.0..=3600.0).contains(&args.drain_seconds),
        "--drain-seconds must be 0 to 3600"
    );
    anyhow::ensure!(
        args.request_timeout.is_finite() && (0.1..=86_400.0).contains(&args.request_timeout),
        "--request-timeout must be 0.1 to 86400 seconds"
    );
    for (every, flag) in [
        (args.upload_every, "--upload-every"),
        (args.player_every, "--player-every"),
    ] {
        anyhow::ensure!(
            every.is_finite() && (0.001..=86_400.0).contains(&every),
            "{flag} must be 0.001 to 86400 seconds"
        );
    }
    // Built (and so checked) now, so a missing build is said before
    // anything starts.
    let pages = if args.play {
        Some(skidpad_cli::view::page_assets(
            &skidpad_cli::view::default_root(),
        )?)
    } else {
        None
    };
    // Read before anything starts, so a bad file stops the service with
    // the board named.
    let boards = match &args.boards {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            Some(std::sync::Arc::new(BoardRegistry::new(
                Boards::from_json(&text, path.parent().unwrap_or(std::path::Path::new(".")))
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
            )))
        }
        None => None,
    };
    let store = Store::open(&args.database)
        .await
        .with_context(|| format!("cannot open the database {}", args.database))?;
    if args.demo {
        submit_demo(&store, &args.demo_out).await?;
    }
    let seals = SealPolicy::trusting(&args.trust_race_servers, args.sealed_only)
        .map_err(|e| anyhow::anyhow!("--trust-race-server: {e}"))?;
    if args.sealed_only && seals.trusted().is_empty() {
        bail!("--sealed-only needs at least one --trust-race-server");
    }
    let mut workers = WorkerOptions {
        seals,
        boards: boards.clone(),
        lease: Duration::from_secs_f64(args.lease_seconds),
        drain: Duration::from_secs_f64(args.drain_seconds),
        ..WorkerOptions::default()
    };
    if let Some(n) = args.workers {
        workers.workers = n;
    }
    let role = Role::from(args.role);
    let listener = if role == Role::Worker && !args.serve_metrics {
        None
    } else {
        let listener = TcpListener::bind(&args.listen)
            .await
            .with_context(|| format!("cannot listen on {}", args.listen))?;
        // Tests and scripts read the bound address (the port may be 0).
        println!("listening on http://{}", listener.local_addr()?);
        if pages.is_some() {
            println!("play at http://{}/play", listener.local_addr()?);
        }
        Some(listener)
    };
    let api = ApiOptions {
        max_upload: args.max_upload,
        pages,
        request_timeout: Duration::from_secs_f64(args.request_timeout),
        upload_rate: (args.upload_burst > 0).then(|| RateLimit {
            every: Duration::from_secs_f64(args.upload_every),
            burst: args.upload_burst,
        }),
        player_rate: (args.player_burst > 0).then(|| RateLimit {
            every: Duration::from_secs_f64(args.player_every),
            burst: args.player_burst,
        }),
        budget: BoardBudget {
            max_cars: args.max_cars,
            max_steps: args.max_steps,
            max_car_steps: args.max_car_steps,
        },
        boards,
        sign_up: !args.closed_sign_up,
        max_unfinished_runs: args.max_unfinished_runs,
        max_requests_per_address: args.max_requests_per_address,
        ..ApiOptions::default()
    };
    // Ctrl-C or SIGTERM (what a process manager sends): stop accepting,
    // let the workers finish the jobs they hold, then exit.
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("cannot watch for SIGTERM")?;
    serve(store, role, listener, api, workers, async move {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate.recv() => {}
        }
        tracing::info!(
            "shutting down: no new requests, no new claims; workers finish or release their jobs"
        );
    })
    .await?;
    // A job released at the end of the drain window still runs on a
    // blocking thread, which the runtime would wait for on drop: its
    // verdict is no longer wanted (the job is back in the queue).
    std::process::exit(0)
}

/// Races the demo, stores its replay as a run and prints the run's URL.
async fn submit_demo(store: &Store, out: &std::path::Path) -> Result<()> {
    let options = skidpad_cli::demo::DemoOptions {
        out: out.to_owned(),
        cars: usize::from(skidpad_cli::demo::DEFAULT_CARS),
        laps: skidpad_cli::demo::DEFAULT_LAPS,
        track: skidpad_cli::demo::DEFAULT_TRACK.to_owned(),
        // Where `skidpad demo` races: a board ranks one kind of run per
        // track, and the README's demo is on the track's own surface.
        on_track_surface: true,
        racecraft: Some(skidpad_cli::demo::DEFAULT_SEED),
    };
    let report = tokio::task::spawn_blocking(move || {
        skidpad_cli::demo::run(&options, &indicatif::ProgressBar::hidden())
    })
    .await??;
    let bytes = std::fs::read(&report.replay_file)?;
    let id = skidpad_leaderboard::api::run_id(&bytes, ApiOptions::default().max_decoded)?;
    let player = skidpad_cli::demo::DEMO_PLAYER;
    store.submit(&id, &bytes, player).await?;
    let token = store.issue_token(player, false).await?;
    println!(
        "submitted the demo race ({}) as {player}: run {id}",
        report.replay_file.display()
    );
    // What the README's curl examples send.
    println!("token for {player}: {token}");
    Ok(())
}

/// `skidpad-leaderboard token …`.
async fn token_command(database: &str, command: &TokenCommand) -> Result<()> {
    let store = Store::open(database)
        .await
        .with_context(|| format!("cannot open the database {database}"))?;
    match command {
        TokenCommand::Issue { player, admin } => {
            check_player_name(player).map_err(anyhow::Error::msg)?;
            println!("{}", store.issue_token(player, *admin).await?);
        }
        TokenCommand::Revoke { player } => {
            let revoked = store.revoke_tokens(player).await?;
            println!("revoked {revoked} token(s) of {player}");
        }
        TokenCommand::List => {
            for player in store.players().await? {
                println!("{}", serde_json::to_string(&player)?);
            }
        }
    }
    Ok(())
}
