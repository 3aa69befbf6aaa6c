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

/// Final world hash of `skidpad_fixtures::reference_world_hash` at simulation version 8.
const GOLDEN: &str = "fc4adcbf7b55f6e55f14eec7df45afb711136dd2ecc03185ea50bb6e2691569b";
/// The simulation version GOLDEN was recorded with.
const GOLDEN_VERSION: u32 = 8;

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
/// surfaces, the single-track model on a slope) at simulation version 8.
/// Pinned here so the grounds are checked on every target as the
/// reference scenario is.
const HILL_GOLDEN: &str = "ef21a9615303d6e8dec0c795d63c22d6376777da4b63fadd14fa02424a95fa4b";

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
/// simulation version 8.
const HILLCREST_GOLDEN: &str = "9968ec5ca51ccaf63873746152d9dd9451cecc7329be2fe9da230b6a8d9cade3";

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
