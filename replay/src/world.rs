//! `create_replay_world`: a playback world built from a replay alone.

use skidpad_core::{InitialPose, World, WorldConfig};

use crate::replay::Replay;
use crate::{ReplayError, Result};

/// A world with the replay's surface table, gravity and air density, and
/// one car per recorded car from the embedded definitions, in playback
/// order. The cars' states come from keyframe 0 when a player starts.
pub fn create_replay_world(replay: &Replay) -> Result<World> {
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
    for def in &replay.definitions {
        world.add_car(def, InitialPose::default())?;
    }
    world.set_step_count(replay.header.start_step);
    Ok(world)
}
