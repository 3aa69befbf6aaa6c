//! Fixed scenarios shared by every target: the reference scenario behind
//! the pinned `GOLDEN` world hash, and the racing field the speed
//! benchmarks step.
//!
//! They live in the library, not in a test, so that every target (native,
//! wasm in node, wasm in a browser) runs exactly the same calls and can
//! compare its hash or its speed with native ones.

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

/// Host step of the racing field, s.
pub const RACING_DT: f64 = 1.0 / 60.0;

/// Steps `racing_world` takes before it returns.
pub const RACING_WARM_UP_STEPS: u64 = 120;

/// `cars` AI cars of alternating presets at level `lod`, spread evenly
/// around the built-in track and already up to speed after
/// [`RACING_WARM_UP_STEPS`] warm-up
/// steps, so a benchmark measures racing rather than standing starts.
/// Without `ai` the drivers are removed after the warm-up and the cars keep
/// the inputs they last had, which measures the vehicle model alone.
pub fn racing_world(cars: usize, lod: Lod, ai: bool) -> Result<World> {
    let track = Arc::new(Track::builtin("brandwood")?);
    let mut world = World::new(WorldConfig::default())?;
    let names = ["fwd_hatchback", "rwd_sports"];
    for k in 0..cars {
        let s = track.length() * k as f64 / cars as f64;
        let (p, dir) = track.point_at(s);
        let pose = InitialPose {
            x: p.x,
            y: p.y,
            yaw: libm::atan2(dir.y, dir.x),
            speed: 15.0,
        };
        let id = world.add_car(&preset(names[k % 2])?, pose)?;
        world.set_driver(id, Some(track.clone()))?;
        world.set_lod(id, LodSetting::new(lod))?;
    }
    for _ in 0..RACING_WARM_UP_STEPS {
        world.step(RACING_DT)?;
    }
    if !ai {
        let ids: Vec<CarId> = world.car_ids().collect();
        for id in ids {
            world.set_driver(id, None)?;
        }
    }
    Ok(world)
}

/// Lowercase hex of a hash, for messages and pinned constants.
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
