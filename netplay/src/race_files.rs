//! The binary's own track and car files: `--track` (a built-in name, a
//! definition's `.json` or a glTF scene) and `--car` (a preset's name, or a
//! definition's `.json`, a car package whose tires may name `.tir` files
//! beside it), read with their sizes bounded and their errors naming the
//! flag.

use anyhow::{Context, Result, bail};
use skidpad_core::{CarDefinition, CoreError, GroundSource, TrackDefinition};

/// `--track`: the race's track name, its own definition if any, and its
/// own ground (a glTF scene's) if any.
pub fn track(value: &str) -> Result<(String, Option<TrackDefinition>, Option<GroundSource>)> {
    if let Some(scene) = scene_of(value)? {
        let name = scene.definition.name.clone();
        return Ok((
            name,
            Some(scene.definition),
            Some(GroundSource::Mesh(scene.ground)),
        ));
    }
    let (name, definition) = own_or_builtin(value, "track", |text| {
        let definition = TrackDefinition::from_json(text)?;
        Ok((definition.name.clone(), definition))
    })?;
    Ok((name, definition, None))
}

/// `--car`: the car's name and its own definition if any.
pub fn car(value: &str) -> Result<(String, Option<CarDefinition>)> {
    // A car package's tires may name `.tir` files beside it.
    let folder = std::path::Path::new(value)
        .parent()
        .map(std::path::Path::to_owned)
        .unwrap_or_default();
    own_or_builtin(value, "car", |text| {
        let mut read_tir = |name: &str| {
            let path = folder.join(name);
            let refused = |reason: String| CoreError::InvalidArgument {
                what: "tir file",
                reason,
            };
            if std::fs::metadata(&path).is_ok_and(|m| m.len() > MAX_DEFINITION_FILE_BYTES) {
                return Err(refused(format!(
                    "larger than {MAX_DEFINITION_FILE_BYTES} bytes"
                )));
            }
            std::fs::read_to_string(&path).map_err(|e| refused(e.to_string()))
        };
        let definition = CarDefinition::from_package_json(text, &mut read_tir)?;
        Ok((definition.name.clone(), definition))
    })
}

/// A `--track` value that names a glTF scene (`.glb`, `.gltf`), imported
/// as `skidpad track import` imports it: the race is driven on the
/// scene's ground, which every player gets in the map message.
fn scene_of(value: &str) -> Result<Option<skidpad_track_import::SceneTrack>> {
    let path = std::path::Path::new(value);
    if !skidpad_track_import::is_scene_path(path) {
        return Ok(None);
    }
    let named = skidpad_track_import::GltfOptions::named("");
    let scene = skidpad_track_import::read_scene_file(path, &named)
        .with_context(|| format!("--track {value}"))?;
    Ok(Some(scene))
}

/// Largest own track or car file read, bytes.
const MAX_DEFINITION_FILE_BYTES: u64 = skidpad_core::MAX_TRACK_FILE_BYTES as u64;

/// A `--track` or `--car` value: a built-in name as it is (the race
/// checks it), or the definition in a `.json` file, read by `parse` into
/// its name and definition.
fn own_or_builtin<T>(
    value: &str,
    what: &str,
    parse: impl FnOnce(&str) -> skidpad_core::Result<(String, T)>,
) -> Result<(String, Option<T>)> {
    let path = std::path::Path::new(value);
    let lower = value.to_ascii_lowercase();
    if lower.ends_with(".csv") {
        // Imported once (`skidpad track import`), not at every start.
        bail!(
            "--{what} {value}: an online race takes a track definition's .json (`skidpad track \
             import` writes one from a .csv) or a glTF scene (.glb, .gltf)"
        );
    }
    if !value.ends_with(".json") {
        return Ok((value.to_owned(), None));
    }
    let size = std::fs::metadata(path)
        .with_context(|| format!("--{what} {value}: cannot read it"))?
        .len();
    if size > MAX_DEFINITION_FILE_BYTES {
        bail!(
            "--{what} {value} is {size} bytes; a {what} file is at most {MAX_DEFINITION_FILE_BYTES}"
        );
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--{what} {value}: cannot read it"))?;
    let (name, definition) = parse(&text).with_context(|| format!("--{what} {value}"))?;
    Ok((name, Some(definition)))
}
