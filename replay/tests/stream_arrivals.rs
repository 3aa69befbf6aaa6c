//! Cars that join a race recorded as a stream: the stream announces each
//! one in an arrival record, reads back (whole or cut at any record) to
//! the replay a `ReplayRecorder` records of the same race, round-trips
//! through `encode_stream` byte for byte, and a spectator joining at any
//! chunk follows the race bit for bit.

mod common;

use std::sync::Arc;

use common::{DT, race_world};
use skidpad_core::{CarId, InitialPose, Track, World, preset};
use skidpad_replay::{
    Limits, NoHooks, Replay, ReplayRecorder, StreamFollower, StreamPieceKind, StreamRecorder,
    StreamSplitter, SyncPolicy, encode_stream, read_stream, read_stream_arrival, verify_replay,
};

/// Steps per chunk.
const EVERY: u32 = 60;

/// Records a race as a replay or as a stream.
trait Record {
    fn add(&mut self, world: &mut World, pose: InitialPose) -> CarId;
    fn capture(&mut self, world: &World);
}

impl Record for ReplayRecorder<'_> {
    fn add(&mut self, world: &mut World, pose: InitialPose) -> CarId {
        self.add_car(world, &preset("fwd_hatchback").unwrap(), pose)
            .unwrap()
    }
    fn capture(&mut self, world: &World) {
        ReplayRecorder::after_step(self, world).unwrap();
    }
}

/// A stream that takes half its cars through `adopt_car` (the game put
/// them in the world itself), to check both ways in.
impl Record for StreamRecorder<'_, Vec<u8>> {
    fn add(&mut self, world: &mut World, pose: InitialPose) -> CarId {
        let definition = preset("fwd_hatchback").unwrap();
        if world.car_count().is_multiple_of(2) {
            let car = world.add_car(&definition, pose).unwrap();
            self.adopt_car(world, car).unwrap();
            car
        } else {
            self.add_car(world, &definition, pose).unwrap()
        }
    }
    fn capture(&mut self, world: &World) {
        StreamRecorder::after_step(self, world).unwrap();
    }
}

/// A two-car AI race of `steps` steps that a car joins after each step in
/// `arrivals` (a step equal to `steps` joins after the last one), 40 m and
/// more behind the leader; returns the world as it ends.
fn race(recorder: &mut impl Record, steps: u64, arrivals: &[u64]) -> World {
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = race_world(2);
    for step in 0..=steps {
        for k in (0..arrivals.len()).filter(|&k| arrivals[k] == step) {
            let pose = common::behind_the_line(&track, 40.0 + 15.0 * k as f64, 8.0);
            let car = recorder.add(&mut world, pose);
            world.set_driver(car, Some(track.clone())).unwrap();
        }
        if step < steps {
            common::script(&mut world, step);
            world.step(DT).unwrap();
            recorder.capture(&world);
        }
    }
    world
}

/// The race as a replay and as a stream, and the world as it ended.
fn both(steps: u64, arrivals: &[u64]) -> (Replay, Vec<u8>, World) {
    let world = race_world(2);
    let options = || common::brandwood_options(EVERY);
    let mut recorder = ReplayRecorder::new(&world, options()).unwrap();
    let end = race(&mut recorder, steps, arrivals);
    let replay = recorder.finish(&end).unwrap();
    let mut stream =
        StreamRecorder::new(&world, options(), Vec::new(), SyncPolicy::EveryChunk).unwrap();
    let end = race(&mut stream, steps, arrivals);
    let bytes = stream.finish(&end).unwrap();
    (replay, bytes, end)
}

/// Arrivals inside a chunk, at a cut (after the chunk was sealed), and
/// after the last step; the race's end at a cut and inside a chunk.
const CASES: [(u64, &[u64]); 3] = [
    (300, &[45, 120, 121, 300]),
    (290, &[59, 60, 290]),
    (130, &[1, 130]),
];

#[test]
fn a_stream_with_arrivals_reads_back_to_the_recorders_replay_and_round_trips() {
    for (steps, arrivals) in CASES {
        let (replay, bytes, end) = both(steps, arrivals);
        assert_eq!(replay.header.car_count as usize, 2 + arrivals.len());
        let contents = read_stream(&bytes, &Limits::default()).unwrap();
        assert!(contents.complete && contents.stopped.is_none());
        assert_eq!(contents.replay, replay, "{steps} steps, {arrivals:?}");
        assert_eq!(encode_stream(&replay).unwrap(), bytes, "{arrivals:?}");
        let report = verify_replay(&contents.replay, NoHooks, &Limits::default()).unwrap();
        assert!(report.is_valid(), "{:?}", report.first_desync);
        assert_eq!(report.final_hash, end.world_hash());
    }
}

#[test]
fn each_car_is_announced_before_the_first_chunk_that_holds_it() {
    let (_, bytes, _) = both(300, &[45, 120, 121, 300]);
    let pieces = StreamSplitter::default().push(&bytes).unwrap();
    let order: Vec<String> = pieces
        .iter()
        .map(|(kind, piece)| match kind {
            StreamPieceKind::Arrival => {
                let a = read_stream_arrival(piece).unwrap();
                assert!(a.definition.is_some());
                format!("car {} at {}", a.car, a.world_step)
            }
            other => format!("{other:?}"),
        })
        .collect();
    // The car that came at the cut after step 120 is announced after the
    // chunk sealed there; the one after the last step gets a chunk of no
    // step from `finish`.
    assert_eq!(
        order,
        [
            "Header",
            "car 2 at 45",
            "Chunk",
            "Chunk",
            "car 3 at 120",
            "car 4 at 121",
            "Chunk",
            "Chunk",
            "Chunk",
            "car 5 at 300",
            "Chunk",
            "End"
        ]
    );
}

#[test]
fn a_stream_cut_after_any_record_keeps_every_whole_chunk() {
    let (replay, bytes, _) = both(300, &[45, 120, 121, 300]);
    let pieces = StreamSplitter::default().push(&bytes).unwrap();
    let mut at = 0;
    let mut chunks = 0;
    for (kind, piece) in &pieces {
        at += piece.len();
        chunks += usize::from(*kind == StreamPieceKind::Chunk);
        if chunks == 0 {
            // Before the first chunk there is nothing to recover.
            let error = read_stream(&bytes[..at], &Limits::default()).unwrap_err();
            assert!(error.to_string().contains("no whole chunk"), "{error}");
            continue;
        }
        let cut = read_stream(&bytes[..at], &Limits::default()).unwrap();
        let steps = cut.replay.header.step_count;
        // Cars announced after the last whole chunk are not in it yet.
        let cars = cut.replay.header.car_count as usize;
        assert_eq!(cut.replay.cars.len(), cars);
        assert!(replay.cars[..cars].iter().all(|c| c.arrived_at() <= steps));
        let report = verify_replay(&cut.replay, NoHooks, &Limits::default()).unwrap();
        assert!(report.is_valid(), "cut at {at}: {:?}", report.first_desync);
    }
}

#[test]
fn a_spectator_joining_at_any_chunk_follows_the_cars_that_arrive() {
    let (_, bytes, end) = both(300, &[45, 120, 121, 300]);
    let pieces = StreamSplitter::default().push(&bytes).unwrap();
    let chunk_at: Vec<usize> = (0..pieces.len())
        .filter(|&i| pieces[i].0 == StreamPieceKind::Chunk)
        .collect();
    for &join in &chunk_at {
        let mut spectator = StreamFollower::new(&pieces[0].1, Limits::default()).unwrap();
        // A late joiner takes every arrival before its first chunk, then
        // everything in order.
        for (i, (kind, piece)) in pieces.iter().enumerate() {
            match kind {
                StreamPieceKind::Arrival => spectator.push_arrivals(piece).unwrap(),
                StreamPieceKind::Chunk if i >= join => {
                    spectator.push_chunk(piece).unwrap();
                }
                _ => {}
            }
        }
        assert_eq!(spectator.step(), 300);
        assert_eq!(spectator.world().unwrap().world_hash(), end.world_hash());
    }
    // Arrival pieces out of order, or missing, are refused with a reason.
    let arrivals: Vec<&[u8]> = pieces
        .iter()
        .filter(|(k, _)| *k == StreamPieceKind::Arrival)
        .map(|(_, p)| p.as_slice())
        .collect();
    let mut spectator = StreamFollower::new(&pieces[0].1, Limits::default()).unwrap();
    let error = spectator
        .push_arrivals(arrivals[1])
        .unwrap_err()
        .to_string();
    assert!(error.contains("stream's order"), "{error}");
    let missing = spectator.push_chunk(&pieces[chunk_at[0]].1).unwrap_err();
    assert!(missing.to_string().contains("definition"), "{missing}");
}

/// A stream record of `kind` with `payload`, framed and checksummed.
fn framed(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![kind];
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    let sum = blake3::hash(&out);
    out.extend_from_slice(sum.as_bytes());
    out
}

#[test]
fn a_stream_refuses_arrivals_that_do_not_fit_the_recording() {
    use skidpad_core::SNAPSHOT_LEN;
    let (_, bytes, _) = both(300, &[45, 120, 121, 300]);
    let pieces = StreamSplitter::default().push(&bytes).unwrap();
    // The stream with its second arrival record's payload edited.
    let second = pieces
        .iter()
        .enumerate()
        .filter(|(_, (k, _))| *k == StreamPieceKind::Arrival)
        .nth(1)
        .unwrap()
        .0;
    let edited = |edit: &dyn Fn(&mut Vec<u8>)| -> Vec<u8> {
        let mut out = Vec::new();
        for (i, (_, piece)) in pieces.iter().enumerate() {
            if i == second {
                let mut payload = piece[5..piece.len() - 32].to_vec();
                edit(&mut payload);
                if !payload.is_empty() {
                    out.extend(framed(4, &payload));
                }
            } else {
                out.extend_from_slice(piece);
            }
        }
        out
    };
    let refuse = |edit: &dyn Fn(&mut Vec<u8>), limits: Limits, needle: &str| {
        let error = read_stream(&edited(edit), &limits).unwrap_err().to_string();
        assert!(error.contains(needle), "{needle}: {error}");
    };
    let set_step = |p: &mut Vec<u8>, step: u64| p[4..12].copy_from_slice(&step.to_le_bytes());
    refuse(&|p| p[0] = 4, Limits::default(), "the recording has 3 cars");
    refuse(
        &|p| set_step(p, 100),
        Limits::default(),
        "before the recording's step 120",
    );
    refuse(&|p| set_step(p, 121), Limits::default(), "as announced");
    refuse(&|p| p[16 + 40] ^= 1, Limits::default(), "as announced");
    refuse(
        &|p| {
            p.truncate(16 + SNAPSHOT_LEN);
            p.extend_from_slice(&0u32.to_le_bytes());
        },
        Limits::default(),
        "without a definition",
    );
    // Left out, the next car is one too far.
    refuse(
        &|p| p.clear(),
        Limits::default(),
        "car 4 arrives, but the recording has 3 cars",
    );
    let three = Limits {
        max_cars: 3,
        ..Limits::default()
    };
    refuse(&|_| {}, three, "cars");
}

#[test]
fn a_chunk_piece_carries_the_arrivals_written_before_its_chunk() {
    let (_, bytes, end) = both(300, &[45, 120, 121, 300]);
    // As the spectator service serves them: each chunk with the arrival
    // records written since the chunk before.
    let mut served: Vec<Vec<u8>> = Vec::new();
    let mut pending = Vec::new();
    let pieces = StreamSplitter::default().push(&bytes).unwrap();
    for (kind, piece) in &pieces[1..] {
        match kind {
            StreamPieceKind::Arrival => pending.extend_from_slice(piece),
            StreamPieceKind::Chunk => {
                pending.extend_from_slice(piece);
                served.push(std::mem::take(&mut pending));
            }
            _ => {}
        }
    }
    let arrivals = |piece: &[u8]| skidpad_replay::split_chunk_piece(piece).unwrap().0.len();
    assert_eq!(
        served.iter().map(|p| arrivals(p)).collect::<Vec<_>>(),
        [1, 0, 2, 0, 0, 1]
    );
    let mut spectator = StreamFollower::new(&pieces[0].1, Limits::default()).unwrap();
    // A damaged piece is refused whole: its arrivals are forgotten, and
    // the piece itself plays afterwards.
    let mut bad = served[0].clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    assert!(spectator.push_chunk(&bad).is_err());
    for piece in &served {
        spectator.push_chunk(piece).unwrap();
    }
    assert_eq!(spectator.world().unwrap().world_hash(), end.world_hash());
    // Anything but arrivals and then one chunk is not a chunk piece.
    let mut two = served[1].clone();
    two.extend_from_slice(&served[1]);
    let error = skidpad_replay::split_chunk_piece(&two).unwrap_err();
    assert!(error.to_string().contains("not a chunk piece"), "{error}");
}

#[test]
fn damaged_arrival_records_are_refused_or_read_never_a_panic() {
    let (_, bytes, _) = both(130, &[1, 130]);
    let pieces = StreamSplitter::default().push(&bytes).unwrap();
    let arrivals: Vec<usize> = (0..pieces.len())
        .filter(|&i| pieces[i].0 == StreamPieceKind::Arrival)
        .collect();
    // Car index, step, source id, snapshot, the definition count and its
    // JSON's length: every change to them is refused.
    let checked = 4 + 8 + 4 + skidpad_core::SNAPSHOT_LEN + 4 + 4;
    let mut read = 0;
    for &i in &arrivals {
        let payload = &pieces[i].1[5..pieces[i].1.len() - 32];
        // Behind a valid checksum: every field, a byte at a time (every
        // 5th byte of the definition's JSON), and cuts.
        let positions = (0..payload.len()).filter(|&at| at < checked || at % 5 == 0);
        for at in positions {
            let mut damaged = payload.to_vec();
            damaged[at] ^= 0x5a;
            let mut stream: Vec<u8> = Vec::new();
            for (j, (_, piece)) in pieces.iter().enumerate() {
                if j == i {
                    stream.extend(framed(4, &damaged));
                } else {
                    stream.extend_from_slice(piece);
                }
            }
            let result = read_stream(&stream, &Limits::default());
            assert!(
                at >= checked || result.is_err(),
                "a change at byte {at} was read"
            );
            read += usize::from(result.is_ok());
        }
        for cut in (0..payload.len()).step_by(97) {
            let mut stream: Vec<u8> = pieces[..i].iter().flat_map(|(_, p)| p.clone()).collect();
            stream.extend(framed(4, &payload[..cut]));
            assert!(
                read_stream(&stream, &Limits::default()).is_err(),
                "cut {cut}"
            );
        }
    }
    // A change inside the definition's JSON may still parse as another
    // valid definition (a digit of a value, say): that stream reads, and
    // re-simulating it is what would catch it.
    eprintln!("{read} changes inside definitions read as other definitions");
}
