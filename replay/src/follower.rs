//! `StreamFollower`: a spectator's side of a live stream. It joins at any
//! chunk (the late join: the latest one sealed), starts from that chunk's
//! first keyframe and plays every chunk after it, checking each chunk's
//! closing keyframe, so it holds the host's world bit for bit at every
//! chunk boundary.

use std::sync::Arc;

use skidpad_core::{CarDefinition, CarId, Ground, GroundSource, World};

use crate::format::{StreamStart, read_stream_chunk, read_stream_header};
use crate::hooks::NoHooks;
use crate::limits::Limits;
use crate::player::ReplayPlayer;
use crate::replay::{Replay, ReplayHeader};
use crate::world::{builtin_track_of_header, create_replay_world_on, ground_named_by};
use crate::{ReplayError, Result};

/// Follows a stream chunk by chunk.
pub struct StreamFollower {
    header: ReplayHeader,
    definitions: Vec<CarDefinition>,
    /// The ground the stream names (the plane, a built-in track's surface
    /// or the ground its header record carries), built once.
    ground: Arc<dyn Ground>,
    /// What the header record carried to build it from, if anything.
    carried: Option<GroundSource>,
    limits: Limits,
    world: Option<World>,
    /// The recording-relative step the world is at.
    step: u64,
}

impl StreamFollower {
    /// Starts from a stream's header piece (preamble and header record);
    /// the definitions must be embedded, since the follower builds the
    /// world itself, and so must the ground when it is a game's own (the
    /// plane and the built-in tracks' surfaces this build makes itself).
    pub fn new(header_piece: &[u8], limits: Limits) -> Result<Self> {
        let StreamStart {
            header,
            definitions,
            ground,
        } = read_stream_header(header_piece, &limits)?;
        if definitions.len() != header.car_count as usize {
            return Err(ReplayError::MissingDefinitions {
                definitions: definitions.len(),
                cars: header.car_count as usize,
            });
        }
        let carried = ground;
        let ground = ground_named_by(&header, carried.as_ref())?;
        Ok(StreamFollower {
            header,
            definitions,
            ground,
            carried,
            limits,
            world: None,
            step: 0,
        })
    }

    /// The recording's header (step count 0; metadata and settings).
    #[must_use]
    pub fn header(&self) -> &ReplayHeader {
        &self.header
    }

    /// The ground the stream's header record carries (a game's own), if
    /// any: a viewer draws it.
    #[must_use]
    pub fn carried_ground(&self) -> Option<&GroundSource> {
        self.carried.as_ref()
    }

    /// The built-in track whose surface the race runs on (by the ground's
    /// fingerprint), as [`builtin_track_of_ground`](crate::builtin_track_of_ground)
    /// says of a replay.
    pub fn ground_track(&self) -> Result<Option<&'static str>> {
        builtin_track_of_header(&self.header)
    }

    /// The cars' definitions, in car order.
    #[must_use]
    pub fn definitions(&self) -> &[CarDefinition] {
        &self.definitions
    }

    /// Plays one chunk record. The first chunk may be any (joining late);
    /// every later one must start where the previous ended. Returns the
    /// number of steps played; the chunk's closing keyframe must match.
    pub fn push_chunk(&mut self, record: &[u8]) -> Result<u64> {
        self.push_chunk_with(record, |_, _, _| {})
    }

    /// `push_chunk`, calling `after_step` with the world, the world's id of
    /// each of the stream's cars in stream order (a removed car's id names
    /// no car in the world any more) and the step's length (s) after each
    /// step of the chunk (a viewer reads every step's poses this way). On
    /// an error the steps already reported were played but not confirmed
    /// by the chunk's closing keyframe.
    pub fn push_chunk_with(
        &mut self,
        record: &[u8],
        mut after_step: impl FnMut(&World, &[CarId], f64),
    ) -> Result<u64> {
        let part = read_stream_chunk(record, &self.limits)?;
        let start = part.header.start_step;
        let steps = part.header.step_count;
        if let Some(at) = self.world.as_ref().map(World::step_count)
            && start != at
        {
            return Err(ReplayError::ChunkOutOfOrder { chunk: start, at });
        }
        // Each chunk starts from a keyframe of every car in the race, so a
        // world with all the stream's cars (built from its definitions) on
        // the stream's ground takes up exactly where the last chunk left
        // off; the player takes out the cars the race has lost by then. A
        // chunk has no metadata of its own: the header's names the ground
        // the player checks the world against.
        let part = Replay {
            definitions: self.definitions.clone(),
            header: ReplayHeader {
                metadata: self.header.metadata.clone(),
                ..part.header
            },
            ..part
        };
        let world = create_replay_world_on(&part, self.ground.clone())?;
        let mut player = ReplayPlayer::new(world, &part, NoHooks)?;
        let ids = player.car_ids().to_vec();
        while player.advance()? {
            let dt = part.dt.at(player.step() - 1).unwrap_or(0.0);
            after_step(player.world(), &ids, dt);
        }
        let desyncs = player.desyncs();
        let (world, _) = player.into_parts();
        self.world = Some(world);
        if desyncs != 0 {
            return Err(ReplayError::ChunkDesynced { chunk: start });
        }
        self.step = start + steps - self.header.start_step;
        Ok(steps)
    }

    /// The spectator's world, once a chunk was played.
    #[must_use]
    pub fn world(&self) -> Option<&World> {
        self.world.as_ref()
    }

    /// Steps since the recording began that the spectator has reached.
    #[must_use]
    pub fn step(&self) -> u64 {
        self.step
    }
}
