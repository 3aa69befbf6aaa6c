//! Flashback through the plugin: a race in which the player takes 12
//! detours and rewinds each one away (to a random depth within the
//! window) ends exactly as the same race driven without them: the world,
//! the race's laps and order, the ghost trail and the ghost rival's gap;
//! its replay verifies, ends on the live world's hash and counts the
//! rewinds. Refusals change nothing.

mod common;

use std::sync::Arc;

use bevy_app::{App, FixedPostUpdate};
use bevy_ecs::prelude::*;
use common::{Player, brandwood, race_app, run_until, world_on};
use skidpad_bevy::{
    CarControls, CarSpawn, FlashbackError, GhostRival, GhostTrail, ResetCar, Rewound,
    SimulationPaused, SkidpadCar, SkidpadRace, SkidpadSystems, SkidpadWorld, finish_recording,
    rewind, start_ring,
};
use skidpad_core::race::{GridLayout, RaceRules, grid_pose};
use skidpad_core::{CarInput, InitialPose, Track, preset};
use skidpad_ghost::{Ghost, GhostRecorder, encode_ghost};
use skidpad_replay::{Limits, NoHooks, RecorderOptions, RingOptions, encode_replay, verify};

const STOP: u64 = 6_000;

/// While on, the player leaves the scripted line: full lock and brakes.
#[derive(Resource, Default)]
struct Detour(bool);

fn take_detour(detour: Res<Detour>, mut player: Query<&mut CarControls, With<Player>>) {
    if detour.0 {
        for mut controls in &mut player {
            controls.0 = CarInput {
                steer: 0.6,
                brake: 0.7,
                ..CarInput::default()
            };
        }
    }
}

/// A lap of brandwood by the AI in the player's car: the rival's ghost.
fn ai_lap(track: &Arc<Track>) -> Ghost {
    let mut world = world_on(track);
    let pose = grid_pose(track, 0, &GridLayout::default());
    let car = world.add_car(&preset("rwd_sports").unwrap(), pose).unwrap();
    world.set_driver(car, Some(track.clone())).unwrap();
    let mut recorder = GhostRecorder::new(car);
    recorder.start_at(&world).unwrap();
    for _ in 0..5_000 {
        world.step(1.0 / 60.0).unwrap();
        recorder.after_step(&world).unwrap();
    }
    recorder.finish().unwrap()
}

/// The common race, timed, with a ghost trail and a rival on the player.
fn timed_race(ghost: &Ghost) -> App {
    let track = brandwood();
    let mut app = race_app(60.0, STOP);
    app.init_resource::<Detour>()
        .add_systems(FixedPostUpdate, take_detour.before(SkidpadSystems::Input));
    let race = SkidpadRace::new(
        track.clone(),
        RaceRules::default(),
        app.world().resource::<SkidpadWorld>(),
    );
    app.insert_resource(race);
    let player = app
        .world_mut()
        .query_filtered::<Entity, With<Player>>()
        .single(app.world())
        .unwrap();
    app.world_mut()
        .entity_mut(player)
        .insert((GhostTrail::default(), GhostRival::new(ghost, track.clone())));
    // The AI cars race the ghost too: they pass every sector.
    let others: Vec<Entity> = app
        .world_mut()
        .query_filtered::<Entity, (With<CarSpawn>, Without<Player>)>()
        .iter(app.world())
        .collect();
    for car in others {
        app.world_mut()
            .entity_mut(car)
            .insert(GhostRival::new(ghost, track.clone()));
    }
    app
}

/// What the tests compare of a race.
#[derive(Debug, PartialEq)]
struct Outcome {
    hash: [u8; 32],
    laps: Vec<Vec<skidpad_core::race::Lap>>,
    order: Vec<skidpad_core::CarId>,
    /// The trail's frames and a checksum of its file.
    trail: (usize, u64),
    /// Each rival whole (gap, splits passed, lap start), by car.
    rivals: Vec<String>,
}

fn outcome(app: &mut App) -> Outcome {
    let trail = {
        let mut query = app
            .world_mut()
            .query_filtered::<&GhostTrail, With<Player>>();
        let ghost = query.single(app.world()).unwrap().ghost().unwrap();
        let bytes = encode_ghost(&ghost).unwrap();
        let checksum = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        (ghost.len(), checksum)
    };
    let mut rivals: Vec<(SkidpadCar, String)> = app
        .world_mut()
        .query::<(&SkidpadCar, &GhostRival)>()
        .iter(app.world())
        .map(|(car, rival)| (*car, format!("{rival:?}")))
        .collect();
    rivals.sort_by_key(|(car, _)| *car);
    let world = app.world().resource::<SkidpadWorld>();
    let race = app.world().resource::<SkidpadRace>();
    Outcome {
        hash: world.world_hash(),
        laps: world
            .car_ids()
            .map(|c| race.timing().laps(c).unwrap().to_vec())
            .collect(),
        order: race.standings().iter().map(|s| s.car).collect(),
        trail,
        rivals: rivals.into_iter().map(|(_, r)| r).collect(),
    }
}

/// The AI car that jumps ahead in every detour: the last spawned.
fn jumper(app: &mut App) -> Entity {
    let mut cars: Vec<(SkidpadCar, Entity)> = app
        .world_mut()
        .query_filtered::<(&SkidpadCar, Entity), Without<Player>>()
        .iter(app.world())
        .map(|(car, entity)| (*car, entity))
        .collect();
    cars.sort_unstable();
    cars.last().expect("AI cars").1
}

fn step_count(app: &App) -> u64 {
    app.world().resource::<SkidpadWorld>().step_count()
}

#[test]
fn a_race_with_twelve_detours_rewound_away_ends_as_the_race_without_them() {
    let ghost = ai_lap(&brandwood());
    let mut unbroken = timed_race(&ghost);
    run_until(&mut unbroken, STOP);
    let expected = outcome(&mut unbroken);
    assert!(
        expected.laps.iter().any(|laps| !laps.is_empty()),
        "the race runs long enough for laps"
    );

    let mut app = timed_race(&ghost);
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut random = move |below: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % below
    };
    let mut taken_back = 0;
    for k in 0..12 {
        let leave = 300 + k * 450 + random(200);
        run_until(&mut app, leave);
        app.world_mut().resource_mut::<Detour>().0 = true;
        // And an AI car jumps 25 s ahead along the ghost's lap: its race
        // and its rival's splits run ahead in the abandoned steps.
        let ahead = &ghost.frames()[(leave as usize + 1_500).min(ghost.len() - 1)].pose;
        let entity = jumper(&mut app);
        app.world_mut().write_message(ResetCar {
            entity,
            pose: InitialPose {
                x: f64::from(ahead.x),
                y: f64::from(ahead.y),
                yaw: f64::from(ahead.yaw),
                speed: f64::from(ahead.speed),
            },
        });
        let detour = 20 + random(300);
        run_until(&mut app, leave + detour);
        app.world_mut().resource_mut::<Detour>().0 = false;
        // Back past the detour's start, by up to the window allows.
        let room = 600 - detour;
        let to = leave - random(room.min(leave) + 1);
        let now = step_count(&app);
        let rewound = rewind(app.world_mut(), to).expect("a rewind within the window");
        assert_eq!(
            rewound,
            Rewound {
                to_step: to,
                steps: now - to,
                seconds: (now - to) as f64 / 60.0
            }
        );
        assert_eq!(step_count(&app), to);
        taken_back += now - to;
    }
    run_until(&mut app, STOP);
    assert_eq!(outcome(&mut app), expected);

    let live = app.world().resource::<SkidpadWorld>().world_hash();
    let replay = finish_recording(app.world_mut()).unwrap();
    let report = verify(
        &encode_replay(&replay).unwrap(),
        NoHooks,
        &Limits::default(),
    )
    .unwrap();
    assert!(report.is_valid(), "{report:?}");
    assert_eq!(report.final_hash, live);
    assert_eq!(report.rewinds.count, 12);
    assert_eq!(report.rewinds.steps, taken_back);
}

#[test]
fn refused_rewinds_change_nothing() {
    let ghost = ai_lap(&brandwood());
    let mut app = timed_race(&ghost);
    run_until(&mut app, 900);
    app.world_mut().resource_mut::<SimulationPaused>().0 = true;
    let before = outcome(&mut app);

    // Past the window, now, ahead of now.
    for to in [200, 900, 5_000] {
        let refused = rewind(app.world_mut(), to).unwrap_err();
        assert!(matches!(refused, FlashbackError::Replay(_)), "{refused}");
    }
    // With a ring running, whose parts a rewind could not take back.
    start_ring(
        app.world_mut(),
        RecorderOptions::default(),
        RingOptions::default(),
    )
    .unwrap();
    assert!(matches!(
        rewind(app.world_mut(), 800),
        Err(FlashbackError::OtherRecording)
    ));
    skidpad_bevy::stop_ring(app.world_mut()).unwrap();
    assert_eq!(outcome(&mut app), before);

    // Without a recording there is nothing to go back through.
    finish_recording(app.world_mut()).unwrap();
    assert!(matches!(
        rewind(app.world_mut(), 800),
        Err(FlashbackError::NotRecording)
    ));
    assert_eq!(outcome(&mut app), before);
}
