//! The pinned reference hashes (SPEC §3, STYLE "Pin golden results").
//!
//! This file also compiles for wasm32-unknown-unknown and runs under node
//! (`cargo test --target wasm32-unknown-unknown -p skidpad-core --test
//! golden`, which `cargo xtask test` does), so one set of hashes is checked
//! on native debug, native release and wasm. The hashes live in
//! `tests/data/core_golden_hashes.txt` (read through `skidpad_fixtures::pinned`;
//! the npm package's tests read it too); they change only together with a `SIMULATION_VERSION` bump.

use skidpad_core::SIMULATION_VERSION;
use skidpad_core::hex;
use skidpad_fixtures::pinned::{self, pinned_version};
use skidpad_fixtures::{hill_world_hash, hillcrest_world_hash, reference_world_hash};

/// The pinned hash of scenario `name`, after checking that it was pinned
/// at this simulation version.
fn pinned_hash(name: &str) -> &'static str {
    assert_eq!(
        Some(SIMULATION_VERSION),
        pinned_version(),
        "SIMULATION_VERSION changed: re-pin tests/data/core_golden_hashes.txt in the same commit"
    );
    pinned::pinned_hash(name)
        .unwrap_or_else(|| panic!("tests/data/core_golden_hashes.txt has no {name} line"))
}

#[cfg_attr(not(all(target_arch = "wasm32", target_os = "unknown")), test)]
#[cfg_attr(
    all(target_arch = "wasm32", target_os = "unknown"),
    wasm_bindgen_test::wasm_bindgen_test
)]
fn reference_scenario_matches_the_pinned_hash() {
    let hash = hex(&reference_world_hash().expect("scenario runs"));
    assert_eq!(
        hash,
        pinned_hash("reference"),
        "the reference scenario's bits changed"
    );
}

#[cfg_attr(not(all(target_arch = "wasm32", target_os = "unknown")), test)]
#[cfg_attr(
    all(target_arch = "wasm32", target_os = "unknown"),
    wasm_bindgen_test::wasm_bindgen_test
)]
fn hill_scenario_matches_the_pinned_hash() {
    let hash = hex(&hill_world_hash(false).expect("scenario runs"));
    assert_eq!(
        hash,
        pinned_hash("hill"),
        "the hill scenario's bits changed"
    );
}

#[cfg_attr(not(all(target_arch = "wasm32", target_os = "unknown")), test)]
#[cfg_attr(
    all(target_arch = "wasm32", target_os = "unknown"),
    wasm_bindgen_test::wasm_bindgen_test
)]
fn hillcrest_scenario_matches_the_pinned_hash() {
    let hash = hex(&hillcrest_world_hash().expect("scenario runs"));
    assert_eq!(
        hash,
        pinned_hash("hillcrest"),
        "the hillcrest scenario's bits changed"
    );
}
