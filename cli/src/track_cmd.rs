//! `skidpad track import` and `skidpad track check`: a game's own track
//! from a file (a track definition's JSON, or a format
//! `skidpad-track-import` reads), written as a definition or checked.

use std::path::Path;

use anyhow::{Context, Result, bail};
use skidpad_core::{MAX_TRACK_FILE_BYTES, Track, TrackDefinition};
use skidpad_track_import::{ImportOptions, from_tum_csv};

/// Reads a track file: `.csv` is the TUM racetrack database's centre-line
/// format (named after the file unless `options` name it), anything else
/// a track definition's JSON.
pub fn read_definition(path: &Path, options: Option<&ImportOptions>) -> Result<TrackDefinition> {
    let text = crate::files::read_text_capped(path, MAX_TRACK_FILE_BYTES as u64, "a track file")?;
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let definition = if is_csv {
        let stem = path
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let options = options
            .cloned()
            .unwrap_or_else(|| ImportOptions::named(&stem));
        from_tum_csv(&text, &options)
            .with_context(|| format!("cannot import {}", path.display()))?
    } else {
        if options.is_some() {
            bail!(
                "{}: import reads .csv files (the TUM racetrack database's centre line); a track \
                 definition's JSON needs no import (`skidpad track check` reads it)",
                path.display()
            );
        }
        TrackDefinition::from_json(&text)
            .with_context(|| format!("cannot read {} as a track definition", path.display()))?
    };
    Ok(definition)
}

/// Reads and builds a track file, naming the file in any error.
pub fn read_track(path: &Path) -> Result<Track> {
    let definition = read_definition(path, None)?;
    Track::from_definition(definition)
        .with_context(|| format!("{} is not a track skidpad can race on", path.display()))
}

/// `skidpad track import`: the file as a definition, named `name` (the
/// file's name by default) and cut by `start` and `sectors`. Written to
/// `output` (atomically) with its check returned, or printed as JSON on
/// standard output when there is no `output`.
pub fn import(
    file: &Path,
    name: Option<String>,
    start: f64,
    sectors: Option<Vec<f64>>,
    output: Option<&Path>,
) -> Result<Option<skidpad_track_import::TrackReport>> {
    let stem = file
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let options = ImportOptions {
        name: name.unwrap_or(stem),
        start,
        sectors,
    };
    let definition = read_definition(file, Some(&options))?;
    let track = Track::from_definition(definition.clone())?;
    match output {
        Some(path) => {
            crate::atomic::write_atomic(path, (definition.to_json() + "\n").as_bytes())?;
            Ok(Some(skidpad_track_import::check(&track)?))
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
