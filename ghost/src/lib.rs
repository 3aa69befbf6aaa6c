//! skidpad-ghost: pose tracks to race against.
//!
//! A [`Ghost`] stores a car's pose (f32 position, yaw/pitch/roll, steer and
//! speed) over time and plays back with no physics, so it survives core
//! updates that would desync a replay. [`GhostRecorder`] samples a
//! [`skidpad_core::World`] after each step, [`GhostPlayer`] interpolates,
//! [`GhostSet`] plays several on one clock, [`LapReference`] gives the time
//! gap and split times against a ghost, and [`encode_ghost`] /
//! [`decode_ghost`] read and write the compact `.skg` format.
//!
//! ```
//! use skidpad_core::{preset, CarInput, InitialPose, World, WorldConfig};
//! use skidpad_ghost::{decode_ghost, encode_ghost, GhostPlayer, GhostRecorder};
//!
//! let mut world = World::new(WorldConfig::default()).unwrap();
//! let car = world.add_car(&preset("rwd_sports").unwrap(), InitialPose::default()).unwrap();
//! world.set_input(car, CarInput { throttle: 1.0, ..CarInput::default() }).unwrap();
//! let mut recorder = GhostRecorder::new(car);
//! for _ in 0..120 {
//!     world.step(1.0 / 60.0).unwrap();
//!     recorder.after_step(&world).unwrap();
//! }
//! let ghost = decode_ghost(&encode_ghost(&recorder.finish().unwrap()).unwrap()).unwrap();
//! let mut player = GhostPlayer::new(ghost);
//! let pose = player.pose_at(1.0).unwrap();
//! assert!(pose.x > 1.0 && pose.speed > 5.0);
//! ```

// Public items are the SDK's contract; each must say what it is.
#![deny(missing_docs)]
// Nothing here needs unsafe; the decoder in particular must not.
#![forbid(unsafe_code)]

mod cutter;
mod error;
mod format;
mod ghost;
mod lap;
mod orientation;
mod player;
mod recorder;
mod slice;

pub use cutter::{CutLap, LapCutter};
pub use error::{GhostError, Result};
pub use format::{FORMAT_VERSION, MAGIC as GHOST_MAGIC, MAX_FRAMES, decode_ghost, encode_ghost};
pub use ghost::{Ghost, GhostFrame, GhostPose};
pub use lap::{LapReference, SplitEvent, SplitTracker};
pub use orientation::{ghost_quaternion, lerp_angle, wrap_angle};
pub use player::{GhostPlayer, GhostSet};
pub use recorder::{GhostMark, GhostRecorder, GhostRecorderOptions, check_timestep, pose_of};
pub use slice::{slice_ghost, slice_ghost_frames};
