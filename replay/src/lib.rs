//! skidpad-replay: record a run, play it back bit for bit, seek, verify.
//!
//! A [`ReplayRecorder`] records every step of a [`skidpad_core::World`]:
//! dt, each car's input as it ran, level of detail and wheel surfaces, plus
//! a keyframe (snapshots, hashes, the game's own state) every few seconds.
//! A [`ReplayPlayer`] plays it back into a world built by
//! [`create_replay_world`], checks the hashes at every keyframe, re-syncs
//! and counts a desync on a mismatch, and seeks in both directions.
//! [`verify`] is the leaderboard server's entry point. A
//! [`StreamRecorder`] writes the same recording as a chunked stream while
//! the race runs; [`read_stream`] reads one back from any byte it was cut
//! at (crash recovery). The `.skr` and `.sks` formats are in
//! `replay/FORMAT.md`.
//!
//! ```
//! use std::sync::Arc;
//! use skidpad_core::{preset, InitialPose, Track, World, WorldConfig};
//! use skidpad_replay::{
//!     create_replay_world, decode_replay, encode_replay, NoHooks, RecorderOptions,
//!     ReplayPlayer, ReplayRecorder,
//! };
//!
//! let mut world = World::new(WorldConfig::default()).unwrap();
//! let car = world.add_car(&preset("fwd_hatchback").unwrap(), InitialPose::default()).unwrap();
//! world.set_driver(car, Some(Arc::new(Track::builtin("brandwood").unwrap()))).unwrap();
//! let mut recorder = ReplayRecorder::new(&world, RecorderOptions::default()).unwrap();
//! for _ in 0..240 {
//!     recorder.step(&mut world, 1.0 / 60.0).unwrap();
//! }
//! let replay = decode_replay(&encode_replay(&recorder.finish(&world).unwrap()).unwrap()).unwrap();
//!
//! let mut player = ReplayPlayer::new(create_replay_world(&replay).unwrap(), &replay, NoHooks).unwrap();
//! player.play_to_end().unwrap();
//! assert_eq!(player.desyncs(), 0);
//! assert_eq!(player.world().world_hash(), world.world_hash());
//! ```

// Public items are the SDK's contract; each must say what it is.
#![deny(missing_docs)]
// Nothing here needs unsafe; the decoder in particular must not.
#![forbid(unsafe_code)]

mod cache;
mod clip;
mod desync;
mod error;
mod follower;
mod format;
mod highlights;
mod hooks;
mod input_chunks;
mod join;
mod limits;
mod playback;
mod player;
mod recorder;
mod recorder_options;
mod replay;
mod ring;
mod runs;
mod seal;
mod sector_starts;
mod source;
mod stream_recorder;
mod take_over;
mod verify;
mod world;

pub use cache::DEFAULT_CACHE_BUDGET;
pub use clip::clip_replay;
pub use desync::{DesyncReport, FieldDiff, diff_car};
pub use error::{ReplayError, Result, SharedIoError};
pub use follower::StreamFollower;
pub use format::{
    FORMAT_VERSION, FileKind, GROUND_FORMAT_VERSION, GROUND_MAGIC, MAX_DECOMPRESSED,
    STREAM_FORMAT_VERSION, StreamArrival, StreamContents, StreamPieceKind, StreamSplitter,
    StreamStart, decode_ground_file, decode_replay, decode_replay_with, encode_ground_file,
    encode_replay, encode_replay_gzip, encode_stream, gunzip, gzip, is_gzip, read_replay_header,
    read_resets_any_version, read_stream, read_stream_arrival, read_stream_arrivals,
    read_stream_chunk, read_stream_header, split_chunk_piece,
};
pub use highlights::{
    CarSample, Highlight, HighlightFinder, HighlightKind, HighlightOptions, find_highlights,
};
pub use hooks::{NoHooks, ReplayHooks};
pub use limits::{Limits, Work};
pub use playback::{MAX_PLAYBACK_SPEED, MIN_PLAYBACK_SPEED, PlaybackClock};
pub use player::{PlayerOptions, ReplayPlayer};
pub use recorder::{
    DEFAULT_KEYFRAME_EVERY, DEFAULT_REWIND_WINDOW, KeyframeState, MAX_RESERVE_BYTES,
    RecorderOptions, ReplayRecorder,
};
pub use replay::{
    CarArrival, CarKeyframe, CarReset, CarTrack, Keyframe, Replay, ReplayHeader, Rewind,
};
pub use ring::{InstantReplayRing, RingOptions};
pub use runs::Runs;
pub use seal::{SEAL_CONTEXT, SealingKey, check_seal, seal_replay};
pub use sector_starts::{SectorStart, sector_starts};
pub use source::ReplaySource;
pub use stream_recorder::{DEFAULT_CHUNK_STEPS, StreamRecorder, StreamSink, SyncPolicy};
pub use take_over::{Followers, TakeOver, TakeOverFollowers, TakeOverOrigin};
pub use verify::{RewindTotals, VerifyReport, verify, verify_replay, verify_replay_on};
pub use world::{
    builtin_track_of_ground, builtin_track_of_header, create_replay_world, create_replay_world_on,
};
