//! Laps arrive as Bevy messages with the race layer's own times: three AI
//! cars lap brandwood through the plugin, and every `LapCompleted` equals
//! the lap a plain-Rust loop's `RaceTiming` gives, naming the car's
//! entity; the standings resource agrees too.

mod common;

use bevy_app::{App, Update};
use bevy_ecs::prelude::*;
use common::{FirstCar, brandwood, race_app_with, run_until, world_on};
use skidpad_bevy::{CarRegistry, LapCompleted, SkidpadRace, SkidpadWorld};
use skidpad_core::race::{GridLayout, Lap, RaceRules, RaceTiming, grid_pose};
use skidpad_core::{CarId, preset};

/// Every car completes its first lap on brandwood within 100 s.
const STEPS: u64 = 6_000;

#[derive(Resource, Default)]
struct Heard(Vec<(CarId, Option<Entity>, Lap)>);

fn listen(mut laps: MessageReader<LapCompleted>, mut heard: ResMut<Heard>) {
    for message in laps.read() {
        heard
            .0
            .push((message.car, message.entity, message.lap.clone()));
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
    let standings = app.world().resource::<SkidpadRace>().standings();
    assert_eq!(standings.len(), 3);
    assert_eq!(standings[0].position, 1);
}
