//! `skidpad`: race, record, verify and inspect from the terminal.
//!
//! Exit codes: 0 success; 1 a verification failed (a desync, a corrupt
//! file); 2 bad usage or an input or output error.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use skidpad_cli::limits::LimitArgs;
use skidpad_cli::{demo, export, files, ghost_cmd, inspect, verify};

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
    /// Race AI cars on the built-in track, record the replay and the best
    /// lap's ghost, verify the replay and print a summary.
    Demo {
        /// Output directory.
        #[arg(long, default_value = "skidpad-demo")]
        out: PathBuf,
        /// Cars on the grid.
        #[arg(long, default_value_t = 6)]
        cars: usize,
        /// Laps per car.
        #[arg(long, default_value_t = 3)]
        laps: u32,
    },
    /// Verify replays (re-simulated bit for bit) and ghosts.
    Verify {
        /// Files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Describe a replay or ghost file.
    Inspect {
        /// The file.
        file: PathBuf,
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
        limits: LimitArgs,
    },
    /// Export a replay as a dense per-step JSON track with events.
    Export {
        /// The replay.
        replay: PathBuf,
        /// Write here (atomically) instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        limits: LimitArgs,
    },
}

fn print<T: Serialize + std::fmt::Display>(json: bool, value: &T) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(value)?);
    } else {
        print!("{value}");
    }
    Ok(())
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Demo { out, cars, laps } => {
            let report = demo::run(&demo::DemoOptions { out, cars, laps })?;
            print(cli.json, &report)?;
            Ok(if report.verified() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Verify { files, limits } => {
            let limits = limits.limits();
            let bar = if files.len() > 1 && std::io::stderr().is_terminal() {
                let bar = ProgressBar::new(files.len() as u64);
                bar.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")?);
                bar
            } else {
                ProgressBar::hidden()
            };
            let mut verdicts = Vec::with_capacity(files.len());
            for f in &files {
                bar.set_message(f.display().to_string());
                verdicts.push(verify::verify_file(f, &limits));
                bar.inc(1);
            }
            bar.finish_and_clear();
            let report = verify::VerifyReport { files: verdicts };
            print(cli.json, &report)?;
            Ok(if report.all_ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Inspect { file } => {
            print(cli.json, &inspect::inspect(&file)?)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Ghost {
            replay,
            car,
            lap,
            output,
            limits,
        } => {
            let done = ghost_cmd::export_lap(&replay, car, lap, &output, &limits.limits())?;
            if cli.json {
                println!("{}", serde_json::to_string_pretty(&done)?);
            } else {
                println!(
                    "car {} lap {}: {:.3} s, {} frames, {} bytes -> {}",
                    done.car,
                    done.lap,
                    done.time,
                    done.frames,
                    done.bytes,
                    output.display()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Export {
            replay,
            output,
            limits,
        } => {
            let limits = limits.limits();
            match output {
                Some(path) => {
                    let mut buffer = Vec::new();
                    export::export_json(&replay, &mut buffer, &limits)?;
                    files::write_atomic(&path, &buffer)?;
                }
                None => {
                    let stdout = std::io::stdout();
                    let mut lock = std::io::BufWriter::new(stdout.lock());
                    export::export_json(&replay, &mut lock, &limits)?;
                    lock.flush()?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.json;
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            if json {
                println!("{}", serde_json::json!({ "error": format!("{e:#}") }));
            } else {
                eprintln!("skidpad: {e:#}");
            }
            ExitCode::from(2)
        }
    }
}
