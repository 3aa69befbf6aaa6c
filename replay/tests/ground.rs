//! A replay names the ground it was recorded on and plays only on it: on
//! that ground it verifies bit for bit, on any other it is refused before
//! anything is simulated.

use std::sync::Arc;

use skidpad_core::{FlatGround, Ground, Track, hex};
use skidpad_fixtures::{hill_ground, hill_world};
use skidpad_replay::{
    Limits, NoHooks, RecorderOptions, ReplayError, ReplayHeader, ReplayRecorder,
    builtin_track_of_ground, decode_replay, encode_replay, read_replay_header, verify_replay,
    verify_replay_on,
};

const DT: f64 = 1.0 / 60.0;

#[test]
fn a_replay_on_hills_verifies_on_its_ground_and_nowhere_else() {
    let mut world = hill_world(false).unwrap();
    let mut recorder = ReplayRecorder::new(&world, RecorderOptions::default()).unwrap();
    for _ in 0..360 {
        recorder.step(&mut world, DT).unwrap();
    }
    let bytes = encode_replay(&recorder.finish(&world).unwrap()).unwrap();
    let replay = decode_replay(&bytes).unwrap();

    // The header alone names the ground.
    let ground = hill_ground(&Track::builtin("brandwood").unwrap()).unwrap();
    let header = read_replay_header(&bytes).unwrap();
    let (fingerprint, description) = header.ground().unwrap();
    assert_eq!(fingerprint, ground.fingerprint());
    assert_eq!(description, ground.describe());

    let report = verify_replay_on(
        &replay,
        Arc::new(ground.clone()),
        NoHooks,
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(report.desyncs, 0);
    assert_eq!(report.final_hash, world.world_hash());

    let err = verify_replay(&replay, NoHooks, &Limits::default()).unwrap_err();
    let ReplayError::GroundMismatch {
        recorded,
        world: playing,
    } = &err
    else {
        panic!("expected a ground mismatch, got {err:?}");
    };
    assert!(
        recorded.contains(&hex(&ground.fingerprint())[..12]),
        "{err}"
    );
    assert!(playing.contains("plane z = 0"), "{err}");
    // The same triangles as a mesh answer alike but are another ground
    // description: refused too, rather than trusted.
    let as_mesh = verify_replay_on(
        &replay,
        Arc::new(ground.to_mesh()),
        NoHooks,
        &Limits::default(),
    );
    assert!(matches!(as_mesh, Err(ReplayError::GroundMismatch { .. })));
}

#[test]
fn the_plane_is_not_named_and_the_game_cannot_name_a_ground() {
    let mut world = skidpad_fixtures::reference_world().unwrap();
    let mut recorder = ReplayRecorder::new(&world, RecorderOptions::default()).unwrap();
    recorder.step(&mut world, DT).unwrap();
    let replay = recorder.finish(&world).unwrap();
    assert!(
        replay
            .header
            .metadata
            .iter()
            .all(|(k, _)| k != ReplayHeader::GROUND_KEY)
    );
    assert_eq!(
        replay.header.ground().unwrap(),
        (FlatGround::plane_fingerprint(), FlatGround.describe())
    );

    let options = RecorderOptions {
        metadata: vec![(ReplayHeader::GROUND_KEY.into(), "forged".into())],
        ..RecorderOptions::default()
    };
    let Err(err) = ReplayRecorder::new(&world, options) else {
        panic!("the recorder took a forged ground name");
    };
    assert!(
        err.to_string()
            .contains("skidpad.ground is written by the recorder"),
        "{err}"
    );

    let mut forged = replay.clone();
    forged
        .header
        .metadata
        .push((ReplayHeader::GROUND_KEY.into(), "zz not hex".into()));
    assert!(forged.header.ground().is_err());
}

#[test]
fn a_replay_on_a_built_in_track_ground_verifies_without_being_given_it() {
    let mut world = skidpad_fixtures::hillcrest_world().unwrap();
    let mut recorder = ReplayRecorder::new(&world, RecorderOptions::default()).unwrap();
    for _ in 0..240 {
        recorder.step(&mut world, DT).unwrap();
    }
    let replay = decode_replay(&encode_replay(&recorder.finish(&world).unwrap()).unwrap()).unwrap();
    let (fingerprint, description) = replay.header.ground().unwrap();
    assert_eq!(fingerprint, world.ground().fingerprint());
    assert!(description.starts_with("triangle mesh of"), "{description}");
    // `create_replay_world` recognises the built-in track's surface, and
    // so can a viewer that wants to draw its road.
    let report = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
    assert_eq!(report.desyncs, 0);
    assert_eq!(report.final_hash, world.world_hash());
    assert_eq!(builtin_track_of_ground(&replay).unwrap(), Some("hillcrest"));
}

#[test]
fn no_built_in_track_is_named_for_the_plane_or_a_games_own_ground() {
    for mut world in [
        skidpad_fixtures::racing_world(2, skidpad_core::Lod::Full, false).unwrap(),
        hill_world(true).unwrap(),
    ] {
        let mut recorder = ReplayRecorder::new(&world, RecorderOptions::default()).unwrap();
        for _ in 0..10 {
            recorder.step(&mut world, DT).unwrap();
        }
        let replay = recorder.finish(&world).unwrap();
        assert_eq!(builtin_track_of_ground(&replay).unwrap(), None);
    }
}
