//! `--ground FILE` and `--track FILE`, taken by every command that plays a
//! replay: what a replay was recorded on when it does not carry it (a
//! ground file, `encode_ground_file`; an own track's file, which the
//! replay names by fingerprint). Each is used only when it is the one the
//! replay names, and refused, naming both, when it is not.

use std::path::PathBuf;

use anyhow::{Result, anyhow};
use clap::Args;
use skidpad_core::{GroundSource, Track};
use skidpad_replay::Replay;

use crate::{files, track_cmd};

/// The flags.
#[derive(Args, Clone, Debug, Default)]
pub struct BesideArgs {
    /// A ground file (`.skgd`, written by `encode_ground_file` or `skidpad
    /// track import --ground-output`), or a glTF scene (`.glb`, `.gltf`):
    /// the ground replays that do not carry theirs were recorded on.
    #[arg(long, value_name = "FILE")]
    pub ground: Option<PathBuf>,
    /// A track file (a definition's `.json`, or a `.csv` or glTF scene
    /// that `skidpad track import` reads): the own track a replay names by
    /// fingerprint without carrying it.
    #[arg(long, value_name = "FILE")]
    pub track: Option<PathBuf>,
}

/// What the flags name, read.
#[derive(Clone, Debug, Default)]
pub struct Beside {
    /// The ground, from `--ground`.
    pub ground: Option<GroundSource>,
    /// The track, from `--track`.
    pub track: Option<Track>,
}

impl BesideArgs {
    /// Reads the files the flags name.
    pub fn read(&self) -> Result<Beside> {
        Ok(Beside {
            ground: self.ground.as_deref().map(files::read_ground).transpose()?,
            track: self
                .track
                .as_deref()
                .map(track_cmd::read_track)
                .transpose()?,
        })
    }
}

impl Beside {
    /// Gives `replay` what it does not carry: the ground, and the track it
    /// names by fingerprint (refused when it names another).
    pub fn apply(&self, replay: &mut Replay) -> Result<()> {
        if replay.ground.is_none() {
            replay.ground.clone_from(&self.ground);
        }
        if let Some(track) = &self.track {
            replay
                .header
                .supply_track(track)
                .map_err(|e| anyhow!("--track {}: {e}", track.name()))?;
        }
        Ok(())
    }
}
