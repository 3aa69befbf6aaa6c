//! The pinned reference hash (SPEC §3, STYLE "Pin golden results").
//!
//! This file also compiles for wasm32-unknown-unknown and runs under node
//! (`cargo test --target wasm32-unknown-unknown -p skidpad-core --test
//! golden`, which `cargo xtask test` does), so one constant is checked on
//! native debug, native release and wasm.
//!
//! The constant changes only together with a `SIMULATION_VERSION` bump.

use skidpad_core::SIMULATION_VERSION;
use skidpad_core::hex;
use skidpad_fixtures::{hill_world_hash, hillcrest_world_hash, reference_world_hash};

/// Final world hash of `skidpad_fixtures::reference_world_hash` at simulation version 9.
const GOLDEN: &str = "8eb3f3e63b8e4698595146b53608553fa5a9b18ab34f1e10a821853c5ceea059";
/// The simulation version GOLDEN was recorded with.
const GOLDEN_VERSION: u32 = 9;

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn reference_scenario_matches_the_pinned_hash() {
    assert_eq!(
        SIMULATION_VERSION, GOLDEN_VERSION,
        "SIMULATION_VERSION changed: re-pin GOLDEN in the same commit"
    );
    let hash = hex(&reference_world_hash().expect("scenario runs"));
    assert_eq!(hash, GOLDEN, "the reference scenario's bits changed");
}

/// Final world hash of `skidpad_fixtures::hill_world_hash` (three cars
/// over rolling hills: heightfield rays, tilted tire frames, per-cell
/// surfaces, the single-track model on a slope) at simulation version 9.
/// Pinned here so the grounds are checked on every target as the
/// reference scenario is.
const HILL_GOLDEN: &str = "4403881c3ab03fce2e4467e76b6266f6ef8a5393f3bc6cf3cd672d5aae033894";

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn hill_scenario_matches_the_pinned_hash() {
    assert_eq!(
        SIMULATION_VERSION, GOLDEN_VERSION,
        "SIMULATION_VERSION changed: re-pin HILL_GOLDEN in the same commit"
    );
    let hash = hex(&hill_world_hash(false).expect("scenario runs"));
    assert_eq!(hash, HILL_GOLDEN, "the hill scenario's bits changed");
}

/// Final world hash of `skidpad_fixtures::hillcrest_world_hash` (three
/// cars on the built-in hillcrest track's triangle mesh: the track mesh
/// build, the hierarchy's rays, banking, kerbs, car contact) at
/// simulation version 9.
const HILLCREST_GOLDEN: &str = "9c483c4747e0ec9618ffd628a248c74ffd2b9a4d8504706b3ee7cb213d0f9f3d";

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn hillcrest_scenario_matches_the_pinned_hash() {
    assert_eq!(
        SIMULATION_VERSION, GOLDEN_VERSION,
        "SIMULATION_VERSION changed: re-pin HILLCREST_GOLDEN in the same commit"
    );
    let hash = hex(&hillcrest_world_hash().expect("scenario runs"));
    assert_eq!(
        hash, HILLCREST_GOLDEN,
        "the hillcrest scenario's bits changed"
    );
}
