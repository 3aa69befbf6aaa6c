//! A game's own tracks for skidpad: importers that turn the formats games
//! and data use into a [`skidpad_core::TrackDefinition`], and [`check`], the report
//! `skidpad track check` prints (length, widths, the tightest bend,
//! elevation, the ground's size, and warnings about what would spoil a
//! race).
//!
//! Formats read:
//! - the TUM racetrack database's centre-line CSV ([`from_tum_csv`]);
//! - a glTF 2.0 scene, `.gltf` or `.glb` ([`from_gltf`]): its meshes
//!   named after surfaces become the ground, named nodes give the centre
//!   line, start line and sectors (the rules are in `gltf_scene.rs` and
//!   `scene_line.rs`, and in `skidpad track import --help`).
//!
//! ```
//! use skidpad_track_import::{ImportOptions, check, from_tum_csv};
//!
//! let csv = "# x_m,y_m,w_tr_right_m,w_tr_left_m\n\
//!            0,0,5,5\n200,0,5,5\n260,80,5,5\n200,160,5,5\n0,160,5,5\n-60,80,5,5\n";
//! let definition = from_tum_csv(csv, &ImportOptions::named("oval"))?;
//! let track = skidpad_core::Track::from_definition(definition)?;
//! let report = check(&track)?;
//! assert!(report.length > 600.0 && report.warnings.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod check;
mod gltf_data;
mod gltf_scene;
mod scene_line;
mod tum_csv;

pub use check::{TrackReport, check, check_scene};
pub use gltf_scene::{
    DEFAULT_MAX_TRIANGLES, GltfOptions, MAX_SCENE_FILE_BYTES, SceneCounts, SceneTrack, VisualMesh,
    from_gltf, is_scene_path, read_scene_file, surface_named,
};
pub use tum_csv::from_tum_csv;

/// What an importer cannot take from the file itself.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportOptions {
    /// The track's name.
    pub name: String,
    /// Where the start/finish line is, m along the line from the file's
    /// first point ([`skidpad_core::TrackDefinition::start`]).
    pub start: f64,
    /// Sector boundaries, m from the line (`None`: thirds).
    pub sectors: Option<Vec<f64>>,
}

impl ImportOptions {
    /// A name, the line at the first point, the lap in thirds.
    #[must_use]
    pub fn named(name: &str) -> ImportOptions {
        ImportOptions {
            name: name.to_owned(),
            start: 0.0,
            sectors: None,
        }
    }
}

/// Why a file could not be imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A line of a text format is wrong.
    #[error("line {line}: {reason}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// The file as a whole is wrong.
    #[error("{0}")]
    File(String),
    /// The track it describes is refused by the core.
    #[error(transparent)]
    Track(#[from] skidpad_core::CoreError),
}

impl ImportError {
    fn at(line: usize, reason: String) -> ImportError {
        ImportError::Line { line, reason }
    }
}
