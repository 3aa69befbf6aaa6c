//! `create_replay_world`: a playback world built from a replay alone (or
//! with the ground it was recorded on, which a replay names but does not
//! hold).

use std::sync::Arc;

use skidpad_core::{FlatGround, Ground, InitialPose, World, WorldConfig};

use crate::replay::Replay;
use crate::{ReplayError, Result};

/// A world with the replay's surface table, gravity and air density, and
/// one car per recorded car from the embedded definitions, in playback
/// order, on the plane. The cars' states come from keyframe 0 when a
/// player starts. A replay recorded on another ground needs
/// [`create_replay_world_on`] (the player refuses the plane for it).
pub fn create_replay_world(replay: &Replay) -> Result<World> {
    create_replay_world_on(replay, Arc::new(FlatGround))
}

/// [`create_replay_world`] on `ground`, the one the replay was recorded
/// on (the player checks its fingerprint).
pub fn create_replay_world_on(replay: &Replay, ground: Arc<dyn Ground>) -> Result<World> {
    if replay.definitions.len() != replay.cars.len() {
        return Err(ReplayError::Mismatch(format!(
            "the replay embeds {} definitions for {} cars; build the world yourself",
            replay.definitions.len(),
            replay.cars.len()
        )));
    }
    let mut world = World::new(WorldConfig {
        surfaces: replay.header.surfaces.clone(),
        gravity: replay.header.gravity,
        air_density: replay.header.air_density,
    })?;
    world.set_ground(ground)?;
    for def in &replay.definitions {
        world.add_car(def, InitialPose::default())?;
    }
    world.set_step_count(replay.header.start_step);
    Ok(world)
}
