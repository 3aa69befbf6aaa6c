//! `create_replay_world`: a playback world built from a replay alone (or
//! with the ground it was recorded on, which a replay names and may
//! carry).

use std::sync::{Arc, OnceLock};

use skidpad_core::{
    FlatGround, Ground, GroundSource, InitialPose, Track, TriangleMesh, World, WorldConfig, hex,
    track_names,
};

use crate::replay::{Replay, ReplayHeader};
use crate::{ReplayError, Result};

/// A world with the replay's surface table, gravity and air density, and
/// one car per recorded car from the embedded definitions, in playback
/// order, on the ground the replay names when this build can make it: the
/// plane, a built-in track's surface (`Track::ground`), or the ground the
/// replay carries (`Replay::ground`). The cars' states come from keyframe
/// 0 when a player starts. A replay recorded on any other ground needs
/// [`create_replay_world_on`] (the player refuses the plane for it, naming
/// both grounds).
pub fn create_replay_world(replay: &Replay) -> Result<World> {
    create_replay_world_on(replay, known_ground(replay)?)
}

/// The ground a replay names, if it is the plane, a built-in track's
/// surface or the ground it carries; the plane otherwise. A carried ground
/// that does not build, or builds another ground than the header names,
/// is refused.
pub(crate) fn known_ground(replay: &Replay) -> Result<Arc<dyn Ground>> {
    ground_named_by(&replay.header, replay.ground.as_ref())
}

/// [`known_ground`] from a header and the ground carried with it (a
/// stream's header record holds both).
pub(crate) fn ground_named_by(
    header: &ReplayHeader,
    carried: Option<&GroundSource>,
) -> Result<Arc<dyn Ground>> {
    if let Some((_, mesh)) = builtin_ground_of(header)? {
        let ground: Arc<dyn Ground> = mesh.clone();
        return Ok(ground);
    }
    if let Some(source) = carried {
        let (named, description) = header.ground()?;
        return ground_of_source(source, named, &description).map_err(|reason| {
            ReplayError::Decode {
                section: "ground",
                offset: 0,
                reason,
            }
        });
    }
    if let Some(mesh) = carried_track_ground(header)? {
        return Ok(mesh);
    }
    Ok(Arc::new(FlatGround))
}

/// The generated ground of the track the replay carries
/// (`ReplayHeader::TRACK_DEFINITION_KEY`), when that is the ground it
/// names; `None` otherwise (a carried track raced on another ground).
fn carried_track_ground(header: &ReplayHeader) -> Result<Option<Arc<dyn Ground>>> {
    if header
        .metadata_value(ReplayHeader::TRACK_DEFINITION_KEY)
        .is_none()
    {
        return Ok(None);
    }
    let (named, _) = header.ground()?;
    if named == FlatGround::plane_fingerprint() {
        return Ok(None);
    }
    let Some(track) = header.track()? else {
        return Ok(None);
    };
    let mesh = track.ground()?;
    Ok((mesh.fingerprint() == named).then(|| Arc::new(mesh) as Arc<dyn Ground>))
}

/// The ground `source` builds, when it is the one named by `fingerprint`
/// (described as `description`); otherwise why not, naming both. The
/// recorder checks a carried ground with it against its world, a player
/// against the replay's header.
pub(crate) fn ground_of_source(
    source: &GroundSource,
    fingerprint: [u8; 32],
    description: &str,
) -> std::result::Result<Arc<dyn Ground>, String> {
    let ground = source
        .build()
        .map_err(|e| format!("the ground given does not build: {e}"))?;
    if ground.fingerprint() != fingerprint {
        return Err(format!(
            "the ground given is a {} (ground {}), not the {description} (ground {})",
            ground.describe(),
            &hex(&ground.fingerprint())[..12],
            &hex(&fingerprint)[..12]
        ));
    }
    Ok(ground)
}

/// The built-in track whose surface the replay was recorded on, found by
/// the ground's fingerprint (whatever its `track` metadata says): `None`
/// for the plane or a game's own ground. A viewer draws that track's road
/// from it; lap timing still needs the `track` metadata
/// ([`ReplayHeader::TRACK_KEY`](crate::ReplayHeader::TRACK_KEY)).
pub fn builtin_track_of_ground(replay: &Replay) -> Result<Option<&'static str>> {
    builtin_track_of_header(&replay.header)
}

/// [`builtin_track_of_ground`] from a header alone (a stream's, or a
/// replay's whose body this core does not read).
pub fn builtin_track_of_header(header: &ReplayHeader) -> Result<Option<&'static str>> {
    Ok(builtin_ground_of(header)?.map(|(name, _)| *name))
}

fn builtin_ground_of(
    header: &ReplayHeader,
) -> Result<Option<&'static (&'static str, Arc<TriangleMesh>)>> {
    let (fingerprint, _) = header.ground()?;
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
    // Each car is put down at the origin and then given its recorded state
    // by the first keyframe, so it is put down on the plane: a game's
    // ground need not reach the origin.
    for def in &replay.definitions {
        world.add_car(def, InitialPose::default())?;
    }
    world.set_ground(ground)?;
    world.set_step_count(replay.header.start_step);
    Ok(world)
}
