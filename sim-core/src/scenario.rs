//! The reference scenario behind the pinned `GOLDEN` world hash.
//!
//! It lives in the library, not in a test, so that every target (native,
//! wasm in node, wasm in a browser) runs exactly the same calls and can
//! compare its hash with the pinned constant.

use std::sync::Arc;

use crate::{
    CarId, InitialPose, Lod, LodSetting, Result, SurfaceId, Track, Wheel, World, WorldConfig,
    preset,
};

/// Host steps the reference scenario runs (10 s at 60 Hz).
pub const REFERENCE_STEPS: u64 = 600;
/// Host step of the reference scenario, s.
pub const REFERENCE_DT: f64 = 1.0 / 60.0;

/// Builds the reference world: four AI cars of both presets on the
/// built-in track, staggered on the start straight.
pub fn reference_world() -> Result<World> {
    let track = Arc::new(Track::builtin("brandwood")?);
    let mut world = World::new(WorldConfig::default())?;
    for (k, name) in ["fwd_hatchback", "rwd_sports", "rwd_sports", "fwd_hatchback"]
        .iter()
        .enumerate()
    {
        let def = preset(name)?;
        let lane = if k % 2 == 0 { 2.5 } else { -2.5 };
        let id = world.add_car(
            &def,
            InitialPose {
                x: 60.0 - 12.0 * k as f64,
                y: lane,
                yaw: 0.0,
                speed: 5.0,
            },
        )?;
        world.set_driver(id, Some(track.clone()))?;
    }
    Ok(world)
}

/// The scripted events of step `step`: LOD switches and surface changes.
pub fn reference_events(world: &mut World, step: u64) -> Result<()> {
    match step {
        120 => world.set_lod(CarId(1), LodSetting::new(Lod::SingleTrack))?,
        200 => world.set_wheel_surface(CarId(0), Wheel::FrontLeft, SurfaceId::GRASS)?,
        260 => world.set_surface(CarId(0), SurfaceId::DRY_ASPHALT)?,
        300 => world.set_lod(CarId(2), LodSetting::with_rate(Lod::Full, 500.0))?,
        360 => world.set_lod(CarId(1), LodSetting::new(Lod::Full))?,
        420 => world.set_lod(CarId(3), LodSetting::new(Lod::Frozen))?,
        480 => world.set_lod(CarId(3), LodSetting::new(Lod::Full))?,
        _ => {}
    }
    Ok(())
}

/// Runs the reference scenario and returns the final world hash.
pub fn reference_world_hash() -> Result<[u8; 32]> {
    let mut world = reference_world()?;
    for step in 0..REFERENCE_STEPS {
        reference_events(&mut world, step)?;
        world.step(REFERENCE_DT)?;
    }
    Ok(world.world_hash())
}

/// Lowercase hex of a hash, for messages and pinned constants.
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
