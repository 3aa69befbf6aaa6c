//! Boards files (`--boards`) and registered boards read as their docs
//! say: each mistake refused with the board named; classes of presets,
//! car packages with their `.tir` files, and definitions given inline.

use std::path::Path;

use skidpad_core::preset;
use skidpad_leaderboard::boards::{BoardRules, Boards, class_fingerprint};

#[test]
fn bad_files_are_refused_with_the_board_named() {
    let err = |text: &str| Boards::from_json(text, Path::new(".")).unwrap_err();
    assert!(err("[]").contains("no board"));
    assert!(
        err(r#"[{"track": "nowhere", "max_steps": 10}]"#).contains("unknown track \"nowhere\"")
    );
    assert!(
        err(r#"[{"track": "brandwood", "max_steps": 10}, {"track": "brandwood", "max_steps": 9}]"#)
            .contains("twice")
    );
    assert!(err(r#"[{"track": "brandwood", "rivals": 64, "max_steps": 10}]"#).contains("rivals"));
    assert!(err(r#"[{"track": "brandwood", "max_steps": 0}]"#).contains("max_steps"));
    assert!(
        err(r#"[{"track": "brandwood", "max_steps": 5, "laps": 3}]"#).contains("unknown field")
    );
    assert!(err(r#"[{"max_steps": 5}]"#).contains("give one of `track`"));
    assert!(err(r#"[{"track_file": "no-such.json", "max_steps": 5}]"#).contains("cannot read"));
    let boards = Boards::from_json(
        r#"[{"track": "brandwood", "max_steps": 5}]"#,
        Path::new("."),
    )
    .unwrap();
    assert_eq!(boards.rules()[0].rivals, 0, "a lone car by default");
}

/// A class may list a car package, its tires named as real `.tir`
/// files (Project Chrono's, from sim-core's test data) beside it: the
/// class holds the car written out in full.
#[test]
fn a_class_lists_a_car_package_with_its_tir_files() {
    let dir = tempfile::tempdir().unwrap();
    let tir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../sim-core/tests/data/tir/Sedan_Pac02Tire.tir"
    );
    std::fs::copy(tir, dir.path().join("sedan.tir")).unwrap();
    let mut package: serde_json::Value =
        serde_json::from_str(&preset("fwd_hatchback").unwrap().to_json()).unwrap();
    package["name"] = "Sedan on Chrono tires".into();
    package["tires"] =
        serde_json::json!({"front": {"tir": "sedan.tir"}, "rear": {"tir": "sedan.tir"}});
    std::fs::write(dir.path().join("sedan.json"), package.to_string()).unwrap();
    let text = r#"[{"track": "brandwood", "max_steps": 5,
                    "classes": {"sedans": ["sedan.json"]}}]"#;
    let boards = Boards::from_json(text, dir.path()).unwrap();
    let class = &boards.rules()[0].classes.as_ref().unwrap()[0];
    let mut written = preset("fwd_hatchback").unwrap();
    written.name = "Sedan on Chrono tires".into();
    let tires = skidpad_core::parse_tir(&std::fs::read_to_string(tir).unwrap()).unwrap();
    written.tires.front = tires.parameters.clone();
    written.tires.rear = tires.parameters;
    assert_eq!(class.members[0].definition, written);
    assert_eq!(class.cars, [class_fingerprint(&written)]);
    // A package naming a file that is not there is refused, naming it.
    package["tires"]["rear"] = serde_json::json!({"tir": "missing.tir"});
    std::fs::write(dir.path().join("sedan.json"), package.to_string()).unwrap();
    let said = Boards::from_json(text, dir.path()).unwrap_err();
    assert!(
        said.contains("sedan.json") && said.contains("tires.rear: missing.tir"),
        "{said}"
    );
}

/// A board as an operator registers it names no file: its track is a
/// definition, its cars presets or definitions; files are refused.
#[test]
fn a_registered_board_gives_its_track_and_cars_in_full() {
    let track = skidpad_core::Track::builtin("hillcrest").unwrap();
    let mut definition = track.definition().clone();
    definition.width = Some(11.0);
    let mut car = preset("rwd_sports").unwrap();
    car.name = "Sports car, lighter".into();
    car.chassis.mass -= 50.0;
    let json = serde_json::json!({
        "track_definition": definition,
        "max_steps": 9000,
        "classes": {"sports": ["rwd_sports", {"definition": serde_json::from_str::<serde_json::Value>(&car.to_json()).unwrap()}]},
    });
    let board = BoardRules::registered(&json.to_string()).unwrap();
    let own = skidpad_core::Track::from_definition(definition).unwrap();
    assert_eq!(board.key, own.fingerprint_hex());
    let class = &board.classes.as_ref().unwrap()[0];
    assert_eq!(
        class.cars,
        [
            class_fingerprint(&preset("rwd_sports").unwrap()),
            class_fingerprint(&car)
        ]
    );
    let refused = |json: serde_json::Value| BoardRules::registered(&json.to_string()).unwrap_err();
    assert!(
        refused(serde_json::json!({"track_file": "tracks/monza.json", "max_steps": 5}))
            .contains("names no file")
    );
    assert!(
        refused(serde_json::json!({"track": "brandwood", "max_steps": 5,
                                   "classes": {"gt": ["cars/gt3.json"]}}))
        .contains("names no file")
    );
    assert!(
        refused(serde_json::json!({"track": "brandwood", "max_steps": 5,
                                   "classes": {"gt": ["no_such_preset"]}}))
        .contains("no_such_preset")
    );
    assert!(
        refused(serde_json::json!({"track": "brandwood", "track_definition": {}, "max_steps": 5}))
            .contains("give one of")
    );
}

/// A board's `ground` holds its runs to the track's surface or to the
/// plane; without it a built-in track's board takes either.
#[test]
fn a_board_holds_its_runs_to_the_ground_it_names() {
    use std::sync::Arc;

    use skidpad_core::race::AiField;
    use skidpad_core::{Track, World, WorldConfig};
    use skidpad_replay::{RecorderOptions, ReplayHeader, ReplayRecorder};

    let raced = |name: &str, on_surface: bool| -> ReplayHeader {
        let track = Arc::new(Track::builtin(name).unwrap());
        let mut world = World::new(WorldConfig::default()).unwrap();
        if on_surface {
            world.set_ground(Arc::new(track.ground().unwrap())).unwrap();
        }
        AiField::new(1).line_up(&mut world, &track).unwrap();
        let options = RecorderOptions {
            track: Some(track),
            ..RecorderOptions::default()
        };
        let mut recorder = ReplayRecorder::new(&world, options).unwrap();
        for _ in 0..10 {
            recorder.step(&mut world, 1.0 / 60.0).unwrap();
        }
        recorder.finish(&world).unwrap().header
    };
    let text = r#"[{"track": "brandwood", "max_steps": 100, "ground": "surface"},
                   {"track": "hillcrest", "max_steps": 100, "ground": "plane"}]"#;
    let pinned = Boards::from_json(text, Path::new(".")).unwrap();
    assert_eq!(pinned.refusal(&raced("brandwood", true)), None);
    let said = pinned.refusal(&raced("brandwood", false)).unwrap();
    assert!(
        said.contains("raced on plane z = 0")
            && said.contains("not on the Brandwood Park board's ground"),
        "{said}"
    );
    assert_eq!(pinned.refusal(&raced("hillcrest", false)), None);
    let said = pinned.refusal(&raced("hillcrest", true)).unwrap();
    assert!(said.contains("board's ground (plane z = 0"), "{said}");
    let either = Boards::from_json(
        r#"[{"track": "brandwood", "max_steps": 100}]"#,
        Path::new("."),
    )
    .unwrap();
    assert_eq!(either.refusal(&raced("brandwood", true)), None);
    assert_eq!(either.refusal(&raced("brandwood", false)), None);
}
