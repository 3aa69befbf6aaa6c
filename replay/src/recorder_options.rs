//! What a recorder is asked to record (`RecorderOptions`) and its bounds.

use skidpad_core::{CarId, GroundSource};

/// Default steps between keyframes (10 s at 60 Hz).
pub const DEFAULT_KEYFRAME_EVERY: u32 = 600;

/// The game's own state at a keyframe (lap timers, race clock, …), given
/// the keyframe's step.
pub type KeyframeState<'a> = Box<dyn FnMut(u64) -> Vec<u8> + 'a>;

/// What to record.
pub struct RecorderOptions<'a> {
    /// Which cars, in playback order; `None` records every car, and then
    /// a car the game adds during the recording is refused at the next
    /// step (a replay cannot hold a car that arrives late yet). With a
    /// list, the other cars are the game's to keep apart.
    pub cars: Option<Vec<CarId>>,
    /// Steps between keyframes, at least 1.
    pub keyframe_every: u32,
    /// Embed the car definitions, so `create_replay_world` can rebuild the
    /// world from the replay alone.
    pub embed_definitions: bool,
    /// Free-form key/value pairs stored in the header.
    pub metadata: Vec<(String, String)>,
    /// Called at every keyframe for the game's own state bytes.
    pub keyframe_state: Option<KeyframeState<'a>>,
    /// Also record each car's pose track as an embedded ghost (SPEC §5.6).
    pub embed_ghosts: bool,
    /// Steps of input memory (48 bytes a car and step) to allocate, and
    /// have the system map, when the recorder is made: a game that knows
    /// its race length reserves it at load, and capturing never waits for
    /// fresh pages. The first write to each 4 KiB page costs a fault, which
    /// was half of a capture's time in the replay benchmark. Recording past
    /// the reserve allocates as it goes; 0 reserves nothing. At most
    /// [`MAX_RESERVE_BYTES`] (20 cars for 5 hours at 60 Hz fit).
    pub reserve_steps: u64,
    /// Carry the world's ground in the replay: what the game built it
    /// from. It must build the world's ground (the same fingerprint), or
    /// the recorder is refused. A game on its own ground gives it so that
    /// a verifier or viewer without the game's world can play the race;
    /// the plane and the built-in tracks' surfaces need none.
    pub ground: Option<GroundSource>,
    /// The track the race is run on, named in the replay
    /// (`ReplayHeader::TRACK_KEY`) so every tool times laps on it; a
    /// track that is not built in is carried
    /// (`ReplayHeader::TRACK_DEFINITION_KEY`), and its generated ground
    /// (`Track::ground`) then needs no `ground` here. Leave it `None` to
    /// name the track in `metadata` yourself, or not at all.
    pub track: Option<std::sync::Arc<skidpad_core::Track>>,
    /// Carry `track`'s definition when it is not built in (true by
    /// default). False names it by fingerprint only, to keep a long
    /// circuit's definition (tens of kB) out of every replay: each tool
    /// then needs the track's file beside the replay (`--track`, or a
    /// track file opened with it in the viewer) and refuses another.
    pub carry_track: bool,
    /// How far back [`ReplayRecorder::rewind`](crate::ReplayRecorder::rewind)
    /// may take the world, in steps ([`DEFAULT_REWIND_WINDOW`]: 10 s at
    /// 60 Hz); 0 allows no rewind. A game rule, not a cost: a rewind
    /// re-simulates from the keyframe before its step, so it costs at most
    /// `keyframe_every` steps however far it goes.
    pub rewind_window: u64,
}

/// The default [`RecorderOptions::rewind_window`]: 600 steps.
pub const DEFAULT_REWIND_WINDOW: u64 = 600;

impl Default for RecorderOptions<'_> {
    fn default() -> Self {
        RecorderOptions {
            cars: None,
            keyframe_every: DEFAULT_KEYFRAME_EVERY,
            rewind_window: DEFAULT_REWIND_WINDOW,
            embed_definitions: true,
            metadata: Vec::new(),
            keyframe_state: None,
            embed_ghosts: false,
            reserve_steps: 0,
            ground: None,
            track: None,
            carry_track: true,
        }
    }
}

/// Largest input reserve a recorder takes (`RecorderOptions::reserve_steps`
/// times the cars, 48 bytes each), 1 GiB: more is refused rather than
/// left to the system's mercy.
pub const MAX_RESERVE_BYTES: u64 = 1 << 30;
