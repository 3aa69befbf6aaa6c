//! Leaderboard entries of a recorded race: each driver's copy names their
//! car and verifies as the recording does; a driver who left gets the race
//! until they left; what cannot be an entry is refused, saying why.

use skidpad_core::{InitialPose, World, WorldConfig, preset};
use skidpad_netplay::{NetError, leaderboard_entry};
use skidpad_replay::{
    Limits, NoHooks, RecorderOptions, Replay, ReplayHeader, ReplayRecorder, decode_replay,
    encode_replay, encode_stream, verify_replay,
};

const STEPS: u64 = 120;
/// Bob's car is removed before this step, as the server removes a car
/// whose player left.
const BOB_LEFT: u64 = 70;

/// Two hatchbacks side by side, the second driver leaving at `BOB_LEFT`;
/// `drivers` is the metadata value (none when `None`).
fn race(drivers: Option<&str>) -> Replay {
    let mut world = World::new(WorldConfig::default()).unwrap();
    let car = preset("fwd_hatchback").unwrap();
    let ids: Vec<_> = [0.0, 6.0]
        .into_iter()
        .map(|y| {
            let pose = InitialPose {
                x: 0.0,
                y,
                yaw: 0.0,
                speed: 0.0,
            };
            world.add_car(&car, pose).unwrap()
        })
        .collect();
    let metadata = drivers
        .map(|d| vec![(ReplayHeader::DRIVERS_KEY.to_owned(), d.to_owned())])
        .unwrap_or_default();
    let options = RecorderOptions {
        keyframe_every: 30,
        metadata,
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options).unwrap();
    for step in 0..STEPS {
        if step == BOB_LEFT {
            world.remove_car(ids[1]).unwrap();
        }
        let present: Vec<_> = world.car_ids().collect();
        for id in present {
            let mut input = world.input(id).unwrap();
            input.throttle = 0.6;
            world.set_input(id, input).unwrap();
        }
        recorder.step(&mut world, 1.0 / 60.0).unwrap();
    }
    recorder.finish(&world).unwrap()
}

fn refusal(bytes: &[u8], driver: &str) -> String {
    match leaderboard_entry(bytes, driver, None, None, &Limits::default()) {
        Err(NetError::Entry { reason }) => reason,
        other => panic!("{driver}: expected a refusal, got {other:?}"),
    }
}

#[test]
fn each_driver_gets_their_car_named_and_the_entry_verifies() {
    let recorded = race(Some(r#"["ann","bob"]"#));
    let stream = encode_stream(&recorded).unwrap();
    let full = verify_replay(&recorded, NoHooks, &Limits::default()).unwrap();

    let ann = leaderboard_entry(&stream, "ann", None, None, &Limits::default()).unwrap();
    assert_eq!(
        (ann.car, ann.steps, ann.left_at, ann.complete),
        (0, STEPS, None, true)
    );
    let replay = decode_replay(&ann.bytes).unwrap();
    assert_eq!(
        replay.header.metadata_value(ReplayHeader::PLAYER_KEY),
        Some("ann")
    );
    assert_eq!(
        replay.header.metadata_value(ReplayHeader::PLAYER_CAR_KEY),
        Some("0")
    );
    let report = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
    assert!(report.is_valid() && report.desyncs == 0, "{report:?}");
    assert_eq!(
        report.final_hash, full.final_hash,
        "the same race to the end"
    );

    // Bob left: his entry is the race to that step, and the leaderboard's
    // player may be another name than the race's.
    let bob = leaderboard_entry(&stream, "bob", Some("robert"), None, &Limits::default()).unwrap();
    assert_eq!(
        (bob.car, bob.steps, bob.left_at),
        (1, BOB_LEFT - 1, Some(BOB_LEFT))
    );
    let replay = decode_replay(&bob.bytes).unwrap();
    assert_eq!(
        replay.header.metadata_value(ReplayHeader::PLAYER_KEY),
        Some("robert")
    );
    assert_eq!(
        replay.header.metadata_value(ReplayHeader::PLAYER_CAR_KEY),
        Some("1")
    );
    assert!(
        replay.cars[1].removed_at.is_none(),
        "bob is in his entry to its end"
    );
    let report = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
    assert!(report.is_valid() && report.desyncs == 0, "{report:?}");

    // A .skr of the race gives the same entry as its stream.
    let from_replay = leaderboard_entry(
        &encode_replay(&recorded).unwrap(),
        "ann",
        None,
        None,
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(from_replay.bytes, ann.bytes);

    // A stream cut by a crash gives the entry of its whole chunks.
    let cut = &stream[..stream.len() * 3 / 4];
    let entry = leaderboard_entry(cut, "ann", None, None, &Limits::default()).unwrap();
    assert!(!entry.complete && entry.steps < STEPS, "{entry:?}");
}

#[test]
fn what_cannot_be_an_entry_is_refused_saying_why() {
    let two = encode_replay(&race(Some(r#"["ann","bob"]"#))).unwrap();
    assert!(refusal(&two, "carl").contains("did not drive"));
    let twice = encode_replay(&race(Some(r#"["ann","ann"]"#))).unwrap();
    assert!(refusal(&twice, "ann").contains("two cars"));
    let unnamed = encode_replay(&race(None)).unwrap();
    assert!(refusal(&unnamed, "ann").contains("names no drivers"));
    let malformed = encode_replay(&race(Some(r#"{"ann":0}"#))).unwrap();
    assert!(refusal(&malformed, "ann").contains("not a JSON array"));
    let too_many = encode_replay(&race(Some(r#"["x","y","ann"]"#))).unwrap();
    assert!(refusal(&too_many, "ann").contains("has 2 cars"));
    assert!(refusal(b"", "ann").contains("empty"));
    assert!(refusal(b"SKGH....", "ann").contains("ghost"));
    let mut flipped = two.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    assert!(refusal(&flipped, "ann").contains("the replay"));
}
