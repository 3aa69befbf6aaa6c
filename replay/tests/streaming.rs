//! The chunked stream: a recording cut at any byte reads back as a valid
//! replay of every whole chunk, which verifies bit for bit; a complete
//! stream and the `.skr` of the same run convert into each other without
//! loss; corrupt and hostile streams are refused or cut cleanly.

mod common;

use std::collections::BTreeMap;

use common::{DT, race_world, script};
use skidpad_replay::{
    Limits, NoHooks, RecorderOptions, ReplayError, ReplayRecorder, StreamFollower, StreamPieceKind,
    StreamRecorder, StreamSplitter, SyncPolicy, encode_replay, encode_stream, read_stream,
    verify_replay,
};

const CHUNK: u32 = 30;

/// Records `steps` steps of a 2-car scripted race into a stream and, from
/// the same steps, a `.skr` recorder with the same keyframe interval.
fn record(steps: u64) -> (Vec<u8>, skidpad_replay::Replay) {
    let mut world = race_world(2);
    let options = || RecorderOptions {
        keyframe_every: CHUNK,
        metadata: vec![("track".into(), "brandwood".into())],
        ..RecorderOptions::default()
    };
    let mut stream =
        StreamRecorder::new(&world, options(), Vec::new(), SyncPolicy::EveryChunk).unwrap();
    let mut replay = ReplayRecorder::new(&world, options()).unwrap();
    for step in 0..steps {
        script(&mut world, step);
        world.step(DT).unwrap();
        stream.after_step(&world).unwrap();
        replay.after_step(&world).unwrap();
    }
    (
        stream.finish(&world).unwrap(),
        replay.finish(&world).unwrap(),
    )
}

#[test]
fn a_complete_stream_is_the_replay_and_converts_back_to_the_same_bytes() {
    let (bytes, replay) = record(100);
    let read = read_stream(&bytes, &Limits::default()).unwrap();
    assert!(read.complete);
    assert_eq!(read.chunks, 4, "three chunks of 30 steps and one of 10");
    assert_eq!((read.dropped_bytes, read.stopped.as_deref()), (0, None));
    assert_eq!(read.replay, replay);
    assert_eq!(encode_stream(&read.replay).unwrap(), bytes);
    assert_eq!(
        encode_replay(&read.replay).unwrap(),
        encode_replay(&replay).unwrap()
    );
    let report = verify_replay(&read.replay, NoHooks, &Limits::default()).unwrap();
    assert!(report.is_valid(), "{report:?}");
}

#[test]
fn a_stream_cut_at_any_byte_recovers_every_whole_chunk_and_verifies() {
    let (bytes, full) = record(100);
    // Where each record ends: the recovered step count changes only there.
    let mut verified: BTreeMap<u64, ()> = BTreeMap::new();
    let mut last_steps = None;
    for cut in 0..bytes.len() {
        match read_stream(&bytes[..cut], &Limits::default()) {
            Ok(read) => {
                let steps = read.replay.header.step_count;
                assert!(!read.complete, "cut at {cut} cannot hold the end record");
                // Whole chunks of 30 steps, then the last one of 10, whole
                // before its end record is.
                let chunks = steps.div_ceil(u64::from(CHUNK));
                assert!(
                    steps % u64::from(CHUNK) == 0 || steps == 100,
                    "cut {cut}: {steps}"
                );
                assert_eq!(read.chunks as u64, chunks);
                assert!(last_steps.is_none_or(|s| s <= steps), "monotonic at {cut}");
                last_steps = Some(steps);
                // What was recovered is the start of the full recording.
                for (got, all) in read.replay.cars.iter().zip(&full.cars) {
                    assert_eq!(got.inputs[..], all.inputs[..steps as usize]);
                }
                assert_eq!(
                    read.replay.keyframes[..],
                    full.keyframes[..read.replay.keyframes.len()]
                );
                if verified.insert(steps, ()).is_none() {
                    let report = verify_replay(&read.replay, NoHooks, &Limits::default()).unwrap();
                    assert!(report.is_valid(), "cut {cut}: {report:?}");
                    // And it survives the trip through a `.skr`.
                    let skr = encode_replay(&read.replay).unwrap();
                    assert_eq!(skidpad_replay::decode_replay(&skr).unwrap(), read.replay);
                }
            }
            Err(e) => {
                // Only before the first chunk is whole.
                assert!(last_steps.is_none(), "cut {cut} after a whole chunk: {e}");
                assert!(matches!(e, ReplayError::Decode { .. }), "cut {cut}: {e}");
            }
        }
    }
    assert_eq!(
        verified.keys().copied().collect::<Vec<_>>(),
        vec![30, 60, 90, 100]
    );
}

#[test]
fn a_corrupt_chunk_ends_the_recovery_before_it() {
    let (mut bytes, _) = record(100);
    // Flip a byte inside the last chunk (the end record is the last 37
    // bytes): it fails its checksum and reading stops there, keeping the
    // three chunks before it.
    let at = bytes.len() - 100;
    bytes[at] ^= 0x40;
    let read = read_stream(&bytes, &Limits::default()).unwrap();
    assert!(!read.complete);
    assert!(
        read.stopped.as_deref().unwrap().contains("checksum"),
        "{:?}",
        read.stopped
    );
    assert_eq!(read.replay.header.step_count, 90);
    assert!(read.dropped_bytes > 0);
    let report = verify_replay(&read.replay, NoHooks, &Limits::default()).unwrap();
    assert!(report.is_valid());
}

#[test]
fn hostile_streams_are_refused_with_a_reason() {
    let (bytes, _) = record(40);
    let limits = Limits::default();
    // Not a stream, wrong version, header cut.
    assert!(read_stream(b"SKRP\x01\0\0\0", &limits).is_err());
    let mut v2 = bytes.clone();
    v2[4] = 2;
    assert!(matches!(
        read_stream(&v2, &limits),
        Err(ReplayError::FormatVersion { found: 2, .. })
    ));
    assert!(read_stream(&bytes[..20], &limits).is_err());
    // A record declaring 4 GiB is a cut record, not an allocation.
    let mut huge = bytes[..8].to_vec();
    huge.push(1);
    huge.extend_from_slice(&u32::MAX.to_le_bytes());
    assert!(read_stream(&huge, &limits).is_err());
    // Limits apply to the joined replay: 40 steps > a 35-step limit.
    let tight = Limits {
        max_steps: 35,
        ..Limits::default()
    };
    let e = read_stream(&bytes, &tight).unwrap_err();
    assert!(e.to_string().contains("steps"), "{e}");
    // And memory: the joined replay's inputs and keyframes are counted as
    // chunks are added, not only each chunk on its own.
    // (10 kB: every chunk of the 100-step race fits, the four together
    // need about 14 kB.)
    let (race, _) = record(100);
    let small = Limits {
        max_decoded_bytes: 10_000,
        ..Limits::default()
    };
    let e = read_stream(&race, &small).unwrap_err().to_string();
    assert!(e.contains("decoded bytes") && !e.contains("chunk"), "{e}");
}

#[test]
fn a_stream_of_no_step_holds_keyframe_zero() {
    let world = race_world(1);
    let stream = StreamRecorder::new(
        &world,
        RecorderOptions::default(),
        Vec::new(),
        SyncPolicy::Never,
    )
    .unwrap();
    let bytes = stream.finish(&world).unwrap();
    let read = read_stream(&bytes, &Limits::default()).unwrap();
    assert!(read.complete);
    assert_eq!(read.replay.header.step_count, 0);
    assert_eq!(read.replay.keyframes.len(), 1);
    assert_eq!(encode_stream(&read.replay).unwrap(), bytes);
}

#[test]
fn ghosts_cannot_be_streamed() {
    let world = race_world(1);
    let options = RecorderOptions {
        embed_ghosts: true,
        ..RecorderOptions::default()
    };
    assert!(StreamRecorder::new(&world, options, Vec::new(), SyncPolicy::Never).is_err());
}

#[test]
fn a_spectator_joining_at_any_chunk_reaches_the_hosts_world_bit_for_bit() {
    let mut world = race_world(2);
    let options = RecorderOptions {
        keyframe_every: CHUNK,
        ..RecorderOptions::default()
    };
    let mut stream = StreamRecorder::new(&world, options, Vec::new(), SyncPolicy::Never).unwrap();
    for step in 0..100 {
        script(&mut world, step);
        world.step(DT).unwrap();
        stream.after_step(&world).unwrap();
    }
    let bytes = stream.finish(&world).unwrap();
    // Cut as a publisher receives it: writes of odd sizes.
    let mut splitter = StreamSplitter::default();
    let mut pieces = Vec::new();
    for piece in bytes.chunks(777) {
        pieces.extend(splitter.push(piece).unwrap());
    }
    let kinds: Vec<StreamPieceKind> = pieces.iter().map(|(k, _)| *k).collect();
    assert_eq!(kinds[0], StreamPieceKind::Header);
    assert_eq!(kinds.last(), Some(&StreamPieceKind::End));
    assert_eq!(
        pieces.iter().map(|(_, b)| b.len()).sum::<usize>(),
        bytes.len()
    );
    let chunks: Vec<&[u8]> = pieces
        .iter()
        .filter(|(k, _)| *k == StreamPieceKind::Chunk)
        .map(|(_, b)| b.as_slice())
        .collect();
    assert_eq!(chunks.len(), 4);
    for join_at in 0..chunks.len() {
        let mut spectator = StreamFollower::new(&pieces[0].1, Limits::default()).unwrap();
        for chunk in &chunks[join_at..] {
            spectator.push_chunk(chunk).unwrap();
        }
        assert_eq!(spectator.step(), 100);
        assert_eq!(spectator.world().unwrap().world_hash(), world.world_hash());
    }
    // A gap is refused, and a chunk's damage is caught by its checksum.
    let mut spectator = StreamFollower::new(&pieces[0].1, Limits::default()).unwrap();
    spectator.push_chunk(chunks[0]).unwrap();
    assert!(spectator.push_chunk(chunks[2]).is_err());
    let mut bad = chunks[1].to_vec();
    bad[100] ^= 1;
    assert!(spectator.push_chunk(&bad).is_err());
    spectator.push_chunk(chunks[1]).unwrap();
    assert_eq!(spectator.step(), 60);
}

#[test]
fn a_spectator_follows_a_race_on_a_built_in_tracks_surface() {
    // Chunks carry no metadata: the follower must play them on the ground
    // the stream's header names (here Hillcrest's surface), not the plane.
    use skidpad_core::{CarInput, Track, World, WorldConfig, preset};
    let track = std::sync::Arc::new(Track::builtin("hillcrest").unwrap());
    let mut world = World::new(WorldConfig::default()).unwrap();
    world
        .set_ground(std::sync::Arc::new(track.ground().unwrap()))
        .unwrap();
    let pose = skidpad_core::race::pose_along(&track, 100.0, 0.0, 10.0);
    let car = world.add_car(&preset("rwd_sports").unwrap(), pose).unwrap();
    let options = RecorderOptions {
        keyframe_every: CHUNK,
        ..RecorderOptions::default()
    };
    let mut stream = StreamRecorder::new(&world, options, Vec::new(), SyncPolicy::Never).unwrap();
    let input = CarInput {
        throttle: 0.3,
        ..CarInput::default()
    };
    world.set_input(car, input).unwrap();
    for _ in 0..100 {
        stream.step(&mut world, DT).unwrap();
    }
    let bytes = stream.finish(&world).unwrap();
    let pieces = StreamSplitter::default().push(&bytes).unwrap();
    for join_at in [1, 3] {
        let mut spectator = StreamFollower::new(&pieces[0].1, Limits::default()).unwrap();
        for (kind, piece) in &pieces[join_at..] {
            if *kind == StreamPieceKind::Chunk {
                spectator.push_chunk(piece).unwrap();
            }
        }
        assert_eq!(spectator.world().unwrap().world_hash(), world.world_hash());
    }
}
