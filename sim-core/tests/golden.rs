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

/// Final world hash of `skidpad_fixtures::reference_world_hash` at simulation version 16.
const GOLDEN: &str = "7410e9d26eff02b8a14e96e043a3fdcc81f38066a39be6e7cdc8985cba1356ef";
/// The simulation version GOLDEN was recorded with.
const GOLDEN_VERSION: u32 = 16;

#[cfg_attr(not(all(target_arch = "wasm32", target_os = "unknown")), test)]
#[cfg_attr(
    all(target_arch = "wasm32", target_os = "unknown"),
    wasm_bindgen_test::wasm_bindgen_test
)]
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
/// surfaces, the single-track model on a slope) at simulation version 16.
/// Pinned here so the grounds are checked on every target as the
/// reference scenario is.
const HILL_GOLDEN: &str = "ca44c0a813757de84e7bdfa81343904e4fc2cd0652671bfc6fd0c8838fc1f928";

#[cfg_attr(not(all(target_arch = "wasm32", target_os = "unknown")), test)]
#[cfg_attr(
    all(target_arch = "wasm32", target_os = "unknown"),
    wasm_bindgen_test::wasm_bindgen_test
)]
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
/// simulation version 16.
const HILLCREST_GOLDEN: &str = "1b9843a01d5d34dc1b0905da81d5ce13df4c5449a504cc95e7bad604968702c6";

#[cfg_attr(not(all(target_arch = "wasm32", target_os = "unknown")), test)]
#[cfg_attr(
    all(target_arch = "wasm32", target_os = "unknown"),
    wasm_bindgen_test::wasm_bindgen_test
)]
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
