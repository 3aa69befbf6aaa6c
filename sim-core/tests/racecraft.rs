//! Drivers that race traffic (`Racecraft`): they brake for a slow car
//! ahead and pass it instead of running into it, their skills come from a
//! seed alone, and a racing field steps to the same bits on 1 and 4
//! threads (every driver reads one snapshot taken before the step).

use std::sync::Arc;

use skidpad_core::race::{AiField, GridLayout, grid_pose};
use skidpad_core::{DriverStyle, Racecraft, Track, World, WorldConfig, preset};

const DT: f64 = 1.0 / 60.0;

fn brandwood() -> Arc<Track> {
    Arc::new(Track::builtin("brandwood").unwrap())
}

/// A slow car (10 m/s at most, driving alone) on the grid's first slot
/// and a racing car on the second, on brandwood's surface.
fn slow_car_ahead(racecraft: Option<Racecraft>) -> World {
    let track = brandwood();
    let mut world = World::new(WorldConfig::default()).unwrap();
    world.set_ground(Arc::new(track.ground().unwrap())).unwrap();
    for (slot, style) in [
        DriverStyle {
            top_speed: 10.0,
            ..DriverStyle::default()
        },
        DriverStyle {
            racecraft,
            ..DriverStyle::default()
        },
    ]
    .into_iter()
    .enumerate()
    {
        let id = world
            .add_car(
                &preset("fwd_hatchback").unwrap(),
                grid_pose(&track, slot, &GridLayout::default()),
            )
            .unwrap();
        world
            .set_driver_with_style(id, Some(track.clone()), style)
            .unwrap();
    }
    world
}

/// Steps `world` for `seconds` and returns the largest car-to-car impulse
/// seen, N·s.
fn hardest_contact(world: &mut World, seconds: f64) -> f64 {
    let mut hardest: f64 = 0.0;
    for _ in 0..(seconds / DT) as usize {
        world.step(DT).unwrap();
        for c in world.contacts() {
            if c.second.is_some() {
                hardest = hardest.max(c.impulse);
            }
        }
    }
    hardest
}

#[test]
fn a_racing_driver_passes_a_slow_car_instead_of_running_into_it() {
    let track = brandwood();
    let mut alone = slow_car_ahead(None);
    let alone_hit = hardest_contact(&mut alone, 40.0);
    // Driving as if alone, the second car runs into the slow one.
    assert!(alone_hit > 500.0, "alone: hardest contact {alone_hit} N·s");

    let mut racing = slow_car_ahead(Some(Racecraft::default()));
    let racing_hit = hardest_contact(&mut racing, 40.0);
    assert_eq!(racing_hit, 0.0, "racing: no contact at all");
    // And it got by: further round the lap than the slow car.
    let progress = |world: &World, car: u32| {
        let pose = world.pose(skidpad_core::CarId::from_raw(car)).unwrap();
        track.locate(pose.position.truncate()).distance
    };
    assert!(
        progress(&racing, 1) > progress(&racing, 0),
        "the racing car passed: {} m against {} m",
        progress(&racing, 1),
        progress(&racing, 0)
    );
}

#[test]
fn skills_come_from_the_seed_alone_and_stay_in_range() {
    for driver in 0..64 {
        let a = Racecraft::varied(7, driver);
        assert_eq!(a, Racecraft::varied(7, driver));
        assert!(a.validated().is_ok(), "{a:?}");
        assert!((0.5..=1.1).contains(&a.headway) && (0.94..=1.0).contains(&a.pace));
        assert!(a.line_offset.abs() <= 1.0);
    }
    assert_ne!(Racecraft::varied(7, 0), Racecraft::varied(8, 0));
    assert_ne!(Racecraft::varied(7, 0), Racecraft::varied(7, 1));
    for bad in [
        Racecraft {
            headway: f64::NAN,
            ..Racecraft::default()
        },
        Racecraft {
            pace: 0.3,
            ..Racecraft::default()
        },
        Racecraft {
            line_offset: 50.0,
            ..Racecraft::default()
        },
    ] {
        let style = DriverStyle {
            racecraft: Some(bad),
            ..DriverStyle::default()
        };
        assert!(style.validated().is_err(), "{bad:?}");
    }
}

/// World hashes after each step of a 12-car racing field on brandwood's
/// surface.
fn racing_hashes(steps: usize) -> Vec<[u8; 32]> {
    let track = brandwood();
    let mut world = World::new(WorldConfig::default()).unwrap();
    world.set_ground(Arc::new(track.ground().unwrap())).unwrap();
    AiField::new(12)
        .on_track_surface(None)
        .racecraft(Some(3))
        .line_up(&mut world, &track)
        .unwrap();
    (0..steps)
        .map(|_| {
            world.step(DT).unwrap();
            world.world_hash()
        })
        .collect()
}

#[test]
fn a_racing_field_steps_to_the_same_bits_on_one_and_four_threads() {
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let one = pool(1).install(|| racing_hashes(600));
    let four = pool(4).install(|| racing_hashes(600));
    assert!(one == four, "racing field differs between 1 and 4 threads");
}
