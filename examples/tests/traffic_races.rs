//! A field in traffic, measured as `VALIDATION.md`'s traffic table is
//! (`skidpad_examples::traffic_stats`): with racecraft every car of a 12-car
//! field finishes a lap of brandwood's surface, with at most a fifth of the
//! hard contacts per car-lap the same field has driving as if alone; and a
//! 20-car field with racecraft finishes a lap of a real circuit (Brands
//! Hatch, from the TUM racetrack database) under the table's target.

use std::sync::Arc;

use skidpad_core::Track;
use skidpad_examples::traffic_stats::{TrafficRace, run, run_on};
use skidpad_track_import::{ImportOptions, from_tum_csv};

#[test]
fn racecraft_cuts_hard_contacts_to_a_fifth_and_every_car_finishes() {
    let race = |racecraft| TrafficRace {
        track: "brandwood".into(),
        cars: 12,
        laps: 1,
        racecraft,
        resets_after: racecraft.map(|_| 10.0),
    };
    let alone = run(&race(None)).unwrap();
    let racing = run(&race(Some(1))).unwrap();
    println!("alone {alone:?}\nracing {racing:?}");
    assert!(
        alone.hard_contacts > 0,
        "the field alone collides: {alone:?}"
    );
    assert_eq!((racing.finished, racing.dnf), (12, 0), "{racing:?}");
    assert!(
        racing.hard_per_car_lap() <= alone.hard_per_car_lap() / 5.0,
        "racecraft {:.3} against alone {:.3} hard contacts per car-lap",
        racing.hard_per_car_lap(),
        alone.hard_per_car_lap()
    );
}

/// The table's target for racecraft: a fifth of the hard contacts per
/// car-lap of 20 cars alone on brandwood (3.43 at version 10), the
/// stricter of the two built-in tracks' (VALIDATION.md).
const HARD_PER_CAR_LAP_TARGET: f64 = 0.69;

#[test]
fn twenty_cars_with_racecraft_finish_a_lap_of_a_real_circuit_under_the_target() {
    let csv = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../track-import/tests/data/tum/BrandsHatch.csv"
    ))
    .unwrap();
    let circuit = from_tum_csv(&csv, &ImportOptions::named("Brands Hatch")).unwrap();
    let track = Arc::new(Track::from_definition(circuit).unwrap());
    let race = TrafficRace {
        track: String::new(),
        cars: 20,
        laps: 1,
        racecraft: Some(1),
        resets_after: Some(10.0),
    };
    let stats = run_on(track, &race).unwrap();
    println!("Brands Hatch, 20 cars with racecraft: {stats:?}");
    assert_eq!((stats.finished, stats.dnf), (20, 0), "{stats:?}");
    assert!(
        stats.hard_per_car_lap() <= HARD_PER_CAR_LAP_TARGET,
        "{:.3} hard contacts per car-lap, target {HARD_PER_CAR_LAP_TARGET}: {stats:?}",
        stats.hard_per_car_lap()
    );
    assert!(stats.places_gained > 0, "the field races: {stats:?}");
}
