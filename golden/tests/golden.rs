//! Every golden file plays back with zero desyncs and the pinned hashes;
//! older versions are refused. The same test runs natively (debug and
//! release, via `cargo xtask test`) and compiled to wasm32 under node.

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn every_golden_plays_back_bit_for_bit() {
    let checks = skidpad_golden::check_all().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        checks.iter().filter(|c| c.file.ends_with(".skr")).count() >= 4,
        "at least four golden replays: {checks:?}"
    );
    for c in &checks {
        println!("{}: {}", c.file, c.summary);
    }
}
