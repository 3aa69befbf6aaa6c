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

/// Final world hash of `skidpad_fixtures::reference_world_hash` at simulation version 14.
const GOLDEN: &str = "335288faad8920a9cdf1329fc7cfd255b806f7588d9547fa0053c1c2bd54655e";
/// The simulation version GOLDEN was recorded with.
const GOLDEN_VERSION: u32 = 14;

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
/// surfaces, the single-track model on a slope) at simulation version 14.
/// Pinned here so the grounds are checked on every target as the
/// reference scenario is.
const HILL_GOLDEN: &str = "c8b6db5b79664226c833c3eea791c720c04cd2cf29a17ac7e10407e7ec9ca55e";

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
/// simulation version 14.
const HILLCREST_GOLDEN: &str = "871134323d9c5c8a6e975d7d651c743fac4b2bc45b9344e4548d00ff97da03ab";

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
