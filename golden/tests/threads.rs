//! The golden corpus plays back with its pinned hashes whatever the size of
//! the thread pool the world steps its cars on (1, 2 and 4 threads). Native
//! only: wasm32 has no threads here.

#![cfg(not(target_arch = "wasm32"))]

#[test]
fn every_golden_has_its_pinned_hashes_at_1_2_and_4_threads() {
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let checks = pool
            .install(skidpad_golden::check_all)
            .unwrap_or_else(|e| panic!("{threads} threads: {e}"));
        assert!(checks.iter().filter(|c| c.file.ends_with(".skr")).count() >= 4);
    }
}
