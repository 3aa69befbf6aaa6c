//! `skidpad track import` and `skidpad track check`: a game's own track
//! from a file (a track definition's JSON, or a format
//! `skidpad-track-import` reads), written as a definition or checked; and
//! the reading of track files every command shares.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use anyhow::{Context, Result, bail};
use skidpad_core::{GroundSource, MAX_TRACK_FILE_BYTES, Track, TrackDefinition};
use skidpad_track_import::{
    DEFAULT_MAX_TRIANGLES, GltfOptions, ImportOptions, SceneTrack, TrackReport, from_tum_csv,
    read_scene_file,
};

/// `skidpad track`'s commands.
#[derive(Subcommand, Debug)]
pub enum TrackCommand {
    /// Import a track as a track definition's JSON. Reads `.csv`, the TUM
    /// racetrack database's centre line (x, y, width right, width left per
    /// point), and glTF 2.0 scenes (`.glb`, `.gltf`): meshes whose
    /// material (else mesh, else node) is named after a surface (`tarmac`,
    /// `asphalt`, `road`, `kerb`, `curb`, `grass`, `gravel`, `sand`,
    /// `snow`, `ice`, `wet_asphalt`; case and a `.001` suffix ignored) are
    /// the ground; a node `centre_line` with a line or points gives the
    /// centre line in driving order (y-up metres, as glTF), `start` the
    /// start line, `sector.1`, `sector.2`… the sectors; widths are
    /// measured where the asphalt ends (or given as `width`/`widths` in
    /// the centre line node's extras). With `-o`, prints the track's
    /// check.
    Import {
        /// The file to import.
        file: PathBuf,
        #[command(flatten)]
        args: ImportArgs,
        /// Write the definition here (atomically) instead of standard
        /// output.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Write a glTF scene's ground here as a ground file (`.skgd`),
        /// for `--ground` of replays that do not carry theirs.
        #[arg(long, value_name = "FILE")]
        ground_output: Option<PathBuf>,
    },
    /// Check a track file (a definition's JSON, or a file `import` reads):
    /// length, widths, the tightest bend, elevation, the ground's size
    /// (and a scene's meshes by surface), and warnings (a centre line
    /// crossing itself without the height to pass over, a start line off
    /// the asphalt).
    Check {
        /// The track file.
        file: PathBuf,
        #[command(flatten)]
        args: ImportArgs,
    },
}

/// How a file is imported as a track (what `import` and `check` take
/// beyond the file).
#[derive(Args, Clone, Debug)]
pub struct ImportArgs {
    /// The track's name (default: the file's name).
    #[arg(long)]
    pub name: Option<String>,
    /// Where the start/finish line is, m along the centre line from the
    /// file's first point (default: a scene's `start` node, else the first
    /// point).
    #[arg(long)]
    pub start: Option<f64>,
    /// Sector boundaries, m from the line, separated by commas; at least
    /// two (default: a scene's `sector.N` nodes, else the lap in thirds).
    #[arg(long, value_delimiter = ',')]
    pub sectors: Option<Vec<f64>>,
    /// Most triangles a glTF scene may hold; a larger one is refused
    /// before its meshes are read.
    #[arg(long, default_value_t = DEFAULT_MAX_TRIANGLES)]
    pub max_triangles: usize,
}

impl Default for ImportArgs {
    fn default() -> ImportArgs {
        ImportArgs {
            name: None,
            start: None,
            sectors: None,
            max_triangles: DEFAULT_MAX_TRIANGLES,
        }
    }
}

/// Whether a path names a glTF scene (`.glb` or `.gltf`).
pub fn is_scene(path: &Path) -> bool {
    skidpad_track_import::is_scene_path(path)
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// Reads a glTF scene as a track, its external buffers from its folder.
pub fn read_scene(path: &Path, args: &ImportArgs) -> Result<SceneTrack> {
    let options = GltfOptions {
        name: args.name.clone().unwrap_or_default(),
        max_triangles: args.max_triangles,
        base_dir: None,
        start: args.start,
        sectors: args.sectors.clone(),
    };
    read_scene_file(path, &options).with_context(|| format!("cannot import {}", path.display()))
}

/// Reads a track file: `.glb`/`.gltf` is a glTF scene, `.csv` the TUM
/// racetrack database's centre-line format (each named after the file
/// unless `args` name it), anything else a track definition's JSON.
pub fn read_definition(path: &Path, args: Option<&ImportArgs>) -> Result<TrackDefinition> {
    if is_scene(path) {
        return Ok(read_scene(path, args.unwrap_or(&ImportArgs::default()))?.definition);
    }
    let text = crate::files::read_text_capped(path, MAX_TRACK_FILE_BYTES as u64, "a track file")?;
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    if is_csv {
        let args = args.cloned().unwrap_or_default();
        let options = ImportOptions {
            name: args.name.unwrap_or_else(|| stem(path)),
            start: args.start.unwrap_or(0.0),
            sectors: args.sectors,
        };
        return from_tum_csv(&text, &options)
            .with_context(|| format!("cannot import {}", path.display()));
    }
    if args.is_some() {
        bail!(
            "{}: import reads .csv files (the TUM racetrack database's centre line) and glTF \
             scenes (.glb, .gltf); a track definition's JSON needs no import (`skidpad track \
             check` reads it)",
            path.display()
        );
    }
    TrackDefinition::from_json(&text)
        .with_context(|| format!("cannot read {} as a track definition", path.display()))
}

/// Reads and builds a track file, naming the file in any error.
pub fn read_track(path: &Path) -> Result<Track> {
    build(path, read_definition(path, None)?)
}

/// Reads a track file with the ground it brings: a glTF scene's own
/// ground; `None` for a definition, whose ground is generated.
pub fn read_track_and_ground(path: &Path) -> Result<(Track, Option<GroundSource>)> {
    if !is_scene(path) {
        return Ok((read_track(path)?, None));
    }
    let scene = read_scene(path, &ImportArgs::default())?;
    let track = build(path, scene.definition)?;
    Ok((track, Some(GroundSource::Mesh(scene.ground))))
}

fn build(path: &Path, definition: TrackDefinition) -> Result<Track> {
    Track::from_definition(definition)
        .with_context(|| format!("{} is not a track skidpad can race on", path.display()))
}

/// `skidpad track check`: the report on a track file (on a scene's own
/// ground, with what the scene held).
pub fn check(path: &Path, args: &ImportArgs) -> Result<TrackReport> {
    if is_scene(path) {
        let scene = read_scene(path, args)?;
        return Ok(skidpad_track_import::check_scene(&scene)?);
    }
    Ok(skidpad_track_import::check(&read_track(path)?)?)
}

/// `skidpad track import`: the file as a definition, named and cut as
/// `args` say. Written to `output` (atomically) with its check returned,
/// or printed as JSON on standard output when there is no `output`. A
/// scene's ground goes to `ground_output` as a ground file (`.skgd`),
/// which replays that do not carry their ground are given with
/// `--ground`.
pub fn import(
    file: &Path,
    args: &ImportArgs,
    output: Option<&Path>,
    ground_output: Option<&Path>,
) -> Result<Option<TrackReport>> {
    let (definition, scene) = if is_scene(file) {
        let scene = read_scene(file, args)?;
        (scene.definition.clone(), Some(scene))
    } else {
        if ground_output.is_some() {
            bail!(
                "{}: only a glTF scene brings a ground to write; a track's generated ground \
                 is built from its definition",
                file.display()
            );
        }
        (read_definition(file, Some(args))?, None)
    };
    let track = build(file, definition.clone())?;
    if let (Some(path), Some(scene)) = (ground_output, &scene) {
        let bytes = skidpad_replay::encode_ground_file(&GroundSource::Mesh(scene.ground.clone()))?;
        crate::atomic::write_atomic(path, &bytes)?;
    }
    match output {
        Some(path) => {
            crate::atomic::write_atomic(path, (definition.to_json() + "\n").as_bytes())?;
            Ok(Some(match &scene {
                Some(scene) => skidpad_track_import::check_scene(scene)?,
                None => skidpad_track_import::check(&track)?,
            }))
        }
        None => {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            writeln!(out, "{}", definition.to_json())?;
            out.flush()?;
            Ok(None)
        }
    }
}
