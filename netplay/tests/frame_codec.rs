//! The snapshot frame codec: every schema's frames round-trip, encoding is
//! canonical, floats are rounded as the seed says, and bad bytes get an
//! error with an offset, never a panic or an allocation the bytes do not
//! pay for.

use proptest::prelude::*;
use skidpad_core::{InitialPose, World, WorldConfig, preset};
use skidpad_netplay::{
    Block, BlockClass, BlockKind, CARS_KEY, CarRow, FieldSpec, FieldType, Frame, HEADER_LEN,
    Interp, KeySpec, MAX_FRAME_LEN, NetError, PLAYER_KEY, PlayerRow, Precision, Row,
    SNAPSHOT_FORMAT_VERSION, Schema, Value, decode_frame, encode_frame, race_schema, round2,
};

fn field_type() -> impl Strategy<Value = FieldType> {
    prop_oneof![
        Just(FieldType::F32),
        Just(FieldType::U8),
        Just(FieldType::U16),
        Just(FieldType::U32)
    ]
}

fn kind() -> impl Strategy<Value = BlockKind> {
    prop_oneof![
        Just(BlockKind::Indexed8),
        Just(BlockKind::Indexed32),
        Just(BlockKind::List16),
        Just(BlockKind::IndexedNoNull8)
    ]
}

/// A valid key: 1–6 fields, hot or event, rounded or full, maybe a tail.
fn key_spec(id: u8) -> impl Strategy<Value = KeySpec> {
    (
        kind(),
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(field_type(), 1..7),
        any::<prop::sample::Index>(),
    )
        .prop_map(move |(kind, hot, full, types, tail)| {
            let class = if hot {
                BlockClass::Hot
            } else {
                BlockClass::Event
            };
            let fields = types
                .iter()
                .enumerate()
                .map(|(i, &ty)| FieldSpec {
                    interp: if hot && ty == FieldType::F32 {
                        Interp::Lerp
                    } else {
                        Interp::Discrete
                    },
                    ..FieldSpec::discrete(&format!("f{i}"), ty)
                })
                .collect::<Vec<_>>();
            let optional_from = (fields.len() > 1)
                .then(|| 1 + tail.index(fields.len() - 1))
                .filter(|_| id.is_multiple_of(2));
            KeySpec {
                key: format!("k{id}"),
                id,
                kind,
                class,
                fields,
                optional_from,
                precision: if full {
                    Precision::Full
                } else {
                    Precision::Rounded
                },
            }
        })
}

fn schema() -> impl Strategy<Value = Schema> {
    (1usize..5)
        .prop_flat_map(|n| {
            (0..n as u8)
                .map(|i| key_spec(i * 7 + 1))
                .collect::<Vec<_>>()
        })
        .prop_map(|keys| Schema::new(keys).expect("generated schemas are valid"))
}

fn value(ty: FieldType) -> BoxedStrategy<Value> {
    match ty {
        // Mostly ordinary numbers, sometimes zero (so tails go absent) or
        // a large or tiny magnitude.
        FieldType::F32 => prop_oneof![
            3 => (-5000.0f32..5000.0).prop_map(Value::F32),
            1 => Just(Value::F32(0.0)),
            1 => prop::num::f32::NORMAL.prop_map(Value::F32),
        ]
        .boxed(),
        FieldType::U8 => prop_oneof![Just(0u8), any::<u8>()]
            .prop_map(Value::U8)
            .boxed(),
        FieldType::U16 => prop_oneof![Just(0u16), any::<u16>()]
            .prop_map(Value::U16)
            .boxed(),
        FieldType::U32 => prop_oneof![Just(0u32), any::<u32>()]
            .prop_map(Value::U32)
            .boxed(),
    }
}

fn row(spec: &KeySpec) -> BoxedStrategy<Row> {
    spec.fields
        .iter()
        .map(|f| value(f.ty))
        .collect::<Vec<_>>()
        .boxed()
}

fn block(spec: &KeySpec) -> BoxedStrategy<Block> {
    let r = row(spec);
    match spec.kind {
        BlockKind::Indexed8 => {
            prop::collection::btree_map(any::<u8>(), prop::option::weighted(0.8, r), 1..12)
                .prop_map(|m| {
                    Block::Indexed(m.into_iter().map(|(k, v)| (u32::from(k), v)).collect())
                })
                .boxed()
        }
        BlockKind::Indexed32 => {
            prop::collection::btree_map(any::<u32>(), prop::option::weighted(0.8, r), 1..12)
                .prop_map(|m| Block::Indexed(m.into_iter().collect()))
                .boxed()
        }
        BlockKind::List16 => prop::collection::vec(r, 1..12)
            .prop_map(Block::List)
            .boxed(),
        BlockKind::IndexedNoNull8 => prop::collection::btree_map(any::<u8>(), r, 1..12)
            .prop_map(|m| Block::Slots(m.into_iter().collect()))
            .boxed(),
    }
}

fn schema_and_frame() -> impl Strategy<Value = (Schema, Frame)> {
    schema().prop_flat_map(|schema| {
        let blocks = schema
            .keys()
            .iter()
            .map(|k| {
                prop::option::of(block(k).prop_map({
                    let id = k.id;
                    move |b| (id, b)
                }))
            })
            .collect::<Vec<_>>();
        (Just(schema), any::<u32>(), any::<u32>(), blocks).prop_map(
            |(schema, tick, server_time_ms, blocks)| {
                let blocks = blocks.into_iter().flatten().collect();
                (
                    schema,
                    Frame {
                        tick,
                        server_time_ms,
                        blocks,
                    },
                )
            },
        )
    })
}

/// What the wire makes of a frame: floats of rounded blocks rounded.
fn as_sent(schema: &Schema, frame: &Frame) -> Frame {
    let mut out = frame.clone();
    for (id, block) in &mut out.blocks {
        if schema.by_id(*id).unwrap().precision == Precision::Full {
            continue;
        }
        let round = |row: &mut Row| {
            for v in row.iter_mut() {
                if let Value::F32(f) = v {
                    *f = round2(*f);
                }
            }
        };
        match block {
            Block::Indexed(rows) => rows
                .iter_mut()
                .filter_map(|(_, r)| r.as_mut())
                .for_each(round),
            Block::List(rows) => rows.iter_mut().for_each(round),
            Block::Slots(rows) => rows.iter_mut().for_each(|(_, r)| round(r)),
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn frames_round_trip_and_encode_canonically((schema, frame) in schema_and_frame()) {
        let bytes = encode_frame(&schema, &frame).unwrap();
        let back = decode_frame(&schema, &bytes).unwrap();
        prop_assert_eq!(&back, &as_sent(&schema, &frame));
        prop_assert_eq!(encode_frame(&schema, &back).unwrap(), bytes);
    }

    /// Any change to a valid frame's bytes is refused or decodes to a frame
    /// that encodes back to exactly those bytes; a cut anywhere is the
    /// same (a cut between blocks is a valid shorter frame).
    #[test]
    fn damaged_frames_are_refused_or_canonical(
        (schema, frame) in schema_and_frame(),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let bytes = encode_frame(&schema, &frame).unwrap();
        let mut damaged = bytes.clone();
        let i = at.index(damaged.len());
        damaged[i] = byte;
        if let Ok(frame) = decode_frame(&schema, &damaged) {
            prop_assert_eq!(encode_frame(&schema, &frame).unwrap(), damaged);
        }
        let cut = &bytes[..i];
        match decode_frame(&schema, cut) {
            Ok(frame) => prop_assert_eq!(encode_frame(&schema, &frame).unwrap(), cut),
            Err(NetError::Frame { offset, .. }) => prop_assert!(offset <= cut.len()),
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
    }

    #[test]
    fn any_bytes_are_refused_or_canonical(body in prop::collection::vec(any::<u8>(), 0..200)) {
        let schema = race_schema();
        let mut bytes = vec![SNAPSHOT_FORMAT_VERSION, 0, 0, 0, 1, 0, 0, 0, 2];
        bytes.extend(body);
        if let Ok(frame) = decode_frame(&schema, &bytes) {
            prop_assert_eq!(encode_frame(&schema, &frame).unwrap(), bytes);
        }
    }

    /// Rounding is the seed's: two decimals through f32, and rounding a
    /// rounded value changes nothing (the decoder's check relies on it).
    #[test]
    fn round2_is_two_decimals_and_idempotent(v in prop::num::f32::ANY) {
        let r = round2(v);
        if v.is_finite() {
            prop_assert_eq!(round2(r).to_bits(), r.to_bits());
            let exact = (f64::from(v) * 100.0).round() / 100.0;
            prop_assert!((f64::from(r) - exact).abs() <= f64::from(r.abs()) * f64::from(f32::EPSILON));
        }
    }
}

#[test]
fn the_header_and_the_version() {
    let schema = race_schema();
    let frame = Frame {
        tick: 0x0102_0304,
        server_time_ms: 0x0a0b_0c0d,
        blocks: vec![],
    };
    let bytes = encode_frame(&schema, &frame).unwrap();
    assert_eq!(
        bytes,
        [SNAPSHOT_FORMAT_VERSION, 1, 2, 3, 4, 0x0a, 0x0b, 0x0c, 0x0d]
    );
    assert_eq!(bytes.len(), HEADER_LEN);
    let mut other = bytes.clone();
    other[0] = SNAPSHOT_FORMAT_VERSION + 1;
    assert_eq!(
        decode_frame(&schema, &other),
        Err(NetError::Version {
            expected: SNAPSHOT_FORMAT_VERSION,
            found: SNAPSHOT_FORMAT_VERSION + 1
        })
    );
    assert!(matches!(
        decode_frame(&schema, &[]),
        Err(NetError::Frame { offset: 0, .. })
    ));
    assert!(matches!(
        decode_frame(&schema, &bytes[..7]),
        Err(NetError::Frame { offset: 5, .. })
    ));
}

#[test]
fn hostile_sizes_are_refused_before_allocating() {
    let schema = race_schema();
    // A player block declaring 255 rows in 3 bytes: refused by arithmetic.
    let mut bytes = encode_frame(&schema, &Frame::default()).unwrap();
    bytes.extend([PLAYER_KEY, 255, 1]);
    let err = decode_frame(&schema, &bytes).unwrap_err().to_string();
    assert!(
        err.contains("byte 10") && err.contains("255 rows cannot fit"),
        "{err}"
    );
    // An oversized frame is refused without reading it.
    let huge = vec![SNAPSHOT_FORMAT_VERSION; MAX_FRAME_LEN + 1];
    assert!(
        decode_frame(&schema, &huge)
            .unwrap_err()
            .to_string()
            .contains("exceeds")
    );
}

#[test]
fn what_the_encoder_never_writes_is_refused() {
    let schema = race_schema();
    let header = encode_frame(&schema, &Frame::default()).unwrap();
    let with = |body: &[u8]| [header.as_slice(), body].concat();
    let removed = |car: u8| [5u8, 0, 1, car, 0];
    let says = |bytes: Vec<u8>, what: &str| {
        let err = decode_frame(&schema, &bytes).unwrap_err().to_string();
        assert!(err.contains(what), "{what:?} not in {err}");
    };
    says(with(&[63]), "key id 63 is not in the schema");
    says(with(&[removed(1), removed(2)].concat()), "appears twice");
    says(with(&[5, 0, 0]), "empty block");
    says(with(&[CARS_KEY, 2, 7, 0, 7, 0]), "id 7 appears twice");
    says(with(&[CARS_KEY, 1, 7, 2]), "hasData is 0 or 1");
    // A contact whose impulse is 1/3: not rounded to 2 decimals.
    let mut contact = vec![3, 0, 1, 1, 2];
    contact.extend((1.0f32 / 3.0).to_be_bytes());
    contact.extend([0; 12]);
    says(with(&contact), "not rounded to 2 decimals");
    let mut nan = vec![3, 0, 1, 1, 2];
    nan.extend(f32::NAN.to_be_bytes());
    nan.extend([0; 12]);
    says(with(&nan), "is NaN");
}

#[test]
fn an_optional_tail_is_sent_only_when_it_holds_something() {
    let dynamics = KeySpec {
        key: "crates".into(),
        id: 9,
        kind: BlockKind::IndexedNoNull8,
        class: BlockClass::Hot,
        fields: ["x", "y", "vx", "vy"]
            .iter()
            .map(|n| FieldSpec::float(n, Interp::Lerp))
            .collect(),
        optional_from: Some(2),
        precision: Precision::Rounded,
    };
    let schema = Schema::new(vec![dynamics]).unwrap();
    let frame = |v: f32| Frame {
        blocks: vec![(
            9,
            Block::Slots(vec![(
                0,
                vec![
                    Value::F32(1.0),
                    Value::F32(2.0),
                    Value::F32(v),
                    Value::F32(0.0),
                ],
            )]),
        )],
        ..Frame::default()
    };
    let resting = encode_frame(&schema, &frame(0.0)).unwrap();
    let moving = encode_frame(&schema, &frame(3.5)).unwrap();
    // Key, count, index, flag, then two or four floats.
    assert_eq!(resting.len(), HEADER_LEN + 4 + 8);
    assert_eq!(moving.len(), HEADER_LEN + 4 + 16);
    assert_eq!(resting[HEADER_LEN + 3], 0);
    assert_eq!(
        decode_frame(&schema, &resting).unwrap(),
        frame(0.0),
        "absent tail reads as zeros"
    );
    assert_eq!(decode_frame(&schema, &moving).unwrap(), frame(3.5));
    // A tail flagged present but all zero is not what the encoder writes.
    let mut padded = resting.clone();
    padded[HEADER_LEN + 3] = 1;
    padded.extend([0; 8]);
    assert!(
        decode_frame(&schema, &padded)
            .unwrap_err()
            .to_string()
            .contains("all-zero tail")
    );
}

#[test]
fn the_player_block_carries_the_car_state_bit_for_bit() {
    let def = preset("rwd_sports").unwrap();
    let mut world = World::new(WorldConfig::default()).unwrap();
    let car = world
        .add_car(
            &def,
            InitialPose {
                speed: 23.7,
                yaw: 0.3,
                ..InitialPose::default()
            },
        )
        .unwrap();
    world
        .set_input(
            car,
            skidpad_core::CarInput {
                throttle: 0.6,
                steer: 0.1,
                ..Default::default()
            },
        )
        .unwrap();
    for _ in 0..90 {
        world.step(1.0 / 60.0).unwrap();
    }
    let schema = race_schema();
    let player = PlayerRow {
        last_input_seq: 41,
        input_tick: 88,
        input_wait: 3,
        late_inputs: 1,
        resets: 2,
        state: world.snapshot(car).unwrap(),
    };
    let cars = CarRow {
        pose: world.pose(car).unwrap(),
        rpm: world.channel(car, "engine_rpm").unwrap(),
        gear: 2,
        lap: 0,
        flags: 0,
    };
    let frame = Frame {
        tick: 90,
        server_time_ms: 1500,
        blocks: vec![
            (CARS_KEY, Block::Indexed(vec![(0, Some(cars.to_row()))])),
            (
                PLAYER_KEY,
                Block::Indexed(vec![(0, Some(player.to_row().unwrap()))]),
            ),
        ],
    };
    let bytes = encode_frame(&schema, &frame).unwrap();
    let back = decode_frame(&schema, &bytes).unwrap();
    let Some(Block::Indexed(rows)) = back.block(&schema, "player") else {
        panic!("no player block")
    };
    let got = PlayerRow::from_row(rows[0].1.as_ref().unwrap()).unwrap();
    assert_eq!(got, player);

    // A second world restored from the wire steps to the same bits.
    let mut other = World::new(WorldConfig::default()).unwrap();
    let twin = other.add_car(&def, InitialPose::default()).unwrap();
    other.restore(twin, &got.state).unwrap();
    assert_eq!(other.car_hash(twin).unwrap(), world.car_hash(car).unwrap());
    for w in [&mut world, &mut other] {
        w.step(1.0 / 60.0).unwrap();
    }
    assert_eq!(other.car_hash(twin).unwrap(), world.car_hash(car).unwrap());

    // The cars block is rounded: positions within half a centimetre.
    let Some(Block::Indexed(cars_back)) = back.block(&schema, "cars") else {
        panic!("no cars block")
    };
    let Value::F32(x) = cars_back[0].1.as_ref().unwrap()[0] else {
        panic!("x is f32")
    };
    assert!((f64::from(x) - cars.pose.position.x).abs() <= 0.005 + 1e-5);
    assert_eq!(
        cars_back[0].1.as_ref().unwrap()[9],
        Value::U8(3),
        "gear 2 travels as 3"
    );
}

#[test]
fn a_race_frame_costs_what_the_layout_says() {
    // 20 cars: 9 bytes of header, key and count, then per car an id, a
    // hasData byte and nine f32s and three u8s: 41 bytes.
    let schema = race_schema();
    let rows = (0..20)
        .map(|i| {
            (
                i,
                Some(
                    CarRow {
                        pose: skidpad_core::CarPose {
                            position: skidpad_core::glam::DVec3::new(1.0, 2.0, 0.3),
                            orientation: skidpad_core::glam::DQuat::IDENTITY,
                            yaw: 0.5,
                            pitch: 0.0,
                            roll: 0.0,
                            steer_angle: 0.0,
                            speed: 30.0,
                        },
                        rpm: 5000.0,
                        gear: 3,
                        lap: 1,
                        flags: 0,
                    }
                    .to_row(),
                ),
            )
        })
        .collect();
    let frame = Frame {
        blocks: vec![(CARS_KEY, Block::Indexed(rows))],
        ..Frame::default()
    };
    assert_eq!(
        encode_frame(&schema, &frame).unwrap().len(),
        HEADER_LEN + 2 + 20 * 41
    );
}

#[test]
fn the_fuzz_corpus_and_regressions_decode_as_the_fuzz_target_checks() {
    let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let schemas = [
        race_schema(),
        Schema::from_json(include_str!("../fuzz/every_kind.json")).unwrap(),
    ];
    let mut inputs = 0;
    for dir in ["corpus/decode_frame", "regressions"] {
        for entry in std::fs::read_dir(fuzz.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                continue;
            }
            let data = std::fs::read(&path).unwrap();
            for schema in &schemas {
                if let Ok(frame) = decode_frame(schema, &data) {
                    assert!(
                        encode_frame(schema, &frame).unwrap() == data,
                        "{}",
                        path.display()
                    );
                }
            }
            inputs += 1;
        }
    }
    assert!(
        inputs >= 50,
        "only {inputs} fuzz inputs: is the corpus committed?"
    );
}
