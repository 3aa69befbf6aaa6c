//! `create_replay_world`: a playback world built from a replay alone (or
//! with the ground it was recorded on, which a replay names but does not
//! hold).

use std::sync::{Arc, OnceLock};

use skidpad_core::{
    FlatGround, Ground, InitialPose, Track, TriangleMesh, World, WorldConfig, track_names,
};

use crate::replay::Replay;
use crate::{ReplayError, Result};

/// A world with the replay's surface table, gravity and air density, and
/// one car per recorded car from the embedded definitions, in playback
/// order, on the ground the replay names when this build can make it: the
/// plane, or a built-in track's surface (`Track::ground`). The cars' states
/// come from keyframe 0 when a player starts. A replay recorded on any
/// other ground needs [`create_replay_world_on`] (the player refuses the
/// plane for it, naming both grounds).
pub fn create_replay_world(replay: &Replay) -> Result<World> {
    create_replay_world_on(replay, known_ground(replay)?)
}

/// The ground a replay names, if it is the plane or a built-in track's
/// surface; the plane otherwise.
pub(crate) fn known_ground(replay: &Replay) -> Result<Arc<dyn Ground>> {
    if let Some((_, mesh)) = builtin_ground_of(replay)? {
        let ground: Arc<dyn Ground> = mesh.clone();
        return Ok(ground);
    }
    Ok(Arc::new(FlatGround))
}

/// The built-in track whose surface the replay was recorded on, found by
/// the ground's fingerprint (whatever its `track` metadata says): `None`
/// for the plane or a game's own ground. A viewer draws that track's road
/// from it; lap timing still needs the `track` metadata
/// ([`ReplayHeader::TRACK_KEY`](crate::ReplayHeader::TRACK_KEY)).
pub fn builtin_track_of_ground(replay: &Replay) -> Result<Option<&'static str>> {
    Ok(builtin_ground_of(replay)?.map(|(name, _)| *name))
}

fn builtin_ground_of(
    replay: &Replay,
) -> Result<Option<&'static (&'static str, Arc<TriangleMesh>)>> {
    let (fingerprint, _) = replay.header.ground()?;
    if fingerprint == FlatGround::plane_fingerprint() {
        return Ok(None);
    }
    Ok(track_grounds()
        .iter()
        .find(|(_, m)| m.fingerprint() == fingerprint))
}

/// The built-in tracks' surfaces, built once per process: a service that
/// verifies many replays does not rebuild a mesh and its hierarchy for
/// each (every built-in track builds; `track_ground.rs` tests it).
fn track_grounds() -> &'static [(&'static str, Arc<TriangleMesh>)] {
    static GROUNDS: OnceLock<Vec<(&'static str, Arc<TriangleMesh>)>> = OnceLock::new();
    GROUNDS.get_or_init(|| {
        track_names()
            .into_iter()
            .filter_map(|name| {
                let mesh = Track::builtin(name).and_then(|t| t.ground()).ok()?;
                Some((name, Arc::new(mesh)))
            })
            .collect()
    })
}

/// [`create_replay_world`] on `ground`, the one the replay was recorded
/// on (the player checks its fingerprint).
pub fn create_replay_world_on(replay: &Replay, ground: Arc<dyn Ground>) -> Result<World> {
    if replay.definitions.len() != replay.cars.len() {
        return Err(ReplayError::MissingDefinitions {
            definitions: replay.definitions.len(),
            cars: replay.cars.len(),
        });
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
