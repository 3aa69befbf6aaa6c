//! Bad car definitions and surface tables, given as JSON, are refused
//! with an error that names the offending field (SPEC §4.1).

use skidpad_core::{CarDefinition, preset};

#[test]
fn surface_tables_from_json_are_validated_like_new() {
    use skidpad_core::SurfaceTable;

    let good = serde_json::to_string(&SurfaceTable::presets()).unwrap();
    let table: SurfaceTable = serde_json::from_str(&good).unwrap();
    assert_eq!(table, SurfaceTable::presets());
    let one = |grip: f64| {
        format!(r#"[{{"name":"a","grip":{grip},"rolling_resistance":0.01,"ploughing":0.0}}]"#)
    };
    for (json, expected) in [
        ("[]".to_owned(), "1..=16 surfaces"),
        (one(-5.0), "grip must be in (0, 3]"),
        (one(0.0), "grip must be in (0, 3]"),
        (
            format!(
                "[{}, {}]",
                &one(1.0)[1..one(1.0).len() - 1],
                &one(0.5)[1..one(0.5).len() - 1]
            ),
            "appears twice",
        ),
    ] {
        let err = serde_json::from_str::<SurfaceTable>(&json)
            .unwrap_err()
            .to_string();
        assert!(err.contains(expected), "{json}: {err}");
    }
    // A world configured from JSON therefore cannot hold an empty table.
    assert!(serde_json::from_str::<SurfaceTable>("[]").is_err());
}

/// A preset with one JSON field replaced; `path` is a list of keys/indices.
fn mutated(path: &[&str], value: serde_json::Value) -> String {
    let mut json: serde_json::Value =
        serde_json::from_str(&preset("fwd_hatchback").unwrap().to_json()).unwrap();
    let mut node = &mut json;
    for key in &path[..path.len() - 1] {
        node = match key.parse::<usize>() {
            Ok(i) => &mut node[i],
            Err(_) => &mut node[*key],
        };
    }
    let last = path[path.len() - 1];
    match last.parse::<usize>() {
        Ok(i) => node[i] = value,
        Err(_) => node[last] = value,
    }
    json.to_string()
}

#[test]
fn invalid_definitions_name_the_bad_field() {
    use serde_json::json;
    let cases: &[(&[&str], serde_json::Value, &str)] = &[
        (&["chassis", "mass"], json!(-5.0), "chassis.mass"),
        (
            &["chassis", "inertia"],
            json!([450.0, 0.0, 1.0]),
            "chassis.inertia[1]",
        ),
        (
            &["chassis", "cg_to_front_axle"],
            json!(9.0),
            "chassis.cg_to_front_axle",
        ),
        (
            &["suspension", "rear", "max_travel"],
            json!(0.5),
            "suspension.rear.max_travel",
        ),
        (
            &["suspension", "front", "spring_rate"],
            json!(1000.0),
            "suspension.front.spring_rate",
        ),
        (&["tires", "front", "pcx1"], json!(7.0), "tires.front.pcx1"),
        (
            &["tires", "rear", "nominal_load"],
            json!(0.0),
            "tires.rear.nominal_load",
        ),
        (
            &["engine", "torque_curve"],
            json!([[1000.0, 100.0]]),
            "engine.torque_curve",
        ),
        (
            &["engine", "torque_curve", "2", "0"],
            json!(100.0),
            "engine.torque_curve[2][0]",
        ),
        (
            &["engine", "limiter_rpm"],
            json!(500.0),
            "engine.limiter_rpm",
        ),
        (
            &["gearbox", "ratios"],
            json!([3.0, 3.5]),
            "gearbox.ratios[1]",
        ),
        (
            &["gearbox", "downshift_rpm"],
            json!(5000.0),
            "gearbox.downshift_rpm",
        ),
        (&["gearbox", "efficiency"], json!(1.5), "gearbox.efficiency"),
        (&["brakes", "front_bias"], json!(-0.1), "brakes.front_bias"),
        (&["steering", "max_angle"], json!(3.0), "steering.max_angle"),
        (&["substep_rate"], json!(1.0), "substep_rate"),
        (&["drive"], json!("six_wheel"), "unknown variant"),
        (&["chassis", "wheelbase"], json!("long"), "invalid type"),
    ];
    for (path, value, field) in cases {
        let err = CarDefinition::from_json(&mutated(path, value.clone())).expect_err(field);
        assert!(err.to_string().contains(field), "{err} should name {field}");
    }
    let mut extra: serde_json::Value =
        serde_json::from_str(&preset("rwd_sports").unwrap().to_json()).unwrap();
    extra["chassis"]["colour"] = json!("red");
    let err = CarDefinition::from_json(&extra.to_string()).unwrap_err();
    assert!(err.to_string().contains("colour"), "{err}");
    assert!(CarDefinition::from_json("{\"name\": 1").is_err());
    assert!(
        preset("hovercraft")
            .unwrap_err()
            .to_string()
            .contains("fwd_hatchback")
    );
}
