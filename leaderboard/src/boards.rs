//! Per-track rules (`--boards FILE`): which tracks this service ranks (the
//! built-in ones by name, a game's own from its track file), how many cars
//! besides the ranked one a run there may carry (rivals the player raced
//! against; 0 means a lone car), and its longest run. Checked at the door
//! from the upload's header, as the service-wide budget is (`budget.rs`),
//! and answered 422 naming the board's rule. Without a file every
//! built-in track is open within the budget, and no other.
//!
//! The file is JSON, a list of boards; `track_file` is a track
//! definition's JSON (`skidpad track import` writes one), or a glTF scene
//! (`.glb`, `.gltf`: its runs race on the scene's own ground), its path
//! relative to the boards file. A replay names an own track by its
//! fingerprint, and its board is listed under that fingerprint:
//!
//! A board may list its `classes`, each a name and its cars (presets by
//! name, a game's own cars by their definition files or car packages,
//! whose tires may name `.tir` files beside them), compared by
//! fingerprint; without them each preset is its own class. A run taken
//! over from another (it names its origin) ranks only on a board marked
//! `"practice": true`. A run whose player rewound is refused, or with
//! `"rewinds": "unranked"` verified and shown but not ranked.
//! `"ground": "surface"` or `"plane"` holds a board's runs to the track's
//! own surface or to the plane (a scene's board is always held to its
//! scene's ground).
//!
//! ```json
//! [{"track": "brandwood", "rivals": 0, "max_steps": 36000},
//!  {"track_file": "tracks/monza.json", "rivals": 5, "max_steps": 108000,
//!   "classes": {"gt": ["cars/gt3.json", "rwd_sports"]}}]
//! ```

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;
use skidpad_core::{
    CarDefinition, Ground, MAX_TRACK_FILE_BYTES, Track, TriangleMesh, preset, track_names,
};
use skidpad_replay::ReplayHeader;
use skidpad_track_import::{GltfOptions, is_scene_path, read_scene_file};

pub use crate::board_policies::{RacedOn, RewindPolicy};

/// One board's rules as the file (or an operator's `POST /boards`) gives
/// them.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct BoardFile {
    /// A built-in track's name.
    #[serde(default)]
    track: Option<String>,
    /// A track definition file, relative to the boards file.
    #[serde(default)]
    track_file: Option<String>,
    /// A track definition itself (its JSON object), as `POST /boards`
    /// gives it: the server's files are no client's business.
    #[serde(default)]
    track_definition: Option<serde_json::Value>,
    #[serde(default)]
    rivals: u32,
    max_steps: u64,
    /// The board's classes: a name and its cars, each a preset's name, a
    /// car definition file relative to the boards file, or a definition
    /// itself. Absent, each preset is its own class.
    #[serde(default)]
    classes: Option<BTreeMap<String, Vec<CarEntry>>>,
    /// A practice board: it also ranks runs taken over from another run
    /// (`skidpad_replay::TakeOver`), which no other board takes.
    #[serde(default)]
    practice: bool,
    /// What the board does with a run that used rewinds: refuse it (the
    /// default) or keep it verified and unranked, its rewinds shown.
    #[serde(default)]
    rewinds: RewindPolicy,
    /// The ground its runs must be raced on; absent, a scene's own ground
    /// for a glTF scene's track and either for any other.
    #[serde(default)]
    ground: Option<RacedOn>,
}

/// A car of a class as a board names it.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
enum CarEntry {
    /// A preset's name, or a car file (`.json`) beside the boards file.
    Named(String),
    /// A car definition's JSON object.
    Inline {
        /// The definition.
        definition: serde_json::Value,
    },
}

/// One track's rules.
#[derive(Clone, Debug)]
pub struct BoardRules {
    /// What replays and the service name the track by: a built-in
    /// track's name, or an own track's fingerprint (64 hex digits).
    pub key: String,
    /// The track, built once.
    pub track: Arc<Track>,
    /// Its ground, built once: the generated one, or a glTF scene's own;
    /// the ground a run on it names when it raced on the track's surface.
    pub ground: Arc<TriangleMesh>,
    /// The ground its runs must be raced on (a glTF scene's track always
    /// on the scene's: on any other it is another race).
    pub raced_on: RacedOn,
    /// Cars a run may carry besides the ranked one.
    pub rivals: u32,
    /// Most steps of a run (60 a second at the usual rate).
    pub max_steps: u64,
    /// The board's classes and their cars, when the file gives them.
    pub classes: Option<Vec<CarClass>>,
    /// A practice board: runs taken over from another run rank here.
    pub practice: bool,
    /// What the board does with a run that used rewinds.
    pub rewinds: RewindPolicy,
}

/// A class of cars ranked together.
#[derive(Clone, Debug, PartialEq)]
pub struct CarClass {
    /// Its name, as in the leaderboard's URL.
    pub name: String,
    /// The fingerprints of its cars, each taken with an automatic gearbox
    /// ([`class_fingerprint`]).
    pub cars: Vec<[u8; 32]>,
    /// The cars themselves, for a client that drives them (`GET /boards`).
    pub members: Vec<ClassCar>,
}

/// A car of a class as the boards file names it.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassCar {
    /// A preset's name, or `None` for a game's own car.
    pub preset: Option<String>,
    /// Its definition.
    pub definition: CarDefinition,
}

/// A car's fingerprint as classes compare it: its definition with an
/// automatic gearbox, since the shift mode is the driver's choice (a
/// player with paddles or an H-pattern drives the same car).
#[must_use]
pub fn class_fingerprint(car: &CarDefinition) -> [u8; 32] {
    let mut shifted = car.clone();
    shifted.gearbox.mode = skidpad_core::ShiftMode::Automatic;
    shifted.fingerprint()
}

/// Two boards are the same when they name the same track (its key is the
/// track's name or fingerprint) under the same rules.
impl PartialEq for BoardRules {
    fn eq(&self, other: &Self) -> bool {
        (
            &self.key,
            self.rivals,
            self.max_steps,
            &self.classes,
            self.practice,
        ) == (
            &other.key,
            other.rivals,
            other.max_steps,
            &other.classes,
            other.practice,
        )
    }
}

impl Eq for BoardRules {}

/// The boards this service ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Boards {
    rules: Vec<BoardRules>,
}

/// Most rivals a board may allow: the SDK's own field sizes stay far
/// beyond what a leaderboard re-simulates.
const MAX_RIVALS: u32 = 63;

impl Boards {
    /// Reads the boards' JSON, with track files relative to `folder`,
    /// refusing an unknown track, a track file that does not read, a
    /// track listed twice, or a rule outside its range, with the board
    /// named.
    pub fn from_json(text: &str, folder: &Path) -> Result<Boards, String> {
        let files: Vec<BoardFile> =
            serde_json::from_str(text).map_err(|e| format!("boards file: {e}"))?;
        if files.is_empty() {
            return Err("boards file: lists no board".into());
        }
        let mut boards = Boards {
            rules: Vec::with_capacity(files.len()),
        };
        for (k, board) in files.into_iter().enumerate() {
            let rules = BoardRules::read(board, Some(folder))
                .map_err(|e| format!("boards file: board {k}: {e}"))?;
            boards = boards
                .with(rules)
                .map_err(|e| format!("boards file: {e}"))?;
        }
        Ok(boards)
    }

    /// These boards and `board`, refused when its track is listed already.
    pub fn with(&self, board: BoardRules) -> Result<Boards, String> {
        if self.rules.iter().any(|b| b.key == board.key) {
            return Err(format!("track {:?} is listed twice", board.track.name()));
        }
        let mut rules = self.rules.clone();
        rules.push(board);
        Ok(Boards { rules })
    }

    /// The boards, in the file's order.
    #[must_use]
    pub fn rules(&self) -> &[BoardRules] {
        &self.rules
    }

    /// The board a replay's track key names.
    #[must_use]
    pub fn board(&self, key: &str) -> Option<&BoardRules> {
        self.rules.iter().find(|b| b.key == key)
    }

    /// Why the run in `header` breaks its board's rules, or `None`. A run
    /// that names no track is left to the judge, which rejects it.
    #[must_use]
    pub fn refusal(&self, header: &ReplayHeader) -> Option<String> {
        let track = header.metadata_value(ReplayHeader::TRACK_KEY)?;
        let Some(board) = self.board(track) else {
            let open: Vec<String> = self.rules.iter().map(BoardRules::label).collect();
            return Some(format!(
                "this service ranks no board on track {track:?} (--boards: {})",
                open.join(", ")
            ));
        };
        let name = board.track.name();
        if !board.practice && header.metadata_value(ReplayHeader::TAKE_OVER_KEY).is_some() {
            return Some(format!(
                "the run was taken over from another run; the {name} board ranks whole runs only \
                 (a practice board takes it: \"practice\": true in --boards)"
            ));
        }
        if let Some(wanted) = board.required_ground() {
            let raced_on = header.ground().ok()?;
            if raced_on.0 != wanted.0 {
                return Some(format!(
                    "the run was raced on {} (ground {}), not on the {name} board's ground ({}, \
                     ground {})",
                    raced_on.1,
                    &skidpad_core::hex(&raced_on.0)[..12],
                    wanted.1,
                    &skidpad_core::hex(&wanted.0)[..12]
                ));
            }
        }
        let allowed = u64::from(board.rivals) + 1;
        if u64::from(header.car_count) > allowed {
            return Some(format!(
                "the replay has {} cars; the {name} board ranks one car with at most {} rivals (--boards)",
                header.car_count, board.rivals
            ));
        }
        (header.step_count > board.max_steps).then(|| {
            format!(
                "the replay has {} steps; the {name} board accepts at most {} (--boards)",
                header.step_count, board.max_steps
            )
        })
    }
}

impl BoardRules {
    /// One board as an operator registers it (`POST /boards`): the
    /// board's JSON object, its track a built-in one's name or a
    /// definition (`track_definition`), its cars presets or definitions;
    /// no file is read. Refused, saying why, as a boards file's board is.
    pub fn registered(json: &str) -> Result<BoardRules, String> {
        let board: BoardFile = serde_json::from_str(json).map_err(|e| e.to_string())?;
        BoardRules::read(board, None)
    }

    /// A board from its file form; files are read relative to `folder`,
    /// and refused without one.
    fn read(board: BoardFile, folder: Option<&Path>) -> Result<BoardRules, String> {
        let in_folder = |file: &str| {
            folder.map(|f| f.join(file)).ok_or_else(|| {
                format!("{file}: a registered board names no file; give the definition itself")
            })
        };
        let (key, track, ground) = match (&board.track, &board.track_file, &board.track_definition)
        {
            (Some(name), None, None) => {
                let track = Track::builtin(name).map_err(|_| format!("unknown track {name:?}"))?;
                (name.clone(), track, None)
            }
            (None, Some(file), None) => {
                let (track, ground, own) = read_track_file(&in_folder(file)?)?;
                (track.fingerprint_hex(), track, Some((ground, own)))
            }
            (None, None, Some(definition)) => {
                let track = Track::from_json(&definition.to_string()).map_err(|e| e.to_string())?;
                (track.fingerprint_hex(), track, None)
            }
            _ => {
                return Err(
                    "give one of `track` (a built-in track), `track_file` or `track_definition`"
                        .into(),
                );
            }
        };
        let name = track.name().to_owned();
        if board.rivals > MAX_RIVALS {
            return Err(format!("{name}: rivals must be at most {MAX_RIVALS}"));
        }
        if board.max_steps == 0 {
            return Err(format!("{name}: max_steps must be positive"));
        }
        let (ground, own_ground) = match ground {
            Some((ground, own)) => (ground, own),
            None => (track.ground().map_err(|e| format!("{name}: {e}"))?, false),
        };
        let raced_on = match (board.ground, own_ground) {
            (None | Some(RacedOn::Surface), true) => RacedOn::Surface,
            (Some(_), true) => {
                return Err(format!(
                    "{name}: a glTF scene's track is raced on the scene's ground only \
                     (\"ground\": \"surface\")"
                ));
            }
            (rule, false) => rule.unwrap_or_default(),
        };
        let classes = board
            .classes
            .as_ref()
            .map(|classes| read_classes(classes, folder))
            .transpose()
            .map_err(|e| format!("{name}: {e}"))?;
        Ok(BoardRules {
            key,
            track: Arc::new(track),
            raced_on,
            ground: Arc::new(ground),
            rivals: board.rivals,
            practice: board.practice,
            rewinds: board.rewinds,
            max_steps: board.max_steps,
            classes,
        })
    }

    /// The board's key, with the track's name when the key is a
    /// fingerprint.
    fn label(&self) -> String {
        if self.key == self.track.name() {
            self.key.clone()
        } else {
            format!("{} ({})", self.key, self.track.name())
        }
    }

    /// The fingerprint and description of the one ground its runs must
    /// be raced on, if it holds them to one.
    fn required_ground(&self) -> Option<([u8; 32], String)> {
        match self.raced_on {
            RacedOn::Surface => Some((self.ground.fingerprint(), self.ground.describe())),
            RacedOn::Plane => Some((
                skidpad_core::FlatGround::plane_fingerprint(),
                skidpad_core::FlatGround.describe(),
            )),
            RacedOn::Either => None,
        }
    }

    /// This board's ground when it is the one `fingerprint` names.
    #[must_use]
    pub fn ground_named(&self, fingerprint: &[u8; 32]) -> Option<Arc<dyn Ground>> {
        (self.ground.fingerprint() == *fingerprint).then(|| self.ground.clone() as Arc<dyn Ground>)
    }
}

/// What a client needs to race on the boards: each board's key, its
/// track's name (and definition, for a game's own track), and its classes
/// with their cars (a preset's name, or the definition of a game's own
/// car); without a boards file, every built-in track with each preset
/// its own class. `GET /boards` answers it.
#[must_use]
pub fn listing(boards: Option<&Boards>) -> serde_json::Value {
    let preset_classes = || -> Vec<serde_json::Value> {
        skidpad_core::preset_names()
            .iter()
            .map(|p| serde_json::json!({ "name": p, "cars": [{ "preset": p }] }))
            .collect()
    };
    let Some(boards) = boards else {
        return track_names()
            .iter()
            .map(|&t| {
                let name = Track::builtin(t)
                    .map_or_else(|_| t.to_owned(), |track| track.name().to_owned());
                serde_json::json!({ "key": t, "track": name, "classes": preset_classes() })
            })
            .collect();
    };
    boards
        .rules
        .iter()
        .map(|b| {
            let classes = b.classes.as_ref().map_or_else(preset_classes, |classes| {
                classes
                    .iter()
                    .map(|c| {
                        let cars: Vec<serde_json::Value> = c
                            .members
                            .iter()
                            .map(|m| match &m.preset {
                                Some(p) => serde_json::json!({ "preset": p }),
                                None => serde_json::json!({ "definition": m.definition }),
                            })
                            .collect();
                        serde_json::json!({ "name": c.name, "cars": cars })
                    })
                    .collect()
            });
            let mut board = serde_json::json!({
                "key": b.key,
                "track": b.track.name(),
                "classes": classes,
                "practice": b.practice,
            });
            if !track_names().contains(&b.key.as_str()) {
                board["track_definition"] = serde_json::json!(b.track.definition());
            }
            board
        })
        .collect()
}

/// Why a run on `header`'s track is refused by a service without a boards
/// file, where only the built-in tracks are open; `None` when it is one.
#[must_use]
pub fn builtin_only_refusal(header: &ReplayHeader) -> Option<String> {
    if header.metadata_value(ReplayHeader::TAKE_OVER_KEY).is_some() {
        return Some(
            "the run was taken over from another run; without --boards no board is a practice \
             board, and only whole runs are ranked"
                .to_owned(),
        );
    }
    let track = header.metadata_value(ReplayHeader::TRACK_KEY)?;
    (!track_names().contains(&track)).then(|| {
        format!(
            "this service has registered no track {track:?}: without --boards it ranks only the \
             built-in tracks ({})",
            track_names().join(", ")
        )
    })
}

/// The registered ground a run in `header` raced on: its board's generated
/// ground when the header names that ground; `None` otherwise (the plane,
/// a built-in track's surface or a carried ground, which the replay crate
/// finds itself).
#[must_use]
pub fn registered_ground(
    boards: Option<&Boards>,
    header: &ReplayHeader,
) -> Option<Arc<dyn Ground>> {
    let board = boards?.board(header.metadata_value(ReplayHeader::TRACK_KEY)?)?;
    let (fingerprint, _) = header.ground().ok()?;
    board.ground_named(&fingerprint)
}

/// Classes from the file: each car a preset's name, a definition file
/// (read relative to `folder`, refused without one) or a definition.
fn read_classes(
    classes: &BTreeMap<String, Vec<CarEntry>>,
    folder: Option<&Path>,
) -> Result<Vec<CarClass>, String> {
    if classes.is_empty() {
        return Err("classes lists no class".into());
    }
    classes
        .iter()
        .map(|(name, cars)| {
            if cars.is_empty() {
                return Err(format!("class {name:?} lists no car"));
            }
            let members = cars
                .iter()
                .map(|car| {
                    Ok(match car {
                        CarEntry::Named(file) if file.ends_with(".json") => {
                            let folder = folder.ok_or_else(|| {
                                format!("{file}: a registered board names no file; give the definition itself")
                            })?;
                            ClassCar {
                                preset: None,
                                definition: read_car_file(&folder.join(file))
                                    .map_err(|e| format!("{file}: {e}"))?,
                            }
                        }
                        CarEntry::Named(car) => ClassCar {
                            preset: Some(car.clone()),
                            definition: preset(car).map_err(|e| format!("class {name:?}: {e}"))?,
                        },
                        CarEntry::Inline { definition } => ClassCar {
                            preset: None,
                            definition: CarDefinition::from_json(&definition.to_string())
                                .map_err(|e| format!("class {name:?}: {e}"))?,
                        },
                    })
                })
                .collect::<Result<Vec<ClassCar>, String>>()?;
            Ok(CarClass {
                name: name.clone(),
                cars: members
                    .iter()
                    .map(|m| class_fingerprint(&m.definition))
                    .collect(),
                members,
            })
        })
        .collect()
}

/// A car file: a definition's JSON, or a car package whose tires name
/// `.tir` files beside it (`CarDefinition::from_package_json`), each
/// bounded in size.
fn read_car_file(path: &Path) -> Result<CarDefinition, String> {
    let text = read_bounded(path)?;
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut read_tir = |name: &str| {
        read_bounded(&folder.join(name)).map_err(|reason| {
            skidpad_core::CoreError::InvalidArgument {
                what: "tir file",
                reason,
            }
        })
    };
    CarDefinition::from_package_json(&text, &mut read_tir).map_err(|e| e.to_string())
}

/// A track file with the ground its runs race on: a definition's JSON
/// (bounded in size) with its generated ground, or a glTF scene (`.glb`,
/// `.gltf`, as `skidpad track import` reads it) with the scene's own.
/// The flag says which: `true` for a scene's own ground.
fn read_track_file(path: &Path) -> Result<(Track, TriangleMesh, bool), String> {
    let failed = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    if !is_scene_path(path) {
        let text = read_bounded(path)?;
        let track = Track::from_json(&text).map_err(|e| failed(&e))?;
        let ground = track.ground().map_err(|e| failed(&e))?;
        return Ok((track, ground, false));
    }
    let scene = read_scene_file(path, &GltfOptions::named("")).map_err(|e| failed(&e))?;
    let track = Track::from_definition(scene.definition).map_err(|e| failed(&e))?;
    let ground = TriangleMesh::new(&scene.ground.vertices, &scene.ground.triangles)
        .and_then(|mesh| mesh.with_surfaces(scene.ground.surfaces.unwrap_or_default()))
        .map_err(|e| failed(&e))?;
    Ok((track, ground, true))
}

/// A track or car file's text, refused past [`MAX_TRACK_FILE_BYTES`].
fn read_bounded(path: &Path) -> Result<String, String> {
    let size = std::fs::metadata(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .len();
    if size > MAX_TRACK_FILE_BYTES as u64 {
        return Err(format!(
            "{} is {size} bytes; a track or car file is at most {MAX_TRACK_FILE_BYTES}",
            path.display()
        ));
    }
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}
