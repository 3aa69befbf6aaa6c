//! skidpad-spectator: spectating a running race over HTTP.
//!
//! The host records its race with a `StreamRecorder` writing to a
//! [`RaceSink`]: every sealed chunk (a standalone replay from one keyframe
//! to the next) is published to a [`Race`] the moment it is written. The
//! service ([`router`]) offers the race's header, its chunks and a live
//! tail; a spectator (`skidpad_replay::StreamFollower`) joins late from the
//! chunk holding the latest keyframe and follows every chunk after it,
//! reaching the host's world bit for bit at each chunk boundary. Chunks
//! are immutable, so any HTTP cache can serve them.

pub mod api;
pub mod archive;
mod error;
pub mod follow;
pub mod limits;
pub mod metrics;
pub mod publish;
pub mod race;

pub use api::{Races, router};
pub use error::{Result, SpectatorError};
pub use limits::ServiceLimits;
pub use publish::RaceSink;
pub use race::{Progress, Race, RaceInfo};
