//! Every golden file of this version plays back with zero desyncs and the
//! pinned hashes; older versions' replays are refused (natively, from
//! disk). The same test runs natively (debug and release, via `cargo xtask
//! test`) and compiled to wasm32 under node.

#[cfg_attr(not(all(target_arch = "wasm32", target_os = "unknown")), test)]
#[cfg_attr(
    all(target_arch = "wasm32", target_os = "unknown"),
    wasm_bindgen_test::wasm_bindgen_test
)]
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

/// The older corpora, read from disk (only the newest is embedded): this
/// core refuses every one of their replays with the version error.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn older_goldens_are_refused_with_the_version_error() {
    let checks = skidpad_golden::check_older_refused().unwrap_or_else(|e| panic!("{e}"));
    let older = skidpad_core::SIMULATION_VERSION as usize - 1;
    assert!(
        checks.len() >= 4 * older,
        "at least four replays in each of the {older} older corpora: {checks:?}"
    );
}

/// Recording each scenario again gives this version's replays exactly and
/// its ghost files byte for byte: the scenarios (their grid, drivers and
/// game logic) are what the corpus says they are, so a refactor of them
/// cannot drift unnoticed. Replays compare decoded: the files keep the
/// replay format they were written in (version 1 up to `v10/`, 2 from `v11/`), while
/// today's encoder writes the current one (`replay/FORMAT.md`,
/// "Versions").
#[cfg(not(target_arch = "wasm32"))]
#[test]
// Ten simulated minutes and more: the release run of `cargo xtask test`
// checks it; a debug build would take minutes.
#[cfg_attr(debug_assertions, ignore = "release only (slow in debug)")]
fn recording_the_scenarios_again_gives_the_pinned_files() {
    use skidpad_golden::Scenario;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(skidpad_golden::current_dir());
    for scenario in Scenario::ALL {
        let recording = scenario.record().unwrap_or_else(|e| panic!("{e}"));
        let name = format!("{}.skr", scenario.name());
        let pinned = std::fs::read(dir.join(&name)).unwrap();
        let pinned =
            skidpad_replay::decode_replay(&pinned).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            pinned == recording.replay,
            "{name}: recording it again differs"
        );
        for (file, ghost) in &recording.ghosts {
            let bytes = skidpad_ghost::encode_ghost(ghost).unwrap();
            assert!(
                bytes == std::fs::read(dir.join(file)).unwrap(),
                "{file} differs"
            );
        }
    }
}
