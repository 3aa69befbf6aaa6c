//! SPEC §3: the same calls give the same bits. Two worlds side by side, and
//! snapshot/restore into a fresh world, must hash alike at every step.

mod common;

use common::{DT, mixed_world, scripted_events};
use skidpad_core::hex;

const STEPS: u64 = 3000;

#[test]
fn two_worlds_given_the_same_calls_hash_alike_at_every_step() {
    let mut a = mixed_world();
    let mut b = mixed_world();
    assert!(a.car_count() >= 4);
    for step in 0..STEPS {
        scripted_events(&mut a, step);
        scripted_events(&mut b, step);
        a.step(DT).unwrap();
        b.step(DT).unwrap();
        assert_eq!(
            hex(&a.world_hash()),
            hex(&b.world_hash()),
            "worlds diverged at step {step}"
        );
    }
    // The run must have moved the cars: equal hashes of parked cars would
    // prove little.
    for id in a.car_ids() {
        assert!(a.pose(id).unwrap().position.truncate().length() > 100.0);
    }
}

#[test]
fn restoring_snapshots_into_a_fresh_world_continues_bit_for_bit() {
    const HORIZON: u64 = 900;
    let mut reference = mixed_world();
    let mut hashes = Vec::new();
    let mut snapshots = std::collections::BTreeMap::new();
    let cuts = [1_u64, 137, 420, 601];
    for step in 0..HORIZON {
        if cuts.contains(&step) {
            let cars: Vec<Vec<u8>> = reference
                .car_ids()
                .map(|id| reference.snapshot(id).unwrap())
                .collect();
            snapshots.insert(step, cars);
        }
        scripted_events(&mut reference, step);
        reference.step(DT).unwrap();
        hashes.push(reference.world_hash());
    }
    for (&k, cars) in &snapshots {
        let mut fresh = mixed_world();
        for (id, bytes) in fresh.car_ids().collect::<Vec<_>>().into_iter().zip(cars) {
            fresh.restore(id, bytes).unwrap();
        }
        fresh.set_step_count(k);
        for step in k..HORIZON {
            scripted_events(&mut fresh, step);
            fresh.step(DT).unwrap();
            assert_eq!(
                fresh.world_hash(),
                hashes[step as usize],
                "restored at {k}, diverged at step {step}"
            );
        }
    }
}

#[test]
fn a_snapshot_round_trips_to_the_same_bytes_and_hash() {
    let mut world = mixed_world();
    for step in 0..200 {
        scripted_events(&mut world, step);
        world.step(DT).unwrap();
    }
    for id in world.car_ids().collect::<Vec<_>>() {
        let before = world.snapshot(id).unwrap();
        let hash = world.car_hash(id).unwrap();
        world.restore(id, &before).unwrap();
        assert_eq!(world.snapshot(id).unwrap(), before);
        assert_eq!(world.car_hash(id).unwrap(), hash);
        assert_eq!(hash, *blake3::hash(&before).as_bytes());
    }
}
