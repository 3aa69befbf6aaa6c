//! A C program (`tests/c/host.c`) compiled with gcc against
//! `include/skidpad.h` and linked with the static library drives skidpad
//! through the C ABI: the reference scenario's pinned hash, a recording
//! with a rewind that verifies, a golden replay played with no desync, and bad
//! arguments refused with a status.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use common::{
    build_dir, check_golden_play, check_recorded_race, check_reference, crate_dir, golden_replay,
    printed, run,
};

/// The host program, compiled once for all the tests here.
fn host() -> &'static PathBuf {
    static HOST: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = HOST.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let exe = dir.path().join("host");
        // -Werror: a header that makes a C compiler warn is a bug.
        run(Command::new("gcc")
            .args([
                "-std=c11",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-pedantic",
                "-O1",
                "-o",
            ])
            .arg(&exe)
            .arg("-I")
            .arg(crate_dir().join("include"))
            .arg(crate_dir().join("tests/c/host.c"))
            .arg(build_dir().join("libskidpad_c.a"))
            // What the Rust standard library needs from the system
            // (`rustc --print native-static-libs`).
            .args([
                "-lgcc_s",
                "-lutil",
                "-lrt",
                "-lpthread",
                "-lm",
                "-ldl",
                "-lc",
            ]));
        (dir, exe)
    });
    path
}

#[test]
fn the_reference_scenario_from_c_gives_the_pinned_hash() {
    let out = run(Command::new(host()).arg("reference"));
    check_reference(&out);
    assert_eq!(
        printed(&out, "simulation_version"),
        skidpad_core::SIMULATION_VERSION.to_string()
    );
}

#[test]
fn a_race_recorded_from_c_verifies_here_and_its_ghost_decodes() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (replay_path, ghost_path) = (dir.path().join("c.skr"), dir.path().join("c.skg"));
    let out = run(Command::new(host())
        .arg("record")
        .arg(&replay_path)
        .arg(&ghost_path));
    assert_eq!(printed(&out, "rewinds"), "1 seconds 1.666667");
    let replay = check_recorded_race(&out, &replay_path, &ghost_path);
    assert_eq!(
        replay
            .header
            .metadata_value(skidpad_replay::ReplayHeader::TRACK_KEY),
        Some("brandwood")
    );

    // The pose at the ghost's end is the car's last pose (in f32).
    let line = printed(&out, "ghost frames");
    let numbers: Vec<&str> = line.split(' ').collect();
    assert_eq!((numbers[4], numbers[5]), (numbers[7], numbers[8]), "{line}");
}

#[test]
fn a_golden_replay_plays_from_c_with_no_desync_and_seeks_back() {
    let (path, end) = golden_replay("flat_lap.skr");
    let out = run(Command::new(host()).arg("play").arg(&path));
    check_golden_play(&out, &end);
}

#[test]
fn bad_arguments_and_bad_files_are_refused_from_c_with_a_reason() {
    let out = run(Command::new(host()).arg("refusals"));
    assert!(out.contains("refusals done"), "{out}");
    // Each refusal came with the library's own message.
    for line in out.lines().filter(|l| l.starts_with("refused ")) {
        let message = line.splitn(3, ": ").nth(2).unwrap_or_default();
        assert!(message.len() > 5, "a refusal without a reason: {line}");
    }
    assert!(out.contains("channel 0 needs"), "{out}");
}
