//! `StreamFollower`: a spectator's side of a live stream. It joins at any
//! chunk (the late join: the latest one sealed), starts from that chunk's
//! first keyframe and plays every chunk after it, checking each chunk's
//! closing keyframe, so it holds the host's world bit for bit at every
//! chunk boundary. Cars that join the race come as arrival pieces, which
//! it must be given (every one before the chunk it starts from) in order.

use std::sync::Arc;

use skidpad_core::{CarDefinition, CarId, Ground, GroundSource, World};

use crate::format::{
    StreamArrival, StreamStart, read_stream_arrivals, read_stream_chunk, read_stream_header,
    split_chunk_piece,
};
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

    /// Takes arrival records (cars that joined the race), one piece as
    /// the splitter cuts it or several back to back as a spectator service
    /// serves those before a chunk: the chunks from the one that holds a
    /// car on are played with its definition. They must come in the
    /// stream's order, each naming the next car; all or none are taken.
    pub fn push_arrivals(&mut self, bytes: &[u8]) -> Result<()> {
        let known = self.header.car_count;
        let taken = read_stream_arrivals(bytes)?
            .into_iter()
            .try_for_each(|a| self.take_arrival(a));
        if taken.is_err() {
            self.forget_cars_after(known);
        }
        taken
    }

    fn take_arrival(&mut self, arrival: StreamArrival) -> Result<()> {
        let cars = self.header.car_count;
        if arrival.car != cars {
            return Err(ReplayError::InvalidArgument {
                what: "arrival",
                reason: format!(
                    "it names car {}, but the follower knows {cars} cars: arrival pieces come in the stream's order",
                    arrival.car
                ),
            });
        }
        self.limits.check_cars(u64::from(cars) + 1)?;
        let definition = arrival.definition.ok_or(ReplayError::MissingDefinitions {
            definitions: 0,
            cars: 1,
        })?;
        self.definitions.push(definition);
        self.header.car_count += 1;
        self.header.source_cars.push(arrival.source);
        Ok(())
    }

    /// Forgets the cars after the first `cars` (arrivals of a piece that
    /// was refused).
    fn forget_cars_after(&mut self, cars: u32) {
        self.header.car_count = cars;
        self.header.source_cars.truncate(cars as usize);
        self.definitions.truncate(cars as usize);
    }

    /// Plays one chunk piece: a chunk record, after the arrival records
    /// written since the previous chunk, if any (as the spectator service
    /// serves it; [`split_chunk_piece`](crate::split_chunk_piece)). The
    /// first chunk may be any (joining late, after
    /// [`push_arrivals`](Self::push_arrivals) of every arrival before it);
    /// every later one must start where the previous ended. Returns the
    /// number of steps played; the chunk's closing keyframe must match.
    pub fn push_chunk(&mut self, piece: &[u8]) -> Result<u64> {
        self.push_chunk_with(piece, |_, _, _| {})
    }

    /// `push_chunk`, calling `after_step` with the world, the world's id of
    /// each of the chunk's cars in stream order (the id of a car removed,
    /// or yet to arrive, names no car in the world) and the step's length
    /// (s) after each step of the chunk (a viewer reads every step's poses
    /// this way). On an error the piece's arrivals are forgotten, and the
    /// steps already reported were played but not confirmed by the chunk's
    /// closing keyframe.
    pub fn push_chunk_with(
        &mut self,
        piece: &[u8],
        after_step: impl FnMut(&World, &[CarId], f64),
    ) -> Result<u64> {
        let (arrivals, record) = split_chunk_piece(piece)?;
        let known = self.header.car_count;
        let played = arrivals
            .into_iter()
            .try_for_each(|a| self.take_arrival(a))
            .and_then(|()| self.play_chunk(record, after_step));
        if played.is_err() {
            self.forget_cars_after(known);
        }
        played
    }

    fn play_chunk(
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
        // Arrival pieces may run ahead of the chunks: a chunk holds the
        // first of the cars they name.
        let cars = part.header.car_count as usize;
        let definitions = self
            .definitions
            .get(..cars)
            .ok_or(ReplayError::MissingDefinitions {
                definitions: self.definitions.len(),
                cars,
            })?
            .to_vec();
        let part = Replay {
            definitions,
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
