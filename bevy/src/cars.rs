//! Cars as entities: the components a game spawns, writes and reads, and
//! the systems that carry them into and out of the skidpad world.

use std::collections::BTreeMap;
use std::sync::Arc;

use bevy_ecs::lifecycle::HookContext;
use bevy_ecs::prelude::*;
use bevy_ecs::world::DeferredWorld;
use bevy_transform::components::Transform;
use skidpad_core::{CarDefinition, CarId, CarInput, CarPose, ChannelId, InitialPose, Track, World};

use crate::axes::{bevy_rotation, bevy_translation};
use crate::plugin::SkidpadWorld;
use crate::race::SkidpadRace;
use crate::recording::SkidpadRecording;

/// Spawn this to put a car in the world: at the next step the plugin adds
/// it and replaces this component with [`SkidpadCar`] and [`CarMotion`],
/// adding [`CarControls`] and a `Transform` at the car's pose unless
/// spawned with them (spawn controls to give the car's first step an
/// input; a mesh or a scene can be the entity's own or a child's). Cars join in the order they were
/// spawned, so the same spawns give the same car ids.
#[derive(Component, Debug, Clone)]
#[component(on_add = queue_spawn)]
pub struct CarSpawn {
    /// What the car is (a preset, or the game's own JSON).
    pub definition: Arc<CarDefinition>,
    /// Where it starts.
    pub pose: InitialPose,
    /// An AI driver on this track drives it; `None`: the game's
    /// [`CarControls`] do.
    pub driver: Option<Arc<Track>>,
}

impl CarSpawn {
    /// A car the game drives, starting at `pose`.
    #[must_use]
    pub fn new(definition: CarDefinition, pose: InitialPose) -> Self {
        CarSpawn {
            definition: Arc::new(definition),
            pose,
            driver: None,
        }
    }

    /// The same car, driven by the built-in AI around `track`.
    #[must_use]
    pub fn driven_on(self, track: Arc<Track>) -> Self {
        CarSpawn {
            driver: Some(track),
            ..self
        }
    }
}

/// The car's id in the skidpad world. Read it; the plugin owns it.
/// Despawning the entity (or removing this component) removes the car.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SkidpadCar(pub(crate) CarId);

impl SkidpadCar {
    /// The car's id, for the world's own calls (`world.car(id)`).
    #[must_use]
    pub fn id(self) -> CarId {
        self.0
    }
}

/// The input the car runs with from the next step on: written by the
/// game (keyboard, pad, its own AI) before
/// [`SkidpadSystems::Prepare`](crate::SkidpadSystems::Prepare). A change
/// is applied once, at the next step; a car with an AI driver ignores it.
#[derive(Component, Debug, Default, Clone, Copy, PartialEq)]
pub struct CarControls(pub CarInput);

/// What the last step left: written after every step, read by the game
/// (camera, HUD) and by the transform sync.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct CarMotion {
    /// The pose after the last step.
    pub pose: CarPose,
    /// The pose after the step before it: the start of the interpolation.
    pub previous: CarPose,
    /// The world's step count this motion is from.
    pub step: u64,
    /// Speed over ground, m/s.
    pub speed: f64,
}

impl CarMotion {
    pub(crate) fn read(world: &World, car: CarId) -> skidpad_core::Result<CarMotion> {
        let view = world.car(car)?;
        let pose = view.pose();
        Ok(CarMotion {
            pose,
            previous: pose,
            step: world.step_count(),
            speed: view.speed(),
        })
    }
}

/// Telemetry channels of this car read after every step, for a HUD or
/// sound: opt-in per car, because the first channel read in a step
/// computes every channel of that car (about a sixth of a car-step).
///
/// ```
/// use skidpad_bevy::CarTelemetry;
/// use skidpad_core::channels::{ENGINE_RPM, GEAR};
///
/// let dashboard = CarTelemetry::new([GEAR, ENGINE_RPM]);
/// assert_eq!(dashboard.value(GEAR), Some(0.0)); // until the car's first step
/// ```
#[derive(Component, Debug, Clone, PartialEq)]
pub struct CarTelemetry {
    channels: Vec<(ChannelId, f64)>,
}

impl CarTelemetry {
    /// Reads these channels (see `skidpad_core::channels`).
    #[must_use]
    pub fn new(channels: impl IntoIterator<Item = ChannelId>) -> Self {
        CarTelemetry {
            channels: channels.into_iter().map(|c| (c, 0.0)).collect(),
        }
    }

    fn read(&mut self, world: &World, car: CarId) -> skidpad_core::Result<()> {
        let view = world.car(car)?;
        for (channel, value) in &mut self.channels {
            *value = view.channel(*channel);
        }
        Ok(())
    }

    /// A channel's value after the last step; `None` for a channel not
    /// asked for.
    #[must_use]
    pub fn value(&self, channel: ChannelId) -> Option<f64> {
        self.channels
            .iter()
            .find(|(c, _)| *c == channel)
            .map(|&(_, v)| v)
    }
}

/// Which entity is which car, both ways, ordered (never a hash map: the
/// order cars leave in must not depend on a hasher).
#[derive(Resource, Debug, Default)]
pub struct CarRegistry {
    entities: BTreeMap<CarId, Entity>,
    cars: BTreeMap<Entity, CarId>,
    /// Cars whose entity went, to leave the world at the next step.
    leaving: Vec<CarId>,
    /// Entities given a [`CarSpawn`], in the order they got it.
    joining: Vec<Entity>,
}

/// Queues a spawned car in spawn order (entity ids are not in spawn
/// order: Bevy reuses and hands them out as it likes).
fn queue_spawn(mut world: DeferredWorld, context: HookContext) {
    if let Some(mut registry) = world.get_resource_mut::<CarRegistry>() {
        registry.joining.push(context.entity);
    }
}

impl CarRegistry {
    /// The entity of car `car`, while it is in the world.
    #[must_use]
    pub fn entity(&self, car: CarId) -> Option<Entity> {
        self.entities.get(&car).copied()
    }

    /// The car of `entity`, while it is in the world.
    #[must_use]
    pub fn car(&self, entity: Entity) -> Option<CarId> {
        self.cars.get(&entity).copied()
    }

    /// No car is in the world or on its way in.
    pub(crate) fn is_empty(&self) -> bool {
        self.entities.is_empty() && self.joining.is_empty()
    }

    pub(crate) fn insert(&mut self, entity: Entity, car: CarId) {
        self.entities.insert(car, entity);
        self.cars.insert(entity, car);
    }

    fn remove(&mut self, entity: Entity) -> Option<CarId> {
        let car = self.cars.remove(&entity)?;
        self.entities.remove(&car);
        Some(car)
    }
}

/// Notes a car whose entity was despawned (or lost its [`SkidpadCar`])
/// the moment it happens: an observer, because the removal messages a
/// system could read last two frames, and a fixed schedule may not run in
/// two frames.
pub(crate) fn note_removal(removal: On<Remove, SkidpadCar>, mut registry: ResMut<CarRegistry>) {
    if let Some(car) = registry.remove(removal.event().entity) {
        registry.leaving.push(car);
    }
}

/// Cars noted as removed leave the world, in id order.
pub(crate) fn leave_world(
    mut registry: ResMut<CarRegistry>,
    mut world: ResMut<SkidpadWorld>,
) -> Result {
    let mut leaving = std::mem::take(&mut registry.leaving);
    leaving.sort_unstable();
    for car in leaving {
        world.remove_car(car)?;
    }
    Ok(())
}

/// Spawned cars join the world in spawn order; the recording and the
/// race take them in as arrivals.
pub(crate) fn join_world(
    mut commands: Commands,
    spawns: Query<(Entity, &CarSpawn)>,
    mut registry: ResMut<CarRegistry>,
    mut world: ResMut<SkidpadWorld>,
    mut recording: Option<NonSendMut<SkidpadRecording>>,
    mut race: Option<ResMut<SkidpadRace>>,
) -> Result {
    // In spawn order; a car spawned before the plugin was added (so not
    // queued) after those, in entity order.
    let queued = std::mem::take(&mut registry.joining);
    let mut unqueued: Vec<(Entity, &CarSpawn)> =
        spawns.iter().filter(|(e, _)| !queued.contains(e)).collect();
    unqueued.sort_unstable_by_key(|&(entity, _)| entity);
    let joining: Vec<(Entity, &CarSpawn)> = queued
        .iter()
        .filter_map(|&e| spawns.get(e).ok())
        .chain(unqueued)
        .collect();
    for (k, &(entity, spawn)) in joining.iter().enumerate() {
        // A refusal ends this step's joins: the cars after it keep their
        // place in the queue for the next.
        registry.joining = joining[k + 1..].iter().map(|&(e, _)| e).collect();
        // Taken off first: a car the world refuses is not tried again at
        // every step.
        commands.entity(entity).remove::<CarSpawn>();
        let car = world.add_car(&spawn.definition, spawn.pose)?;
        let joined = (|| {
            world.set_driver(car, spawn.driver.clone())?;
            if let Some(recording) = recording.as_deref_mut() {
                recording.adopt(&world, car)?;
            }
            Ok::<_, BevyError>(())
        })();
        if let Err(e) = joined {
            world.remove_car(car)?;
            return Err(e);
        }
        if let Some(race) = race.as_deref_mut() {
            race.join(&world, car)?;
        }
        registry.insert(entity, car);
        let motion = CarMotion::read(&world, car)?;
        let placed = Transform::from_translation(bevy_translation(motion.pose.position))
            .with_rotation(bevy_rotation(motion.pose.orientation));
        commands
            .entity(entity)
            .insert((SkidpadCar(car), motion))
            .insert_if_new((CarControls::default(), placed));
    }
    Ok(())
}

/// Puts the cars spawned so far in the world now instead of at the next
/// step, as the plugin's own join does (spawn order, recording, race):
/// for a game that needs its cars' ids and motion before the first step,
/// such as a rollback session whose frame 0 must hold every car.
pub fn join_spawned_cars(world: &mut bevy_ecs::world::World) -> Result {
    use bevy_ecs::system::RunSystemOnce;
    match world.run_system_once(join_world) {
        Ok(joined) => joined,
        Err(e) => Err(format!("the join could not run: {e}").into()),
    }
}

/// Controls the game changed become the cars' inputs for the next step.
pub(crate) fn apply_controls(
    cars: Query<(&SkidpadCar, &CarControls), Changed<CarControls>>,
    mut world: ResMut<SkidpadWorld>,
) -> Result {
    for (car, controls) in &cars {
        world.set_input(car.0, controls.0)?;
    }
    Ok(())
}

/// Each car's motion (and telemetry, where asked) after a step the world
/// took; nothing when it did not step (paused, or the step was refused).
pub(crate) fn write_motion(
    mut cars: Query<(&SkidpadCar, &mut CarMotion, Option<&mut CarTelemetry>)>,
    world: Res<SkidpadWorld>,
) -> Result {
    let step = world.step_count();
    for (car, mut motion, telemetry) in &mut cars {
        if motion.step == step {
            continue;
        }
        let previous = motion.pose;
        *motion = CarMotion {
            previous,
            ..CarMotion::read(&world, car.0)?
        };
        if let Some(mut telemetry) = telemetry {
            telemetry.read(&world, car.0)?;
        }
    }
    Ok(())
}

/// Each car's motion read afresh after the world jumped (a flashback):
/// no step to interpolate from, so the car is drawn where it now is.
pub(crate) fn snap_motion(
    mut cars: Query<(&SkidpadCar, &mut CarMotion, Option<&mut CarTelemetry>)>,
    world: Res<SkidpadWorld>,
) -> Result {
    for (car, mut motion, telemetry) in &mut cars {
        *motion = CarMotion::read(&world, car.0)?;
        if let Some(mut telemetry) = telemetry {
            telemetry.read(&world, car.0)?;
        }
    }
    Ok(())
}
