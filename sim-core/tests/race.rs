//! The race layer on a real field: standings, gaps, finishing, retiring,
//! and the grid.

use std::sync::Arc;

use skidpad_core::glam::DVec2;
use skidpad_core::race::{CarStatus, GridLayout, RaceEvent, RaceRules, RaceTiming, grid_pose};
use skidpad_core::{CarId, Track, World, WorldConfig, preset};

const DT: f64 = 1.0 / 60.0;

fn brandwood() -> Arc<Track> {
    Arc::new(Track::builtin("brandwood").unwrap())
}

/// A field of AI karts on the default grid.
fn field(track: &Arc<Track>, cars: usize) -> World {
    let mut world = World::new(WorldConfig::default()).unwrap();
    for slot in 0..cars {
        let id = world
            .add_car(
                &preset("kart").unwrap(),
                grid_pose(track, slot, &GridLayout::default()),
            )
            .unwrap();
        world.set_driver(id, Some(track.clone())).unwrap();
    }
    world
}

#[test]
fn grid_slots_stand_behind_the_line_two_abreast_facing_along_the_track() {
    let track = brandwood();
    let layout = GridLayout::default();
    for slot in 0..6 {
        let pose = grid_pose(&track, slot, &layout);
        let at = track.locate(DVec2::new(pose.x, pose.y));
        let behind = track.length() - at.distance;
        let row = (slot / 2) as f64;
        assert!((behind - (layout.first_row + layout.row_spacing * row)).abs() < 1e-6);
        let side = if slot % 2 == 0 { 2.5 } else { -2.5 };
        assert!((at.offset - side).abs() < 1e-6, "slot {slot}: {at:?}");
        let (_, d) = track.point_at(at.distance);
        let heading = DVec2::new(libm::cos(pose.yaw), libm::sin(pose.yaw));
        assert!(
            (heading - d).length() < 1e-12,
            "slot {slot}: {heading} vs {d}"
        );
    }
}

#[test]
fn standings_order_the_field_by_distance_and_gaps_grow_from_the_leader() {
    let track = brandwood();
    let mut world = field(&track, 4);
    let mut race = RaceTiming::new(track.clone(), RaceRules::default(), &world);
    for _ in 0..60 * 40 {
        world.step(DT).unwrap();
        race.after_step(&world).unwrap();
    }
    let standings = race.standings();
    assert_eq!(standings.len(), 4);
    assert_eq!(standings[0].gap, Some(0.0));
    for pair in standings.windows(2) {
        assert!(pair[0].progress >= pair[1].progress);
        assert_eq!(pair[1].position, pair[0].position + 1);
        assert!(pair[1].gap.unwrap() >= 0.0, "{standings:?}");
    }
}

/// Steps `world` (calling `before_step` first) and times it until no car
/// is running, 200 s at most; the timing's events.
fn race_until_done(
    world: &mut World,
    race: &mut RaceTiming,
    mut before_step: impl FnMut(u64, &mut World, &mut RaceTiming),
) -> Vec<RaceEvent> {
    let mut events = Vec::new();
    for step in 0..60 * 200 {
        before_step(step, world, race);
        world.step(DT).unwrap();
        events.extend(race.after_step(world).unwrap());
        if race
            .standings()
            .iter()
            .all(|s| !matches!(s.status, CarStatus::Running))
        {
            break;
        }
    }
    events
}

#[test]
fn a_race_of_laps_finishes_cars_in_crossing_order_and_retires_a_removed_one() {
    let track = brandwood();
    let mut world = field(&track, 3);
    let rules = RaceRules {
        laps: Some(1),
        ..RaceRules::default()
    };
    let mut race = RaceTiming::new(track.clone(), rules, &world);
    let last = CarId::from_raw(2);
    let events = race_until_done(&mut world, &mut race, |step, world, _| {
        if step == 600 {
            world.remove_car(last).unwrap();
        }
    });
    let retired = events
        .iter()
        .find_map(|e| match e {
            RaceEvent::Retired { car, time } => Some((*car, *time)),
            _ => None,
        })
        .expect("a retirement");
    assert_eq!(retired.0, last);
    assert!((retired.1 - 601.0 * DT).abs() < 1e-9);
    let finished: Vec<(CarId, f64)> = events
        .iter()
        .filter_map(|e| match e {
            RaceEvent::Finished { car, time } => Some((*car, *time)),
            _ => None,
        })
        .collect();
    assert_eq!(finished.len(), 2, "{events:?}");
    assert!(finished[0].1 <= finished[1].1);
    let standings = race.standings();
    assert_eq!(standings[0].car, finished[0].0);
    assert_eq!(standings[1].car, finished[1].0);
    assert_eq!(standings[2].car, last);
    assert_eq!(standings[2].status, CarStatus::Retired(retired.1));
    // Each finisher's one lap is its standing lap, and its time is the
    // finish time.
    for (car, time) in finished {
        let laps = race.laps(car).unwrap();
        assert_eq!(laps.len(), 1);
        assert_eq!(laps[0].end, time);
        assert_eq!(laps[0].start, 0.0);
    }
}

/// One AI kart on the grid of brandwood, timed over one lap.
fn one_lap_of_one_kart() -> (Arc<Track>, World, RaceRules, RaceTiming) {
    let track = brandwood();
    let world = field(&track, 1);
    let rules = RaceRules {
        laps: Some(1),
        ..RaceRules::default()
    };
    let race = RaceTiming::new(track.clone(), rules, &world);
    (track, world, rules, race)
}

/// Adds an AI kart on the grid's second slot.
fn kart_on_slot_1(track: &Arc<Track>, world: &mut World) -> (CarId, skidpad_core::InitialPose) {
    let pose = grid_pose(track, 1, &GridLayout::default());
    let car = world.add_car(&preset("kart").unwrap(), pose).unwrap();
    world.set_driver(car, Some(track.clone())).unwrap();
    (car, pose)
}

#[test]
fn a_car_that_joins_a_running_race_is_timed_from_where_it_joined() {
    let (track, mut world, _, mut race) = one_lap_of_one_kart();
    let mut joined = None;
    let events = race_until_done(&mut world, &mut race, |step, world, race| {
        if step == 300 {
            // Joins on the grid five seconds in, as an online player would.
            let (car, pose) = kart_on_slot_1(&track, world);
            assert!(race.join(car, DVec2::new(pose.x, pose.y)));
            assert!(!race.join(car, DVec2::ZERO), "a car is timed once");
            joined = Some(car);
        }
    });
    let joined = joined.unwrap();
    let laps = race.laps(joined).expect("the joined car is timed");
    assert_eq!(laps.len(), 1, "{events:?}");
    assert!(
        (laps[0].start - 300.0 * DT).abs() < 1e-9,
        "its lap starts when it joined: {}",
        laps[0].start
    );
    let first = race.laps(CarId::from_raw(0)).unwrap();
    // Same kart, same AI, from the neighbouring slot: about the same lap.
    assert!(
        (laps[0].time() - first[0].time()).abs() < 2.0,
        "{} vs {}",
        laps[0].time(),
        first[0].time()
    );
}

#[test]
fn a_car_the_world_gains_unannounced_is_timed_from_the_first_observation_that_sees_it() {
    // A replay's player puts a late car in the world where it arrived;
    // timing that observes the world (an export, the highlights) takes it
    // from there without being told.
    let (track, mut world, rules, mut race) = one_lap_of_one_kart();
    let mut joined = None;
    race_until_done(&mut world, &mut race, |step, world, _| {
        if step == 300 {
            joined = Some(kart_on_slot_1(&track, world).0);
        }
    });
    let laps = race.laps(joined.unwrap()).expect("the car is timed");
    assert_eq!(laps.len(), 1);
    // Seen first after step 301: its lap starts there, standing.
    assert!(
        (laps[0].start - 301.0 * DT).abs() < 1e-9,
        "{}",
        laps[0].start
    );
    assert_eq!(laps[0].kind, skidpad_core::race::LapStart::Standing);
    // Positions given by a host without a world: a car listed with a
    // position for the first time joins then; one listed without is not.
    let mut timing = RaceTiming::from_positions(track.clone(), rules, &[]);
    let (a, b) = (CarId::from_raw(0), CarId::from_raw(1));
    let (p, _) = track.point_at(track.length() - 5.0);
    timing.observe_positions(1.0, &[(a, Some(p)), (b, None)]);
    assert!(timing.laps(a).is_some() && timing.laps(b).is_none());
    assert!(timing.progress(a).is_some());
}

#[test]
fn a_lap_with_a_reset_does_not_count_and_the_next_one_does() {
    let track = brandwood();
    let mut world = field(&track, 2);
    let rules = RaceRules {
        laps: Some(2),
        ..RaceRules::default()
    };
    let mut race = RaceTiming::new(track.clone(), rules, &world);
    let reset = CarId::from_raw(1);
    // Halfway round its first lap, car 1 is put back where it stands, at
    // rest: it loses time and the lap, nothing else.
    let events = race_until_done(&mut world, &mut race, |step, world, _| {
        if step == 1500 {
            let pose = world.pose(reset).unwrap();
            let at = skidpad_core::InitialPose {
                x: pose.position.x,
                y: pose.position.y,
                yaw: pose.yaw,
                speed: 0.0,
            };
            world.reset_car(reset, at).unwrap();
        }
    });
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, RaceEvent::Finished { .. }))
            .count(),
        2,
        "{events:?}"
    );
    let valid = |car: u32| -> Vec<bool> {
        race.laps(CarId::from_raw(car))
            .unwrap()
            .iter()
            .map(|l| l.is_valid())
            .collect()
    };
    assert_eq!(valid(0), [true, true]);
    assert_eq!(valid(1), [false, true]);
    let lap = &race.laps(reset).unwrap()[0];
    let why = lap
        .faults
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ");
    assert!(
        why.contains("was reset onto the track at t = 25.000 s"),
        "{why}"
    );
}
