//! Stepping on rayon's pool gives the bits of stepping on one thread: the
//! same world hash after every step with 1, 2 and 4 threads, through level
//! of detail and surface changes, and the same refusal when a car's state
//! leaves its bounds.

use skidpad_core::{CarId, Lod, LodSetting, SurfaceId, World};
use skidpad_fixtures::{RACING_DT, racing_world};

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// World hashes after each of `steps` steps of a 12-car field, with a
/// scripted change every 50 steps.
fn hashes(lod: Lod, steps: u64) -> Vec<[u8; 32]> {
    let mut world = racing_world(12, lod, true).unwrap();
    let mut out = Vec::new();
    for step in 0..steps {
        let car = CarId::from_raw((step / 50 % 12) as u32);
        match step % 50 {
            10 => world
                .set_lod(car, LodSetting::new(Lod::SingleTrack))
                .unwrap(),
            20 => world.set_surface(car, SurfaceId::GRASS).unwrap(),
            30 => world.set_lod(car, LodSetting::new(Lod::Frozen)).unwrap(),
            40 => world.set_lod(car, LodSetting::new(lod)).unwrap(),
            _ => {}
        }
        world.step(RACING_DT).unwrap();
        out.push(world.world_hash());
    }
    out
}

#[test]
fn one_two_and_four_threads_give_the_same_hash_at_every_step() {
    for lod in [Lod::Full, Lod::SingleTrack] {
        let one = pool(1).install(|| hashes(lod, 240));
        for threads in [2, 4] {
            let many = pool(threads).install(|| hashes(lod, 240));
            assert!(one == many, "{lod:?} with {threads} threads");
        }
    }
}

/// Puts car 5 at the edge of the position bound, moving out, steps once
/// and returns the error and everything observable.
fn failing_step() -> (String, Vec<Vec<u8>>, [u8; 32], u64) {
    let mut world: World = racing_world(8, Lod::Full, true).unwrap();
    world.step(RACING_DT).unwrap();
    let mut edge = world.snapshot(CarId::from_raw(5)).unwrap();
    // Layout (snapshot.rs): position x at byte 18, velocity x at byte 74.
    edge[18..26].copy_from_slice(&(1e7 - 1e-3_f64).to_le_bytes());
    edge[74..82].copy_from_slice(&50.0_f64.to_le_bytes());
    world.restore(CarId::from_raw(5), &edge).unwrap();
    let before = world.world_hash();
    let err = world.step(RACING_DT).unwrap_err().to_string();
    assert_eq!(world.world_hash(), before, "rolled back whole");
    let snapshots = world
        .car_ids()
        .map(|c| world.snapshot(c).unwrap())
        .collect();
    (err, snapshots, world.world_hash(), world.step_count())
}

#[test]
fn a_refused_step_is_refused_alike_on_the_pool() {
    let one = pool(1).install(failing_step);
    assert!(one.0.contains("car 5"), "{}", one.0);
    for threads in [2, 4] {
        assert!(
            pool(threads).install(failing_step) == one,
            "{threads} threads"
        );
    }
}
