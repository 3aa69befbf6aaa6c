//! A race on a game's own track (`RecorderOptions::track`): the replay
//! names it by fingerprint and carries its definition, so a verifier with
//! nothing but the file rebuilds the track's generated ground, re-simulates
//! bit for bit and times laps on the track's own line. A built-in track is
//! named by name and not carried. A replay that names an own track without
//! carrying it needs the track beside it; a wrong one, or a carried
//! definition whose fingerprint is not the one named, is refused saying so.

use std::sync::Arc;

use skidpad_core::race::{AiField, RaceRules, RaceTiming};
use skidpad_core::{Ground, Track, TrackDefinition, World, WorldConfig};
use skidpad_replay::{
    Limits, NoHooks, RecorderOptions, Replay, ReplayError, ReplayHeader, ReplayPlayer,
    ReplayRecorder, create_replay_world, decode_replay, encode_replay, verify_replay,
};

const DT: f64 = 1.0 / 60.0;

/// Brandwood's line with a lopsided road (3 m right, 9 m left of the
/// line), the line 400 m on and four sectors: a track no build knows.
fn own_track() -> Arc<Track> {
    let base = Track::builtin("brandwood").unwrap().definition().clone();
    let n = base.centre_line.len();
    Arc::new(
        Track::from_definition(TrackDefinition {
            name: "Lopsided Park".into(),
            width: None,
            widths: Some(vec![[3.0, 9.0]; n]),
            start: 400.0,
            sectors: Some(vec![300.0, 700.0, 1200.0]),
            ..base
        })
        .unwrap(),
    )
}

fn record(track: &Arc<Track>, steps: u64) -> Replay {
    record_carrying(track, steps, true)
}

/// [`record`], carrying the track's definition or (`carry` false) naming
/// it by fingerprint only.
fn record_carrying(track: &Arc<Track>, steps: u64, carry: bool) -> Replay {
    let mut world = World::new(WorldConfig::default()).unwrap();
    world.set_ground(Arc::new(track.ground().unwrap())).unwrap();
    AiField::new(2)
        .on_track_surface(None)
        .line_up(&mut world, track)
        .unwrap();
    let options = RecorderOptions {
        track: Some(track.clone()),
        carry_track: carry,
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options).unwrap();
    for _ in 0..steps {
        recorder.step(&mut world, DT).unwrap();
    }
    recorder.finish(&world).unwrap()
}

#[test]
fn a_replay_carries_its_own_track_and_verifies_from_the_file_alone() {
    let track = own_track();
    let replay = decode_replay(&encode_replay(&record(&track, 2400)).unwrap()).unwrap();
    assert_eq!(
        replay.header.metadata_value(ReplayHeader::TRACK_KEY),
        Some(track.fingerprint_hex().as_str())
    );
    assert!(replay.ground.is_none(), "the mesh is not carried");
    let carried = replay.header.track().unwrap().unwrap();
    assert_eq!(carried.fingerprint(), track.fingerprint());
    assert_eq!(carried.sectors(), &[300.0, 700.0, 1200.0]);

    // The world built from the file alone is on the track's ground.
    let world = create_replay_world(&replay).unwrap();
    let own_ground: &dyn Ground = &track.ground().unwrap();
    assert_eq!(world.ground().fingerprint(), own_ground.fingerprint());
    let report = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
    assert_eq!(report.desyncs, 0);
    assert_eq!(report.steps, 2400);

    // Laps are timed on the carried track's line (40 s: lap 1 is not
    // over yet, but both cars are on it, past the start line).
    let world = create_replay_world(&replay).unwrap();
    let mut race = RaceTiming::new(Arc::new(carried), RaceRules::default(), &world);
    let mut player = ReplayPlayer::new(world, &replay, NoHooks).unwrap();
    while player.advance().unwrap() {
        race.after_step(player.world()).unwrap();
    }
    for standing in race.standings() {
        let progress = race.progress(standing.car).unwrap();
        assert!(progress > 200.0, "{progress}");
    }
}

#[test]
fn a_builtin_track_is_named_not_carried() {
    let track = Arc::new(Track::builtin("hillcrest").unwrap());
    let replay = record(&track, 10);
    assert_eq!(
        replay.header.metadata_value(ReplayHeader::TRACK_KEY),
        Some("hillcrest")
    );
    assert_eq!(
        replay
            .header
            .metadata_value(ReplayHeader::TRACK_DEFINITION_KEY),
        None
    );
}

#[test]
fn an_own_track_not_carried_must_be_given_and_must_be_the_one_named() {
    let track = own_track();
    // Named by fingerprint only (`RecorderOptions::carry_track`).
    let replay = record_carrying(&track, 10, false);
    assert_eq!(
        replay.header.metadata_value(ReplayHeader::TRACK_KEY),
        Some(track.fingerprint_hex().as_str())
    );
    assert_eq!(
        replay
            .header
            .metadata_value(ReplayHeader::TRACK_DEFINITION_KEY),
        None
    );
    let missing = replay.header.track().unwrap_err().to_string();
    assert!(missing.contains("give the track's file"), "{missing}");
    let given = replay.header.track_with(Some(&track)).unwrap().unwrap();
    assert_eq!(given.fingerprint(), track.fingerprint());
    // Supplied beside it, the track plays as if carried.
    let mut supplied = replay.clone();
    supplied.header.supply_track(&track).unwrap();
    assert_eq!(
        supplied.header.track().unwrap().unwrap().fingerprint(),
        track.fingerprint()
    );
    let report = verify_replay(&supplied, NoHooks, &Limits::default()).unwrap();
    assert_eq!(report.desyncs, 0);
    let other = Track::builtin("brandwood").unwrap();
    let wrong = replay
        .header
        .track_with(Some(&other))
        .unwrap_err()
        .to_string();
    assert!(wrong.contains("not the replay's track"), "{wrong}");

    // A carried definition that is not the track named.
    let mut swapped = record(&track, 10);
    for (k, v) in &mut swapped.header.metadata {
        if k == ReplayHeader::TRACK_DEFINITION_KEY {
            *v = other.definition().to_compact_json();
        }
    }
    assert!(matches!(
        swapped.header.track(),
        Err(ReplayError::Metadata { key, .. }) if key == ReplayHeader::TRACK_DEFINITION_KEY
    ));
}

#[test]
fn the_recorder_writes_the_track_keys_itself() {
    let track = own_track();
    let mut world = World::new(WorldConfig::default()).unwrap();
    AiField::new(1).line_up(&mut world, &track).unwrap();
    let refused = |metadata: Vec<(String, String)>, track: Option<Arc<Track>>| {
        let options = RecorderOptions {
            metadata,
            track,
            ..RecorderOptions::default()
        };
        match ReplayRecorder::new(&world, options) {
            Err(e) => e.to_string(),
            Ok(_) => String::new(),
        }
    };
    let pair = |k: &str, v: &str| vec![(k.to_owned(), v.to_owned())];
    assert!(refused(pair("skidpad.track", "{}"), None).contains("written by the recorder"));
    assert!(refused(pair("track", "brandwood"), Some(track)).contains("give one"));
}
