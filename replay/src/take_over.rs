//! Take-over: a new run that starts at any step of any replay (one's own,
//! a leaderboard's record, a spectated race), with one car handed to the
//! player and the others following their recorded inputs or the AI.
//!
//! The new run is an ordinary recording of an ordinary world: the world is
//! the source replay played to step S (so its cars hold exactly the
//! source's state there), and its recorder's keyframe 0 holds that state,
//! so the new replay verifies on its own, without the source. It says where
//! it began ([`ReplayHeader::TAKE_OVER_KEY`]): the source's final hash and
//! step S. Laps are timed from the take-over: a race layer made on the new
//! world counts a lap only from its first crossing of the line. Cars that
//! join the source after S do not join the new run.
//!
//! ```
//! use std::sync::Arc;
//! use skidpad_core::CarInput;
//! use skidpad_replay::{Limits, NoHooks, ReplayRecorder, TakeOver, encode_replay, verify};
//! # use skidpad_core::{InitialPose, Track, World, WorldConfig, preset};
//! # use skidpad_replay::RecorderOptions;
//! # fn record() -> Result<skidpad_replay::Replay, Box<dyn std::error::Error>> {
//! #     let track = Arc::new(Track::builtin("brandwood")?);
//! #     let mut world = World::new(WorldConfig::default())?;
//! #     for k in 0..2 {
//! #         let pose = InitialPose { x: 40.0 - 10.0 * k as f64, speed: 10.0, ..InitialPose::default() };
//! #         let car = world.add_car(&preset("fwd_hatchback")?, pose)?;
//! #         world.set_driver(car, Some(track.clone()))?;
//! #     }
//! #     let mut recorder = ReplayRecorder::new(&world, RecorderOptions::default())?;
//! #     for _ in 0..300 { recorder.step(&mut world, 1.0 / 60.0)?; }
//! #     Ok(recorder.finish(&world)?)
//! # }
//! let source = Arc::new(record()?); // two AI cars, 300 steps
//! // From step 150, car 0 is the player's; car 1 follows its recording.
//! let mut run = TakeOver::new(source, 150, 0, &Limits::default())?;
//! let mut recorder = ReplayRecorder::new(run.world(), run.recorder_options())?;
//! let me = run.player();
//! for _ in 0..120 {
//!     run.world_mut().set_input(me, CarInput { brake: 1.0, ..CarInput::default() })?;
//!     run.step(&mut recorder, 1.0 / 60.0)?;
//! }
//! let replay = recorder.finish(run.world())?;
//! let report = verify(&encode_replay(&replay)?, NoHooks, &Limits::default())?;
//! assert!(report.is_valid());
//! assert_eq!(replay.header.take_over()?.map(|t| t.step), Some(150));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;

use skidpad_core::{CarId, CarInput, Track, World, hex};

use crate::player::PlayerOptions;
use crate::recorder::ReplayRecorder;
use crate::recorder_options::RecorderOptions;
use crate::replay::{Replay, ReplayHeader};
use crate::world::create_replay_world;
use crate::{Limits, NoHooks, ReplayError, ReplayPlayer, Result};

/// Where a take-over run began, as its metadata says.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TakeOverOrigin {
    /// The source replay's final world hash, hex: which run it came from.
    pub source: String,
    /// The step of the source (since the source's start) it began at.
    pub step: u64,
    /// The car, by index in the source, that the player took.
    pub car: usize,
}

impl ReplayHeader {
    /// Where this run was taken over from another, or `None` for a run
    /// that began at its own start; an error when the key holds no origin.
    pub fn take_over(&self) -> Result<Option<TakeOverOrigin>> {
        self.metadata_value(Self::TAKE_OVER_KEY)
            .map(|value| {
                serde_json::from_str(value).map_err(|e| ReplayError::Metadata {
                    key: Self::TAKE_OVER_KEY,
                    reason: format!("not a take-over origin: {e}"),
                })
            })
            .transpose()
    }
}

/// What the cars the player does not drive do after the take-over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Followers {
    /// Each plays its recorded inputs, step by step, so it drives exactly
    /// as in the source until something (the player) touches it; at the
    /// source's end the AI takes it on the source's track, or it brakes to
    /// a stop where the source names none.
    Recorded,
    /// The AI drives them from the take-over on the source's track.
    Ai,
}

/// A run taken over from a replay: its world, and what the other cars do.
pub struct TakeOver {
    world: World,
    followers: TakeOverFollowers,
}

/// The part of a take-over that drives the cars the player does not: the
/// source's inputs step by step (or the AI), and where the run began. A
/// game that keeps the world itself ([`TakeOver::into_parts`]) calls
/// [`prepare`](Self::prepare) before each step.
pub struct TakeOverFollowers {
    source: Arc<Replay>,
    /// World ids by the source's car order.
    cars: Vec<CarId>,
    player: usize,
    followers: Followers,
    /// The source's step the world is at.
    source_step: u64,
    track: Option<Arc<Track>>,
    origin: TakeOverOrigin,
}

impl TakeOver {
    /// The source played to step `step` within `limits` (its declared
    /// work checked first), car `player` (by index in the source) handed
    /// to the player and the others following their recordings.
    pub fn new(source: Arc<Replay>, step: u64, player: usize, limits: &Limits) -> Result<TakeOver> {
        Self::with_followers(source, step, player, Followers::Recorded, limits)
    }

    /// As [`new`](Self::new), choosing what the other cars do.
    pub fn with_followers(
        source: Arc<Replay>,
        step: u64,
        player: usize,
        followers: Followers,
        limits: &Limits,
    ) -> Result<TakeOver> {
        if step > source.header.step_count {
            return Err(ReplayError::InvalidArgument {
                what: "take-over step",
                reason: format!(
                    "step {step} is past the replay's {} steps",
                    source.header.step_count
                ),
            });
        }
        let present = source.cars.get(player).is_some_and(|c| c.present_at(step));
        if !present {
            return Err(ReplayError::InvalidArgument {
                what: "take-over car",
                reason: format!("car {player} is not in the replay at step {step}"),
            });
        }
        let last = source.keyframes.last().ok_or(ReplayError::NoKeyframe {
            step: source.header.step_count,
        })?;
        let track = source.header.track()?.map(Arc::new);
        let options = PlayerOptions {
            limits: *limits,
            ..PlayerOptions::default()
        };
        let mut player_at = ReplayPlayer::with_options(
            create_replay_world(&source)?,
            source.clone(),
            NoHooks,
            options,
        )?;
        player_at.seek(step)?;
        let cars = player_at.car_ids().to_vec();
        let (mut world, _) = player_at.into_parts();
        world.set_driver(cars[player], None)?;
        if followers == Followers::Ai {
            let track = track.clone().ok_or_else(|| ReplayError::InvalidArgument {
                what: "followers",
                reason: "the AI needs a track and the replay names none".into(),
            })?;
            for (k, &car) in cars.iter().enumerate() {
                if k != player && source.cars[k].present_at(step) {
                    world.set_driver(car, Some(track.clone()))?;
                }
            }
        }
        let origin = TakeOverOrigin {
            source: hex(&last.world_hash),
            step,
            car: player,
        };
        Ok(TakeOver {
            world,
            followers: TakeOverFollowers {
                source,
                cars,
                player,
                followers,
                source_step: step,
                track,
                origin,
            },
        })
    }

    /// The world of the new run.
    #[must_use]
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The world, for the game's own calls (the player's input above all).
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// The world id of the player's car.
    #[must_use]
    pub fn player(&self) -> CarId {
        self.followers.player()
    }

    /// The world id of the source's car `index`.
    #[must_use]
    pub fn car_id(&self, index: usize) -> Option<CarId> {
        self.followers.car_id(index)
    }

    /// Where the run began.
    #[must_use]
    pub fn origin(&self) -> &TakeOverOrigin {
        &self.followers.origin
    }

    /// Options for the new run's recorder (see
    /// [`TakeOverFollowers::recorder_options`]).
    #[must_use]
    pub fn recorder_options(&self) -> RecorderOptions<'static> {
        self.followers.recorder_options()
    }

    /// Sets the followers' inputs for the next step, then steps the world
    /// through `recorder` by `dt`.
    pub fn step(&mut self, recorder: &mut ReplayRecorder<'_>, dt: f64) -> Result<()> {
        self.followers.prepare(&mut self.world)?;
        recorder.step(&mut self.world, dt)
    }

    /// The world and the followers apart, for a game that owns its world
    /// (a binding, an engine's resource).
    #[must_use]
    pub fn into_parts(self) -> (World, TakeOverFollowers) {
        (self.world, self.followers)
    }
}

impl TakeOverFollowers {
    /// The world id of the player's car.
    #[must_use]
    pub fn player(&self) -> CarId {
        self.cars[self.player]
    }

    /// The world id of the source's car `index`.
    #[must_use]
    pub fn car_id(&self, index: usize) -> Option<CarId> {
        self.cars.get(index).copied()
    }

    /// Where the run began.
    #[must_use]
    pub fn origin(&self) -> &TakeOverOrigin {
        &self.origin
    }

    /// The source's track, when it names one.
    #[must_use]
    pub fn track(&self) -> Option<&Arc<Track>> {
        self.track.as_ref()
    }

    /// Options for the new run's recorder: the source's ground and track
    /// carried on, and the origin in the metadata.
    #[must_use]
    pub fn recorder_options(&self) -> RecorderOptions<'static> {
        let origin = serde_json::to_string(&self.origin).expect("an origin serializes");
        RecorderOptions {
            metadata: vec![(ReplayHeader::TAKE_OVER_KEY.to_owned(), origin)],
            ground: self.source.ground.clone(),
            track: self.track.clone(),
            ..RecorderOptions::default()
        }
    }

    /// Tells the followers the world went back to `steps` steps after the
    /// take-over (a rewind, `ReplayRecorder::rewind`), so that they play
    /// their recordings from there again.
    pub fn rewound_to(&mut self, steps: u64) {
        self.source_step = self.origin.step + steps;
    }

    /// Sets the followers' inputs in `world` for its next step (their
    /// recorded ones, or nothing for the AI), and counts that step: call
    /// it once before every step of the world.
    pub fn prepare(&mut self, world: &mut World) -> Result<()> {
        let step = self.source_step;
        self.source_step += 1;
        if self.followers != Followers::Recorded {
            return Ok(());
        }
        let end = self.source.header.step_count;
        for (k, (&car, track)) in self.cars.iter().zip(&self.source.cars).enumerate() {
            if k == self.player || !world.contains_car(car) {
                continue;
            }
            if step < end {
                track.apply_step(world, car, step)?;
            } else if step == end {
                // The recording ran out: the AI on the source's track, or
                // a stop.
                match &self.track {
                    Some(t) => world.set_driver(car, Some(t.clone()))?,
                    None => world.set_input(
                        car,
                        CarInput {
                            brake: 1.0,
                            ..CarInput::default()
                        },
                    )?,
                }
            }
        }
        Ok(())
    }
}
