//! The schema is checked when built (seed 001, "Свойства схемы"): every
//! rule refuses a bad entry with an error that names it, and a schema
//! written in the seed's JSON property names loads.

use skidpad_netplay::{
    BlockClass, BlockKind, FieldSpec, FieldType, Interp, KeySpec, NetError, Precision, Role,
    Schema, race_schema,
};

fn key(name: &str, id: u8, kind: BlockKind, class: BlockClass, fields: Vec<FieldSpec>) -> KeySpec {
    KeySpec {
        key: name.into(),
        id,
        kind,
        class,
        fields,
        optional_from: None,
        precision: Precision::Rounded,
    }
}

fn with_role(mut field: FieldSpec, role: Role) -> FieldSpec {
    field.role = Some(role);
    field
}

/// A map-dynamics row as the seed draws it: x, y, angle, then the layer
/// pair, the state byte and the optional velocity tail.
fn dynamics(layered: bool) -> KeySpec {
    let f = |n: &str| FieldSpec::discrete(n, FieldType::F32);
    let mut fields = vec![f("x"), f("y"), f("angle")];
    if layered {
        fields.push(with_role(f("z"), Role::Z));
        fields.push(with_role(
            FieldSpec::discrete("level", FieldType::U8),
            Role::Level,
        ));
    }
    fields.push(with_role(
        FieldSpec::discrete("state", FieldType::U8),
        Role::State,
    ));
    let tail = fields.len();
    fields.extend([f("vx"), f("vy"), f("angvel")]);
    KeySpec {
        optional_from: Some(tail),
        ..key("c1", 5, BlockKind::IndexedNoNull8, BlockClass::Hot, fields)
    }
}

/// The error's message, which must name the entry.
fn refused(keys: Vec<KeySpec>, entry: &str, says: &str) {
    let err = Schema::new(keys).expect_err("the schema must be refused");
    let text = err.to_string();
    assert!(matches!(err, NetError::Schema { .. }), "{text}");
    assert!(
        text.contains(&format!("{entry:?}")),
        "error does not name {entry}: {text}"
    );
    assert!(text.contains(says), "error does not say {says:?}: {text}");
}

#[test]
fn ids_and_names_are_unique() {
    let a = key(
        "a",
        1,
        BlockKind::List16,
        BlockClass::Event,
        vec![FieldSpec::discrete("v", FieldType::U8)],
    );
    let b = KeySpec {
        key: "b".into(),
        ..a.clone()
    };
    refused(vec![a.clone(), b], "b", "already key \"a\"");
    let again = KeySpec { id: 2, ..a.clone() };
    refused(vec![a, again], "a", "appears twice");
}

#[test]
fn rows_have_fields_with_unique_names() {
    refused(
        vec![key(
            "empty",
            1,
            BlockKind::List16,
            BlockClass::Event,
            vec![],
        )],
        "empty",
        "1 to 128 fields",
    );
    let twice = vec![
        FieldSpec::discrete("v", FieldType::U8),
        FieldSpec::discrete("v", FieldType::U16),
    ];
    refused(
        vec![key("twice", 1, BlockKind::List16, BlockClass::Event, twice)],
        "twice",
        "\"v\" appears twice",
    );
    let wide = (0..129)
        .map(|i| FieldSpec::discrete(&format!("f{i}"), FieldType::U8))
        .collect();
    refused(
        vec![key("wide", 1, BlockKind::List16, BlockClass::Event, wide)],
        "wide",
        "has 129",
    );
}

#[test]
fn only_f32_fields_of_hot_blocks_interpolate() {
    let u8_lerp = FieldSpec {
        interp: Interp::Lerp,
        ..FieldSpec::discrete("gear", FieldType::U8)
    };
    refused(
        vec![key(
            "cars",
            1,
            BlockKind::Indexed8,
            BlockClass::Hot,
            vec![u8_lerp],
        )],
        "cars",
        "only f32 fields of hot blocks",
    );
    let event_lerp = FieldSpec::float("x", Interp::LerpAngle);
    refused(
        vec![key(
            "tracer",
            2,
            BlockKind::List16,
            BlockClass::Event,
            vec![event_lerp],
        )],
        "tracer",
        "only f32",
    );
}

#[test]
fn the_optional_tail_is_inside_the_fields_and_not_empty() {
    let fields = vec![
        FieldSpec::discrete("a", FieldType::U8),
        FieldSpec::discrete("b", FieldType::U8),
    ];
    for k in [0, 2, 7] {
        let spec = KeySpec {
            optional_from: Some(k),
            ..key("t", 1, BlockKind::List16, BlockClass::Event, fields.clone())
        };
        refused(vec![spec], "t", &format!("optionalFrom {k}"));
    }
    let ok = KeySpec {
        optional_from: Some(1),
        ..key("t", 1, BlockKind::List16, BlockClass::Event, fields)
    };
    Schema::new(vec![ok]).expect("a one-field tail after a one-field head is valid");
}

#[test]
fn roles_stand_where_the_seed_puts_them() {
    Schema::new(vec![dynamics(true)]).expect("layered dynamics row");
    Schema::new(vec![dynamics(false)]).expect("flat dynamics row");

    // The layer pair out of place, or half of it.
    let mut moved = dynamics(true);
    moved.fields.swap(3, 4);
    refused(vec![moved], "c1", "role z belongs at position 3");
    let mut half = dynamics(true);
    half.fields[4].role = None;
    refused(vec![half], "c1", "go together");

    // Named like the pair but without roles: the engine no longer guesses.
    let mut named = dynamics(true);
    named.fields[3].role = None;
    named.fields[4].role = None;
    refused(vec![named], "c1", "without its role");

    // The state byte: its position, its type, and before the tail.
    let mut state_moved = dynamics(false);
    state_moved.fields.swap(2, 3);
    refused(
        vec![state_moved],
        "c1",
        "role state belongs at position 3 in a flat row",
    );
    let mut state_f32 = dynamics(false);
    state_f32.fields[3].ty = FieldType::F32;
    refused(vec![state_f32], "c1", "role state is a u8");
    let mut tail_early = dynamics(false);
    tail_early.optional_from = Some(3);
    refused(vec![tail_early], "c1", "after the state byte");

    // Roles belong to the map-dynamics kind only, once each.
    let mut on_cars = dynamics(false);
    on_cars.kind = BlockKind::Indexed8;
    refused(vec![on_cars], "c1", "indexedNoNull8");
    let mut twice = dynamics(false);
    twice.fields[5].role = Some(Role::State);
    refused(vec![twice], "c1", "appears twice");
}

#[test]
fn a_schema_in_the_seeds_json_loads_and_round_trips() {
    // The seed's tanks plugin shape: players as hot indexed8 with a lerped
    // position and a shortest-arc angle, tracers as anonymous events, and
    // layered map dynamics with an optional velocity tail.
    let json = r#"[
      {"key": "m1", "id": 1, "kind": "indexed8", "class": "hot", "fields": [
        {"name": "x", "ty": "f32", "interp": "lerp"},
        {"name": "y", "ty": "f32", "interp": "lerp"},
        {"name": "angle", "ty": "f32", "interp": "lerpAngle"},
        {"name": "teamId", "ty": "u8"}]},
      {"key": "w1", "id": 2, "kind": "list16", "class": "event", "fields": [
        {"name": "startX", "ty": "f32"}, {"name": "shooterId", "ty": "u16"}]},
      {"key": "w2", "id": 3, "kind": "indexed32", "class": "event", "fields": [
        {"name": "x", "ty": "f32"}, {"name": "ownerId", "ty": "u32"}]},
      {"key": "c1", "id": 5, "kind": "indexedNoNull8", "class": "hot", "optionalFrom": 6, "fields": [
        {"name": "x", "ty": "f32", "interp": "lerp"}, {"name": "y", "ty": "f32", "interp": "lerp"},
        {"name": "angle", "ty": "f32", "interp": "lerpAngle"},
        {"name": "z", "ty": "f32", "role": "z"}, {"name": "level", "ty": "u8", "role": "level"},
        {"name": "state", "ty": "u8", "role": "state"},
        {"name": "vx", "ty": "f32"}, {"name": "vy", "ty": "f32"}, {"name": "angvel", "ty": "f32"}]}
    ]"#;
    let schema = Schema::from_json(json).expect("seed-shaped schema");
    assert_eq!(schema.by_name("c1").unwrap().optional_from, Some(6));
    assert_eq!(schema.by_id(3).unwrap().kind, BlockKind::Indexed32);
    assert_eq!(Schema::from_json(&schema.to_json()).unwrap(), schema);

    let unknown = r#"[{"key": "m1", "id": 1, "kind": "indexed8", "class": "hot", "fields": [], "colour": 1}]"#;
    assert!(matches!(
        Schema::from_json(unknown),
        Err(NetError::SchemaJson(_))
    ));
    let bad_kind = r#"[{"key": "m1", "id": 1, "kind": "indexed16", "class": "hot", "fields": []}]"#;
    assert!(
        Schema::from_json(bad_kind)
            .unwrap_err()
            .to_string()
            .contains("indexed16")
    );
}

#[test]
fn skidpads_schema_takes_a_games_keys() {
    let schema = race_schema();
    assert_eq!(Schema::from_json(&schema.to_json()).unwrap(), schema);
    let boost = key(
        "boost",
        64,
        BlockKind::Indexed8,
        BlockClass::Hot,
        vec![FieldSpec::float("charge", Interp::Lerp)],
    );
    let extended = schema.extended(vec![boost]).expect("a game key at 64");
    assert_eq!(extended.keys().len(), schema.keys().len() + 1);
    let clash = key(
        "mine",
        1,
        BlockKind::List16,
        BlockClass::Event,
        vec![FieldSpec::discrete("v", FieldType::U8)],
    );
    let err = schema.extended(vec![clash]).unwrap_err().to_string();
    assert!(
        err.contains("\"mine\"") && err.contains("already key \"cars\""),
        "{err}"
    );
}
