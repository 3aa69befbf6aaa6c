//! The in-memory replay: what a recording holds (SPEC §5).

use skidpad_core::{
    CarDefinition, CarId, CarInput, FlatGround, Ground, GroundSource, InitialPose, LodSetting,
    SurfaceId, SurfaceTable, Track, Wheel, World,
};
use skidpad_ghost::Ghost;

use crate::player::corrupt;
use crate::runs::Runs;
use crate::{ReplayError, Result};

/// A recorded run.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    /// Versions, sizes, world settings and metadata.
    pub header: ReplayHeader,
    /// One definition per recorded car, in playback order; empty when the
    /// recorder was told not to embed them.
    pub definitions: Vec<CarDefinition>,
    /// Host step length of every step, s.
    pub dt: Runs<f64>,
    /// Per recorded car, in playback order.
    pub cars: Vec<CarTrack>,
    /// Keyframes, by rising step; the first is at step 0 and the last at
    /// the final step.
    pub keyframes: Vec<Keyframe>,
    /// Optional pose track per recorded car (SPEC §5.6), so the run stays
    /// watchable as ghosts after a core update.
    pub ghosts: Option<Vec<Ghost>>,
    /// The recording world's ground, when the game had the recorder carry
    /// it ([`RecorderOptions::ground`](crate::RecorderOptions::ground)): a
    /// player on a machine without the game's world builds it from this.
    /// `None` for the plane, a built-in track's surface (every build has
    /// those) or a ground the game did not give.
    pub ground: Option<GroundSource>,
    /// The player's rewinds (flashbacks), by the step of this recording
    /// they went back to, rising; empty for a run lived straight through
    /// ([`ReplayRecorder::rewind`](crate::ReplayRecorder::rewind)).
    pub rewinds: Vec<Rewind>,
}

/// Rewinds that went back to one step of a recording: how many, and what
/// they took back. The steps they abandoned are not in the recording,
/// which holds the run as it ended; this says they were lived.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rewind {
    /// The step (since the recording's start) the world went back to.
    pub at: u64,
    /// Rewinds to that step (a later rewind past an earlier one's step
    /// folds the earlier one in, with its steps).
    pub count: u32,
    /// Steps the rewinds abandoned.
    pub steps: u64,
    /// Simulated seconds the rewinds abandoned.
    pub seconds: f64,
}

/// What a replay says about itself; readable without decoding the body.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayHeader {
    /// `CORE_VERSION` of the core that recorded.
    pub core_version: String,
    /// `SIMULATION_VERSION` of the core that recorded.
    pub simulation_version: u32,
    /// Number of recorded cars.
    pub car_count: u32,
    /// Number of recorded steps.
    pub step_count: u64,
    /// Steps between keyframes.
    pub keyframe_every: u32,
    /// The recording world's step counter when recording began.
    pub start_step: u64,
    /// The recording world's gravity, m/s².
    pub gravity: f64,
    /// The recording world's air density, kg/m³.
    pub air_density: f64,
    /// The recording world's surface table.
    pub surfaces: SurfaceTable,
    /// Free-form key/value pairs (track, player, claimed lap time, …).
    pub metadata: Vec<(String, String)>,
    /// Each recorded car's id in the recording world, in playback order.
    /// (A playback world holds the cars in this order, under its own ids.)
    pub source_cars: Vec<CarId>,
}

impl ReplayHeader {
    /// The metadata key naming the track a race was run on: a built-in
    /// track's name (one of [`skidpad_core::track_names`]), or the 64
    /// lowercase hex digits of a track's fingerprint
    /// ([`Track::fingerprint`](skidpad_core::Track::fingerprint)), whose
    /// definition the replay carries under
    /// [`TRACK_DEFINITION_KEY`](Self::TRACK_DEFINITION_KEY) or a tool is
    /// given beside it ([`track_with`](Self::track_with)). A recorder
    /// given `RecorderOptions::track` writes both.
    ///
    /// One behaviour when it is missing, in every tool: the replay has no
    /// track. It still plays and verifies bit for bit (the ground is named
    /// separately, under [`GROUND_KEY`](Self::GROUND_KEY)), but nothing
    /// can be timed against a line: `skidpad export` writes no lap events
    /// or track distances, `skidpad ghost` and the leaderboard refuse it
    /// saying so, and the viewer draws the cars without a track. A track
    /// the tool cannot find is an error wherever a track is needed.
    pub const TRACK_KEY: &'static str = "track";

    /// The metadata key carrying a game's own track: its
    /// [`TrackDefinition`](skidpad_core::TrackDefinition) as compact JSON,
    /// whose fingerprint [`TRACK_KEY`](Self::TRACK_KEY) names. The
    /// recorder writes it (and refuses it from the game's metadata); a
    /// player builds the track's ground from it when that is the ground
    /// the replay names, so the replay need not carry the mesh.
    pub const TRACK_DEFINITION_KEY: &'static str = "skidpad.track";

    /// Metadata key naming who drove each car: a JSON array of strings by
    /// car index (an empty string for a car nobody named). The viewer
    /// labels cars with it; `skidpad-netplay` writes its players' names.
    /// Nothing is verified against it.
    pub const DRIVERS_KEY: &'static str = "drivers";

    /// Metadata key naming the player a leaderboard ranks (the submitter
    /// must hold that name's token).
    pub const PLAYER_KEY: &'static str = "player";

    /// Metadata key with the index of the car a leaderboard ranks (car 0
    /// without it).
    pub const PLAYER_CAR_KEY: &'static str = "player_car";

    /// Metadata key of a run taken over from another replay
    /// ([`TakeOver`](crate::TakeOver)): JSON `{"source": final hash hex,
    /// "step": S, "car": index}`, read by [`take_over`](Self::take_over).
    pub const TAKE_OVER_KEY: &'static str = "skidpad.take_over";

    /// Metadata key holding the seal of the race server that recorded the
    /// replay (see [`seal_replay`](crate::seal_replay)): its public key and
    /// its signature over everything else in the file.
    pub const SEAL_KEY: &'static str = "server_seal";

    /// The names under [`DRIVERS_KEY`](Self::DRIVERS_KEY), by car index:
    /// `Ok(None)` without the key, an error when its value is not a JSON
    /// array of strings.
    pub fn drivers(&self) -> Result<Option<Vec<String>>> {
        self.metadata_value(Self::DRIVERS_KEY)
            .map(|value| {
                serde_json::from_str::<Vec<String>>(value).map_err(|e| ReplayError::Metadata {
                    key: Self::DRIVERS_KEY,
                    reason: format!("not a JSON array of names: {e}"),
                })
            })
            .transpose()
    }

    /// The value of metadata `key`, if present.
    #[must_use]
    pub fn metadata_value(&self, key: &str) -> Option<&str> {
        self.metadata
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The track named under [`TRACK_KEY`](Self::TRACK_KEY), found in
    /// this build or in the replay: `Ok(None)` when the replay names none.
    /// See [`track_with`](Self::track_with).
    pub fn track(&self) -> Result<Option<Track>> {
        self.track_with(None)
    }

    /// The track named under [`TRACK_KEY`](Self::TRACK_KEY): a built-in
    /// track by name or fingerprint, the definition the replay carries,
    /// or `supplied` (a track a tool was given beside the replay) when its
    /// fingerprint is the one named. `Ok(None)` when the replay names no
    /// track; an error saying which track is missing, or why the carried
    /// or supplied one is not it, otherwise.
    pub fn track_with(&self, supplied: Option<&Track>) -> Result<Option<Track>> {
        let Some(named) = self.metadata_value(Self::TRACK_KEY) else {
            return Ok(None);
        };
        let Some(fingerprint) = parse_fingerprint(named) else {
            return Ok(Some(Track::builtin(named)?));
        };
        let short = &named[..12];
        if let Some(json) = self.metadata_value(Self::TRACK_DEFINITION_KEY) {
            let carried = Track::from_json(json).map_err(|e| ReplayError::Metadata {
                key: Self::TRACK_DEFINITION_KEY,
                reason: e.to_string(),
            })?;
            if carried.fingerprint() != fingerprint {
                return Err(ReplayError::Metadata {
                    key: Self::TRACK_DEFINITION_KEY,
                    reason: format!(
                        "carries track {} (fingerprint {}), not the track {short}… it names",
                        carried.name(),
                        &carried.fingerprint_hex()[..12]
                    ),
                });
            }
            return Ok(Some(carried));
        }
        if let Some(name) = skidpad_core::builtin_track_by_fingerprint(&fingerprint) {
            return Ok(Some(Track::builtin(name)?));
        }
        match supplied {
            Some(track) if track.fingerprint() == fingerprint => Ok(Some(track.clone())),
            Some(track) => Err(ReplayError::Metadata {
                key: Self::TRACK_KEY,
                reason: format!(
                    "the track given is {} (fingerprint {}), not the replay's track {short}…",
                    track.name(),
                    &track.fingerprint_hex()[..12]
                ),
            }),
            None => Err(ReplayError::Metadata {
                key: Self::TRACK_KEY,
                reason: format!(
                    "names track {short}… by fingerprint and does not carry it: give the \
                     track's file beside the replay"
                ),
            }),
        }
    }

    /// The metadata that names `track` (and, if `carry`, carries it when
    /// it is not built in), refused when the game's own `metadata` already
    /// names a track.
    pub(crate) fn track_metadata(
        track: &Track,
        metadata: &[(String, String)],
        carry: bool,
    ) -> Result<Vec<(String, String)>> {
        if metadata.iter().any(|(k, _)| k == ReplayHeader::TRACK_KEY) {
            return Err(ReplayError::InvalidArgument {
                what: "metadata",
                reason: format!(
                    "names the track ({}) and so does `track`: give one",
                    ReplayHeader::TRACK_KEY
                ),
            });
        }
        let key = |k: &str| k.to_owned();
        Ok(
            match skidpad_core::builtin_track_by_fingerprint(&track.fingerprint()) {
                Some(name) => vec![(key(ReplayHeader::TRACK_KEY), name.to_owned())],
                None if !carry => vec![(key(ReplayHeader::TRACK_KEY), track.fingerprint_hex())],
                None => vec![
                    (key(ReplayHeader::TRACK_KEY), track.fingerprint_hex()),
                    (
                        key(ReplayHeader::TRACK_DEFINITION_KEY),
                        track.definition().to_compact_json(),
                    ),
                ],
            },
        )
    }

    /// Gives a replay that names `track` by fingerprint but does not carry
    /// it the track's definition, as a tool given the track's file beside
    /// the replay does: afterwards [`track`](Self::track) finds it and a
    /// player builds its ground. Nothing changes for a replay that carries
    /// its track, names a built-in one or names none; a replay naming
    /// another track is refused, naming both.
    pub fn supply_track(&mut self, track: &Track) -> Result<()> {
        let Some(named) = self.metadata_value(Self::TRACK_KEY) else {
            return Ok(());
        };
        if parse_fingerprint(named).is_none()
            || self.metadata_value(Self::TRACK_DEFINITION_KEY).is_some()
        {
            return Ok(());
        }
        // Refuses a track that is not the one named.
        self.track_with(Some(track))?;
        if skidpad_core::builtin_track_by_fingerprint(&track.fingerprint()).is_none() {
            self.metadata.push((
                Self::TRACK_DEFINITION_KEY.to_owned(),
                track.definition().to_compact_json(),
            ));
        }
        Ok(())
    }

    /// Refuses a replay of another simulation version than this core's:
    /// the one rule the decoder (before it reads the body, whose layout is
    /// that version's), the stream reader and the player apply.
    pub fn check_simulation_version(&self) -> Result<()> {
        if self.simulation_version == skidpad_core::SIMULATION_VERSION {
            return Ok(());
        }
        Err(ReplayError::SimulationVersion {
            replay: self.simulation_version,
            core: skidpad_core::SIMULATION_VERSION,
        })
    }

    /// The metadata key under which a recorder names the ground a replay
    /// was recorded on: `<64 hex digits of Ground::fingerprint> <the
    /// ground's description>`. Absent for the plane z = 0. The recorder
    /// writes it and refuses it from the game's own metadata.
    pub const GROUND_KEY: &'static str = "skidpad.ground";

    /// The fingerprint of the ground the replay was recorded on, and the
    /// ground's description: the plane's when the replay names none.
    pub fn ground(&self) -> Result<([u8; 32], String)> {
        let Some((_, value)) = self.metadata.iter().find(|(k, _)| k == Self::GROUND_KEY) else {
            return Ok((FlatGround::plane_fingerprint(), FlatGround.describe()));
        };
        let malformed = || ReplayError::Metadata {
            key: Self::GROUND_KEY,
            reason: format!("expected 64 hex digits and a description, got {value:?}"),
        };
        let (hex, description) = value.split_once(' ').ok_or_else(malformed)?;
        let fingerprint = parse_fingerprint(hex).ok_or_else(malformed)?;
        Ok((fingerprint, description.to_owned()))
    }

    /// How many keyframes the replay holds: one every `keyframe_every`
    /// steps from step 0, plus one at the final step when that is not
    /// already a multiple.
    #[must_use]
    pub fn keyframe_count(&self) -> u64 {
        let every = u64::from(self.keyframe_every.max(1));
        self.step_count / every + 1 + u64::from(!self.step_count.is_multiple_of(every))
    }
}

/// One car's recorded streams, over the steps it took part in.
#[derive(Clone, Debug, PartialEq)]
pub struct CarTrack {
    /// The input the car ran with at each step.
    pub inputs: Vec<CarInput>,
    /// Level of detail and substep rate at each step.
    pub lod: Runs<LodSetting>,
    /// Surface under each wheel at each step.
    pub surfaces: [Runs<SurfaceId>; 4],
    /// The step at which the game removed the car (`World::remove_car`),
    /// if it did: the car took part in steps `0..r` only, its streams
    /// cover those `r` steps, and keyframes from step `r` on leave it out.
    /// `None` for a car in the world to the end.
    pub removed_at: Option<u64>,
    /// When the car arrived after the recording began (added through the
    /// recorder): it takes part from step `a` on, its streams start there,
    /// and keyframes before step `a` leave it out. `None` for a car in the
    /// world from the start.
    pub arrival: Option<CarArrival>,
    /// The game's resets of the car (`World::reset_car`), in rising step
    /// order, at most one a step.
    pub resets: Vec<CarReset>,
}

/// A car that joined a running recording: the step it arrived before and
/// its state then, which a player puts in the world before playing that
/// step.
#[derive(Clone, Debug, PartialEq)]
pub struct CarArrival {
    /// The first step the car took part in (at least 1).
    pub step: u64,
    /// `World::snapshot` bytes of the car as it arrived.
    pub snapshot: Vec<u8>,
}

/// A reset the game made: before step `step` was played, the car was put
/// down at `pose` (`World::reset_car`), and a player does the same.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CarReset {
    /// The step the reset came before (steps after the replay's start).
    pub step: u64,
    /// Where the car was put.
    pub pose: InitialPose,
}

impl CarTrack {
    /// An empty track of a car in the world.
    #[must_use]
    pub fn new() -> CarTrack {
        CarTrack {
            inputs: Vec::new(),
            lod: Runs::new(),
            surfaces: Default::default(),
            removed_at: None,
            arrival: None,
            resets: Vec::new(),
        }
    }

    /// The first step the car took part in: its arrival's, 0 for a car
    /// there from the start.
    #[must_use]
    pub fn arrived_at(&self) -> u64 {
        self.arrival.as_ref().map_or(0, |a| a.step)
    }

    /// The pose the car was reset to before step `step`, if it was.
    #[must_use]
    pub fn reset_before(&self, step: u64) -> Option<InitialPose> {
        let i = self.resets.binary_search_by_key(&step, |r| r.step).ok()?;
        Some(self.resets[i].pose)
    }

    /// Puts into `world` what the recording says of this car (`car` there)
    /// for step `step` (steps since the recording's start), as the game did
    /// before that step: its reset, its input, its level of detail and its
    /// wheels' surfaces. Nothing when the car is not in the recording then.
    /// The player plays every car this way; a take-over, its followers.
    pub fn apply_step(&self, world: &mut World, car: CarId, step: u64) -> Result<()> {
        if !self.present_at(step) {
            return Ok(());
        }
        // A car's streams start at its arrival.
        let own = step - self.arrived_at();
        let input = *self
            .inputs
            .get(own as usize)
            .ok_or_else(|| corrupt("inputs", step))?;
        self.apply_step_with_input(world, car, step, input)
    }

    /// [`apply_step`](Self::apply_step) with the input given (a recorder
    /// keeps its inputs apart until it finishes); the car must be in the
    /// recording at `step`.
    pub(crate) fn apply_step_with_input(
        &self,
        world: &mut World,
        car: CarId,
        step: u64,
        input: CarInput,
    ) -> Result<()> {
        // As recorded: the game reset the car, then the step ran.
        if let Some(pose) = self.reset_before(step) {
            world.reset_car(car, pose)?;
        }
        let own = step - self.arrived_at();
        world.set_input(car, input)?;
        let lod = self.lod.at(own).ok_or_else(|| corrupt("lod", step))?;
        world.set_lod(car, lod)?;
        for (wheel, runs) in Wheel::ALL.into_iter().zip(&self.surfaces) {
            let surface = runs.at(own).ok_or_else(|| corrupt("surfaces", step))?;
            world.set_wheel_surface(car, wheel, surface)?;
        }
        Ok(())
    }

    /// True when the car is in the world at `step`: at a keyframe of that
    /// step, and for playing the step that starts there.
    #[must_use]
    pub fn present_at(&self, step: u64) -> bool {
        self.arrived_at() <= step && self.removed_at.is_none_or(|r| step < r)
    }

    /// The steps the car took part in, of a replay of `step_count` steps.
    #[must_use]
    pub fn steps(&self, step_count: u64) -> u64 {
        let end = self.removed_at.map_or(step_count, |r| r.min(step_count));
        end.saturating_sub(self.arrived_at())
    }
}

impl Default for CarTrack {
    fn default() -> Self {
        CarTrack::new()
    }
}

/// Full state at one step: the snapshot and hash of every car in the world
/// at that step (in playback order, leaving out removed cars), the world
/// hash and the game's own state.
#[derive(Clone, Debug, PartialEq)]
pub struct Keyframe {
    /// Steps since the recording began.
    pub step: u64,
    /// Hash of the playback world at this step (recorded cars only).
    pub world_hash: [u8; 32],
    /// Per recorded car present at this step (see
    /// [`Replay::present_at`]).
    pub cars: Vec<CarKeyframe>,
    /// The bytes the recorder's `keyframe_state` callback returned.
    pub game_state: Vec<u8>,
}

/// One car in a keyframe.
#[derive(Clone, Debug, PartialEq)]
pub struct CarKeyframe {
    /// `World::snapshot` bytes.
    pub snapshot: Vec<u8>,
    /// `World::car_hash`.
    pub hash: [u8; 32],
}

impl Replay {
    /// Simulated time covered, s.
    #[must_use]
    pub fn duration(&self) -> f64 {
        self.dt.runs().map(|(n, dt)| n as f64 * dt).sum()
    }

    /// The last keyframe at or before `step`.
    #[must_use]
    pub fn keyframe_at_or_before(&self, step: u64) -> Option<&Keyframe> {
        let i = self.keyframes.partition_point(|k| k.step <= step);
        i.checked_sub(1).map(|i| &self.keyframes[i])
    }

    /// Playback indices of the cars in the world at `step`, rising: the
    /// cars a keyframe at that step holds, in its order.
    pub fn present_at(&self, step: u64) -> impl Iterator<Item = usize> + '_ {
        self.cars
            .iter()
            .enumerate()
            .filter(move |(_, t)| t.present_at(step))
            .map(|(i, _)| i)
    }

    /// The keyframe exactly at `step`, if there is one.
    #[must_use]
    pub fn keyframe_at(&self, step: u64) -> Option<&Keyframe> {
        self.keyframe_at_or_before(step).filter(|k| k.step == step)
    }
}

/// 64 hex digits as 32 bytes; `None` for anything
/// else.
fn parse_fingerprint(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut fingerprint = [0u8; 32];
    for (k, byte) in fingerprint.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * k..2 * k + 2)?, 16).ok()?;
    }
    Some(fingerprint)
}
