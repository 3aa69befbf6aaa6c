//! Laps arrive as Bevy messages with the race layer's own times: three AI
//! cars lap brandwood through the plugin, and every `LapCompleted` equals
//! the lap a plain-Rust loop's `RaceTiming` gives, naming the car's
//! entity; the standings resource agrees too. Each sector arrives as a
//! `SectorPassed` when the car ends it, before the lap, with the time the
//! lap then carries.

mod common;

use bevy_app::{App, Update};
use bevy_ecs::prelude::*;
use common::{FirstCar, brandwood, race_app_with, run_until, world_on};
use skidpad_bevy::{CarRegistry, LapCompleted, SectorPassed, SkidpadRace, SkidpadWorld};
use skidpad_core::race::{GridLayout, Lap, RaceRules, RaceTiming, grid_pose};
use skidpad_core::{CarId, preset};

/// Every car completes its first lap on brandwood within 100 s.
const STEPS: u64 = 6_000;

#[derive(Resource, Default)]
struct Heard(Vec<(CarId, Option<Entity>, Lap)>);

/// The sectors heard, each with the frame it was heard in.
#[derive(Resource, Default)]
struct HeardSectors(Vec<(u32, SectorPassed)>);

/// Frames run, and the frame each lap was heard in.
#[derive(Resource, Default)]
struct Frames(u32, Vec<u32>);

fn listen(
    mut laps: MessageReader<LapCompleted>,
    mut sectors: MessageReader<SectorPassed>,
    mut heard: ResMut<Heard>,
    mut heard_sectors: ResMut<HeardSectors>,
    mut frames: ResMut<Frames>,
) {
    frames.0 += 1;
    let frame = frames.0;
    for message in sectors.read() {
        heard_sectors.0.push((frame, *message));
    }
    for message in laps.read() {
        heard
            .0
            .push((message.car, message.entity, message.lap.clone()));
        frames.1.push(frame);
    }
}

fn plain_laps() -> Vec<(CarId, Lap)> {
    let track = brandwood();
    let mut world = world_on(&track);
    for (slot, name) in [(0, "rwd_sports"), (1, "fwd_hatchback"), (2, "rwd_sports")] {
        let car = world
            .add_car(
                &preset(name).unwrap(),
                grid_pose(&track, slot, &GridLayout::default()),
            )
            .unwrap();
        world.set_driver(car, Some(track.clone())).unwrap();
    }
    let mut race = RaceTiming::new(track, RaceRules::default(), &world);
    let mut laps = Vec::new();
    for _ in 0..STEPS {
        world.step(1.0 / 60.0).unwrap();
        for event in race.after_step(&world).unwrap() {
            if let skidpad_core::race::RaceEvent::Lap { car, lap } = event {
                laps.push((car, lap));
            }
        }
    }
    laps
}

#[test]
fn laps_arrive_as_messages_with_the_race_layers_times() {
    let mut app: App = race_app_with(60.0, STEPS, FirstCar::Ai);
    let race = SkidpadRace::new(
        brandwood(),
        RaceRules::default(),
        &app.world().resource::<SkidpadWorld>().0,
    );
    app.insert_resource(race)
        .init_resource::<Heard>()
        .init_resource::<HeardSectors>()
        .init_resource::<Frames>()
        .add_systems(Update, listen);
    run_until(&mut app, STEPS);
    app.update();
    let heard = &app.world().resource::<Heard>().0;
    let expected = plain_laps();
    assert!(
        expected.len() >= 3,
        "every car laps: {} laps",
        expected.len()
    );
    let got: Vec<(CarId, Lap)> = heard
        .iter()
        .map(|(car, _, lap)| (*car, lap.clone()))
        .collect();
    assert_eq!(got, expected);
    let registry = app.world().resource::<CarRegistry>();
    for (car, entity, _) in heard {
        assert_eq!(*entity, registry.entity(*car), "car {car}'s entity");
    }
    // Every timed lap's sectors came one by one as the car ended them,
    // with the times the lap carries; all but the last before the lap.
    let sectors = &app.world().resource::<HeardSectors>().0;
    let lap_frames = &app.world().resource::<Frames>().1;
    let mut timed = 0;
    for ((car, entity, lap), &lap_frame) in heard.iter().zip(lap_frames) {
        let mine: Vec<&(u32, SectorPassed)> = sectors
            .iter()
            .filter(|(_, s)| s.car == *car && s.lap == lap.number)
            .collect();
        let times: Vec<f64> = mine.iter().map(|(_, s)| s.time).collect();
        assert_eq!(times, lap.sectors, "car {car} lap {}", lap.number);
        for (k, (frame, s)) in mine.iter().enumerate() {
            assert_eq!((s.sector, s.entity), (k, *entity));
            assert!(s.at > lap.start && s.at <= lap.end);
            let last = k + 1 == mine.len();
            assert!(
                if last {
                    *frame == lap_frame
                } else {
                    *frame < lap_frame
                },
                "sector {k} heard at frame {frame}, the lap at {lap_frame}"
            );
        }
        timed += usize::from(!lap.sectors.is_empty());
    }
    // brandwood is cut in three: two sectors come before the lap.
    assert_eq!(brandwood().sectors().len(), 2);
    assert!(timed >= 1, "a lap with sectors: {heard:?}");
    let standings = app.world().resource::<SkidpadRace>().standings();
    assert_eq!(standings.len(), 3);
    assert_eq!(standings[0].position, 1);
}
