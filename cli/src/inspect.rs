//! `skidpad inspect FILE`: header, sizes, keyframes and metadata of a
//! replay, or the frames of a ghost.

use std::fmt;
use std::path::Path;

use anyhow::Result;
use serde::Serialize;
use skidpad_core::scenario::hex;
use skidpad_ghost::{GhostPose, decode_ghost};
use skidpad_replay::{decode_replay, encode_replay, is_gzip};

use crate::files::{self, Kind};

/// What a file holds.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Inspection {
    /// A replay.
    Replay(ReplayInfo),
    /// A ghost.
    Ghost(GhostInfo),
}

/// A replay's description.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayInfo {
    /// Bytes on disk.
    pub file_bytes: usize,
    /// Whether the file is gzipped.
    pub gzip: bool,
    /// Bytes of the plain encoding.
    pub encoded_bytes: usize,
    /// Raw 48-byte inputs of every car and step.
    pub raw_input_bytes: u64,
    /// Core that recorded.
    pub core_version: String,
    /// Its simulation version.
    pub simulation_version: u32,
    /// Cars (definition names).
    pub cars: Vec<String>,
    /// Steps.
    pub steps: u64,
    /// Simulated seconds.
    pub duration: f64,
    /// Steps between keyframes.
    pub keyframe_every: u32,
    /// (step, world hash) of every keyframe.
    pub keyframes: Vec<(u64, String)>,
    /// Embedded ghost tracks.
    pub embedded_ghosts: usize,
    /// Key/value metadata.
    pub metadata: Vec<(String, String)>,
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

/// Describes a replay or ghost file.
pub fn inspect(path: &Path) -> Result<Inspection> {
    let bytes = files::read(path)?;
    Ok(match files::kind(path, &bytes)? {
        Kind::Ghost => {
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
        Kind::Replay => {
            let r = decode_replay(&bytes)?;
            Inspection::Replay(ReplayInfo {
                file_bytes: bytes.len(),
                gzip: is_gzip(&bytes),
                encoded_bytes: encode_replay(&r)?.len(),
                raw_input_bytes: r.header.step_count * u64::from(r.header.car_count) * 48,
                core_version: r.header.core_version.clone(),
                simulation_version: r.header.simulation_version,
                cars: r.definitions.iter().map(|d| d.name.clone()).collect(),
                steps: r.header.step_count,
                duration: r.duration(),
                keyframe_every: r.header.keyframe_every,
                keyframes: r
                    .keyframes
                    .iter()
                    .map(|k| (k.step, hex(&k.world_hash)))
                    .collect(),
                embedded_ghosts: r.ghosts.as_ref().map_or(0, Vec::len),
                metadata: r.header.metadata.clone(),
            })
        }
    })
}

impl fmt::Display for Inspection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Inspection::Replay(r) => {
                writeln!(f, "replay")?;
                writeln!(
                    f,
                    "  recorded by       skidpad-core {} (simulation version {})",
                    r.core_version, r.simulation_version
                )?;
                writeln!(
                    f,
                    "  cars              {}: {}",
                    r.cars.len(),
                    r.cars.join(", ")
                )?;
                writeln!(f, "  steps             {} ({:.2} s)", r.steps, r.duration)?;
                writeln!(
                    f,
                    "  size              {} bytes on disk{}, {} encoded, {} raw inputs",
                    r.file_bytes,
                    if r.gzip { " (gzip)" } else { "" },
                    r.encoded_bytes,
                    r.raw_input_bytes
                )?;
                writeln!(
                    f,
                    "  keyframes         {} (every {} steps)",
                    r.keyframes.len(),
                    r.keyframe_every
                )?;
                for (step, hash) in &r.keyframes {
                    writeln!(f, "    step {step:>7}  {hash}")?;
                }
                writeln!(f, "  embedded ghosts   {}", r.embedded_ghosts)?;
                writeln!(f, "  metadata")?;
                for (k, v) in &r.metadata {
                    writeln!(f, "    {k} = {v}")?;
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
        }
    }
}
