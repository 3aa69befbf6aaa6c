//! A board on a glTF scene: the stadium pygltflib writes
//! (`track-import/tests/gltf/write_scene.py`, run by `cargo xtask test`
//! into `SKIDPAD_TEST_SCENES`) registered as a `track_file` in the boards
//! file. A lap raced on the scene's own ground, the replay naming the
//! track but not carrying the ground, is verified on the registered
//! scene's ground, timed on its line and ranked (SQLite); the same track
//! raced on another ground is refused at the door.

mod common;

use std::sync::Arc;

use common::{DT, Service};
use skidpad_core::race::AiField;
use skidpad_core::{GroundSource, Track, World, WorldConfig};
use skidpad_fixtures::scenes::written_scenes;
use skidpad_leaderboard::boards::Boards;
use skidpad_replay::{RecorderOptions, ReplayRecorder, encode_replay};
use skidpad_track_import::{GltfOptions, from_gltf};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lap_on_a_scene_is_verified_on_its_registered_ground_and_ranked() {
    let Some(scenes) = written_scenes("a leaderboard board on a glTF scene") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(scenes.join("stadium.glb"), dir.path().join("stadium.glb")).unwrap();
    let text = r#"[{"track_file": "stadium.glb", "max_steps": 6000}]"#;
    let boards = Arc::new(Boards::from_json(text, dir.path()).unwrap());

    let bytes = std::fs::read(scenes.join("stadium.glb")).unwrap();
    let scene = from_gltf(&bytes, &GltfOptions::named("stadium")).unwrap();
    let track = Arc::new(Track::from_definition(scene.definition.clone()).unwrap());
    let mut world = World::new(WorldConfig::default()).unwrap();
    let ground = GroundSource::Mesh(scene.ground.clone()).build().unwrap();
    world.set_ground(ground).unwrap();
    let mut field = AiField::new(1).on_track_surface(None);
    field.presets = vec!["rwd_sports".into()];
    field.line_up(&mut world, &track).unwrap();
    // The track named and carried, the ground only named: the board's
    // registered scene is what verifies it.
    let options = RecorderOptions {
        track: Some(track.clone()),
        metadata: vec![("player".into(), "stadium racer".into())],
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options).unwrap();
    for _ in 0..3600 {
        recorder.step(&mut world, DT).unwrap();
    }
    let replay = recorder.finish(&world).unwrap();
    assert!(replay.ground.is_none());
    // Alone, it cannot be verified: nothing it carries builds that ground.
    let alone = skidpad_replay::verify_replay(
        &replay,
        skidpad_replay::NoHooks,
        &skidpad_replay::Limits::default(),
    );
    assert!(!alone.as_ref().is_ok_and(|r| r.is_valid()), "{alone:?}");

    let database = common::sqlite_url(dir.path());
    let service = Service::start_with(&database, 1, Some(boards)).await;
    let (code, body) = service.submit(encode_replay(&replay).unwrap()).await;
    assert_eq!(code, 202, "{body}");
    let verdict = service.verdict(body["id"].as_str().unwrap()).await;
    assert_eq!(verdict["status"], "verified", "{verdict}");
    let key = track.fingerprint_hex();
    assert_eq!(verdict["outcome"]["track"], key.as_str());
    let lap = verdict["outcome"]["best_lap"]
        .as_f64()
        .expect("a valid lap");
    assert!((30.0..50.0).contains(&lap), "{lap}");
    let (code, board) = service
        .get(&format!("/leaderboards/{key}/rwd_sports"))
        .await;
    assert_eq!(code, 200);
    assert_eq!(board["entries"][0]["player"], "stadium racer", "{board}");

    // The same track raced on its generated surface is another race:
    // refused at the door, naming both grounds.
    let mut world = World::new(WorldConfig::default()).unwrap();
    world.set_ground(Arc::new(track.ground().unwrap())).unwrap();
    AiField::new(1)
        .on_track_surface(None)
        .line_up(&mut world, &track)
        .unwrap();
    let mut elsewhere = ReplayRecorder::new(
        &world,
        RecorderOptions {
            track: Some(track.clone()),
            metadata: vec![("player".into(), "elsewhere".into())],
            ..RecorderOptions::default()
        },
    )
    .unwrap();
    for _ in 0..60 {
        elsewhere.step(&mut world, DT).unwrap();
    }
    let (code, body) = service
        .submit(encode_replay(&elsewhere.finish(&world).unwrap()).unwrap())
        .await;
    assert_eq!(code, 422, "{body}");
    let said = body.to_string();
    assert!(said.contains("not on the stadium board's ground"), "{said}");
    service.stop().await;
}
