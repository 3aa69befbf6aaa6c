//! The `World`: cars stepped together, in id order, on one ground.
//!
//! Every mutating call validates its arguments first and changes nothing on
//! error. `step` is transactional as well: if any car's state stops being
//! finite, every car is put back as it was before the step.

pub(crate) mod car;
mod car_settings;
pub(crate) mod car_view;
pub mod channel_ids;
mod chassis_channels;
pub(crate) mod contact;
mod reset;
pub(crate) mod stepping;
pub(crate) mod telemetry;

use std::sync::Arc;

use crate::ground::{FlatGround, Ground};
use crate::ids::CarId;
use crate::input::CarInput;
use crate::lod::LodSetting;
use crate::model::outputs::StepOutputs;
use crate::model::substep::Environment;
use crate::pose::CarPose;
use crate::state::car_state::CarState;
use crate::state::snapshot;
use crate::surface::{SurfaceId, SurfaceTable};
use crate::track::Track;
use crate::track::driver::{AiDriver, DriverStyle};
use crate::track::traffic::TrafficCar;
use crate::vehicle::definition::CarDefinition;
pub use crate::world::car::RemovedCar;
use crate::world::car::{Car, InitialPose};
use crate::world::car_view::CarView;
use crate::world::contact::{Contact, Footprint};
use crate::{CoreError, Result};

/// Longest host step accepted, s.
pub const MAX_TIMESTEP: f64 = 0.25;

/// World-wide settings.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldConfig {
    /// Surfaces that wheels can stand on.
    pub surfaces: SurfaceTable,
    /// Gravitational acceleration, m/s².
    pub gravity: f64,
    /// Air density, kg/m³.
    pub air_density: f64,
}

impl Default for WorldConfig {
    fn default() -> Self {
        WorldConfig {
            surfaces: SurfaceTable::presets(),
            gravity: 9.80665,
            air_density: 1.225,
        }
    }
}

/// What one car ran with in the last step: the input (after any AI driver
/// wrote it), the level of detail, the wheel surfaces and a reset made
/// before it. Exactly what a replay must store to play the step again.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepRecord {
    /// The input the car ran with.
    pub input: CarInput,
    /// Its level of detail and substep rate.
    pub lod: LodSetting,
    /// The surface under each wheel when the step started.
    pub surfaces: [SurfaceId; 4],
    /// The pose of the last [`World::reset_car`] made on the car since the
    /// step before, if any: the step started from it.
    pub reset: Option<InitialPose>,
}

/// A set of cars simulated together.
///
/// A game makes one, adds cars and steps it once per frame; the same calls
/// give the same hash on every target.
///
/// ```
/// use skidpad_core::{CarInput, InitialPose, World, WorldConfig, preset};
///
/// let race = || -> skidpad_core::Result<[u8; 32]> {
///     let mut world = World::new(WorldConfig::default())?;
///     let car = world.add_car(&preset("awd_rally")?, InitialPose { speed: 10.0, ..InitialPose::default() })?;
///     world.set_input(car, CarInput { throttle: 0.6, steer: -0.2, ..CarInput::default() })?;
///     for _ in 0..120 {
///         world.step(1.0 / 60.0)?;
///     }
///     assert!(world.telemetry(car)?.iter().all(|v| v.is_finite()));
///     Ok(world.world_hash())
/// };
/// assert_eq!(race()?, race()?, "deterministic");
/// # Ok::<(), skidpad_core::CoreError>(())
/// ```
#[derive(Clone, Debug)]
pub struct World {
    config: WorldConfig,
    /// Sorted by id (ids rise as cars are added and removal keeps the
    /// order), so a lookup is a binary search and stepping, hashing and
    /// contact pairs run in id order.
    cars: Vec<Car>,
    /// Each car's id, in `cars` order. Lookups read this dense list, not
    /// the cars: a `Car` is about 4 KB, so a binary search over the cars
    /// touched a cache line of its own at every probe.
    ids: Vec<CarId>,
    /// The id the next added car gets; never given out twice.
    next_id: u32,
    step_count: u64,
    /// The timestep of the last step and the step count it left: what
    /// observers record (`last_timestep`), valid while the count is still
    /// that one.
    last_timestep: Option<(u64, f64)>,
    /// Per car, what the last step ran with; written while each car's data
    /// is hot, so a recorder reads one small contiguous array.
    last_step: Vec<StepRecord>,
    /// Reused buffer holding the pre-step states for rollback, with the
    /// outputs the cars' unread telemetry is computed from.
    rollback: Vec<(CarState, StepOutputs)>,
    /// What the wheels stand on; the plane unless the game sets another.
    ground: Arc<dyn Ground>,
    /// `ground` has the plane's fingerprint (see `Environment::flat`).
    flat_ground: bool,
    /// Car-to-car contacts of the last step, in pair order.
    contacts: Vec<Contact>,
    /// Reused scratch of the contact pass.
    footprints: Vec<Option<Footprint>>,
    /// Reused snapshot of every car for drivers that race traffic (empty
    /// when none does).
    traffic: Vec<TrafficCar>,
}

impl World {
    /// An empty world. Gravity and air density must be finite and
    /// non-negative.
    pub fn new(config: WorldConfig) -> Result<World> {
        for (what, v) in [
            ("gravity", config.gravity),
            ("air density", config.air_density),
        ] {
            if !(v.is_finite() && (0.0..=100.0).contains(&v)) {
                return Err(CoreError::InvalidArgument {
                    what: "world config",
                    reason: format!("{what} must be finite and in [0, 100], got {v}"),
                });
            }
        }
        Ok(World {
            config,
            cars: Vec::new(),
            ids: Vec::new(),
            next_id: 0,
            step_count: 0,
            last_timestep: None,
            last_step: Vec::new(),
            rollback: Vec::new(),
            ground: Arc::new(FlatGround),
            flat_ground: true,
            contacts: Vec::new(),
            footprints: Vec::new(),
            traffic: Vec::new(),
        })
    }

    /// The world's settings.
    #[must_use]
    pub fn config(&self) -> &WorldConfig {
        &self.config
    }

    /// Sets the ground every car drives on from the next step; set it
    /// before adding cars, which are put down on it (cars already added
    /// stay where they are). A ground
    /// that assigns surfaces must use only ids of this world's surface
    /// table; otherwise nothing changes.
    pub fn set_ground(&mut self, ground: Arc<dyn Ground>) -> Result<()> {
        if let Some(max) = ground.max_surface_id() {
            self.config.surfaces.get(max)?;
        }
        self.flat_ground = ground.fingerprint() == FlatGround::plane_fingerprint();
        self.ground = ground;
        Ok(())
    }

    /// The ground the cars drive on.
    #[must_use]
    pub fn ground(&self) -> &Arc<dyn Ground> {
        &self.ground
    }

    /// Adds a car at rest (or rolling at `pose.speed`) on the highest
    /// ground under `(pose.x, pose.y)`, level with it; an error where there
    /// is no ground. The new car's id is higher than every id this world
    /// has given out.
    pub fn add_car(&mut self, def: &CarDefinition, pose: InitialPose) -> Result<CarId> {
        let id = CarId::from_raw(self.next_id);
        let next = self
            .next_id
            .checked_add(1)
            .ok_or_else(|| CoreError::InvalidArgument {
                what: "car count",
                reason: "a world gives out at most 2^32 - 1 car ids".into(),
            })?;
        self.cars
            .push(Car::new(id, def, pose, self.ground.as_ref())?);
        self.ids.push(id);
        self.last_step.push(StepRecord::default());
        self.next_id = next;
        Ok(id)
    }

    /// Takes the car out of the world: from the next step it is not
    /// stepped, hashed or touched, and its id names no car. The other cars'
    /// ids do not change. The returned [`RemovedCar`] holds everything the
    /// car was; [`reinstate_car`](Self::reinstate_car) puts it back, which a
    /// rollback or a replay seeking to before the removal needs.
    pub fn remove_car(&mut self, id: CarId) -> Result<RemovedCar> {
        let index = self.index_of(id)?;
        self.last_step.remove(index);
        self.ids.remove(index);
        Ok(RemovedCar {
            car: self.cars.remove(index),
        })
    }

    /// Puts a car taken out by [`remove_car`](Self::remove_car) back under
    /// its own id, as it was when removed. Refused (nothing changes) when a
    /// car with that id is in the world or when this world never gave the
    /// id out. (A `RemovedCar` does not know its world: one from another
    /// world whose id is free here is taken, so keep removed cars with the
    /// world they came from.)
    pub fn reinstate_car(&mut self, removed: RemovedCar) -> Result<CarId> {
        let id = removed.car.id;
        if id.to_raw() >= self.next_id {
            return Err(CoreError::InvalidArgument {
                what: "reinstated car",
                reason: format!("this world never gave out car id {id}"),
            });
        }
        let index = match self.ids.binary_search(&id) {
            Ok(_) => {
                return Err(CoreError::InvalidArgument {
                    what: "reinstated car",
                    reason: format!("car {id} is already in the world"),
                });
            }
            Err(index) => index,
        };
        self.cars.insert(index, removed.car);
        self.ids.insert(index, id);
        self.last_step.insert(index, StepRecord::default());
        Ok(id)
    }

    /// Ids of all cars, in stepping (rising id) order.
    pub fn car_ids(&self) -> impl ExactSizeIterator<Item = CarId> + '_ {
        self.ids.iter().copied()
    }

    /// Number of cars.
    #[must_use]
    pub fn car_count(&self) -> usize {
        self.cars.len()
    }

    /// True when a car with this id is in the world.
    #[must_use]
    pub fn contains_car(&self, id: CarId) -> bool {
        self.index_of(id).is_ok()
    }

    /// Where the car sits in [`car_ids`](Self::car_ids) order (which
    /// [`last_step_records`](Self::last_step_records) follows), None for an
    /// id the world does not hold. `hint` is tried first: a caller that
    /// looks the same cars up every step passes the last answer and skips
    /// the search.
    #[must_use]
    #[inline]
    pub fn car_index(&self, id: CarId, hint: usize) -> Option<usize> {
        if self.ids.get(hint) == Some(&id) {
            Some(hint)
        } else {
            self.index_of(id).ok()
        }
    }

    fn index_of(&self, id: CarId) -> Result<usize> {
        self.ids
            .binary_search(&id)
            .map_err(|_| CoreError::UnknownCar(id))
    }

    fn entry(&self, id: CarId) -> Result<&Car> {
        Ok(&self.cars[self.index_of(id)?])
    }

    /// One car, read through a typed view: its pose, speed, inputs,
    /// definition and telemetry.
    pub fn car(&self, id: CarId) -> Result<CarView<'_>> {
        Ok(CarView {
            id,
            car: self.entry(id)?,
            surfaces: &self.config.surfaces,
        })
    }

    /// The car, to change it between steps. Its telemetry is computed
    /// first if it has not been read yet: telemetry describes the last step
    /// whatever the game sets afterwards.
    fn car_mut(&mut self, id: CarId) -> Result<&mut Car> {
        let index = self.index_of(id)?;
        let car = &mut self.cars[index];
        car.telemetry(&self.config.surfaces);
        Ok(car)
    }

    /// The car's definition.
    pub fn definition(&self, id: CarId) -> Result<&CarDefinition> {
        Ok(&self.entry(id)?.def)
    }

    /// Sets the input the car runs with from the next step on. Non-finite
    /// fields are an error (nothing changes); the rest is clamped to range.
    pub fn set_input(&mut self, id: CarId, input: CarInput) -> Result<()> {
        // Not `car_mut`: the car keeps the input its last step ran with
        // for the telemetry instead of computing that now.
        let index = self.index_of(id)?;
        let car = &mut self.cars[index];
        car.set_input(input.sanitized(car.def.top_gear())?);
        Ok(())
    }

    /// The input the car ran with in the last step (after any AI driver
    /// wrote it), or the one set since.
    pub fn input(&self, id: CarId) -> Result<CarInput> {
        Ok(self.entry(id)?.state.input)
    }

    /// Gives the car a path-following AI driver on `track`, or removes it
    /// with `None`.
    pub fn set_driver(&mut self, id: CarId, track: Option<Arc<Track>>) -> Result<()> {
        self.set_driver_with_style(id, track, DriverStyle::default())
    }

    /// As [`set_driver`](Self::set_driver), with a driving style.
    pub fn set_driver_with_style(
        &mut self,
        id: CarId,
        track: Option<Arc<Track>>,
        style: DriverStyle,
    ) -> Result<()> {
        let car = self.car_mut(id)?;
        // Built before the old driver is replaced: a bad style changes
        // nothing.
        car.driver = track
            .map(|t| AiDriver::new(t, &car.def, style))
            .transpose()?;
        Ok(())
    }

    /// The car's AI driver, if it has one.
    pub fn driver(&self, id: CarId) -> Result<Option<&AiDriver>> {
        Ok(self.entry(id)?.driver.as_ref())
    }

    /// Advances every car by `dt` seconds, in id order. `dt` must be finite
    /// and in (0, [`MAX_TIMESTEP`]]; otherwise nothing changes. If a car's
    /// state would leave its finite, physical bounds, every car is put back
    /// as it was and the error names the car.
    pub fn step(&mut self, dt: f64) -> Result<()> {
        if !(dt.is_finite() && dt > 0.0 && dt <= MAX_TIMESTEP) {
            return Err(CoreError::InvalidTimestep(dt));
        }
        reset::reset_stuck_cars(&mut self.cars, self.ground.as_ref());
        // Copied in place into the kept buffer when it fits (building each
        // pair and then moving it into the vector copied it twice).
        if self.rollback.len() == self.cars.len() {
            for ((state, outputs), car) in self.rollback.iter_mut().zip(&self.cars) {
                state.clone_from(&car.state);
                *outputs = car.outputs;
            }
        } else {
            self.rollback.clear();
            self.rollback
                .extend(self.cars.iter().map(|c| (c.state.clone(), c.outputs)));
        }
        let env = Environment {
            gravity: self.config.gravity,
            air_density: self.config.air_density,
            surfaces: &self.config.surfaces,
            ground: self.ground.as_ref(),
            flat: self.flat_ground,
        };
        stepping::snapshot_traffic(&self.cars, &mut self.traffic);
        let mut failed = stepping::step_cars(&mut self.cars, dt, &env, &self.traffic);
        if failed.is_none() {
            // Body-ground contacts were resolved in each car's step; cars
            // touch each other only after all have stepped, in a fixed
            // pair order.
            self.contacts.clear();
            self.contacts.extend(self.cars.iter().filter_map(|car| {
                car.ground_hit.map(|hit| Contact {
                    first: car.id,
                    second: None,
                    point: hit.point,
                    normal: hit.normal,
                    depth: hit.depth,
                    impulse: hit.impulse,
                })
            }));
            contact::resolve(&mut self.cars, &mut self.footprints, &mut self.contacts);
            failed = self.cars.iter().position(|c| !c.state.is_sane());
        }
        if let Some(i) = failed {
            let car = self.cars[i].id;
            for (c, (state, outputs)) in self.cars.iter_mut().zip(self.rollback.drain(..)) {
                c.state = state;
                c.outputs = outputs;
            }
            self.contacts.clear();
            return Err(CoreError::NumericalInstability { car });
        }
        for ((car, record), before) in self
            .cars
            .iter_mut()
            .zip(&mut self.last_step)
            .zip(&self.rollback)
        {
            car.state_changed();
            reset::time_stuck(car, dt);
            *record = StepRecord {
                input: car.state.input,
                lod: car.state.lod,
                // The surfaces the step started with: a ground that
                // assigns surfaces changes them during the step, and a
                // player sets these before playing the step again.
                surfaces: before.0.surfaces,
                reset: car.pending_reset.take(),
            };
        }
        self.step_count += 1;
        self.last_timestep = Some((self.step_count, dt));
        Ok(())
    }

    /// The timestep the last step ran, s, while the world is as that step
    /// left it (its step count unchanged); `None` before the first step
    /// and after [`set_step_count`](Self::set_step_count). Observers of a
    /// step (recorders, the race timing, ghost recorders: their
    /// `after_step`) read it here, so none can record a timestep the world
    /// did not run.
    #[must_use]
    pub fn last_timestep(&self) -> Option<f64> {
        self.last_timestep
            .filter(|&(count, _)| count == self.step_count)
            .map(|(_, dt)| dt)
    }

    /// Per car, in [`car_ids`](Self::car_ids) order, what the last step
    /// ran with. All default before the first step (and for a car added or
    /// reinstated since).
    #[must_use]
    pub fn last_step_records(&self) -> &[StepRecord] {
        &self.last_step
    }

    /// What the last step ran with for one car.
    pub fn last_step_record(&self, id: CarId) -> Result<&StepRecord> {
        Ok(&self.last_step[self.index_of(id)?])
    }

    /// The contacts of the last step (see [`Contact`]): bodies on the
    /// ground by car id, then car pairs in id order; empty before the
    /// first step and after a refused one.
    #[must_use]
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// Host steps taken.
    #[must_use]
    pub fn step_count(&self) -> u64 {
        self.step_count
    }

    /// Sets the step counter; the replay player uses it to line hashes up
    /// with the recording.
    pub fn set_step_count(&mut self, steps: u64) {
        self.step_count = steps;
    }

    /// Serializes the car's state (layout in `snapshot.rs`).
    pub fn snapshot(&self, id: CarId) -> Result<Vec<u8>> {
        let car = self.entry(id)?;
        Ok(snapshot::encode(&car.state, &car.fingerprint))
    }

    /// Restores a snapshot made by [`snapshot`](Self::snapshot) of a car
    /// with the same definition. On error nothing changes.
    pub fn restore(&mut self, id: CarId, bytes: &[u8]) -> Result<()> {
        let surface_count = self.config.surfaces.surfaces().len();
        // Not `car_mut`: the restore replaces what its telemetry would
        // describe, so computing that first would be wasted.
        let index = self.index_of(id)?;
        let car = &mut self.cars[index];
        let state = snapshot::decode(bytes, &car.fingerprint, surface_count, car.def.top_gear())?;
        car.state = state;
        car.outputs = Default::default();
        car.state_changed();
        Ok(())
    }

    /// blake3 of the car's canonical state.
    pub fn car_hash(&self, id: CarId) -> Result<[u8; 32]> {
        let car = self.entry(id)?;
        Ok(snapshot::car_hash(&car.state, &car.fingerprint))
    }

    /// blake3 over the step count and every car's hash in id order (the
    /// cars in the world: a removed car is no longer part of it).
    #[must_use]
    pub fn world_hash(&self) -> [u8; 32] {
        snapshot::combine_world_hash(
            self.step_count,
            self.cars
                .iter()
                .map(|c| snapshot::car_hash(&c.state, &c.fingerprint)),
        )
    }

    /// The car's telemetry values, in [`CHANNELS`](crate::CHANNELS) order,
    /// describing the last step (computed on the first read after it).
    pub fn telemetry(&self, id: CarId) -> Result<&[f64]> {
        Ok(self.car(id)?.telemetry())
    }

    /// One telemetry value by channel name.
    pub fn channel(&self, id: CarId, name: &str) -> Result<f64> {
        self.car(id)?.channel_named(name)
    }

    /// The car's pose.
    pub fn pose(&self, id: CarId) -> Result<CarPose> {
        Ok(self.car(id)?.pose())
    }
}
