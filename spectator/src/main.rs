//! `skidpad-spectator`: serves a live AI race for spectators. The race
//! (`--cars` AI cars on the built-in track, stepped in real time at
//! 60 Hz) is published as race `demo`; `spectator/README.md` lists the
//! routes.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Result;
use clap::Parser;
use skidpad_core::race::{AiField, grid_pose};
use skidpad_core::{Track, World, WorldConfig, preset};
use skidpad_replay::{RecorderOptions, StreamRecorder, SyncPolicy};
use skidpad_spectator::{Race, RaceSink, Races, ServiceLimits, archive, follow, router};

#[derive(Parser)]
#[command(
    name = "skidpad-spectator",
    version,
    about = "Serve a live AI race to spectators over HTTP"
)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8788")]
    listen: SocketAddr,
    /// AI cars in the demo race, 1 to 64.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u16).range(1..=64))]
    cars: u16,
    /// Steps per chunk (60 Hz steps; 120 = 2 s).
    #[arg(long, default_value_t = skidpad_replay::DEFAULT_CHUNK_STEPS, value_parser = clap::value_parser!(u32).range(1..=36_000))]
    chunk_steps: u32,
    /// Laps to race before the stream ends.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    laps: u32,
    /// Simulated seconds per wall-clock second (1 = real time; tests race
    /// faster), 0.1 to 1000.
    #[arg(long, default_value_t = 1.0)]
    pace: f64,
    /// One more AI car joins the demo race on the grid after this many
    /// seconds of racing (spectators see it arrive); none when not given.
    #[arg(long)]
    join_after_s: Option<f64>,
    /// Live tails one address may hold open at once; past it, 429.
    #[arg(long, default_value_t = ServiceLimits::default().streams_per_address)]
    streams_per_address: u32,
    /// Requests one address may make at once (0: no rate limit); past it,
    /// 429 with Retry-After.
    #[arg(long, default_value_t = ServiceLimits::default().burst)]
    request_burst: u32,
    /// Seconds for an address to earn back one request.
    #[arg(long, default_value_t = ServiceLimits::default().every.as_secs_f64())]
    request_every: f64,
    /// Keep races in this directory (created if missing): the live race
    /// is written there as `demo.sks` while it runs, and every race kept
    /// there is offered again after a restart (an earlier `demo` as
    /// `demo-1`, `demo-2`, …).
    #[arg(long)]
    data: Option<std::path::PathBuf>,
    /// Also offer every race another process records into this directory
    /// (`*.sks` streams, e.g. `skidpad-netplay serve --record DIR`), each
    /// under its file name, read on as it grows.
    #[arg(long)]
    follow: Option<std::path::PathBuf>,
}

const DT: f64 = 1.0 / 60.0;

/// The demo race: `cars` AI cars racing `laps` laps at `pace`, recorded
/// in chunks of `chunk_steps`, and a car that joins after `join_after`
/// steps, if any.
struct DemoRace {
    cars: u16,
    chunk_steps: u32,
    laps: u32,
    pace: f64,
    join_after: Option<u64>,
}

/// Races in real time, publishing through `sink`, until `laps` of the
/// lead-car distance are done or `stop` is set (the service is stopping:
/// the race ends where it is, unfinished). True when it was raced to
/// the end.
fn run_race(sink: RaceSink, demo: &DemoRace, stop: &AtomicBool) -> Result<bool> {
    let track = Arc::new(Track::builtin("brandwood")?);
    let mut world = World::new(WorldConfig::default())?;
    let field = AiField::new(usize::from(demo.cars));
    field.line_up(&mut world, &track)?;
    let options = RecorderOptions {
        keyframe_every: demo.chunk_steps,
        metadata: vec![("track".into(), "brandwood".into())],
        ..RecorderOptions::default()
    };
    let mut stream = StreamRecorder::new(&world, options, sink, SyncPolicy::Never)?;
    // About 75 s a lap: laps × 80 s of racing.
    let steps = u64::from(demo.laps) * 80 * 60;
    let start = std::time::Instant::now();
    for step in 1..=steps {
        if stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
        if demo.join_after == Some(step - 1) {
            // On the slot behind the field, as a player joining online.
            let slot = usize::from(demo.cars);
            let pose = grid_pose(&track, slot, &field.layout_on(&track));
            let car = stream.add_car(&mut world, &preset(field.preset_of(slot))?, pose)?;
            world.set_driver(car, Some(track.clone()))?;
        }
        stream.step(&mut world, DT)?;
        let due = Duration::from_secs_f64(step as f64 * DT / demo.pace);
        if let Some(wait) = due.checked_sub(start.elapsed()) {
            std::thread::sleep(wait);
        }
    }
    stream.finish(&world)?;
    Ok(true)
}

/// Every skidpad binary ends the same way: 0 when it did its job, 2 with
/// the cause on one line of stderr when it could not (`skidpad` adds 1 for
/// a replay that fails verification).
fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("skidpad-spectator: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}

#[tokio::main]
async fn run() -> Result<()> {
    let args = Args::parse();
    if !(0.1..=1000.0).contains(&args.pace) {
        anyhow::bail!("--pace must be within 0.1 and 1000");
    }
    if !(0.001..=86_400.0).contains(&args.request_every) {
        anyhow::bail!("--request-every must be within 0.001 and 86400 seconds");
    }
    let limits = ServiceLimits {
        streams_per_address: args.streams_per_address,
        burst: args.request_burst,
        every: Duration::from_secs_f64(args.request_every),
        ..ServiceLimits::default()
    };
    let races = Races::default();
    let mut notes = Vec::new();
    let sink = match &args.data {
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            if let Some(old) = archive::set_aside(dir, "demo")? {
                notes.push(format!("the previous demo race is kept as {old}"));
            }
            let restored = archive::restore(dir, &races)?;
            if !restored.is_empty() {
                notes.push(format!("races kept from before: {}", restored.join(", ")));
            }
            // A process that dies mid-race leaves every whole chunk in the
            // file (the OS holds what was written); `restore` offers it.
            let (race, sink) = archive::kept(archive::create(dir, "demo")?);
            races.insert("demo", race);
            sink
        }
        None => {
            let race = Race::new();
            races.insert("demo", race.clone());
            RaceSink::new(race)
        }
    };
    let join_after = match args.join_after_s {
        Some(s) if (0.0..=86_400.0).contains(&s) => Some((s / DT).round() as u64),
        Some(_) => anyhow::bail!("--join-after-s must be within 0 and 86400 seconds"),
        None => None,
    };
    let demo = DemoRace {
        cars: args.cars,
        chunk_steps: args.chunk_steps,
        laps: args.laps,
        pace: args.pace,
        join_after,
    };
    // The race runs on its own thread; the finished race stays on offer
    // until the service is stopped (Ctrl-C or SIGTERM), which also stops a
    // race still running: the runtime waits for that thread before exiting.
    let stop = Arc::new(AtomicBool::new(false));
    let racing = stop.clone();
    tokio::task::spawn_blocking(move || match run_race(sink, &demo, &racing) {
        Ok(true) => println!("the race ended; its chunks stay on offer"),
        Ok(false) => {}
        Err(e) => eprintln!("skidpad-spectator: the race stopped: {e:#}"),
    });
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    println!(
        "spectate at http://{}/races/demo/meta (live tail: /races/demo/live)",
        listener.local_addr()?
    );
    // Followed only once the address is printed: it is the first line,
    // which tools read, and following prints a line per race it finds.
    if let Some(dir) = args.follow.clone() {
        // The demo race's id is taken first: a followed file of that name
        // is not offered.
        follow::spawn(dir, races.clone(), Duration::from_millis(200), stop.clone());
    }
    for note in notes {
        println!("{note}");
    }
    // Ctrl-C or SIGTERM: stop accepting, end the spectators' live tails
    // (they would hold the graceful shutdown open for ever), exit.
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let stopping = races.clone();
    // The peer's address keys the rate limit and the live-tail cap.
    let app = router(races, limits).into_make_service_with_connect_info::<SocketAddr>();
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            }
            stopping.close_streams();
            stop.store(true, Ordering::Relaxed);
        })
        .await?;
    Ok(())
}
