//! Car packages: a definition whose tires name real `.tir` files (Project
//! Chrono's, `tests/data/tir/`) reads as the same car written out in full,
//! with the same fingerprint, and what is wrong is named by axle and file.

use skidpad_core::{CarDefinition, CoreError, parse_tir, preset};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tir/");

/// The hatchback preset as a package naming `front` and `rear` files.
fn package(front: &str, rear: &str) -> String {
    let mut value: serde_json::Value =
        serde_json::from_str(&preset("fwd_hatchback").unwrap().to_json()).unwrap();
    value["tires"]["front"] = serde_json::json!({ "tir": front });
    value["tires"]["rear"] = serde_json::json!({ "tir": rear });
    value.to_string()
}

/// Reads a file of the test data, as a host reads the package's folder.
fn from_data(name: &str) -> skidpad_core::Result<String> {
    std::fs::read_to_string(format!("{DATA}{name}")).map_err(|e| CoreError::InvalidArgument {
        what: "tir file",
        reason: e.to_string(),
    })
}

#[test]
fn a_package_is_the_car_written_out_with_the_same_fingerprint() {
    let mut read = Vec::new();
    let car = CarDefinition::from_package_json(
        &package("Sedan_Pac02Tire.tir", "mf_185_80R14.tir"),
        &mut |name| {
            read.push(name.to_owned());
            from_data(name)
        },
    )
    .unwrap();
    assert_eq!(read, ["Sedan_Pac02Tire.tir", "mf_185_80R14.tir"]);
    let mut written = preset("fwd_hatchback").unwrap();
    written.tires.front = parse_tir(&from_data("Sedan_Pac02Tire.tir").unwrap())
        .unwrap()
        .parameters;
    written.tires.rear = parse_tir(&from_data("mf_185_80R14.tir").unwrap())
        .unwrap()
        .parameters;
    assert_eq!(car, written);
    assert_eq!(car.fingerprint(), written.fingerprint());
    // Written out, it reads back as itself through either door.
    let json = car.to_json();
    assert_eq!(CarDefinition::from_json(&json).unwrap(), car);
    let mut none = |_: &str| -> skidpad_core::Result<String> { panic!("no file is named") };
    assert_eq!(
        CarDefinition::from_package_json(&json, &mut none).unwrap(),
        car
    );
}

#[test]
fn what_is_wrong_is_named_by_axle_and_file() {
    let refused = |json: &str| {
        CarDefinition::from_package_json(json, &mut from_data)
            .unwrap_err()
            .to_string()
    };
    let said = refused(&package("Sedan_Pac02Tire.tir", "no_such.tir"));
    assert!(said.contains("tires.rear: no_such.tir"), "{said}");
    let said = refused(&package("../secret.tir", "mf_185_80R14.tir"));
    assert!(
        said.contains("tires.front") && said.contains("beside the package"),
        "{said}"
    );
    let said = refused(&package("README.md", "mf_185_80R14.tir"));
    assert!(said.contains("tires.front: README.md"), "{said}");
    let mut extra: serde_json::Value =
        serde_json::from_str(&package("Sedan_Pac02Tire.tir", "Sedan_Pac02Tire.tir")).unwrap();
    extra["tires"]["front"]["B"] = serde_json::json!(10.0);
    let said = refused(&extra.to_string());
    assert!(
        said.contains("tires.front") && said.contains("no other keys"),
        "{said}"
    );
    assert!(refused("{").contains("car package"));
}
