//! What the C and C# host tests share: where cargo put this crate's
//! libraries, running a host program, and the pinned hashes it must print.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder cargo built this crate's static and shared libraries into
/// for this test: the test's own (`target/<profile>/deps`). cargo copies
/// them up to `target/<profile>` only for `cargo build`, so a fresh clone's
/// test run finds them here only.
pub fn build_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own path");
    exe.parent()
        .expect("a test runs from <target>/<profile>/deps")
        .to_path_buf()
}

/// This crate's folder.
pub fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs a command to success and returns what it printed.
pub fn run(command: &mut Command) -> String {
    let shown = format!("{command:?}");
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{shown} did not start: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{shown} failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    stdout
}

/// The value a host printed after `label ` on a line of its own.
pub fn printed<'a>(output: &'a str, label: &str) -> &'a str {
    output
        .lines()
        .find_map(|l| l.strip_prefix(label)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("the host printed no {label} line:\n{output}"))
}

/// The pinned final hash of the core's reference scenario.
pub fn pinned_reference() -> &'static str {
    assert_eq!(
        skidpad_fixtures::pinned::pinned_version(),
        Some(skidpad_core::SIMULATION_VERSION),
        "the pinned hashes are of another simulation version"
    );
    skidpad_fixtures::pinned::pinned_hash("reference").expect("a reference hash is pinned")
}

/// A golden replay of the current version, and the world hash its corpus
/// pins for its end.
pub fn golden_replay(name: &str) -> (PathBuf, String) {
    let version = skidpad_core::SIMULATION_VERSION;
    let hashes = String::from_utf8(
        skidpad_golden::corpus::file(version, "HASHES").expect("the corpus has HASHES"),
    )
    .expect("HASHES is text");
    let end = skidpad_golden::hashes::parse(&hashes)
        .into_iter()
        .find(|(file, key, _)| file == name && key == "final")
        .map(|(_, _, hash)| hash)
        .expect("HASHES pins the replay's end");
    (skidpad_golden::corpus::dir(version).join(name), end)
}

/// The world hash at the end of the race both hosts record (`record`):
/// two AI cars on brandwood's own surface, 1200 steps, run here in Rust.
pub fn recorded_race_hash() -> String {
    use skidpad_core::{InitialPose, Track, World, WorldConfig, preset};
    use std::sync::Arc;
    let track = Arc::new(Track::builtin("brandwood").expect("built in"));
    let mut world = World::new(WorldConfig::default()).expect("a world");
    world
        .set_ground(Arc::new(track.ground().expect("the track's surface")))
        .expect("a ground");
    for (k, name) in ["rwd_sports", "fwd_hatchback"].into_iter().enumerate() {
        let pose = InitialPose {
            x: 40.0 - 10.0 * k as f64,
            speed: 10.0,
            ..InitialPose::default()
        };
        let car = world
            .add_car(&preset(name).expect("a preset"), pose)
            .expect("added");
        world.set_driver(car, Some(track.clone())).expect("driven");
    }
    for _ in 0..1200 {
        world.step(1.0 / 60.0).expect("a step");
    }
    skidpad_core::hex(&world.world_hash())
}

/// What a host printed for the reference scenario: the pinned hash, and
/// the speed channel equal to the pose's speed.
pub fn check_reference(out: &str) {
    assert_eq!(printed(out, "reference"), pinned_reference());
    let car = printed(out, "car0 speed");
    let fields: Vec<&str> = car.split(' ').collect();
    assert_eq!(
        fields[0], fields[2],
        "speed and the speed channel differ: {car}"
    );
}

/// What a host printed and wrote for the recorded race (`record`): Rust's
/// bits throughout, 0 desyncs in its own verification and in this one
/// (what `skidpad verify` calls, default limits), one rewind noted, and a
/// 1200-frame ghost.
pub fn check_recorded_race(out: &str, replay: &Path, ghost: &Path) -> skidpad_replay::Replay {
    let expected = recorded_race_hash();
    for label in ["recorded", "replay_final", "verified_final"] {
        assert_eq!(printed(out, label), expected, "{label}");
    }
    assert!(
        printed(out, "verified steps").ends_with("desyncs 0"),
        "{out}"
    );
    let bytes = std::fs::read(replay).expect("the host wrote the replay");
    let report = skidpad_replay::verify(
        &bytes,
        skidpad_replay::NoHooks,
        &skidpad_replay::Limits::default(),
    )
    .expect("the replay verifies");
    assert!(report.is_valid() && report.steps == 1200, "{report:?}");
    assert_eq!(skidpad_core::hex(&report.final_hash), expected);
    assert_eq!(report.rewinds.count, 1);
    let ghost =
        skidpad_ghost::decode_ghost(&std::fs::read(ghost).expect("the host wrote the ghost"))
            .expect("the ghost decodes");
    assert_eq!(ghost.len(), 1200);
    skidpad_replay::decode_replay(&bytes).expect("decodes")
}

/// What a host printed for a golden replay played to its end `end`,
/// seeked back to its middle and played to the end again.
pub fn check_golden_play(out: &str, end: &str) {
    assert!(printed(out, "played steps").ends_with("desyncs 0"), "{out}");
    assert_eq!(printed(out, "played_final"), end);
    assert_eq!(printed(out, "replayed_from_middle desyncs"), "0");
    assert_eq!(printed(out, "replayed_final"), end);
}
