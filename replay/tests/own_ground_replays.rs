//! A race on a game's own ground, with the ground carried in the replay
//! (`RecorderOptions::ground`, section 11): it round-trips through the
//! file, and a verifier with nothing but the file re-simulates it bit for
//! bit. Without the section the same file is refused (the plane is not
//! the ground it names); a carried ground that builds another ground, a
//! recorder given another world's ground, and a section whose counts do
//! not fit its bytes are refused with the reason. The same ground as a
//! file of its own (`.skgd`) round-trips and is checked alike; an instant
//! replay carries it, and a stream carries it once, in its header record,
//! so a spectator joining late plays on it.

mod common;

use common::{DT, resealed};
use skidpad_core::glam::DVec3;
use skidpad_core::{
    CarInput, GroundSource, HeightfieldSource, InitialPose, MeshSource, SurfaceId, World,
    WorldConfig, preset,
};
use skidpad_replay::{
    InstantReplayRing, Limits, NoHooks, RecorderOptions, Replay, ReplayError, ReplayRecorder,
    RingOptions, StreamFollower, StreamPieceKind, StreamRecorder, StreamSplitter, SyncPolicy,
    decode_ground_file, decode_replay, encode_ground_file, encode_replay, encode_stream,
    read_stream, verify_replay,
};

const STEPS: u64 = 300;

/// A rolling field 300 m square: 61 × 61 vertices 5 m apart, heights a
/// smooth bump pattern, the hollows wet.
fn rolling_mesh() -> GroundSource {
    let n = 61_u32;
    let mut vertices = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let (x, y) = (f64::from(i) * 5.0 - 150.0, f64::from(j) * 5.0 - 150.0);
            let (u, v) = (x / 150.0, y / 150.0);
            vertices.push(DVec3::new(
                x,
                y,
                1.5 * u * u - 0.8 * v * v * v + 0.3 * u * v,
            ));
        }
    }
    let mut triangles = Vec::new();
    let mut surfaces = Vec::new();
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let k = j * n + i;
            triangles.push([k, k + 1, k + n + 1]);
            triangles.push([k, k + n + 1, k + n]);
            let wet = vertices[k as usize].z < 0.0;
            let surface = if wet {
                SurfaceId::WET_ASPHALT
            } else {
                SurfaceId::DRY_ASPHALT
            };
            surfaces.extend([surface, surface]);
        }
    }
    GroundSource::Mesh(MeshSource {
        vertices,
        triangles,
        surfaces: Some(surfaces),
    })
}

fn hills() -> GroundSource {
    let (columns, rows) = (41, 41);
    let heights = (0..columns * rows)
        .map(|k| {
            let (i, j) = ((k % columns) as f64, (k / columns) as f64);
            0.002 * (i - 20.0) * (i - 20.0) + 0.001 * (j - 20.0) * (j - 10.0)
        })
        .collect();
    GroundSource::Heightfield(HeightfieldSource {
        x0: -100.0,
        y0: -100.0,
        spacing: 5.0,
        columns,
        rows,
        heights,
        surfaces: None,
    })
}

/// Two cars driven in curves over the ground for `STEPS` steps, recorded
/// with `carried` as the recorder's ground.
fn record_on(ground: &GroundSource, carried: Option<GroundSource>) -> Result<Replay, ReplayError> {
    let mut world = world_on(ground);
    let mut recorder = ReplayRecorder::new(
        &world,
        RecorderOptions {
            keyframe_every: 60,
            ground: carried,
            ..RecorderOptions::default()
        },
    )?;
    for _ in 0..STEPS {
        recorder.step(&mut world, DT)?;
    }
    recorder.finish(&world)
}

/// Two cars on the ground with their inputs set, not yet stepped.
fn world_on(ground: &GroundSource) -> World {
    let mut world = World::new(WorldConfig::default()).unwrap();
    world.set_ground(ground.build().unwrap()).unwrap();
    for (k, name) in ["fwd_hatchback", "rwd_sports"].into_iter().enumerate() {
        let pose = InitialPose {
            x: -40.0 + 20.0 * k as f64,
            y: -30.0,
            yaw: 0.3,
            speed: 12.0,
        };
        let car = world.add_car(&preset(name).unwrap(), pose).unwrap();
        let input = CarInput {
            throttle: 0.5,
            steer: if k == 0 { 0.15 } else { -0.1 },
            ..CarInput::default()
        };
        world.set_input(car, input).unwrap();
    }
    world
}

fn verifies(replay: &Replay) -> Result<(), ReplayError> {
    let report = verify_replay(replay, NoHooks, &Limits::default())?;
    assert!(report.is_valid() && report.desyncs == 0, "{report:?}");
    Ok(())
}

#[test]
fn a_carried_mesh_or_heightfield_travels_in_the_file_and_the_race_verifies_from_it() {
    for ground in [rolling_mesh(), hills()] {
        let replay = record_on(&ground, Some(ground.clone())).unwrap();
        let bytes = encode_replay(&replay).unwrap();
        let decoded = decode_replay(&bytes).unwrap();
        assert_eq!(decoded.ground.as_ref(), Some(&ground));
        assert_eq!(decoded, replay);
        verifies(&decoded).unwrap();
        // The same race without the ground: the plane is not the ground
        // the header names, and the verifier says so.
        let bare = Replay {
            ground: None,
            ..decoded
        };
        match verifies(&bare) {
            Err(ReplayError::GroundMismatch { recorded, world }) => {
                assert!(recorded.contains("triangle mesh") || recorded.contains("heightfield"));
                assert!(world.contains("plane"), "{world}");
            }
            other => panic!("expected a ground mismatch, got {other:?}"),
        }
    }
}

#[test]
fn a_replay_without_a_carried_ground_is_the_same_file_as_before() {
    let ground = rolling_mesh();
    let with = encode_replay(&record_on(&ground, Some(ground.clone())).unwrap()).unwrap();
    let without = encode_replay(&record_on(&ground, None).unwrap()).unwrap();
    // Section 11 is the whole difference: header, inputs and keyframes
    // are the same bytes.
    let section = with.len() - without.len();
    assert!(section > 61 * 61 * 24, "{section} bytes for the mesh");
    assert_eq!(with[..without.len() - 40], without[..without.len() - 40]);
}

#[test]
fn a_wrong_or_damaged_ground_is_refused_with_the_reason() {
    let ground = rolling_mesh();
    // The recorder checks the source against the world's ground.
    match record_on(&ground, Some(hills())) {
        Err(ReplayError::InvalidArgument {
            what: "ground",
            reason,
        }) => {
            assert!(
                reason.contains("heightfield") && reason.contains("triangle mesh"),
                "{reason}"
            );
        }
        other => panic!("expected the recorder to refuse, got {other:?}"),
    }
    let mut replay = record_on(&ground, Some(ground.clone())).unwrap();
    // A carried ground that builds another ground than the header names.
    if let Some(GroundSource::Mesh(mesh)) = &mut replay.ground {
        mesh.vertices[100].z += 0.01;
    }
    let err = verifies(&decode_replay(&encode_replay(&replay).unwrap()).unwrap()).unwrap_err();
    assert!(err.to_string().contains("not the triangle mesh"), "{err}");
    // A carried ground that does not build at all.
    if let Some(GroundSource::Mesh(mesh)) = &mut replay.ground {
        mesh.triangles[0] = [0, 0, 1];
    }
    let err = verifies(&replay).unwrap_err();
    assert!(err.to_string().contains("does not build"), "{err}");
    // A vertex count the section's bytes cannot hold: refused before
    // anything is allocated. The ground section is the last before the
    // end section (8 bytes) and the checksum (32); its payload starts with
    // the kind byte, then the vertex count.
    let good = record_on(&ground, Some(ground.clone())).unwrap();
    let bytes = encode_replay(&good).unwrap();
    let GroundSource::Mesh(mesh) = &ground else {
        unreachable!()
    };
    let payload = 1 + 8 + mesh.vertices.len() * 24 + mesh.triangles.len() * 13 + 1;
    let start = bytes.len() - 40 - payload;
    let mut hostile = bytes.clone();
    hostile[start + 1..start + 5].copy_from_slice(&u32::MAX.to_le_bytes());
    let err = decode_replay(&resealed(hostile)).unwrap_err();
    assert!(err.to_string().contains("cannot fit"), "{err}");
    // An unknown kind.
    let mut unknown = bytes;
    unknown[start] = 9;
    let err = decode_replay(&resealed(unknown)).unwrap_err();
    assert!(err.to_string().contains("unknown ground kind 9"), "{err}");
}

#[test]
fn a_ground_file_round_trips_and_a_damaged_one_is_refused() {
    for ground in [rolling_mesh(), hills()] {
        let bytes = encode_ground_file(&ground).unwrap();
        assert_eq!(&bytes[..4], b"SKGD");
        assert_eq!(decode_ground_file(&bytes).unwrap(), ground);
        // A race recorded without carrying it verifies once the file's
        // ground is given to it.
        let mut replay = record_on(&ground, None).unwrap();
        assert!(verifies(&replay).is_err());
        replay.ground = Some(decode_ground_file(&bytes).unwrap());
        verifies(&replay).unwrap();
        let mut flipped = bytes.clone();
        flipped[20] ^= 1;
        let err = decode_ground_file(&flipped).unwrap_err().to_string();
        assert!(err.contains("checksum"), "{err}");
        let err = decode_ground_file(&bytes[..bytes.len() - 1])
            .unwrap_err()
            .to_string();
        assert!(err.contains("checksum"), "{err}");
        let err = decode_ground_file(b"SKGD").unwrap_err().to_string();
        assert!(
            err.contains("too short") || err.contains("preamble"),
            "{err}"
        );
        let err = decode_ground_file(b"SKRP\x01\x00\x00\x00")
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a skidpad ground file"), "{err}");
    }
}

#[test]
fn an_instant_replay_carries_the_ground_once() {
    let ground = hills();
    let mut world = world_on(&ground);
    let options = RecorderOptions {
        ground: Some(ground.clone()),
        ..RecorderOptions::default()
    };
    let ring_options = RingOptions {
        part_steps: 60,
        max_seconds: 30.0,
        max_bytes: 1 << 20,
    };
    let mut ring = InstantReplayRing::new(&world, options, ring_options).unwrap();
    for _ in 0..STEPS {
        world.step(DT).unwrap();
        ring.after_step(&world).unwrap();
    }
    let highlight = ring.extract(&world, 3.0).unwrap();
    assert_eq!(highlight.ground.as_ref(), Some(&ground));
    verifies(&decode_replay(&encode_replay(&highlight).unwrap()).unwrap()).unwrap();
}

/// Records a stream of the two cars on `ground` in chunks of 60 steps,
/// carrying `carried`; returns its bytes and the host's final hash.
fn stream_on(ground: &GroundSource, carried: Option<GroundSource>) -> (Vec<u8>, [u8; 32]) {
    let mut world = world_on(ground);
    let options = RecorderOptions {
        keyframe_every: 60,
        ground: carried,
        ..RecorderOptions::default()
    };
    let mut stream = StreamRecorder::new(&world, options, Vec::new(), SyncPolicy::Never).unwrap();
    for _ in 0..STEPS {
        stream.step(&mut world, DT).unwrap();
    }
    (stream.finish(&world).unwrap(), world.world_hash())
}

#[test]
fn a_stream_carries_the_ground_in_its_header_record_and_a_late_spectator_plays_on_it() {
    let ground = rolling_mesh();
    let (bytes, host_hash) = stream_on(&ground, Some(ground.clone()));
    let read = read_stream(&bytes, &Limits::default()).unwrap();
    assert!(read.complete);
    assert_eq!(read.replay.ground.as_ref(), Some(&ground));
    verifies(&read.replay).unwrap();
    assert_eq!(
        encode_stream(&read.replay).unwrap(),
        bytes,
        "a stream carrying its ground converts back to the same bytes"
    );
    let pieces = StreamSplitter::default().push(&bytes).unwrap();
    let chunks: Vec<&[u8]> = pieces
        .iter()
        .filter(|(k, _)| *k == StreamPieceKind::Chunk)
        .map(|(_, b)| b.as_slice())
        .collect();
    assert_eq!(chunks.len(), 5);
    // The ground is in the header piece once, not in every chunk.
    let mesh_bytes = 61 * 61 * 24 + 2 * 60 * 60 * 13;
    assert!(pieces[0].1.len() > mesh_bytes, "{}", pieces[0].1.len());
    assert!(chunks.iter().all(|c| c.len() < mesh_bytes / 4));
    for join_at in [0, 3] {
        let mut spectator = StreamFollower::new(&pieces[0].1, Limits::default()).unwrap();
        for chunk in &chunks[join_at..] {
            spectator.push_chunk(chunk).unwrap();
        }
        assert_eq!(spectator.world().unwrap().world_hash(), host_hash);
    }
    // Without the ground carried, a spectator has only the plane, which
    // is not the ground the header names: the chunk is refused, not
    // played wrong.
    let (bare, _) = stream_on(&ground, None);
    let pieces = StreamSplitter::default().push(&bare).unwrap();
    let mut spectator = StreamFollower::new(&pieces[0].1, Limits::default()).unwrap();
    match spectator.push_chunk(&pieces[1].1) {
        Err(ReplayError::GroundMismatch { .. }) => {}
        other => panic!("expected the plane to be refused, got {other:?}"),
    }
}
