//! `skidpad demo`: race AI cars on the built-in track, record the race and
//! the best lap's ghost, verify the replay, and summarise.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use indicatif::ProgressBar;
use serde::Serialize;
use skidpad_core::hex;
use skidpad_core::race::{AiField, Retirement, StandingClock};
use skidpad_core::{GroundSource, Track, World, WorldConfig};
use skidpad_ghost::{CutLap, LapCutter, encode_ghost};
use skidpad_replay::{
    Limits, RecorderOptions, ReplayRecorder, StreamRecorder, SyncPolicy, encode_replay,
    encode_replay_gzip, read_stream, verify,
};

use crate::atomic;

const DT: f64 = 1.0 / 60.0;
/// Most cars on the grid.
pub const MAX_CARS: u16 = 64;
/// Most laps per car.
pub const MAX_LAPS: u32 = 20;

/// Cars the demo races unless told otherwise.
pub const DEFAULT_CARS: u16 = 6;
/// Laps the demo races unless told otherwise.
pub const DEFAULT_LAPS: u32 = 3;
/// The `player` the demo replay names (a leaderboard ranks its car 0
/// under this name).
pub const DEMO_PLAYER: &str = "skidpad demo";

/// What the demo does.
#[derive(Clone, Debug)]
pub struct DemoOptions {
    /// Output directory.
    pub out: PathBuf,
    /// Cars raced.
    pub cars: usize,
    /// Laps each car drives.
    pub laps: u32,
    /// The track raced: a built-in track's name, or a track file (a
    /// definition's `.json`, or a `.csv` or glTF scene `skidpad track
    /// import` reads), which the replay then carries (a scene's ground
    /// too).
    pub track: String,
    /// Race on the track's own 3D surface (a scene's ground, else
    /// `Track::ground`: elevation, banking, kerbs, run-off, barriers)
    /// instead of the plane z = 0.
    pub on_track_surface: bool,
    /// The drivers race each other (`Racecraft`), each with skills drawn
    /// from this seed; `None`: each drives as if alone.
    pub racecraft: Option<u64>,
}

/// The seed of the demo drivers' skills unless told otherwise.
pub const DEFAULT_SEED: u64 = 1;

/// The track the demo races by default.
pub const DEFAULT_TRACK: &str = "brandwood";

/// One car's race.
#[derive(Clone, Debug, Serialize)]
pub struct CarResult {
    /// Car index.
    pub car: usize,
    /// Preset name.
    pub preset: String,
    /// Laps, as the race layer timed them (lap 1 from the standing
    /// start on the grid).
    pub laps: Vec<DemoLap>,
    /// Why the car did not finish its laps (`None` when it did).
    pub dnf: Option<String>,
}

/// One lap of the demo.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct DemoLap {
    /// Lap time, s.
    pub time: f64,
    /// False when the lap broke the track limits or missed a checkpoint.
    pub valid: bool,
}

/// Sizes of the replay.
#[derive(Clone, Debug, Serialize)]
pub struct Sizes {
    /// 48 bytes per car and step.
    pub raw: u64,
    /// The `.skr` file.
    pub encoded: usize,
    /// The same, gzipped.
    pub gzip: usize,
}

/// The best lap's ghost.
#[derive(Clone, Debug, Serialize)]
pub struct BestLap {
    /// Car index.
    pub car: usize,
    /// Lap number.
    pub lap: u32,
    /// Lap time, s.
    pub time: f64,
    /// Frames in the ghost.
    pub frames: usize,
    /// Bytes of the `.skg` file.
    pub bytes: usize,
}

/// The demo's summary.
#[derive(Clone, Debug, Serialize)]
pub struct DemoReport {
    /// Track name.
    pub track: String,
    /// What the cars drove on (`Ground::describe`).
    pub ground: String,
    /// Steps raced.
    pub steps: u64,
    /// Simulated seconds.
    pub duration: f64,
    /// Per car.
    pub cars: Vec<CarResult>,
    /// The replay file written.
    pub replay_file: PathBuf,
    /// The ghost file written (`None` when no car completed a lap).
    pub ghost_file: Option<PathBuf>,
    /// The stream written while racing (crash-safe, chunked).
    pub stream_file: PathBuf,
    /// True when the stream reads back as the same recording as the replay.
    pub stream_matches: bool,
    /// Replay sizes.
    pub sizes: Sizes,
    /// Keyframes in the replay.
    pub keyframes: usize,
    /// Desyncs found when verifying the replay.
    pub desyncs: u64,
    /// World hash at the end of the race.
    pub final_hash: String,
    /// World hash the verification reached.
    pub verified_hash: String,
    /// The best lap (`None` when no car completed a lap).
    pub best_lap: Option<BestLap>,
}

impl DemoReport {
    /// True when verification reproduced the race bit for bit.
    #[must_use]
    pub fn verified(&self) -> bool {
        self.desyncs == 0 && self.final_hash == self.verified_hash && self.stream_matches
    }
}

/// Runs the demo; `progress` counts completed laps (hidden when not on a
/// terminal).
pub fn run(options: &DemoOptions, progress: &ProgressBar) -> Result<DemoReport> {
    if options.cars == 0
        || options.cars > usize::from(MAX_CARS)
        || options.laps == 0
        || options.laps > MAX_LAPS
    {
        bail!("the demo races 1 to {MAX_CARS} cars for 1 to {MAX_LAPS} laps");
    }
    // The output directory is the demo's own: made here, before racing, so
    // a directory that cannot be made fails first.
    std::fs::create_dir_all(&options.out).with_context(|| {
        format!(
            "cannot create the output directory {} (--out)",
            options.out.display()
        )
    })?;
    let (track, scene_ground) = demo_track(&options.track)?;
    let track = Arc::new(track);
    let mut world = World::new(WorldConfig::default())?;
    // A scene's ground travels in the replay; a track's generated one is
    // rebuilt from the track the replay names or carries.
    let carried_ground = scene_ground.filter(|_| options.on_track_surface);
    if options.on_track_surface {
        match &carried_ground {
            Some(source) => world.set_ground(source.build()?)?,
            // Banked road on its elevation, kerbs, grass run-off and
            // barriers.
            None => world.set_ground(Arc::new(track.ground()?))?,
        }
    }
    // On the track's surface a car pushed into a barrier must back out to
    // finish, and one wedged or rolled is put back after 10 s stuck; on the
    // plane there is nothing to back out of.
    let mut field = AiField::new(options.cars).racecraft(options.racecraft);
    if options.on_track_surface {
        field = field.on_track_surface(Some(10.0));
    }
    field.line_up(&mut world, &track)?;
    let metadata = vec![
        ("laps".to_owned(), options.laps.to_string()),
        ("player".to_owned(), DEMO_PLAYER.to_owned()),
    ];
    // The recorder names the track (a built-in one by name, another by
    // fingerprint, carrying its definition), by which players rebuild it.
    let options_with = |metadata: Vec<(String, String)>| RecorderOptions {
        metadata,
        track: Some(track.clone()),
        ground: carried_ground.clone(),
        ..RecorderOptions::default()
    };
    // The same race also goes to a crash-safe stream as it runs: a chunk
    // per keyframe interval, each synced to disk. If the demo dies,
    // `skidpad recover` turns what was written into a replay.
    let stream_file = options.out.join("demo.sks");
    let sink = std::fs::File::create(&stream_file)
        .with_context(|| format!("cannot create {}", stream_file.display()))?;
    let mut stream = StreamRecorder::new(
        &world,
        options_with(metadata.clone()),
        sink,
        SyncPolicy::EveryChunk,
    )?;
    let mut recorder = ReplayRecorder::new(&world, options_with(metadata))?;
    let mut cutters: Vec<LapCutter> = world
        .car_ids()
        .map(|c| LapCutter::new(c, track.clone(), &world))
        .collect::<Result<_, _>>()?;
    let mut laps: Vec<Vec<DemoLap>> = vec![Vec::new(); options.cars];
    let mut best: Option<(usize, CutLap)> = None;
    // Generous: four minutes a lap (a big field on the track's surface
    // queues behind pile-ups), or 6 m/s on average round a long circuit
    // (Spa's 7 km: 19 minutes). A car still racing then is a DNF, as is a
    // car that has stood still for STUCK_STEPS: the race does not wait for
    // it, and the replay of everything raced is still written.
    let seconds_per_lap = (track.length() / 6.0).max(240.0);
    let limit = u64::from(options.laps) * (seconds_per_lap / DT).round() as u64;
    let ids: Vec<_> = world.car_ids().collect();
    let mut standing = StandingClock::new(options.cars, DT);
    let racing = |laps: &[Vec<DemoLap>], standing: &StandingClock| {
        (0..laps.len()).any(|k| (laps[k].len() as u32) < options.laps && !standing.stuck(k))
    };
    while racing(&laps, &standing) && recorder.step_count() < limit {
        recorder.step(&mut world, DT)?;
        for (k, id) in ids.iter().enumerate() {
            standing.observe(k, world.pose(*id)?.speed);
        }
        stream.after_step(&world)?;
        for (k, cutter) in cutters.iter_mut().enumerate() {
            if let Some(done) = cutter.after_step(&world)?
                && (laps[k].len() as u32) < options.laps
            {
                laps[k].push(DemoLap {
                    time: done.lap.time(),
                    valid: done.lap.is_valid(),
                });
                progress.inc(1);
                // The fastest valid lap; an invalid one only while no lap
                // is valid.
                let better = |b: &CutLap| {
                    (done.lap.is_valid(), -done.lap.time()) > (b.lap.is_valid(), -b.lap.time())
                };
                if best.as_ref().is_none_or(|(_, b)| better(b)) {
                    best = Some((k, done));
                }
            }
        }
    }
    let mut dnf = Vec::with_capacity(options.cars);
    for (k, id) in ids.iter().enumerate() {
        if (laps[k].len() as u32) < options.laps {
            let pose = world.pose(*id)?;
            dnf.push(Some(dnf_reason(
                Retirement::of(&pose, &standing, k),
                laps[k].len(),
            )));
        } else {
            dnf.push(None);
        }
    }
    let final_hash = hex(&world.world_hash());
    let replay = recorder.finish(&world)?;
    stream.finish(&world)?;
    // The stream, read back, must be the same recording as the replay.
    let streamed = read_stream(&std::fs::read(&stream_file)?, &Limits::default())?;
    let stream_matches = streamed.complete && streamed.replay == replay;
    let encoded = encode_replay(&replay)?;
    let gzip = encode_replay_gzip(&replay)?;
    let replay_file = options.out.join("demo.skr");
    atomic::write_atomic(&replay_file, &encoded)?;
    // Without a completed lap there is no ghost to write.
    let ghost_file = options.out.join("best_lap.skg");
    let best_lap = match &best {
        Some((car, lap)) => {
            let ghost_bytes = encode_ghost(&lap.ghost)?;
            atomic::write_atomic(&ghost_file, &ghost_bytes)?;
            Some(BestLap {
                car: *car,
                lap: lap.lap.number,
                time: lap.lap.time(),
                frames: lap.ghost.len(),
                bytes: ghost_bytes.len(),
            })
        }
        None => None,
    };

    progress.set_message("verifying the replay");
    let report = verify(&encoded, skidpad_replay::NoHooks, &Limits::default())?;
    Ok(DemoReport {
        track: track.name().to_owned(),
        ground: if options.on_track_surface {
            format!("the track's own surface, a {}", world.ground().describe())
        } else {
            world.ground().describe()
        },
        steps: replay.header.step_count,
        duration: replay.duration(),
        cars: laps
            .into_iter()
            .zip(dnf)
            .enumerate()
            .map(|(car, (laps, dnf))| CarResult {
                car,
                preset: field.preset_of(car).to_owned(),
                laps,
                dnf,
            })
            .collect(),
        replay_file,
        ghost_file: best_lap.is_some().then_some(ghost_file),
        stream_file,
        stream_matches,
        sizes: Sizes {
            raw: replay.header.step_count * options.cars as u64 * 48,
            encoded: encoded.len(),
            gzip: gzip.len(),
        },
        keyframes: replay.keyframes.len(),
        desyncs: report.desyncs,
        final_hash,
        verified_hash: hex(&report.final_hash),
        best_lap,
    })
}

/// Why a car did not finish, in words: the race layer's [`Retirement`]
/// (on its roof or side, standing still for a minute, or still driving
/// when the race was called) and the laps it did.
fn dnf_reason(retirement: Retirement, laps_done: usize) -> String {
    let after = format!(
        "after {laps_done} lap{}",
        if laps_done == 1 { "" } else { "s" }
    );
    match retirement {
        Retirement::RolledOver { roll } => format!(
            "rolled over ({:.0}° of roll) {after}",
            roll.to_degrees().abs()
        ),
        Retirement::Stuck { still_s } => {
            format!("stuck: stood still for the last {still_s:.0} s {after}")
        }
        Retirement::Running => format!("still running when the race was called {after}"),
    }
}

/// A built-in track by name, or the track in a file, with the ground a
/// glTF scene brings (`None`: the track's generated ground).
fn demo_track(name_or_file: &str) -> Result<(Track, Option<GroundSource>)> {
    if skidpad_core::track_names().contains(&name_or_file) {
        return Ok((Track::builtin(name_or_file)?, None));
    }
    let path = Path::new(name_or_file);
    if !path.exists() {
        bail!(
            "--track {name_or_file}: neither a built-in track ({}) nor a track file",
            skidpad_core::track_names().join(", ")
        );
    }
    crate::track_cmd::read_track_and_ground(path)
}

fn display_path(p: &Path) -> String {
    p.display().to_string()
}

impl fmt::Display for DemoReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "skidpad demo: {} AI cars on {} ({} steps, {:.1} s simulated)",
            self.cars.len(),
            self.track,
            self.steps,
            self.duration
        )?;
        writeln!(f, "ground: {}", self.ground)?;
        writeln!(
            f,
            "laps timed line to line (lap 1 from the standing start); * = invalid lap"
        )?;
        writeln!(f)?;
        let laps = self.cars.iter().map(|c| c.laps.len()).max().unwrap_or(0);
        write!(f, "{:<4} {:<14}", "car", "preset")?;
        for l in 1..=laps {
            write!(f, " {:>9}", format!("lap {l}"))?;
        }
        writeln!(f, " {:>9}", "best")?;
        for c in &self.cars {
            write!(f, "{:<4} {:<14}", c.car, c.preset)?;
            for lap in &c.laps {
                // An invalid lap is starred, as timing screens mark them.
                let mark = if lap.valid { 's' } else { '*' };
                write!(f, " {:>8.2}{mark}", lap.time)?;
            }
            // A DNF's missing laps stay blank, so "best" keeps its column.
            for _ in c.laps.len()..laps {
                write!(f, " {:>9}", "")?;
            }
            match c
                .laps
                .iter()
                .filter(|l| l.valid)
                .map(|l| l.time)
                .reduce(f64::min)
            {
                Some(best) => write!(f, " {best:>8.2}s")?,
                None => write!(f, " {:>9}", "-")?,
            }
            match &c.dnf {
                Some(reason) => writeln!(f, "  DNF: {reason}")?,
                None => writeln!(f)?,
            }
        }
        writeln!(f)?;
        writeln!(f, "replay        {}", display_path(&self.replay_file))?;
        writeln!(f, "  raw inputs  {:>9} bytes", self.sizes.raw)?;
        writeln!(
            f,
            "  encoded     {:>9} bytes ({:.1}% of raw)",
            self.sizes.encoded,
            100.0 * self.sizes.encoded as f64 / self.sizes.raw as f64
        )?;
        writeln!(f, "  gzip        {:>9} bytes", self.sizes.gzip)?;
        writeln!(f, "  keyframes   {:>9}", self.keyframes)?;
        writeln!(
            f,
            "stream        {} ({})",
            display_path(&self.stream_file),
            if self.stream_matches {
                "written while racing, reads back as the replay"
            } else {
                "MISMATCH with the replay"
            }
        )?;
        match (&self.best_lap, &self.ghost_file) {
            (Some(best), Some(file)) => writeln!(
                f,
                "best lap      car {} lap {}: {:.2} s -> {} ({} frames, {} bytes)",
                best.car,
                best.lap,
                best.time,
                display_path(file),
                best.frames,
                best.bytes
            )?,
            _ => writeln!(
                f,
                "best lap      none: no car completed a lap (no ghost written)"
            )?,
        }
        writeln!(
            f,
            "verify        {} desyncs, {}",
            self.desyncs,
            if self.verified() {
                "bit for bit"
            } else {
                "MISMATCH"
            }
        )?;
        writeln!(f, "final hash    {}", self.final_hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dnf_is_explained_by_how_the_race_left_the_car() {
        let upside_down = dnf_reason(Retirement::RolledOver { roll: 3.1 }, 0);
        assert_eq!(upside_down, "rolled over (178° of roll) after 0 laps");
        assert_eq!(
            dnf_reason(Retirement::Stuck { still_s: 61.0 }, 1),
            "stuck: stood still for the last 61 s after 1 lap"
        );
        assert_eq!(
            dnf_reason(Retirement::Running, 2),
            "still running when the race was called after 2 laps"
        );
    }
}
