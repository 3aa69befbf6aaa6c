//! `skidpad inspect FILE`: header, sizes, keyframes, metadata and needs
//! (its track and ground, `needs.rs`) of a replay, the frames of a ghost, the chunks of a stream, or the ground of
//! a ground file: every file kind the formats define.

use std::fmt;
use std::path::Path;

use anyhow::Result;
use serde::Serialize;
use skidpad_core::hex;
use skidpad_ghost::{GhostPose, decode_ghost};
use skidpad_replay::{
    FileKind, Limits, ReplayError, ReplayHeader, decode_ground_file, decode_replay_with,
    encode_replay, is_gzip, read_replay_header, read_stream,
};

use crate::archived;
use crate::beside::Beside;
use crate::files;
use crate::needs::Needs;
use crate::text::printable;

/// What a file holds.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Inspection {
    /// A replay.
    Replay(ReplayInfo),
    /// A ghost.
    Ghost(GhostInfo),
    /// A stream (`.sks`).
    Stream(StreamInfo),
    /// A ground file (`.skgd`).
    Ground(GroundInfo),
}

/// A stream's description: what `skidpad recover` would make of it.
#[derive(Clone, Debug, Serialize)]
pub struct StreamInfo {
    /// Bytes on disk.
    pub file_bytes: usize,
    /// Whole chunks read.
    pub chunks: usize,
    /// True when the stream was finished (its end record is there).
    pub complete: bool,
    /// Bytes past the last whole record (a crash's cut).
    pub dropped_bytes: usize,
    /// Why reading stopped before the end, if it did.
    pub stopped: Option<String>,
    /// Core that recorded.
    pub core_version: String,
    /// Its simulation version.
    pub simulation_version: u32,
    /// Cars (definition names), arrivals included.
    pub cars: Vec<String>,
    /// Steps in the whole chunks.
    pub steps: u64,
    /// Key/value metadata.
    pub metadata: Vec<(String, String)>,
}

/// A ground file's description.
#[derive(Clone, Debug, Serialize)]
pub struct GroundInfo {
    /// Bytes on disk.
    pub file_bytes: usize,
    /// The ground it builds, described (`Ground::describe`), or why it
    /// does not build.
    pub ground: String,
    /// The built ground's fingerprint, which a replay recorded on it names.
    pub fingerprint: Option<String>,
}

/// A replay's description. The header is always read (it has the same
/// layout in every simulation version); the body only when this core can
/// decode it.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayInfo {
    /// Bytes on disk.
    pub file_bytes: usize,
    /// Whether the file is gzipped.
    pub gzip: bool,
    /// Core that recorded.
    pub core_version: String,
    /// Its simulation version.
    pub simulation_version: u32,
    /// Recorded cars.
    pub car_count: u32,
    /// Steps.
    pub steps: u64,
    /// Steps between keyframes.
    pub keyframe_every: u32,
    /// Raw 48-byte inputs of every car and step.
    pub raw_input_bytes: u64,
    /// Key/value metadata.
    pub metadata: Vec<(String, String)>,
    /// Its track and ground, and where a player finds them.
    pub needs: Needs,
    /// The decoded body, when this core or an archived one can read it.
    pub body: Option<ReplayBody>,
    /// The core that decoded the body: `simulation version 9 (native)`, or
    /// an older version's archived core, such as `simulation version 3
    /// (archived)`.
    pub decoded_by: Option<String>,
    /// Why the body was not decoded: another simulation version (not a
    /// fault: the header still describes the file), or a limit or damage.
    pub body_error: Option<String>,
    /// True when the body could not be read because the file is damaged or
    /// over a limit; `skidpad inspect` then exits 2 after printing.
    pub body_unreadable: bool,
}

impl Inspection {
    /// True when the file is described whole: a ghost, or a replay whose
    /// body decoded or belongs to another simulation version.
    #[must_use]
    pub fn is_sound(&self) -> bool {
        match self {
            Inspection::Replay(r) => !r.body_unreadable && !r.needs.refused_a_given_file(),
            Inspection::Ghost(_) => true,
            Inspection::Stream(s) => s.stopped.is_none() || s.chunks > 0,
            Inspection::Ground(g) => g.fingerprint.is_some(),
        }
    }
}

/// What only the body of a replay tells.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayBody {
    /// Bytes of the plain encoding (the native core re-encodes it; an
    /// archived core does not say).
    pub encoded_bytes: Option<usize>,
    /// Cars (definition names).
    pub cars: Vec<String>,
    /// Simulated seconds.
    pub duration: f64,
    /// (step, world hash) of every keyframe.
    pub keyframes: Vec<(u64, String)>,
    /// Embedded ghost tracks.
    pub embedded_ghosts: usize,
    /// The ground the replay carries (section 11), described; absent when
    /// it carries none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub carried_ground: Option<String>,
    /// What the player's rewinds took back; absent for a run lived
    /// straight through.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewinds: Option<skidpad_replay::RewindTotals>,
}

/// A ghost's description.
#[derive(Clone, Debug, Serialize)]
pub struct GhostInfo {
    /// Bytes on disk.
    pub file_bytes: usize,
    /// Frames.
    pub frames: usize,
    /// Seconds.
    pub duration: f32,
    /// Bytes per frame (raw frames are 36).
    pub bytes_per_frame: f64,
    /// First pose.
    pub first: [f32; 8],
    /// Last pose.
    pub last: [f32; 8],
}

fn pose_array(p: &GhostPose) -> [f32; 8] {
    [p.x, p.y, p.z, p.yaw, p.pitch, p.roll, p.steer, p.speed]
}

/// Describes a replay or ghost file; a replay's body is decoded within
/// `limits`.
pub fn inspect(path: &Path, limits: &Limits, beside: &Beside) -> Result<Inspection> {
    let bytes = files::read(path)?;
    match FileKind::sniff(&bytes) {
        FileKind::Stream => return inspect_stream(&bytes, limits),
        FileKind::Ground => return Ok(inspect_ground(&bytes)),
        _ => {}
    }
    Ok(match files::kind(path, &bytes)? {
        FileKind::Ghost => {
            let g = decode_ghost(&bytes)?;
            let frames = g.frames();
            Inspection::Ghost(GhostInfo {
                file_bytes: bytes.len(),
                frames: g.len(),
                duration: g.duration(),
                bytes_per_frame: bytes.len() as f64 / g.len() as f64,
                first: pose_array(&frames[0].pose),
                last: pose_array(&frames[g.len() - 1].pose),
            })
        }
        _ => {
            // `files::kind` lets only replays and ghosts through.
            let h = read_replay_header(&bytes)?;
            let decoded = decode_replay_with(&bytes, limits);
            let carries_ground = decoded.as_ref().ok().map(|r| r.ground.is_some());
            let needs = Needs::of(&h, carries_ground, beside);
            // The header is read already: its version says whether an
            // archived core is the one to ask.
            let older = matches!(&decoded, Err(ReplayError::SimulationVersion { .. }))
                .then_some(h.simulation_version);
            let mut body_unreadable = matches!(
                &decoded,
                Err(e) if !matches!(e, ReplayError::SimulationVersion { .. })
            );
            let decoded_by = match (&decoded, older) {
                (Ok(_), _) => Some(archived::core_label(h.simulation_version)),
                (Err(_), Some(version)) => Some(archived::core_label(version)),
                (Err(_), None) => None,
            };
            let (body, body_error) = match decoded {
                Err(ReplayError::SimulationVersion { .. }) if older.is_some() => {
                    match archived::cores().and_then(|c| Ok(c.inspect(&bytes)?)) {
                        Ok(a) => (
                            Some(ReplayBody {
                                encoded_bytes: None,
                                cars: a.car_names,
                                duration: a.duration,
                                keyframes: a.recorded_hashes,
                                embedded_ghosts: usize::try_from(a.embedded_ghosts)
                                    .unwrap_or(usize::MAX),
                                carried_ground: None,
                                rewinds: None,
                            }),
                            None,
                        ),
                        Err(e) => {
                            body_unreadable = true;
                            (None, Some(format!("{e:#}")))
                        }
                    }
                }
                Ok(r) => (
                    Some(ReplayBody {
                        encoded_bytes: Some(encode_replay(&r)?.len()),
                        cars: r.definitions.iter().map(|d| d.name.clone()).collect(),
                        duration: r.duration(),
                        keyframes: r
                            .keyframes
                            .iter()
                            .map(|k| (k.step, hex(&k.world_hash)))
                            .collect(),
                        embedded_ghosts: r.ghosts.as_ref().map_or(0, Vec::len),
                        carried_ground: r.ground.as_ref().map(|g| match g.build() {
                            Ok(ground) => ground.describe(),
                            Err(e) => format!("one that does not build: {e}"),
                        }),
                        rewinds: Some(skidpad_replay::RewindTotals::of(&r)).filter(|t| t.count > 0),
                    }),
                    None,
                ),
                Err(e) => (None, Some(e.to_string())),
            };
            // Named only when a core did read the body.
            let decoded_by = decoded_by.filter(|_| body.is_some());
            Inspection::Replay(ReplayInfo {
                file_bytes: bytes.len(),
                gzip: is_gzip(&bytes),
                core_version: h.core_version,
                simulation_version: h.simulation_version,
                car_count: h.car_count,
                steps: h.step_count,
                keyframe_every: h.keyframe_every,
                raw_input_bytes: h
                    .step_count
                    .saturating_mul(u64::from(h.car_count))
                    .saturating_mul(48),
                metadata: h.metadata,
                needs,
                body,
                decoded_by,
                body_error,
                body_unreadable,
            })
        }
    })
}

impl fmt::Display for Inspection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Inspection::Replay(r) => {
                write_recorded_by(f, "replay", &r.core_version, r.simulation_version)?;
                let names = r.body.as_ref().map_or(String::new(), |b| {
                    let names: Vec<String> = b.cars.iter().map(|c| printable(c)).collect();
                    format!(": {}", names.join(", "))
                });
                writeln!(f, "  cars              {}{names}", r.car_count)?;
                match &r.body {
                    Some(b) => {
                        writeln!(f, "  steps             {} ({:.2} s)", r.steps, b.duration)?
                    }
                    None => writeln!(f, "  steps             {}", r.steps)?,
                }
                let encoded = r
                    .body
                    .as_ref()
                    .and_then(|b| b.encoded_bytes)
                    .map_or(String::new(), |n| format!(", {n} encoded"));
                writeln!(
                    f,
                    "  size              {} bytes on disk{}{encoded}, {} raw inputs",
                    r.file_bytes,
                    if r.gzip { " (gzip)" } else { "" },
                    r.raw_input_bytes
                )?;
                if let Some(b) = &r.body {
                    writeln!(
                        f,
                        "  keyframes         {} (every {} steps)",
                        b.keyframes.len(),
                        r.keyframe_every
                    )?;
                    for (step, hash) in &b.keyframes {
                        writeln!(f, "    step {step:>7}  {hash}")?;
                    }
                    writeln!(f, "  embedded ghosts   {}", b.embedded_ghosts)?;
                    if let Some(ground) = &b.carried_ground {
                        writeln!(f, "  carried ground    {ground}")?;
                    }
                    if let Some(t) = &b.rewinds {
                        writeln!(
                            f,
                            "  rewinds           {} (taking back {} steps, {:.1} s)",
                            t.count, t.steps, t.seconds
                        )?;
                    }
                } else {
                    writeln!(f, "  keyframes         every {} steps", r.keyframe_every)?;
                }
                for (label, need) in [("track", &r.needs.track), ("ground", &r.needs.ground)] {
                    let mark = if need.found { "" } else { "MISSING: " };
                    writeln!(f, "  {label:<18}{mark}{}", need.what)?;
                }
                writeln!(f, "  metadata")?;
                for (k, v) in &r.metadata {
                    writeln!(f, "    {} = {}", printable(k), metadata_value(k, v))?;
                }
                if let Some(core) = &r.decoded_by {
                    writeln!(f, "  decoded by        {core}")?;
                }
                if let Some(e) = &r.body_error {
                    writeln!(f, "  body not read     {}", printable(e))?;
                }
                Ok(())
            }
            Inspection::Ghost(g) => {
                writeln!(f, "ghost")?;
                writeln!(f, "  frames            {} ({:.3} s)", g.frames, g.duration)?;
                writeln!(
                    f,
                    "  size              {} bytes, {:.2} bytes per frame (raw 36)",
                    g.file_bytes, g.bytes_per_frame
                )?;
                let pose = |p: &[f32; 8]| {
                    format!(
                        "x {:.2} y {:.2} z {:.3} yaw {:.3} speed {:.2}",
                        p[0], p[1], p[2], p[3], p[7]
                    )
                };
                writeln!(f, "  first pose        {}", pose(&g.first))?;
                writeln!(f, "  last pose         {}", pose(&g.last))
            }
            Inspection::Stream(s) => {
                write_recorded_by(f, "stream", &s.core_version, s.simulation_version)?;
                let names: Vec<String> = s.cars.iter().map(|n| printable(n)).collect();
                writeln!(
                    f,
                    "  cars              {}: {}",
                    s.cars.len(),
                    names.join(", ")
                )?;
                writeln!(
                    f,
                    "  steps             {} in {} whole chunks",
                    s.steps, s.chunks
                )?;
                writeln!(
                    f,
                    "  size              {} bytes, {} past the last whole record",
                    s.file_bytes, s.dropped_bytes
                )?;
                let state = match (&s.stopped, s.complete) {
                    (Some(why), _) => format!(
                        "cut: {} (`skidpad recover` keeps the whole chunks)",
                        printable(why)
                    ),
                    (None, true) => "finished".to_owned(),
                    (None, false) => "still being written, or cut between records".to_owned(),
                };
                writeln!(f, "  state             {state}")?;
                writeln!(f, "  metadata")?;
                for (k, v) in &s.metadata {
                    writeln!(f, "    {} = {}", printable(k), metadata_value(k, v))?;
                }
                Ok(())
            }
            Inspection::Ground(g) => {
                writeln!(f, "ground file")?;
                writeln!(f, "  ground            {}", printable(&g.ground))?;
                writeln!(f, "  size              {} bytes", g.file_bytes)?;
                match &g.fingerprint {
                    Some(fp) => writeln!(f, "  fingerprint       {fp}"),
                    None => Ok(()),
                }
            }
        }
    }
}

/// A stream read as `skidpad recover` reads it: every whole chunk.
fn inspect_stream(bytes: &[u8], limits: &Limits) -> Result<Inspection> {
    let contents = read_stream(bytes, limits)?;
    let h = &contents.replay.header;
    Ok(Inspection::Stream(StreamInfo {
        file_bytes: bytes.len(),
        chunks: contents.chunks,
        complete: contents.complete,
        dropped_bytes: contents.dropped_bytes,
        stopped: contents.stopped.clone(),
        core_version: h.core_version.clone(),
        simulation_version: h.simulation_version,
        cars: contents
            .replay
            .definitions
            .iter()
            .map(|d| d.name.clone())
            .collect(),
        steps: h.step_count,
        metadata: h.metadata.clone(),
    }))
}

/// A ground file, built to describe it and name its fingerprint.
fn inspect_ground(bytes: &[u8]) -> Inspection {
    let built = decode_ground_file(bytes)
        .map_err(|e| e.to_string())
        .and_then(|source| source.build().map_err(|e| e.to_string()));
    let (ground, fingerprint) = match built {
        Ok(g) => (g.describe(), Some(hex(&g.fingerprint()))),
        Err(e) => (format!("not a ground this core builds: {e}"), None),
    };
    Inspection::Ground(GroundInfo {
        file_bytes: bytes.len(),
        ground,
        fingerprint,
    })
}

/// The first lines of a recording's description: what it is, and which
/// core recorded it.
fn write_recorded_by(
    f: &mut fmt::Formatter<'_>,
    kind: &str,
    core_version: &str,
    simulation_version: u32,
) -> fmt::Result {
    writeln!(f, "{kind}")?;
    writeln!(
        f,
        "  recorded by       skidpad-core {} (simulation version {simulation_version})",
        printable(core_version)
    )
}

/// A metadata value as the text shows it: a carried track in a line.
fn metadata_value(key: &str, value: &str) -> String {
    if key == ReplayHeader::TRACK_DEFINITION_KEY {
        carried_track_summary(value)
    } else if key == ReplayHeader::TAKE_OVER_KEY {
        take_over_summary(value)
    } else {
        printable(value)
    }
}

/// Where a taken-over run began, in a line.
fn take_over_summary(json: &str) -> String {
    match serde_json::from_str::<skidpad_replay::TakeOverOrigin>(json) {
        Ok(o) => format!(
            "car {} taken over at step {} of the run that ended {}",
            o.car,
            o.step,
            printable(&o.source)
        ),
        Err(e) => format!("not a take-over origin: {}", printable(&e.to_string())),
    }
}

/// A carried track definition in a line: its name and size (the JSON
/// output has it whole).
fn carried_track_summary(json: &str) -> String {
    match skidpad_core::TrackDefinition::from_json(json) {
        Ok(def) => format!(
            "the definition of track {} ({} control points, {} bytes of JSON)",
            printable(&def.name),
            def.centre_line.len(),
            json.len()
        ),
        Err(e) => format!("not a track definition: {}", printable(&e.to_string())),
    }
}
