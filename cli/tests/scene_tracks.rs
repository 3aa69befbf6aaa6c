//! A glTF circuit through the command line as a user runs it: the stadium
//! that pygltflib writes (`track-import/tests/gltf/write_scene.py`, run by
//! `cargo xtask test` into the folder `SKIDPAD_TEST_SCENES` names) checked,
//! imported to a definition and a ground file, raced by the demo with its
//! ground carried in the replay, and a replay without track or ground
//! verified from the scene or from the imported files beside it.

use std::process::{Command, Output};

use skidpad_fixtures::scenes::written_scenes;

fn skidpad(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skidpad"))
        .args(args)
        .output()
        .unwrap()
}

fn succeeded(out: &Output, what: &str) -> String {
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn a_scene_is_checked_imported_raced_and_verified_from_its_files() {
    let Some(scenes) = written_scenes("the command line on a glTF circuit") else {
        return;
    };
    let glb = scenes.join("stadium.glb");
    let glb = glb.to_str().unwrap();
    let report = succeeded(&skidpad(&["track", "check", glb]), "check");
    assert!(
        report.contains("length       777.0 m (64 control points)"),
        "{report}"
    );
    assert!(report.contains("width        10.0 to 10.0 m"), "{report}");
    assert!(
        report.contains("ground triangles: dry_asphalt 400, grass 400, gravel 400, kerb 800"),
        "{report}"
    );
    assert!(
        report.contains("drawn        6 meshes, 2012 triangles"),
        "{report}"
    );

    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let (definition, ground) = (path("stadium.json"), path("stadium.skgd"));
    let gltf = scenes.join("stadium.gltf");
    let imported = succeeded(
        &skidpad(&[
            "track",
            "import",
            gltf.to_str().unwrap(),
            "-o",
            &definition,
            "--ground-output",
            &ground,
        ]),
        "import",
    );
    assert_eq!(imported, report.replace("stadium.glb", "stadium.gltf"));

    let raced = succeeded(
        &skidpad(&[
            "demo",
            "--track",
            glb,
            "--cars",
            "2",
            "--laps",
            "1",
            "--out",
            &path("demo"),
        ]),
        "demo",
    );
    assert!(raced.contains("2 AI cars on stadium"), "{raced}");
    assert!(
        raced.contains("ground: the track's own surface, a triangle mesh of 2000 triangles"),
        "{raced}"
    );
    assert!(raced.contains("0 desyncs"), "{raced}");
    let replay = path("demo/demo.skr");
    succeeded(&skidpad(&["verify", &replay]), "verify alone");

    // Without what it carried, the replay needs the scene, or the files
    // imported from it, beside it.
    let mut bare = skidpad_replay::decode_replay(&std::fs::read(&replay).unwrap()).unwrap();
    bare.ground = None;
    bare.header
        .metadata
        .retain(|(k, _)| k != skidpad_replay::ReplayHeader::TRACK_DEFINITION_KEY);
    let bare_path = path("bare.skr");
    std::fs::write(&bare_path, skidpad_replay::encode_replay(&bare).unwrap()).unwrap();
    let refused = skidpad(&["verify", &bare_path]);
    assert_eq!(refused.status.code(), Some(2));
    for beside in [
        ["--track", glb, "--ground", glb],
        ["--track", &definition, "--ground", &ground],
    ] {
        let mut args = vec!["verify", &bare_path];
        args.extend(beside);
        succeeded(&skidpad(&args), &format!("{args:?}"));
    }
    let mut export = vec!["export", &bare_path, "--stride", "600"];
    export.extend(["--track", glb, "--ground", glb]);
    succeeded(&skidpad(&export), "export");
}

#[test]
fn a_broken_or_oversized_scene_is_refused_with_exit_code_2() {
    let Some(scenes) = written_scenes("the command line on a glTF circuit") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(scenes.join("stadium.glb")).unwrap();
    let cut = dir.path().join("cut.glb");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let glb = scenes.join("stadium.glb");
    for (args, expected) in [
        (
            vec!["track", "check", cut.to_str().unwrap()],
            "not a glTF 2.0 file",
        ),
        (
            vec![
                "track",
                "check",
                glb.to_str().unwrap(),
                "--max-triangles",
                "1000",
            ],
            "budget of 1000 triangles",
        ),
    ] {
        let out = skidpad(&args);
        let text = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {text}");
        assert!(text.contains(expected), "{args:?}: {text}");
    }
}
