//! The C# binding (`csharp/Skidpad.cs`, P/Invoke with SafeHandles) compiled
//! with mono's `mcs` and run under `mono` against the shared library: the
//! reference scenario's pinned hash, a recording that verifies with the
//! same bits as Rust and C, a golden replay played with no desync.

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
        let exe = dir.path().join("host.exe");
        let mut out = std::ffi::OsString::from("-out:");
        out.push(&exe);
        run(Command::new("mcs")
            .args(["-nologo", "-warnaserror", "-target:exe"])
            .arg(out)
            .arg(crate_dir().join("csharp/Skidpad.cs"))
            .arg(crate_dir().join("tests/csharp/Host.cs")));
        (dir, exe)
    });
    path
}

/// `mono host.exe args…`, finding libskidpad_c.so where cargo built it.
fn mono(args: &[&std::ffi::OsStr]) -> String {
    run(Command::new("mono")
        .arg(host())
        .args(args)
        .env("LD_LIBRARY_PATH", build_dir()))
}

#[test]
fn the_reference_scenario_from_csharp_gives_the_pinned_hash() {
    let out = mono(&["reference".as_ref()]);
    check_reference(&out);
}

#[test]
fn a_race_recorded_from_csharp_has_rusts_bits_and_verifies() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (replay, ghost) = (dir.path().join("cs.skr"), dir.path().join("cs.skg"));
    let out = mono(&["record".as_ref(), replay.as_os_str(), ghost.as_os_str()]);
    assert_eq!(printed(&out, "rewinds"), "1");
    check_recorded_race(&out, &replay, &ghost);
    let end = printed(&out, "ghost end");
    let numbers: Vec<&str> = end.split(' ').collect();
    assert_eq!((numbers[0], numbers[1]), (numbers[3], numbers[4]), "{end}");
}

#[test]
fn a_golden_replay_plays_from_csharp_with_no_desync() {
    let (path, end) = golden_replay("flat_lap.skr");
    let out = mono(&["play".as_ref(), path.as_os_str()]);
    check_golden_play(&out, &end);
    assert!(
        printed(&out, "refused three bytes:").starts_with("Decode:"),
        "{out}"
    );
}
