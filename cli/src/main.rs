//! `skidpad`: race, record, verify and inspect from the terminal.
//!
//! Exit codes, the same for every command: 0 success; 1 a replay
//! re-simulated but did not match its recording (a desync); 2 bad usage or
//! an input or output error (a file that cannot be read or written, is not
//! a skidpad file, is corrupt, is of another version or exceeds a
//! `--max-*` limit). With several files, `verify` exits with the worst:
//! 2 before 1 before 0. A closed standard output (`| head`) ends the
//! command quietly with 0.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;
use skidpad_cli::beside::BesideArgs;
use skidpad_cli::limits::LimitArgs;
use skidpad_cli::{
    atomic, car_cmd, demo, export, files, ghost_cmd, inspect, recover, telemetry, tire_import,
    track_cmd, verify, view,
};

/// `skidpad telemetry --format`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum TelemetryFormat {
    /// Plain CSV: names and units as two header rows.
    Csv,
    /// MoTeC CSV for MoTeC i2: preamble with lap beacons, i2 names.
    MotecCsv,
    /// MoTeC i2 logged data (`-o FILE.ld`), lap beacons in `FILE.ldx`.
    Ld,
}

#[derive(Parser)]
#[command(
    name = "skidpad",
    version,
    about = "Deterministic vehicle simulation: race, record, verify, inspect"
)]
struct Cli {
    /// Print machine-readable JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Race AI cars on a track, record the replay and the best
    /// lap's ghost, verify the replay and print a summary.
    Demo {
        /// Output directory (created if missing).
        #[arg(long, default_value = "skidpad-demo")]
        out: PathBuf,
        /// Cars on the grid, 1 to 64.
        #[arg(long, default_value_t = demo::DEFAULT_CARS, value_parser = clap::value_parser!(u16).range(1..=i64::from(demo::MAX_CARS)))]
        cars: u16,
        /// Laps per car, 1 to 20.
        #[arg(long, default_value_t = demo::DEFAULT_LAPS, value_parser = clap::value_parser!(u32).range(1..=i64::from(demo::MAX_LAPS)))]
        laps: u32,
        /// A built-in track's name or a track file: a
        /// definition's `.json`, or a `.csv` or glTF scene (`.glb`,
        /// `.gltf`) that `skidpad track import` reads. The replay carries
        /// a track that is not built in, and a scene's ground.
        #[arg(long, default_value = demo::DEFAULT_TRACK)]
        track: String,
        /// What the cars drive on: the track's own 3D surface (a scene's
        /// ground; else elevation, banking, kerbs, run-off, barriers) or
        /// the plane z = 0.
        #[arg(long, default_value = "track", value_parser = ["track", "plane"])]
        ground: String,
        /// How the AI drives: racing the other cars (keeping a gap,
        /// passing, giving room), or each as if alone.
        #[arg(long, default_value = "racecraft", value_parser = ["racecraft", "alone"])]
        drivers: String,
        /// Seed of the drivers' skills (pace, headway, line): the same
        /// seed races the same race.
        #[arg(long, default_value_t = demo::DEFAULT_SEED)]
        seed: u64,
    },
    /// Verify replays (re-simulated bit for bit) and ghosts.
    Verify {
        /// Files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        beside: BesideArgs,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Describe a replay, ghost, stream or ground file; for a replay, also
    /// the track and ground it needs and whether a player has them (built
    /// in, carried, or the --track/--ground files given).
    Inspect {
        /// The file.
        file: PathBuf,
        #[command(flatten)]
        beside: BesideArgs,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Re-simulate a replay and export one lap of one car as a ghost.
    Ghost {
        /// The replay.
        replay: PathBuf,
        /// Car index.
        #[arg(long)]
        car: u32,
        /// Lap number, from 1.
        #[arg(long)]
        lap: u32,
        /// Output ghost file.
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        beside: BesideArgs,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Recover a replay from a stream (.sks) cut at any byte, by a crash
    /// or a full disk: every whole chunk, written as a .skr.
    Recover {
        /// The stream file.
        stream: PathBuf,
        /// Output replay file (written atomically).
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Open replays, streams, ghosts and ground files in the web viewer:
    /// serves it on 127.0.0.1, prints the URL and runs until stopped
    /// (Ctrl-C). The first replay or stream plays; ghosts race against its
    /// cars; a ground file is the game's own ground for a replay that does
    /// not carry it; a glTF scene is that too, and its meshes are drawn.
    View {
        /// Replays (.skr), streams (.sks), ghosts (.skg), ground files
        /// (.skgd), glTF scenes (.glb, .gltf) and track files (a
        /// definition's .json, a centre line's .csv).
        files: Vec<PathBuf>,
        /// The same as naming the files: the ground and the track the
        /// replays were recorded on, when they do not carry them.
        #[command(flatten)]
        beside: BesideArgs,
        /// Port to listen on (0: any free port; the default stays clear
        /// of the leaderboard's 8787, the spectator service's 8788 and the
        /// race server's 8789).
        #[arg(long, default_value_t = 8790)]
        port: u16,
    },
    /// Write one car's every telemetry channel from a replay as CSV (names
    /// and units as two header rows; lap, lap time and lap distance from
    /// the race layer; channels as `CHANNELS.md` lists them), as a MoTeC
    /// CSV file for MoTeC i2 (standard i2 channel names, lap beacons) or
    /// as MoTeC i2 logged data (`.ld` with its `.ldx` of lap beacons).
    Telemetry {
        /// The replay.
        replay: PathBuf,
        /// Car index.
        #[arg(long)]
        car: u32,
        /// Write every N-th step (1: every step).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
        stride: u64,
        /// Only these laps (the race layer's lap numbers, from 1): `2-4`,
        /// or `3`.
        #[arg(long)]
        laps: Option<String>,
        /// `csv` (names and units as two header rows), `motec-csv`, or
        /// `ld` (needs `-o FILE.ld`; the beacons go to `FILE.ldx`).
        #[arg(long, value_enum, default_value = "csv")]
        format: TelemetryFormat,
        /// Write here (atomically) instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        beside: BesideArgs,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Import a Magic Formula tire file (.tir: PAC2002, MF-Tyre 5.x):
    /// print the tire as a car definition's JSON, how close it comes to
    /// the file's own curves, and every key left out with what it would
    /// change.
    Tire {
        /// The .tir file.
        file: PathBuf,
    },
    /// Read a game's own car: a definition's JSON, or a car package whose
    /// tires name `.tir` files beside it (`"tires": {"front": {"tir":
    /// "front.tir"}, …}`); print its fingerprint and where its tires came
    /// from, and with `-o` write it out in full.
    Car {
        /// The car file.
        file: PathBuf,
        /// Write the car, every tire written out, here (atomically).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// A game's own tracks: import them from other formats and check them.
    Track {
        #[command(subcommand)]
        command: track_cmd::TrackCommand,
    },
    /// Export a replay as a dense per-step JSON track with events.
    Export {
        /// The replay.
        replay: PathBuf,
        /// Channels per car and row: names from CHANNELS.md separated by
        /// commas, or `all` (default: pose, speed, steer, gear, rpm and the
        /// driver's inputs).
        #[arg(long)]
        channels: Option<String>,
        /// Write a row every N-th step (events are kept at every step).
        #[arg(long, default_value_t = 1)]
        stride: u64,
        /// Write here (atomically) instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        beside: BesideArgs,
        #[command(flatten)]
        limits: LimitArgs,
    },
}

/// Writes a report to standard output as text or JSON. Output goes
/// through `write!`, not `print!`, so a closed pipe (`| head`) is an error
/// the caller can recognise instead of a panic.
fn print<T: Serialize + std::fmt::Display>(json: bool, value: &T) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, value)?;
        writeln!(out)?;
    } else {
        write!(out, "{value}")?;
    }
    out.flush()?;
    Ok(())
}

/// Streams what `write` produces to `path` atomically, or to standard
/// output (buffered) when there is no path.
fn to_file_or_stdout<T>(
    path: Option<&std::path::Path>,
    write: impl FnOnce(&mut dyn Write) -> Result<T>,
) -> Result<T> {
    match path {
        Some(path) => atomic::write_atomic_with(path, write),
        None => {
            let stdout = std::io::stdout();
            let mut lock = std::io::BufWriter::new(stdout.lock());
            let result = write(&mut lock)?;
            lock.flush()?;
            Ok(result)
        }
    }
}

/// A progress bar on standard error when it is a terminal, hidden
/// otherwise (pipes, CI logs, `--json`).
fn progress_bar(json: bool, len: u64, template: &str) -> Result<ProgressBar> {
    if json || !std::io::stderr().is_terminal() {
        return Ok(ProgressBar::hidden());
    }
    let bar = ProgressBar::new(len);
    bar.set_style(ProgressStyle::with_template(template)?);
    Ok(bar)
}

fn exit_code(status: verify::Status) -> ExitCode {
    match status {
        verify::Status::Ok => ExitCode::SUCCESS,
        verify::Status::Desync => ExitCode::from(1),
        verify::Status::InputError => ExitCode::from(2),
    }
}

fn run_track(json: bool, command: track_cmd::TrackCommand) -> Result<()> {
    match command {
        track_cmd::TrackCommand::Import {
            file,
            args,
            output,
            ground_output,
        } => match track_cmd::import(&file, &args, output.as_deref(), ground_output.as_deref())? {
            Some(report) => print(json, &report),
            None => Ok(()),
        },
        track_cmd::TrackCommand::Check { file, args } => {
            print(json, &track_cmd::check(&file, &args)?)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Demo {
            out,
            cars,
            laps,
            track,
            ground,
            drivers,
            seed,
        } => {
            let bar = progress_bar(
                cli.json,
                u64::from(cars) * u64::from(laps),
                "{spinner} racing {bar:40} {pos}/{len} laps {msg}",
            )?;
            let options = demo::DemoOptions {
                out,
                cars: usize::from(cars),
                laps,
                track,
                on_track_surface: ground == "track",
                racecraft: (drivers == "racecraft").then_some(seed),
            };
            let report = demo::run(&options, &bar)?;
            bar.finish_and_clear();
            print(cli.json, &report)?;
            Ok(if report.verified() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Verify {
            files,
            beside,
            limits,
        } => {
            let limits = limits.limits();
            let beside = beside.read()?;
            let bar = if files.len() > 1 {
                progress_bar(cli.json, files.len() as u64, "{bar:40} {pos}/{len} files")?
            } else {
                ProgressBar::hidden()
            };
            // Files are verified on rayon's pool, several at once; the
            // verdicts keep the arguments' order.
            let verdicts: Vec<verify::Verdict> = files
                .par_iter()
                .map(|f| {
                    let verdict = verify::verify_file_on(f, &limits, files::no_game_logic, &beside);
                    bar.inc(1);
                    verdict
                })
                .collect();
            bar.finish_and_clear();
            let report = verify::VerifyReport { files: verdicts };
            print(cli.json, &report)?;
            Ok(exit_code(report.worst()))
        }
        Command::Inspect {
            file,
            beside,
            limits,
        } => {
            let inspection = inspect::inspect(&file, &limits.limits(), &beside.read()?)?;
            print(cli.json, &inspection)?;
            // The header is shown either way; a damaged body is an input
            // error all the same.
            Ok(if inspection.is_sound() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(2)
            })
        }
        Command::Ghost {
            replay,
            car,
            lap,
            output,
            beside,
            limits,
        } => {
            atomic::check_target(&output)?;
            let done = ghost_cmd::export_lap(
                &replay,
                car,
                lap,
                &output,
                (&limits.limits(), &beside.read()?),
                files::no_game_logic,
            )?;
            let mut out = std::io::stdout().lock();
            if cli.json {
                serde_json::to_writer_pretty(&mut out, &done)?;
                writeln!(out)?;
            } else {
                writeln!(
                    out,
                    "car {} lap {}: {:.3} s, {} frames, {} bytes -> {}",
                    done.car,
                    done.lap,
                    done.time,
                    done.frames,
                    done.bytes,
                    output.display()
                )?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Recover {
            stream,
            output,
            limits,
        } => {
            print(
                cli.json,
                &recover::recover(&stream, &output, &limits.limits())?,
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Track { command } => {
            run_track(cli.json, command)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Car { file, output } => {
            print(cli.json, &car_cmd::check(&file, output.as_deref())?)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Tire { file } => {
            print(cli.json, &tire_import::import_tire(&file)?)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Telemetry {
            replay,
            car,
            stride,
            laps,
            format,
            output,
            beside,
            limits,
        } => {
            let filter = telemetry::RowFilter {
                stride,
                laps: laps
                    .as_deref()
                    .map(telemetry::RowFilter::parse_laps)
                    .transpose()
                    .map_err(telemetry::flagged)?,
            };
            if cli.json {
                anyhow::bail!("--json does not apply to `telemetry`, which always writes CSV");
            }
            let limits = limits.limits();
            let beside = beside.read()?;
            if let Some(path) = &output {
                atomic::check_target(path)?;
            }
            let bar = progress_bar(false, 0, "{spinner} telemetry {bar:40} {pos}/{len} steps")?;
            let export = match format {
                TelemetryFormat::Csv => telemetry::export_csv,
                TelemetryFormat::MotecCsv => telemetry::export_motec_csv,
                TelemetryFormat::Ld => {
                    let Some(path) = &output else {
                        anyhow::bail!(
                            "--format ld writes a file and its .ldx beside it: give -o FILE.ld"
                        );
                    };
                    telemetry::export_ld(
                        &replay,
                        car,
                        &filter,
                        path,
                        (&limits, &beside),
                        files::no_game_logic,
                        &bar,
                    )?;
                    bar.finish_and_clear();
                    return Ok(ExitCode::SUCCESS);
                }
            };
            to_file_or_stdout(output.as_deref(), |out| {
                export(
                    &replay,
                    car,
                    &filter,
                    out,
                    (&limits, &beside),
                    files::no_game_logic,
                    &bar,
                )
            })?;
            bar.finish_and_clear();
            Ok(ExitCode::SUCCESS)
        }
        Command::View { .. } | Command::Export { .. } if cli.json => {
            anyhow::bail!(
                "--json applies to the commands that print a report; `export` always writes JSON and `view` prints its address"
            )
        }
        Command::View {
            mut files,
            port,
            beside,
        } => {
            files.extend(beside.ground.into_iter().chain(beside.track));
            view::serve(&view::default_root(), &files, port, |url| {
                // The first line is the URL, for scripts that start the
                // viewer on port 0. A reader that went away after it must
                // not stop the server, so write errors are ignored.
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{url}");
                let _ = writeln!(
                    out,
                    "viewer serving {} file(s); Ctrl-C to stop",
                    files.len()
                );
                let _ = out.flush();
            })?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Export {
            replay,
            channels,
            stride,
            output,
            beside,
            limits,
        } => {
            let limits = limits.limits();
            let beside = beside.read()?;
            let options = export::ExportOptions::parse(channels.as_deref(), stride)?;
            if let Some(path) = &output {
                atomic::check_target(path)?;
            }
            // Sized once the replay's header is known.
            let bar = progress_bar(false, 0, "{spinner} exporting {bar:40} {pos}/{len} steps")?;
            to_file_or_stdout(output.as_deref(), |out| {
                export::export_json(
                    &replay,
                    out,
                    &options,
                    (&limits, &beside),
                    files::no_game_logic,
                    &bar,
                )
            })?;
            bar.finish_and_clear();
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// True when the error is a closed standard output: the reader (`head`,
/// a pager) has what it wanted, which is not a failure.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.json;
    match run(cli) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // Written with `writeln!` and its result ignored: reporting an
            // error must not panic on a closed stream either.
            if json {
                let message = serde_json::json!({ "error": format!("{e:#}") });
                let _ = writeln!(std::io::stdout(), "{message}");
            } else {
                let _ = writeln!(std::io::stderr(), "skidpad: {e:#}");
            }
            ExitCode::from(2)
        }
    }
}
