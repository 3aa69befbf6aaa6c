//! Shared set-up for the integration tests: a mixed field of AI cars and a
//! script of level-of-detail and surface changes.

#![allow(dead_code)] // Each test binary uses a different part of this file.

use skidpad_core::{CarId, CarInput, Lod, LodSetting, SurfaceId, Wheel, World};
use skidpad_fixtures::reference_world;

/// Four AI cars of both presets on the built-in track.
pub fn mixed_world() -> World {
    reference_world().expect("reference world builds")
}

/// A repeating 500-step script that touches every kind of change the
/// determinism contract covers: LOD levels and rates, whole-car and
/// per-wheel surfaces.
pub fn scripted_events(world: &mut World, step: u64) {
    let phase = step % 500;
    let round = step / 500;
    let car = CarId::from_raw((round % 4) as u32);
    let result = match phase {
        50 => world.set_lod(car, LodSetting::new(Lod::SingleTrack)),
        120 => world.set_wheel_surface(car, Wheel::RearRight, SurfaceId::GRAVEL),
        160 => world.set_surface(car, SurfaceId::WET_ASPHALT),
        200 => world.set_lod(car, LodSetting::with_rate(Lod::Full, 750.0)),
        260 => world.set_surface(car, SurfaceId::DRY_ASPHALT),
        300 => world.set_lod(car, LodSetting::new(Lod::Frozen)),
        330 => world.set_lod(car, LodSetting::with_rate(Lod::SingleTrack, 120.0)),
        400 => world.set_lod(car, LodSetting::new(Lod::Full)),
        _ => Ok(()),
    };
    result.expect("scripted event is valid");
}

pub const DT: f64 = 1.0 / 60.0;

/// A float in `[lo, hi]` from 2^32 evenly spaced values (proptest's own
/// float strategies shrink towards values the ground tests do not need).
pub fn coordinate(lo: f64, hi: f64) -> impl proptest::strategy::Strategy<Value = f64> + Clone {
    use proptest::strategy::Strategy;
    (0..=u32::MAX).prop_map(move |k| lo + (hi - lo) * (f64::from(k) / f64::from(u32::MAX)))
}

/// Steps car `id` for `seconds` at 120 Hz, steering `steer` (negative:
/// left) and holding about 20 m/s with a throttle proportional to the
/// shortfall: the steady turns the suspension and steering tests read.
pub fn hold_turn_at_20(world: &mut World, id: CarId, steer: f64, seconds: f64) {
    const DT: f64 = 1.0 / 120.0;
    for _ in 0..(seconds / DT) as usize {
        let speed = world.channel(id, "speed").unwrap();
        let input = CarInput {
            steer,
            throttle: (0.3 + 0.3 * (20.0 - speed)).clamp(0.0, 1.0),
            ..CarInput::default()
        };
        world.set_input(id, input).unwrap();
        world.step(DT).unwrap();
    }
}
