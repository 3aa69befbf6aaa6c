//! The instant-replay ring (extraction at arbitrary moments plays bit for
//! bit and ends where the world is), highlights found by re-simulation,
//! and wall-clock playback with slow motion and rewind.

mod common;

use std::sync::Arc;

use common::{DT, race_world, script};
use skidpad_core::{
    CarInput, DriverStyle, InitialPose, Lod, LodSetting, Racecraft, Track, World, WorldConfig,
    preset,
};
use skidpad_replay::{
    HighlightKind, HighlightOptions, InstantReplayRing, Limits, NoHooks, PlaybackClock,
    RecorderOptions, ReplayPlayer, RingOptions, create_replay_world, find_highlights,
    verify_replay,
};

#[test]
fn extracting_at_any_moment_gives_a_replay_that_ends_here_and_verifies() {
    let mut world = race_world(3);
    let options = RingOptions {
        part_steps: 60,
        max_seconds: 5.0,
        max_bytes: 1 << 20,
    };
    let mut ring = InstantReplayRing::new(&world, RecorderOptions::default(), options).unwrap();
    // Moments from a fixed pseudo-random walk: inside parts, on part
    // boundaries, before the ring is full and long after.
    let mut moments = vec![1, 59, 60, 61, 200, 240, 599];
    let mut seed = 12_345_u64;
    for _ in 0..6 {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        moments.push(600 + seed % 600);
    }
    moments.sort_unstable();
    let mut step = 0;
    for &moment in &moments {
        while step < moment {
            script(&mut world, step);
            world.step(DT).unwrap();
            ring.after_step(&world).unwrap();
            step += 1;
        }
        let wanted = 3.0;
        let replay = ring.extract(&world, wanted).unwrap();
        let held = replay.duration();
        assert!(
            held >= wanted - 1e-9 || replay.header.start_step == 0,
            "at {moment}: {held} s"
        );
        // It ends at the world's current step, with the world's hash.
        assert_eq!(
            replay.header.start_step + replay.header.step_count,
            world.step_count()
        );
        assert_eq!(
            replay.keyframes.last().unwrap().world_hash,
            world.world_hash()
        );
        let report = verify_replay(&replay, NoHooks, &Limits::default()).unwrap();
        assert!(report.is_valid(), "at {moment}: {report:?}");
        assert_eq!(report.final_hash, world.world_hash());
        // Bounded: never more than max_seconds plus one part.
        assert!(
            ring.seconds() <= 5.0 + 60.0 * DT + 1e-9,
            "{}",
            ring.seconds()
        );
    }
    assert!(ring.bytes() > 0);
}

#[test]
fn the_ring_drops_old_parts_by_bytes_too() {
    let mut world = race_world(2);
    let options = RingOptions {
        part_steps: 30,
        max_seconds: 1000.0,
        max_bytes: 1,
    };
    let mut ring = InstantReplayRing::new(&world, RecorderOptions::default(), options).unwrap();
    for _ in 0..300 {
        ring.step(&mut world, DT).unwrap();
    }
    // Only the newest part stays, whatever its size.
    assert!((ring.seconds() - 30.0 * DT).abs() < 1e-9);
    let replay = ring.extract(&world, 100.0).unwrap();
    assert_eq!(replay.header.step_count, 30);
    assert!(
        InstantReplayRing::new(
            &world,
            RecorderOptions::default(),
            RingOptions {
                part_steps: 0,
                ..RingOptions::default()
            }
        )
        .is_err()
    );
}

/// A sports car 25 m behind a slower hatchback that keeps off the centre
/// line, both AI, on the single-track model (fast in debug builds), and a
/// third car without a driver thrown into a handbrake turn at speed. (Until
/// simulation version 11 both drove the centre line and the sports car
/// rammed the hatchback before passing it: a scenario that hung on how a
/// crash came out.)
fn eventful_world() -> (World, Arc<Track>) {
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = World::new(WorldConfig::default()).unwrap();
    let place =
        |back: f64| skidpad_core::race::pose_along(&track, track.length() - back, 0.0, 15.0);
    // The hatchback keeps 3 m left of the centre line at 80 % of the
    // pace; the sports car, on the centre line at full pace, catches it
    // and goes by on its right.
    for (name, back, racecraft) in [
        (
            "fwd_hatchback",
            20.0,
            Some(Racecraft {
                line_offset: 3.0,
                pace: 0.8,
                ..Racecraft::default()
            }),
        ),
        ("rwd_sports", 45.0, None),
    ] {
        let car = world.add_car(&preset(name).unwrap(), place(back)).unwrap();
        let style = DriverStyle {
            racecraft,
            ..DriverStyle::default()
        };
        world
            .set_driver_with_style(car, Some(track.clone()), style)
            .unwrap();
        world
            .set_lod(car, LodSetting::new(Lod::SingleTrack))
            .unwrap();
    }
    let drifter = world
        .add_car(
            &preset("rwd_sports").unwrap(),
            InitialPose {
                x: 0.0,
                y: 400.0,
                yaw: 0.0,
                speed: 25.0,
            },
        )
        .unwrap();
    world
        .set_input(
            drifter,
            CarInput {
                steer: -1.0,
                throttle: 0.6,
                handbrake: 1.0,
                ..CarInput::default()
            },
        )
        .unwrap();
    (world, track)
}

#[test]
fn highlights_find_the_overtake_the_slide_and_the_lap_record() {
    let (mut world, track) = eventful_world();
    let mut recorder =
        skidpad_replay::ReplayRecorder::new(&world, RecorderOptions::default()).unwrap();
    // Two crossings of the line for the hatchback: one lap, about 75 s.
    for _ in 0..60 * 95 {
        recorder.step(&mut world, DT).unwrap();
    }
    let replay = recorder.finish(&world).unwrap();
    let found = highlights(&replay, &track);
    let overtake = found.iter().find(|h| {
        matches!(
            h.kind,
            HighlightKind::Overtake { car, passed } if car.to_raw() == 1 && passed.to_raw() == 0
        )
    });
    assert!(overtake.is_some(), "{found:?}");
    let slide = found
        .iter()
        .find_map(|h| match h.kind {
            HighlightKind::BigSlide { car, angle } if car.to_raw() == 2 => Some((h.step, angle)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{found:?}"));
    assert!(slide.0 < 120 && slide.1 > 0.5, "{slide:?}");
    let record = found
        .iter()
        .find_map(|h| match h.kind {
            HighlightKind::LapRecord { time, .. } => Some(time),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{found:?}"));
    assert!((50.0..100.0).contains(&record), "{record}");
    // In step order, and the same on a second run.
    assert!(found.windows(2).all(|w| w[0].step <= w[1].step));
    assert_eq!(highlights(&replay, &track), found);
}

#[test]
fn the_clock_plays_slow_motion_and_rewinds_bit_for_bit() {
    let mut world = race_world(2);
    let mut recorder =
        skidpad_replay::ReplayRecorder::new(&world, RecorderOptions::default()).unwrap();
    let mut hashes = vec![world.world_hash()];
    for _ in 0..240 {
        recorder.step(&mut world, DT).unwrap();
        hashes.push(world.world_hash());
    }
    let replay = recorder.finish(&world).unwrap();
    let mut player =
        ReplayPlayer::new(create_replay_world(&replay).unwrap(), &replay, NoHooks).unwrap();
    // Quarter speed at 60 frames a second: a step every fourth frame, the
    // interpolation fraction stepping by a quarter in between.
    let mut clock = PlaybackClock::new(&replay, 0.25).unwrap();
    let mut alphas = Vec::new();
    for _ in 0..8 {
        alphas.push(clock.tick(&mut player, DT).unwrap());
    }
    assert_eq!(player.step(), 2);
    assert!((alphas[0] - 0.25).abs() < 1e-9 && (alphas[2] - 0.75).abs() < 1e-9);
    // Fast forward to the middle, then rewind at 2×: the world shows
    // exactly the recorded states on the way back.
    clock.set_speed(4.0).unwrap();
    while player.step() < 200 {
        clock.tick(&mut player, DT).unwrap();
    }
    clock.set_speed(-2.0).unwrap();
    for _ in 0..50 {
        clock.tick(&mut player, DT).unwrap();
        assert_eq!(
            player.world().world_hash(),
            hashes[player.step() as usize],
            "step {}",
            player.step()
        );
    }
    assert!(player.step() < 200);
    // Paused, wall time does nothing; bad speeds and times are refused.
    clock.set_paused(true);
    let at = player.step();
    clock.tick(&mut player, 1.0).unwrap();
    assert_eq!(player.step(), at);
    assert!(clock.set_speed(0.0).is_err() && clock.set_speed(100.0).is_err());
    assert!(clock.tick(&mut player, f64::NAN).is_err());
}

#[test]
fn highlights_report_a_hard_contact_once_with_its_largest_impulse() {
    // A sports car runs into a parked one on the start straight.
    let track = Track::builtin("brandwood").unwrap();
    let mut world = World::new(WorldConfig::default()).unwrap();
    for (x, speed) in [(0.0, 14.0), (14.0, 0.0)] {
        world
            .add_car(
                &preset("rwd_sports").unwrap(),
                InitialPose {
                    x,
                    speed,
                    ..InitialPose::default()
                },
            )
            .unwrap();
    }
    let mut recorder =
        skidpad_replay::ReplayRecorder::new(&world, RecorderOptions::default()).unwrap();
    let mut first_touch = None;
    for step in 0..180 {
        recorder.step(&mut world, DT).unwrap();
        if first_touch.is_none() && !world.contacts().is_empty() {
            // Highlight steps count steps played, from 1.
            first_touch = Some(step + 1);
        }
    }
    let replay = recorder.finish(&world).unwrap();
    let found = highlights(&replay, &track);
    let contacts: Vec<_> = found
        .iter()
        .filter_map(|h| match h.kind {
            HighlightKind::Contact {
                car,
                other,
                impulse,
            } => Some((h.step, car, other, impulse)),
            _ => None,
        })
        .collect();
    assert_eq!(contacts.len(), 1, "{found:?}");
    let (step, car, other, impulse) = contacts[0];
    assert_eq!(Some(step), first_touch);
    assert_eq!((car.to_raw(), other.map(|c| c.to_raw())), (0, Some(1)));
    // Equal masses, 14 m/s, restitution 0.3: about 1.3 × 1 350 kg × 7 m/s.
    assert!((8_000.0..16_000.0).contains(&impulse), "{impulse} N·s");
}

/// The replay's highlights with the default thresholds and limits.
fn highlights(replay: &skidpad_replay::Replay, track: &Track) -> Vec<skidpad_replay::Highlight> {
    find_highlights(
        replay,
        track,
        HighlightOptions::default(),
        &Limits::default(),
    )
    .unwrap()
}
