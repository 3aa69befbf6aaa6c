//! Files as a user meets them: atomic writes that respect the umask and
//! never replace what is not a regular file, ghosts given to replay
//! commands, replays of older versions (their archived cores) and hostile
//! metadata in `inspect`.

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use skidpad_cli::beside::Beside;
use skidpad_cli::{atomic, files, ghost_cmd, inspect, verify};
use skidpad_replay::{Limits, decode_replay, encode_replay};

fn golden(version: u32, name: &str) -> PathBuf {
    Path::new("../golden")
        .join(format!("v{version}"))
        .join(name)
}

fn current(name: &str) -> PathBuf {
    golden(skidpad_core::SIMULATION_VERSION, name)
}

fn temp_files_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

#[test]
fn atomic_writes_take_the_umask_mode_and_keep_a_replaced_files_mode() {
    let dir = tempfile::tempdir().unwrap();
    // A file made the ordinary way shows what the umask allows.
    let reference = dir.path().join("reference");
    std::fs::write(&reference, b"x").unwrap();
    let umask_mode = std::fs::metadata(&reference).unwrap().permissions().mode() & 0o777;

    let new = dir.path().join("new.skg");
    atomic::write_atomic(&new, b"first").unwrap();
    assert_eq!(std::fs::read(&new).unwrap(), b"first");
    let mode = std::fs::metadata(&new).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, umask_mode, "not 0600 but what the umask gives");

    std::fs::set_permissions(&new, std::fs::Permissions::from_mode(0o640)).unwrap();
    atomic::write_atomic(&new, b"second").unwrap();
    assert_eq!(std::fs::read(&new).unwrap(), b"second");
    let mode = std::fs::metadata(&new).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    assert!(temp_files_in(dir.path()).is_empty());
}

#[test]
fn atomic_writes_refuse_missing_directories_links_and_devices() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/dir/lap.skg");
    let err = atomic::write_atomic(&missing, b"x")
        .unwrap_err()
        .to_string();
    assert!(err.contains("does not exist"), "{err}");
    assert!(!dir.path().join("no").exists(), "no directory was made");

    let target = dir.path().join("target.skg");
    std::fs::write(&target, b"keep me").unwrap();
    let link = dir.path().join("link.skg");
    symlink(&target, &link).unwrap();
    let err = atomic::write_atomic(&link, b"x").unwrap_err().to_string();
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read(&target).unwrap(), b"keep me");

    let err = atomic::write_atomic(Path::new("/dev/null"), b"x")
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a regular file"), "{err}");
    let err = atomic::write_atomic(dir.path(), b"x")
        .unwrap_err()
        .to_string();
    assert!(err.contains("directory"), "{err}");
    assert!(
        temp_files_in(dir.path()).is_empty(),
        "no temporary file is left"
    );
}

#[test]
fn a_ghost_given_to_a_replay_command_is_named_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("lap.skg");
    let err = ghost_cmd::export_lap(
        &current("flat_lap.skg"),
        0,
        1,
        &out,
        (&Limits::default(), &skidpad_cli::beside::Beside::default()),
        skidpad_cli::files::no_game_logic,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("is a ghost (.skg), not a replay"), "{err}");
    let err = files::load_replay(
        &current("flat_lap.skg"),
        &Limits::default(),
        &skidpad_cli::beside::Beside::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("is a ghost"), "{err}");
}

#[test]
fn inspect_reads_an_older_version_through_its_archived_core() {
    let old = golden(1, "flat_lap.skr");
    let inspection = inspect::inspect(&old, &Limits::default(), &Beside::default()).unwrap();
    let inspect::Inspection::Replay(info) = &inspection else {
        panic!("a replay");
    };
    assert_eq!(info.simulation_version, 1);
    assert_eq!((info.car_count, info.steps), (1, 4800));
    assert_eq!(
        info.decoded_by.as_deref(),
        Some("simulation version 1 (archived)")
    );
    assert!(info.body_error.is_none() && !info.body_unreadable);
    let body = info
        .body
        .as_ref()
        .expect("the archived core reads the body");
    assert_eq!(body.cars.len(), 1);
    assert_eq!(body.encoded_bytes, None);
    // The keyframe hashes it reports are the ones the corpus pins.
    let pinned = std::fs::read_to_string(golden(1, "HASHES")).unwrap();
    for (step, hash) in &body.keyframes {
        let line = format!("flat_lap.skr {step} {hash}");
        assert!(
            pinned.lines().any(|l| l == line),
            "{line} is not in v1/HASHES"
        );
    }
    let text = inspection.to_string();
    assert!(
        text.contains("decoded by        simulation version 1 (archived)"),
        "{text}"
    );
}

#[test]
fn verify_re_simulates_older_versions_in_their_archived_cores() {
    // The oldest and the newest archived version: the command's routing is
    // the same for every one, and every version's verdicts are the
    // archive's own tests' (cores/tests/every_version.rs), so this test's
    // cost does not grow with each bump.
    let newest_archived = skidpad_core::SIMULATION_VERSION - 1;
    for version in [1, newest_archived] {
        for name in ["flat_lap.skr", "game_logic.skr"] {
            let verdict = verify::verify_file(
                &golden(version, name),
                &Limits::default(),
                files::no_game_logic,
            );
            // The archived cores carry the golden game's logic themselves.
            assert!(verdict.ok, "v{version}/{name}: {}", verdict.detail);
            let core = format!("simulation version {version} (archived)");
            assert_eq!(verdict.core.as_deref(), Some(core.as_str()));
            assert!(verdict.detail.ends_with(&format!("verified by {core}")));
        }
    }
    // Limits reach the sandbox: an old replay over them is refused before
    // anything runs.
    let tight = Limits {
        max_steps: 100,
        ..Limits::default()
    };
    let refused = verify::verify_file(&golden(2, "flat_lap.skr"), &tight, files::no_game_logic);
    assert!(
        !refused.ok && refused.detail.contains("over the budget"),
        "{}",
        refused.detail
    );
}

#[test]
fn control_characters_in_metadata_are_escaped_in_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut replay = decode_replay(&std::fs::read(current("flat_lap.skr")).unwrap()).unwrap();
    replay.header.metadata = vec![
        ("player\u{1b}[2J".into(), "evil\nline\u{202e}".into()),
        ("track".into(), "brandwood".into()),
    ];
    let path = dir.path().join("hostile.skr");
    std::fs::write(&path, encode_replay(&replay).unwrap()).unwrap();
    let inspection = inspect::inspect(&path, &Limits::default(), &Beside::default()).unwrap();
    let text = inspection.to_string();
    assert!(
        text.contains("player\\u{1b}[2J = evil\\nline\\u{202e}"),
        "{text}"
    );
    assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}'));
    // JSON keeps the value as it is, escaped by JSON's own rules.
    let json = serde_json::to_string(&inspection).unwrap();
    assert!(json.contains("player\\u001b[2J"), "{json}");
}
