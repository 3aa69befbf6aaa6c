//! `skidpad track import` and `skidpad track check` as a user runs them:
//! a real circuit (the TUM racetrack database's Brands Hatch, copied with
//! its licence under track-import/tests/data/tum) imported to a definition
//! that checks the same as the CSV, and bad files refused naming the line
//! or the element, with exit code 2.

use std::process::{Command, Output};

fn skidpad(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skidpad"))
        .args(args)
        .output()
        .unwrap()
}

const BRANDS_HATCH: &str = "../track-import/tests/data/tum/BrandsHatch.csv";

#[test]
fn a_circuit_imports_to_a_definition_that_checks_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("brands.json");
    let out = skidpad(&[
        "track",
        "import",
        BRANDS_HATCH,
        "--name",
        "Brands Hatch GP",
        "--sectors",
        "1200,2600",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains("track        Brands Hatch GP"), "{report}");
    assert!(
        report.contains("length       3904.8 m (781 control points)"),
        "{report}"
    );
    assert!(report.contains("width        7.5 to 12.1 m"), "{report}");
    assert!(
        report.contains("sectors      3 (boundaries at 1200, 2600 m)"),
        "{report}"
    );
    assert!(report.contains("warnings     none"), "{report}");
    let check = skidpad(&["track", "check", out_path.to_str().unwrap()]);
    assert_eq!(String::from_utf8_lossy(&check.stdout), report);

    let json = skidpad(&["--json", "track", "check", out_path.to_str().unwrap()]);
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["control_points"], 781);
    assert_eq!(value["fingerprint"].as_str().unwrap().len(), 64);
}

#[test]
fn bad_track_files_are_refused_naming_the_line_or_element() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let csv = write("bad.csv", "# x,y,r,l\n0,0,4,4\n10,0,4,4\n20,0,NaN,4\n");
    let json = write(
        "bad.json",
        r#"{"name":"x","width":9,"centre_line":[[0,0],[90,0],[90,90],[0,90],[-40,40]],"sectors":[200,100]}"#,
    );
    for (args, expected) in [
        (vec!["track", "check", &csv], "line 4: width right is NaN"),
        (
            vec!["track", "check", &json],
            "sectors[1] = 100 m is out of order",
        ),
        (vec!["track", "import", &json], "needs no import"),
        (
            vec!["track", "check", "no-such-file.csv"],
            "cannot read no-such-file.csv",
        ),
    ] {
        let out = skidpad(&args);
        let text = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {text}");
        assert!(text.contains(expected), "{args:?}: {text}");
    }
}

#[test]
fn a_demo_on_an_imported_circuit_carries_it_to_every_tool() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let demo = skidpad(&[
        "demo",
        "--track",
        BRANDS_HATCH,
        "--cars",
        "1",
        "--laps",
        "1",
        "--out",
        out,
    ]);
    let text = String::from_utf8_lossy(&demo.stdout);
    assert!(
        demo.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&demo.stderr)
    );
    assert!(text.contains("AI cars on BrandsHatch"), "{text}");
    assert!(text.contains("0 desyncs"), "{text}");
    // The replay alone is enough: nothing else names the circuit.
    let replay = dir.path().join("demo.skr");
    let replay = replay.to_str().unwrap();
    let verify = skidpad(&["verify", replay]);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
    let inspect = String::from_utf8_lossy(&skidpad(&["inspect", replay]).stdout).into_owned();
    assert!(
        inspect.contains("skidpad.track = the definition of track BrandsHatch (781 control points"),
        "{inspect}"
    );
    // Without the definition, the replay names the circuit by fingerprint
    // only: every command asks for it, and takes it with --track.
    let mut bare = skidpad_replay::decode_replay(&std::fs::read(replay).unwrap()).unwrap();
    bare.header
        .metadata
        .retain(|(k, _)| k != skidpad_replay::ReplayHeader::TRACK_DEFINITION_KEY);
    let bare_path = dir.path().join("bare.skr");
    std::fs::write(&bare_path, skidpad_replay::encode_replay(&bare).unwrap()).unwrap();
    let bare_path = bare_path.to_str().unwrap();
    let asks = skidpad(&["export", bare_path, "--stride", "600"]);
    let said = String::from_utf8_lossy(&asks.stderr);
    assert_eq!(asks.status.code(), Some(2), "{said}");
    assert!(said.contains("give the track's file"), "{said}");
    for command in [
        vec!["verify", bare_path, "--track", BRANDS_HATCH],
        vec![
            "export",
            bare_path,
            "--stride",
            "600",
            "--track",
            BRANDS_HATCH,
        ],
        vec![
            "telemetry",
            bare_path,
            "--car",
            "0",
            "--stride",
            "600",
            "--track",
            BRANDS_HATCH,
        ],
    ] {
        let out = skidpad(&command);
        assert!(
            out.status.success(),
            "{command:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let wrong = skidpad(&[
        "verify",
        bare_path,
        "--track",
        "../sim-core/tracks/hillcrest.json",
    ]);
    let said = String::from_utf8_lossy(&wrong.stdout);
    assert_eq!(wrong.status.code(), Some(2), "{said}");
    assert!(said.contains("not the replay's track"), "{said}");
    // inspect says what the bare replay lacks (the track, and the ground
    // generated from it), takes the files that give it, and refuses
    // another track's.
    let needs = |extra: &[&str]| {
        let out = skidpad(&[&["inspect", bare_path], extra].concat());
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        (out.status.code(), text)
    };
    let (code, said) = needs(&[]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("track             MISSING: ") && said.contains("(--track FILE)"),
        "{said}"
    );
    assert!(
        said.contains("ground            MISSING: ")
            && said.contains("not carried: give its file with --ground"),
        "{said}"
    );
    let (code, said) = needs(&["--track", BRANDS_HATCH]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("track             BrandsHatch (fingerprint ")
            && said.contains("), the --track file")
            && said.contains(", generated from its track"),
        "{said}"
    );
    let (code, said) = needs(&["--track", "../sim-core/tracks/hillcrest.json"]);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("not the replay's track"), "{said}");
    // The stream the demo wrote beside it, and a ground file: inspect
    // reads every kind of file.
    let stream = dir.path().join("demo.sks");
    let described = skidpad(&["inspect", stream.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&described.stdout);
    assert!(described.status.success(), "{said}");
    assert!(
        said.starts_with("stream") && said.contains("state             finished"),
        "{said}"
    );
    let ground_file = dir.path().join("hillcrest.skgd");
    let source = skidpad_core::GroundSource::Mesh(
        skidpad_core::Track::builtin("hillcrest")
            .unwrap()
            .ground_source(),
    );
    std::fs::write(
        &ground_file,
        skidpad_replay::encode_ground_file(&source).unwrap(),
    )
    .unwrap();
    let described = skidpad(&["inspect", ground_file.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&described.stdout);
    assert!(said.starts_with("ground file"), "{said}");
    assert!(
        said.contains("triangle mesh of 2688 triangles") && said.contains("fingerprint"),
        "{said}"
    );
    let ghost = dir.path().join("lap.skg");
    let cut = skidpad(&[
        "ghost",
        replay,
        "--car",
        "0",
        "--lap",
        "1",
        "-o",
        ghost.to_str().unwrap(),
    ]);
    assert!(
        cut.status.success(),
        "{}",
        String::from_utf8_lossy(&cut.stderr)
    );
}

/// A car package as a user writes one: the hatchback with Project Chrono's
/// sedan tire (`sim-core/tests/data/tir/`, a file nobody here wrote) named
/// beside it; `skidpad car` reads it, says where each tire came from, and
/// writes the car out in full with the same fingerprint.
#[test]
fn a_car_package_names_its_tir_files_and_writes_out_as_the_same_car() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        "../sim-core/tests/data/tir/Sedan_Pac02Tire.tir",
        dir.path().join("sedan.tir"),
    )
    .unwrap();
    let mut package: serde_json::Value =
        serde_json::from_str(&skidpad_core::preset("fwd_hatchback").unwrap().to_json()).unwrap();
    package["name"] = "Sedan".into();
    package["tires"]["front"] = serde_json::json!({"tir": "sedan.tir"});
    let path = dir.path().join("sedan.json");
    std::fs::write(&path, package.to_string()).unwrap();
    let written = dir.path().join("sedan-full.json");
    let out = skidpad(&[
        "car",
        path.to_str().unwrap(),
        "-o",
        written.to_str().unwrap(),
    ]);
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains("car          Sedan"), "{report}");
    assert!(report.contains("tires front  from sedan.tir"), "{report}");
    assert!(report.contains("tires rear   written out"), "{report}");
    let again = skidpad(&["car", written.to_str().unwrap()]);
    let again = String::from_utf8_lossy(&again.stdout).into_owned();
    let fingerprint = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("fingerprint"))
            .unwrap()
            .to_owned()
    };
    assert_eq!(fingerprint(&again), fingerprint(&report));
    assert!(again.contains("tires front  written out"), "{again}");

    package["tires"]["rear"] = serde_json::json!({"tir": "../sedan.tir"});
    std::fs::write(&path, package.to_string()).unwrap();
    let refused = skidpad(&["car", path.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(
        said.contains("tires.rear") && said.contains("beside the package"),
        "{said}"
    );
}
