//! Cars that join a running recording: [`ReplayRecorder::add_car`] adds a
//! car to the world and records its arrival (the step and its state), a
//! clip takes the arrivals of the replay it plays, and a car added behind
//! the recorder's back is refused instead of left out.

use skidpad_core::{CarDefinition, CarId, InitialPose, World, combine_world_hash};

use super::ReplayRecorder;
use crate::format::StreamArrival;
use crate::replay::{CarArrival, CarKeyframe, CarTrack};
use crate::{ReplayError, Result};

impl ReplayRecorder<'_> {
    /// Adds a car to the world and to the recording, which takes part
    /// from the next step on: the replay records its arrival (the step and
    /// the car's state), and a player puts it in the world there. A car
    /// added before the first step is simply one of the recording's cars.
    /// Refused (nothing changes) for a recording of chosen cars, one that
    /// embeds ghosts, or a world the recorder is not in step with.
    pub fn add_car(
        &mut self,
        world: &mut World,
        definition: &CarDefinition,
        pose: InitialPose,
    ) -> Result<CarId> {
        self.check_position(world, 0)?;
        self.check_no_late_car(world, &[])?;
        self.check_takes_arrivals()?;
        let car = world.add_car(definition, pose)?;
        if let Err(e) = self.adopt_arrival(world, car) {
            world.remove_car(car)?;
            return Err(e);
        }
        Ok(car)
    }

    /// Takes `car`, which the caller has just put in the world itself
    /// (`World::add_car`, after the last recorded step), as arriving there,
    /// as [`add_car`](Self::add_car) would have: for a game whose own code
    /// adds cars (a race server seating a player). Cars the caller added
    /// together are adopted one by one, oldest first. Refused (nothing
    /// changes) for a car that is not the oldest the recording lacks, and
    /// as `add_car` is.
    pub fn adopt_car(&mut self, world: &World, car: CarId) -> Result<()> {
        self.check_position(world, 0)?;
        self.check_takes_arrivals()?;
        let oldest_late = self
            .every_car_up_to
            .and_then(|newest| world.car_ids().find(|&id| id > newest));
        if oldest_late != Some(car) {
            return Err(ReplayError::InvalidArgument {
                what: "car",
                reason: format!(
                    "car {car} is not the oldest car the world gained behind the recording ({})",
                    oldest_late.map_or_else(|| "it gained none".to_owned(), |c| format!("car {c}"))
                ),
            });
        }
        self.adopt_arrival(world, car)
    }

    /// Records the step the caller just took, as `capture`, then the
    /// arrival of `arrived`: cars the caller put in the world after the
    /// step (a clip's player, at the original's arrivals).
    pub(crate) fn capture_with_arrivals(
        &mut self,
        world: &World,
        dt: f64,
        arrived: &[CarId],
    ) -> Result<()> {
        if !arrived.is_empty() {
            self.check_takes_arrivals()?;
        }
        self.capture_except(world, dt, arrived)?;
        for &car in arrived {
            self.adopt_arrival(world, car)?;
        }
        Ok(())
    }

    /// The arrival of `car`, the car just taken in, as a stream announces
    /// it (a stream and an instant-replay ring join parts across it).
    pub(crate) fn announcement(&self, world: &World, car: CarId) -> Result<StreamArrival> {
        let header = &self.replay.header;
        Ok(StreamArrival {
            car: header.car_count - 1,
            world_step: header.start_step + header.step_count,
            source: car,
            snapshot: world.snapshot(car)?,
            definition: self.replay.definitions.last().cloned(),
        })
    }

    fn check_takes_arrivals(&self) -> Result<()> {
        if self.every_car_up_to.is_none() || self.ghosts.is_some() {
            return Err(ReplayError::InvalidArgument {
                what: "add_car",
                reason: "only a recording of every car without ghosts takes cars as they arrive"
                    .into(),
            });
        }
        Ok(())
    }

    /// Takes `car`, in the world now and newer than every recorded car, as
    /// arriving before the next step. Nothing changes when it fails.
    fn adopt_arrival(&mut self, world: &World, car: CarId) -> Result<()> {
        let snapshot = world.snapshot(car)?;
        let hash = world.car_hash(car)?;
        let definition = world.definition(car)?.clone();
        let step = self.replay.header.step_count;
        self.every_car_up_to = self.every_car_up_to.max(Some(car));
        self.cars.push(car);
        self.world_index.push(world.car_count() - 1);
        self.replay.header.car_count += 1;
        self.replay.header.source_cars.push(car);
        if !self.replay.definitions.is_empty() {
            self.replay.definitions.push(definition);
        }
        let mut track = CarTrack::new();
        track.arrival = (step > 0).then(|| CarArrival {
            step,
            snapshot: snapshot.clone(),
        });
        self.replay.cars.push(track);
        // The keyframe of this step was taken before the car came: it
        // holds the world as the next step starts, so it takes the car.
        if let Some(keyframe) = self.replay.keyframes.last_mut()
            && keyframe.step == step
        {
            keyframe.cars.push(CarKeyframe { snapshot, hash });
            keyframe.world_hash = combine_world_hash(
                self.replay.header.start_step + step,
                keyframe.cars.iter().map(|c| c.hash),
            );
        }
        Ok(())
    }

    /// Refuses to record a step of a recording of every car once the game
    /// has added a car behind it (not through [`add_car`](Self::add_car);
    /// `arrived` are known arrivals): the car would be left out, and a
    /// replay it touched would not verify.
    pub(super) fn check_no_late_car(&self, world: &World, arrived: &[CarId]) -> Result<()> {
        let Some(newest) = self.every_car_up_to else {
            return Ok(());
        };
        // Ids rise, so the last one answers the common case (no car newer
        // than the recording's) without a search: this runs every step.
        if world.car_ids().last().is_none_or(|id| id <= newest) {
            return Ok(());
        }
        match world
            .car_ids()
            .find(|&id| id > newest && !arrived.contains(&id))
        {
            Some(late) => Err(ReplayError::InvalidArgument {
                what: "cars",
                reason: format!(
                    "car {late} was added to the world behind the recording of every car: remove it, and add it through the recorder (`add_car`), which records its arrival"
                ),
            }),
            None => Ok(()),
        }
    }
}
