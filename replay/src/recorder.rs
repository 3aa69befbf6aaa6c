//! `ReplayRecorder`: records every step of a world (SPEC §5).
//!
//! Keyframe 0 is taken when the recorder is made; then each recorded step
//! stores dt, each car's input as it ran (after any AI driver wrote it),
//! its level of detail and wheel surfaces, and every `keyframe_every` steps
//! a keyframe. `finish` adds a final keyframe, so a verifier checks the end
//! state too. A recorded car the game removes (`World::remove_car`) is
//! noticed at the next step, keyframe or `finish`: its streams end there
//! and later keyframes leave it out.

use skidpad_core::{
    CORE_VERSION, CarId, CarInput, FlatGround, GroundSource, LodSetting, SIMULATION_VERSION, World,
    combine_world_hash, hex,
};
use skidpad_ghost::GhostRecorder;

use crate::input_chunks::{push_chunked, reserved_chunks, split_per_car};
pub use crate::recorder_options::{
    DEFAULT_KEYFRAME_EVERY, DEFAULT_REWIND_WINDOW, KeyframeState, MAX_RESERVE_BYTES,
    RecorderOptions,
};
use crate::replay::{CarKeyframe, CarReset, CarTrack, Keyframe, Replay, ReplayHeader};
use crate::runs::Runs;
use crate::world::ground_of_source;
use crate::{ReplayError, Result};

mod late_cars;
mod parts;
mod rewind;

/// The ground source a recorder was given, checked against the world's
/// ground (`world::ground_of_source`, the check a player makes too).
fn carried_ground(world: &World, source: Option<GroundSource>) -> Result<Option<GroundSource>> {
    let Some(source) = source else {
        return Ok(None);
    };
    let ground = world.ground();
    ground_of_source(&source, ground.fingerprint(), &ground.describe()).map_err(|reason| {
        ReplayError::InvalidArgument {
            what: "ground",
            reason,
        }
    })?;
    Ok(Some(source))
}

/// The recorded cars that have not been removed, each with its track, id
/// and world-index hint.
fn cars_not_removed<'t>(
    tracks: &'t mut [CarTrack],
    cars: &'t [CarId],
    hints: &'t mut [usize],
) -> impl Iterator<Item = (&'t mut CarTrack, CarId, &'t mut usize)> {
    tracks
        .iter_mut()
        .zip(cars)
        .zip(hints)
        .filter(|((track, _), _)| track.removed_at.is_none())
        .map(|((track, &car), hint)| (track, car, hint))
}

/// `ReplayRecorder::note_removals` over a recording's fields, handing each
/// car still in the world to `present` with its index there (its place in
/// `World::last_step_records`).
fn walk_cars(
    replay: &mut Replay,
    cars: &[CarId],
    hints: &mut [usize],
    world: &World,
    mut present: impl FnMut(&mut CarTrack, usize),
) {
    let step = replay.header.step_count;
    let start = replay.header.start_step;
    let keyframes = &mut replay.keyframes;
    let mut present_count = 0;
    for (track, car, hint) in cars_not_removed(&mut replay.cars, cars, hints) {
        if let Some(index) = world.car_index(car, *hint) {
            *hint = index;
            present_count += 1;
            present(track, index);
            continue;
        }
        track.removed_at = Some(step);
        if let Some(keyframe) = keyframes.last_mut()
            && keyframe.step == step
            && present_count < keyframe.cars.len()
        {
            keyframe.cars.remove(present_count);
            keyframe.world_hash =
                combine_world_hash(start + step, keyframe.cars.iter().map(|c| c.hash));
        }
    }
}

/// Records a world's steps into a [`Replay`].
///
/// ```
/// use skidpad_replay::{Limits, NoHooks, RecorderOptions, ReplayRecorder, encode_replay, verify};
/// # use std::sync::Arc;
/// # use skidpad_core::{InitialPose, Track, World, WorldConfig, preset};
/// # fn race() -> Result<World, Box<dyn std::error::Error>> {
/// #     let track = Arc::new(Track::builtin("brandwood")?);
/// #     let mut world = World::new(WorldConfig::default())?;
/// #     for k in 0..2 {
/// #         let pose = InitialPose { x: 40.0 - 10.0 * k as f64, speed: 10.0, ..InitialPose::default() };
/// #         let car = world.add_car(&preset("fwd_hatchback")?, pose)?;
/// #         world.set_driver(car, Some(track.clone()))?;
/// #     }
/// #     Ok(world)
/// # }
/// let mut world = race()?; // two AI cars on brandwood
/// let mut recorder = ReplayRecorder::new(&world, RecorderOptions { keyframe_every: 60, ..RecorderOptions::default() })?;
/// for _ in 0..180 {
///     recorder.step(&mut world, 1.0 / 60.0)?; // steps the world and records the step
/// }
/// let replay = recorder.finish(&world)?;
/// let report = verify(&encode_replay(&replay)?, NoHooks, &Limits::default())?;
/// assert!(report.is_valid() && report.steps == 180);
/// assert_eq!(report.final_hash, world.world_hash());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ReplayRecorder<'a> {
    cars: Vec<CarId>,
    /// Each car's index in the world at the last capture: a hint that
    /// spares a search per car and step (`World::car_index`).
    world_index: Vec<usize>,
    /// Inputs of all cars, step by step, in fixed-size chunks: sequential
    /// writes that never copy what is already recorded (a growing vector
    /// would copy tens of MB over a long race). `finish` splits them per car.
    inputs: Vec<Vec<CarInput>>,
    /// Empty chunks, mapped already, for `inputs` to take before it
    /// allocates: the reserve (`RecorderOptions::reserve_steps`) and the
    /// chunks a cut has handed over.
    spare_inputs: Vec<Vec<CarInput>>,
    keyframe_state: Option<KeyframeState<'a>>,
    ghosts: Option<Vec<GhostRecorder>>,
    /// The newest car the recording holds, when it records every car
    /// (`RecorderOptions::cars` `None`): ids rise, so a car with a larger
    /// one was added behind the recorder.
    every_car_up_to: Option<CarId>,
    /// `RecorderOptions::rewind_window`.
    rewind_window: u64,
    replay: Replay,
}

impl<'a> ReplayRecorder<'a> {
    /// Starts recording `world` as it is now; takes keyframe 0.
    pub fn new(world: &World, options: RecorderOptions<'a>) -> Result<Self> {
        if options.keyframe_every == 0 {
            return Err(ReplayError::InvalidArgument {
                what: "keyframe_every",
                reason: "must be at least 1".into(),
            });
        }
        let every_car_up_to = options
            .cars
            .is_none()
            .then(|| world.car_ids().last())
            .flatten();
        let cars = options.cars.unwrap_or_else(|| world.car_ids().collect());
        if cars.is_empty() {
            // A replay of no car verifies nothing, and decoders refuse it.
            return Err(ReplayError::NoCars);
        }
        for (k, &car) in cars.iter().enumerate() {
            world.definition(car)?;
            if cars[..k].contains(&car) {
                return Err(ReplayError::InvalidArgument {
                    what: "cars",
                    reason: format!("car {car} is listed twice"),
                });
            }
        }
        let definitions = if options.embed_definitions {
            cars.iter()
                .map(|&c| world.definition(c).cloned())
                .collect::<Result<_, _>>()?
        } else {
            Vec::new()
        };
        let config = world.config();
        let mut metadata = options.metadata;
        for written in [ReplayHeader::GROUND_KEY, ReplayHeader::TRACK_DEFINITION_KEY] {
            if metadata.iter().any(|(k, _)| k == written) {
                return Err(ReplayError::InvalidArgument {
                    what: "metadata",
                    reason: format!("{written} is written by the recorder"),
                });
            }
        }
        if let Some(track) = &options.track {
            metadata.extend(ReplayHeader::track_metadata(
                track,
                &metadata,
                options.carry_track,
            )?);
        }
        let ground = world.ground();
        if ground.fingerprint() != FlatGround::plane_fingerprint() {
            metadata.push((
                ReplayHeader::GROUND_KEY.to_owned(),
                format!("{} {}", hex(&ground.fingerprint()), ground.describe()),
            ));
        }
        let header = ReplayHeader {
            core_version: CORE_VERSION.to_owned(),
            simulation_version: SIMULATION_VERSION,
            car_count: u32::try_from(cars.len()).map_err(|_| ReplayError::InvalidArgument {
                what: "cars",
                reason: "too many cars".into(),
            })?,
            step_count: 0,
            keyframe_every: options.keyframe_every,
            start_step: world.step_count(),
            gravity: config.gravity,
            air_density: config.air_density,
            surfaces: config.surfaces.clone(),
            metadata,
            source_cars: cars.clone(),
        };
        let tracks = cars.iter().map(|_| CarTrack::new()).collect();
        let reserved_inputs = options.reserve_steps.saturating_mul(cars.len() as u64);
        if reserved_inputs.saturating_mul(CarInput::SIZE as u64) > MAX_RESERVE_BYTES {
            return Err(ReplayError::InvalidArgument {
                what: "reserve_steps",
                reason: format!(
                    "{} steps of {} cars is more than {MAX_RESERVE_BYTES} bytes of inputs",
                    options.reserve_steps,
                    cars.len()
                ),
            });
        }
        let ground = carried_ground(world, options.ground)?;
        let spare_inputs = reserved_chunks(reserved_inputs);
        let ghosts = options.embed_ghosts.then(|| {
            cars.iter()
                .map(|&c| GhostRecorder::new(c))
                .collect::<Vec<_>>()
        });
        let mut recorder = ReplayRecorder {
            world_index: vec![0; cars.len()],
            cars,
            inputs: Vec::new(),
            spare_inputs,
            keyframe_state: options.keyframe_state,
            ghosts,
            every_car_up_to,
            rewind_window: options.rewind_window,
            replay: Replay {
                header,
                definitions,
                dt: Runs::new(),
                cars: tracks,
                keyframes: Vec::new(),
                ghosts: None,
                ground,
                rewinds: Vec::new(),
            },
        };
        recorder.take_keyframe(world)?;
        if let Some(ghosts) = &mut recorder.ghosts {
            // Frame 0 of each ghost is the starting pose at t = 0.
            for g in ghosts.iter_mut() {
                g.start_at(world)?;
            }
        }
        Ok(recorder)
    }

    /// Steps the world by `dt` and records the step.
    pub fn step(&mut self, world: &mut World, dt: f64) -> Result<()> {
        self.check_position(world, 0)?;
        self.check_no_late_car(world, &[])?;
        world.step(dt)?;
        self.after_step(world)
    }

    /// Records the step the caller has just taken with `world.step(dt)`,
    /// with the timestep the world ran ([`World::last_timestep`]): what
    /// each car ran with comes from `World::last_step_records`, so changes
    /// made after the step (for the next one) do not leak into this one.
    pub fn after_step(&mut self, world: &World) -> Result<()> {
        self.check_position(world, 1)?;
        let dt = timestep_ran(world, None)?;
        self.capture_except(world, dt, &[])
    }

    /// [`after_step`](Self::after_step), handed the timestep again: it must
    /// be the one the world ran, bit for bit.
    #[deprecated(note = "use after_step, which reads the timestep from the world")]
    pub fn capture(&mut self, world: &World, dt: f64) -> Result<()> {
        self.check_position(world, 1)?;
        timestep_ran(world, Some(dt))?;
        self.capture_except(world, dt, &[])
    }

    /// [`capture`](Self::capture), with `arrived` (cars that joined the
    /// world after the step, known to be arrivals) left out of the
    /// late-car check; the caller records their arrival next.
    fn capture_except(&mut self, world: &World, dt: f64, arrived: &[CarId]) -> Result<()> {
        self.check_position(world, 1)?;
        self.check_no_late_car(world, arrived)?;
        self.replay.dt.push(dt);
        let records = world.last_step_records();
        let step = self.replay.header.step_count;
        // One pass: a car removed before this step did not take it, and
        // every other car's record is appended.
        walk_cars(
            &mut self.replay,
            &self.cars,
            &mut self.world_index,
            world,
            |track, index| {
                let record = &records[index];
                push_chunked(&mut self.inputs, &mut self.spare_inputs, record.input);
                if let Some(pose) = record.reset {
                    track.resets.push(CarReset { step, pose });
                }
                track.lod.push(record.lod);
                for (runs, &surface) in track.surfaces.iter_mut().zip(&record.surfaces) {
                    runs.push(surface);
                }
            },
        );
        if let Some(ghosts) = &mut self.ghosts {
            for (g, track) in ghosts.iter_mut().zip(&self.replay.cars) {
                if track.removed_at.is_none() {
                    g.after_step(world)?;
                }
            }
        }
        self.replay.header.step_count += 1;
        if self
            .replay
            .header
            .step_count
            .is_multiple_of(u64::from(self.replay.header.keyframe_every))
        {
            self.take_keyframe(world)?;
        }
        Ok(())
    }

    /// Sets a car's level of detail through the recorder (the change is
    /// recorded with the next step either way; this mirrors the JS API).
    pub fn set_lod(&mut self, world: &mut World, car: CarId, lod: LodSetting) -> Result<()> {
        world.set_lod(car, lod)?;
        Ok(())
    }

    /// Steps recorded so far.
    #[must_use]
    pub fn step_count(&self) -> u64 {
        self.replay.header.step_count
    }

    /// Steps between keyframes (`RecorderOptions::keyframe_every`).
    #[must_use]
    pub fn keyframe_every(&self) -> u32 {
        self.replay.header.keyframe_every
    }

    /// Ends the recording; `world` must be as the last recorded step left
    /// it. Adds the final keyframe if the last step was not one.
    pub fn finish(mut self, world: &World) -> Result<Replay> {
        self.check_position(world, 0)?;
        self.check_no_pending_reset(world)?;
        self.note_removals(world);
        let last = self.replay.header.step_count;
        if self.replay.keyframes.last().map(|k| k.step) != Some(last) {
            self.take_keyframe(world)?;
        }
        if let Some(ghosts) = &self.ghosts {
            self.replay.ghosts = Some(
                ghosts
                    .iter()
                    .map(|g| g.finish())
                    .collect::<Result<_, _>>()?,
            );
        }
        let per_car = split_per_car(
            &self.inputs,
            &self.replay.cars,
            self.replay.header.step_count,
        );
        self.inputs.clear();
        for (track, inputs) in self.replay.cars.iter_mut().zip(per_car) {
            track.inputs = inputs;
        }
        Ok(self.replay)
    }

    /// The ground the recording carries, if the game gave it.
    pub(crate) fn carried_ground(&self) -> Option<&GroundSource> {
        self.replay.ground.as_ref()
    }

    /// The header the recording started with (step count as recorded so
    /// far, start step of the current part).
    pub(crate) fn header(&self) -> &ReplayHeader {
        &self.replay.header
    }

    /// The embedded definitions, empty when not embedded.
    pub(crate) fn definitions(&self) -> &[skidpad_core::CarDefinition] {
        &self.replay.definitions
    }

    /// Refuses to record when the world has taken steps the recorder did
    /// not see (or is behind): the replay would not play back.
    /// Refuses to end a recording (or a part of it) while a car has a
    /// reset the next step would record: the keyframe taken now would
    /// hold the reset state, and no recorded step would make the reset.
    fn check_no_pending_reset(&self, world: &World) -> Result<()> {
        for (track, &car) in self.replay.cars.iter().zip(&self.cars) {
            if track.removed_at.is_none()
                && world.contains_car(car)
                && world.pending_reset(car)?.is_some()
            {
                return Err(ReplayError::InvalidArgument {
                    what: "end of recording",
                    reason: format!(
                        "car {car} was reset after the last recorded step; a reset is recorded with the step after it, so step once more first"
                    ),
                });
            }
        }
        Ok(())
    }

    fn check_position(&self, world: &World, just_stepped: u64) -> Result<()> {
        let expected = self.replay.header.start_step + self.replay.header.step_count + just_stepped;
        if world.step_count() != expected {
            return Err(ReplayError::StepsNotRecorded {
                world: world.step_count(),
                expected,
            });
        }
        Ok(())
    }

    /// True when the world has lost a recorded car the recording has not
    /// marked removed yet.
    pub(crate) fn removed_unnoticed(&self, world: &World) -> bool {
        self.replay
            .cars
            .iter()
            .zip(&self.cars)
            .any(|(track, &car)| track.removed_at.is_none() && !world.contains_car(car))
    }

    /// Marks each recorded car the world no longer holds as removed at the
    /// current step. A keyframe already taken at this step (before the
    /// game removed the car) loses the car's snapshot: keyframes hold the
    /// cars in the world once the step's removals are done.
    fn note_removals(&mut self, world: &World) {
        walk_cars(
            &mut self.replay,
            &self.cars,
            &mut self.world_index,
            world,
            |_, _| {},
        );
    }

    fn take_keyframe(&mut self, world: &World) -> Result<()> {
        self.note_removals(world);
        let step = self.replay.header.step_count;
        let tracks = &self.replay.cars;
        let cars = self
            .cars
            .iter()
            .zip(tracks)
            .filter(|(_, track)| track.removed_at.is_none())
            .map(|(&c, _)| {
                Ok(CarKeyframe {
                    snapshot: world.snapshot(c)?,
                    hash: world.car_hash(c)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let world_hash = combine_world_hash(world.step_count(), cars.iter().map(|c| c.hash));
        let game_state = self
            .keyframe_state
            .as_mut()
            .map_or_else(Vec::new, |f| f(step));
        self.replay.keyframes.push(Keyframe {
            step,
            world_hash,
            cars,
            game_state,
        });
        Ok(())
    }
}

/// The timestep of the world's last step, which an observer records; with
/// `given` (a caller that hands it again) that one, refused unless it is
/// the world's bit for bit.
pub(crate) fn timestep_ran(world: &World, given: Option<f64>) -> Result<f64> {
    let ran = world.last_timestep();
    match (ran, given) {
        (Some(ran), None) => Ok(ran),
        (Some(ran), Some(given)) if ran.to_bits() == given.to_bits() => Ok(ran),
        (ran, given) => Err(ReplayError::TimestepMismatch {
            given: given.unwrap_or(f64::NAN),
            ran: ran.map_or_else(
                || "the world has not stepped since its step count was set".to_owned(),
                |ran| format!("the world's last step ran {ran} s"),
            ),
        }),
    }
}
