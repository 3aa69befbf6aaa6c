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

/// Final world hash of `skidpad_fixtures::reference_world_hash` at simulation version 6.
const GOLDEN: &str = "91b4d3a62876af3d2c336cf0dafb25655756f8935765856590d208e934eb737f";
/// The simulation version GOLDEN was recorded with.
const GOLDEN_VERSION: u32 = 6;

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
/// surfaces, the single-track model on a slope) at simulation version 6.
/// Pinned here so the grounds are checked on every target as the
/// reference scenario is.
const HILL_GOLDEN: &str = "16b57cbe6388fcc5f5d3d1717d650aaaeedc23aeb939ddf46f17c7263bdde5b2";

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
/// simulation version 6.
const HILLCREST_GOLDEN: &str = "62ff9b99184fe7ba604b899dfe777204c390f36e755c1203a23c94b87b20ead5";

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
