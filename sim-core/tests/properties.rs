//! Random finite sequences of calls never panic, never fail a legal step and
//! never let a non-finite value into the state or telemetry.

use proptest::prelude::*;
use skidpad_core::{
    CarId, CarInput, GroundSlope, InitialPose, Lod, LodSetting, SurfaceId, Wheel, World,
    WorldConfig, preset,
};

#[derive(Clone, Debug)]
enum Call {
    Input(u32, [f64; 6]),
    Step(f64),
    Lod(u32, u8, Option<f64>),
    Surface(u32, u8),
    WheelSurface(u32, u8, u8),
    Slope(u32, f64, f64),
}

/// f64 values spread over `[lo, hi]` in 2^32 even steps, drawn as an
/// integer: proptest's float range sampler can trip an internal rounding
/// assertion on some seeds (seen with f32 in the ghost tests).
fn between(lo: f64, hi: f64) -> impl Strategy<Value = f64> + Clone {
    (0..=u32::MAX).prop_map(move |k| lo + (hi - lo) * (f64::from(k) / f64::from(u32::MAX)))
}

fn call() -> impl Strategy<Value = Call> {
    let car = 0..2_u32;
    prop_oneof![
        3 => (car.clone(), prop::array::uniform6(between(-3.0, 3.0))).prop_map(|(c, v)| Call::Input(c, v)),
        6 => between(0.000_5, 0.25).prop_map(Call::Step),
        1 => (car.clone(), 0..3_u8, prop::option::of(between(30.0, 2000.0))).prop_map(|(c, l, r)| Call::Lod(c, l, r)),
        1 => (car.clone(), 0..8_u8).prop_map(|(c, s)| Call::Surface(c, s)),
        1 => (car.clone(), 0..4_u8, 0..8_u8).prop_map(|(c, w, s)| Call::WheelSurface(c, w, s)),
        1 => (car, between(-0.4, 0.4), between(-0.4, 0.4)).prop_map(|(c, g, x)| Call::Slope(c, g, x)),
    ]
}

fn apply(world: &mut World, call: &Call) {
    let result = match *call {
        Call::Input(c, v) => world.set_input(CarId::from_raw(c), CarInput::from_array(v)),
        Call::Step(dt) => world.step(dt),
        Call::Lod(c, level, rate) => {
            let level = Lod::from_code(level).unwrap();
            world.set_lod(
                CarId::from_raw(c),
                LodSetting {
                    level,
                    substep_rate: rate,
                },
            )
        }
        Call::Surface(c, s) => world.set_surface(CarId::from_raw(c), SurfaceId(s)),
        Call::WheelSurface(c, w, s) => world.set_wheel_surface(
            CarId::from_raw(c),
            Wheel::from_index(w).unwrap(),
            SurfaceId(s),
        ),
        Call::Slope(c, grade, cross_slope) => {
            world.set_ground_slope(CarId::from_raw(c), GroundSlope { grade, cross_slope })
        }
    };
    result.unwrap_or_else(|e| panic!("{call:?} was legal but failed: {e}"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_legal_calls_keep_the_state_finite(calls in prop::collection::vec(call(), 1..40)) {
        let mut world = World::new(WorldConfig::default()).unwrap();
        world.add_car(&preset("fwd_hatchback").unwrap(), InitialPose::default()).unwrap();
        world.add_car(&preset("rwd_sports").unwrap(), InitialPose { x: 20.0, speed: 20.0, ..InitialPose::default() }).unwrap();
        for call in &calls {
            apply(&mut world, call);
            for id in world.car_ids() {
                let t = world.telemetry(id).unwrap();
                prop_assert!(t.iter().all(|v| v.is_finite()), "non-finite telemetry after {:?}", call);
            }
        }
    }
}
