//! A field in traffic, measured as `VALIDATION.md`'s traffic table is
//! (`skidpad_examples::traffic_stats`): with racecraft every car of a 12-car
//! field finishes a lap of brandwood's surface, with at most a fifth of the
//! hard contacts per car-lap the same field has driving as if alone.

use skidpad_examples::traffic_stats::{TrafficRace, run};

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
