//! What a race is and what its server reports: the settings
//! ([`RaceConfig`]), seats ([`SeatId`]), the frames it hands out
//! ([`Outgoing`]), standings ([`SeatStanding`]) and counts
//! ([`ServerStats`]). The `server/` folder runs the race.

use std::sync::Arc;

use skidpad_core::race::GridLayout;
use skidpad_core::{
    CarDefinition, CarId, CarInput, CoreError, Ground, GroundSource, Result, Track,
    TrackDefinition, preset,
};

/// What a race is and how the server runs it.
#[derive(Clone, Debug)]
pub struct RaceConfig {
    /// Built-in track name; the cars drive on its surface. With
    /// `track_definition`, the own track's name (for people).
    pub track: String,
    /// Preset every player drives. With `car_definition`, that car's name.
    pub car: String,
    /// A game's own track instead of the built-in one: the server races
    /// on it and its generated surface, hands it to every player that
    /// joins (the map message) and records it in the race's replays.
    pub track_definition: Option<TrackDefinition>,
    /// A game's own car instead of the preset, handed out alike.
    pub car_definition: Option<CarDefinition>,
    /// A ground of the game's own to race on instead of the track's
    /// generated one (a glTF scene's): handed to every player in the map
    /// message as a ground file, at most [`MAX_MAP_GROUND_BYTES`], and
    /// carried in the race's replays.
    pub ground: Option<GroundSource>,
    /// Laps in the race.
    pub laps: u32,
    /// One token per seat: the token a player signs in with names its seat
    /// (and its grid slot).
    pub seat_tokens: Vec<String>,
    /// Where the seats' grid slots stand.
    pub grid: GridLayout,
    /// Simulation ticks per second.
    pub tick_hz: u32,
    /// Ticks per snapshot frame: 2 at 60 Hz sends 30 frames a second.
    pub ticks_per_frame: u32,
    /// How far ahead of the server an input may name its tick.
    pub max_input_lead: u32,
    /// Inputs a seat may send in one burst. Each tick adds two to a seat's
    /// allowance, up to this; an input past the allowance is refused as a
    /// flood. A burst is normal (a link that stalled delivers its inputs
    /// at once), so the default is two leads' worth. (What waits is bounded
    /// anyway: one input per tick within the lead.)
    pub input_burst: u32,
    /// Least time between two resets of one car a player asks for, s
    /// (default 2): a reset brings a wedged or rolled car back, and is not
    /// a way to skip along the track faster than driving. 0 to 600.
    pub reset_interval_s: f64,
    /// Seats that must be taken before the race starts (0, the default: it
    /// is on from the first join). Until then, and through the countdown,
    /// every car is held on its grid slot ([`HELD_INPUT`]), so the race's
    /// recording (from the join that fills the grid) begins with all its
    /// cars at rest.
    pub start_seats: u32,
    /// Ticks from the join that fills `start_seats` to the start (default
    /// 180: 3 s at 60 Hz). Players learn the start tick from the countdown
    /// inform; one that learns it later than the tick mispredicts once.
    pub countdown_ticks: u32,
    /// How long a seat whose link dropped stays its player's, s (default
    /// 30; 0 frees it at once): meanwhile the built-in AI drives the car,
    /// and the player signing in again with the seat's token takes it
    /// back where it is. 0 to 600.
    pub reconnect_grace_s: f64,
}

/// The input a held car runs, whatever its player sends: no throttle,
/// full brake.
pub const HELD_INPUT: CarInput = CarInput {
    steer: 0.0,
    throttle: 0.0,
    brake: 1.0,
    handbrake: 0.0,
    clutch: 0.0,
    gear: 0.0,
};

/// Whether a car is held at `tick` when the race starts at `start_tick`
/// (`None`: not yet known, so held). The server and the client's
/// prediction apply the same rule.
#[must_use]
pub fn held_at(start_tick: Option<u32>, tick: u32) -> bool {
    start_tick.is_none_or(|start| tick < start)
}

impl Default for RaceConfig {
    fn default() -> Self {
        RaceConfig {
            track: "brandwood".into(),
            car: "rwd_sports".into(),
            track_definition: None,
            car_definition: None,
            ground: None,
            laps: 3,
            seat_tokens: Vec::new(),
            grid: GridLayout::default(),
            tick_hz: 60,
            ticks_per_frame: 2,
            max_input_lead: 60,
            input_burst: 120,
            reset_interval_s: 2.0,
            start_seats: 0,
            countdown_ticks: 180,
            reconnect_grace_s: 30.0,
        }
    }
}

impl RaceConfig {
    /// The track raced: the own one when given, else the built-in one.
    pub fn build_track(&self) -> Result<Track> {
        race_track(&self.track, self.track_definition.as_ref())
    }

    /// The car every player drives: the own one when given, else the
    /// preset.
    pub fn car_definition(&self) -> Result<CarDefinition> {
        race_car(&self.car, self.car_definition.as_ref())
    }
}

/// Largest ground file a race hands its players in the map message,
/// bytes: a scene of about 200 000 triangles. A bigger ground would hold
/// up every join; such a race is for players who have the scene already.
pub const MAX_MAP_GROUND_BYTES: usize = 8 << 20;

/// A race's ground from what the map message says: its own (a ground
/// file's source), or `track`'s generated one. Server and players build it
/// alike.
pub fn race_ground(track: &Track, ground: Option<&GroundSource>) -> Result<Arc<dyn Ground>> {
    match ground {
        Some(source) => source.build(),
        None => Ok(Arc::new(track.ground()?)),
    }
}

/// The ground file of a race's own ground, refused past
/// [`MAX_MAP_GROUND_BYTES`].
pub fn map_ground_file(source: &GroundSource) -> Result<Vec<u8>> {
    let bytes =
        skidpad_replay::encode_ground_file(source).map_err(|e| CoreError::InvalidArgument {
            what: "ground",
            reason: e.to_string(),
        })?;
    if bytes.len() > MAX_MAP_GROUND_BYTES {
        return Err(CoreError::InvalidArgument {
            what: "ground",
            reason: format!(
                "its ground file is {} bytes; a race hands its players at most {MAX_MAP_GROUND_BYTES}",
                bytes.len()
            ),
        });
    }
    Ok(bytes)
}

/// A race's track from what the map message says: its own definition,
/// or the built-in track `name`. Server and players build it alike.
pub fn race_track(name: &str, definition: Option<&TrackDefinition>) -> Result<Track> {
    match definition {
        Some(definition) => Track::from_definition(definition.clone()),
        None => Track::builtin(name),
    }
}

/// A race's car from what the map message says: its own definition
/// (checked), or the preset `name`.
pub fn race_car(name: &str, definition: Option<&CarDefinition>) -> Result<CarDefinition> {
    match definition {
        Some(definition) => {
            definition.validate()?;
            Ok(definition.clone())
        }
        None => preset(name),
    }
}

/// A seat: a player's place in the race, its id in the `cars` block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SeatId(pub u8);

/// What the server sends one seat after a tick.
#[derive(Clone, Debug, PartialEq)]
pub struct Outgoing {
    /// The seat.
    pub seat: SeatId,
    /// True for the seat's first frame (channel `FirstShot`).
    pub first_shot: bool,
    /// The encoded frame.
    pub frame: Vec<u8>,
}

/// A seat's place in the race, for the HUD and the standings.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatStanding {
    /// The seat.
    pub seat: SeatId,
    /// 1 for the leader.
    pub position: u32,
    /// Laps completed.
    pub laps: u32,
    /// Seconds behind the leader at the last timing point (0 for the
    /// leader), once known.
    pub gap: Option<f64>,
    /// Fastest valid lap, s.
    pub best_lap: Option<f64>,
    /// Completed the race's laps.
    pub finished: bool,
}

/// A car's driver and the token of the seat they hold.
#[derive(Clone, PartialEq, Eq)]
pub struct DriverToken {
    /// The name the driver raced under.
    pub name: String,
    /// Their seat's token: a secret, so `Debug` leaves it out.
    pub token: String,
}

impl std::fmt::Debug for DriverToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DriverToken")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Counts a server keeps for its figures and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerStats {
    /// Inputs that arrived after their tick was stepped.
    pub late_inputs: u64,
    /// Inputs refused (seq order, tick window, flood).
    pub refused_inputs: u64,
    /// Contacts between two players' cars, one per car pair and episode
    /// (the tick they start touching after a tick apart).
    pub contacts: u64,
}

/// A stretch of the race the built-in AI drove a player's car while
/// their link was down (`RaceServer::drop_link` to their return or the
/// car's removal): the recording says so in its `ai_stints` metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AiStint {
    /// The car.
    pub car: CarId,
    /// The AI drove the steps from this tick on (the link dropped there;
    /// a car still held on the grid waits for the start).
    pub from_tick: u32,
    /// Up to this tick: the player drove the steps from here on, or the
    /// car left here; `None` while the AI drives.
    pub to_tick: Option<u32>,
}

/// One seat's counts, from when it was taken (the log line of a player
/// who leaves).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeatStats {
    /// Its inputs that arrived after their tick was stepped.
    pub late_inputs: u32,
    /// Its inputs refused (seq order, tick window, flood, range).
    pub refused_inputs: u32,
    /// Its car's resets.
    pub resets: u32,
}
