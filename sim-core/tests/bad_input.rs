//! Bad input gets a clear error and changes nothing (SPEC §3.5, §4.1).
//! Every check compares the whole observable state before and after.

use skidpad_core::{
    CarId, CarInput, CoreError, GroundSlope, InitialPose, Lod, LodSetting, SurfaceId, Wheel, World,
    WorldConfig, preset,
};

/// Everything a caller can observe about a world, bit for bit.
#[derive(PartialEq)]
struct Observed {
    world_hash: [u8; 32],
    snapshots: Vec<Vec<u8>>,
    telemetry_bits: Vec<Vec<u64>>,
    step_count: u64,
}

fn observe(world: &World) -> Observed {
    let ids: Vec<CarId> = world.car_ids().collect();
    let bits = |id| {
        world
            .telemetry(id)
            .unwrap()
            .iter()
            .map(|v: &f64| v.to_bits())
            .collect()
    };
    Observed {
        world_hash: world.world_hash(),
        snapshots: ids.iter().map(|&id| world.snapshot(id).unwrap()).collect(),
        telemetry_bits: ids.iter().map(|&id| bits(id)).collect(),
        step_count: world.step_count(),
    }
}

fn driven_world() -> World {
    let mut world = World::new(WorldConfig::default()).unwrap();
    for name in ["fwd_hatchback", "rwd_sports"] {
        let id = world
            .add_car(&preset(name).unwrap(), InitialPose::default())
            .unwrap();
        world
            .set_input(
                id,
                CarInput {
                    throttle: 0.7,
                    steer: 0.2,
                    ..CarInput::default()
                },
            )
            .unwrap();
    }
    for _ in 0..30 {
        world.step(1.0 / 60.0).unwrap();
    }
    world
}

/// Runs `call`, requires an error whose message contains `expected`, and
/// requires the world to be exactly as before.
fn check_rejected<T: std::fmt::Debug>(
    world: &mut World,
    expected: &str,
    call: impl FnOnce(&mut World) -> Result<T, CoreError>,
) {
    let before = observe(world);
    let err = call(world).expect_err("bad input must be rejected");
    let message = err.to_string();
    assert!(
        message.contains(expected),
        "{message:?} should mention {expected:?}"
    );
    assert!(
        observe(world) == before,
        "rejected call changed the world: {message}"
    );
}

#[test]
fn non_finite_inputs_are_rejected_by_field() {
    let mut world = driven_world();
    for field in 0..6 {
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut values = CarInput::default().to_array();
            values[field] = bad;
            let name = CarInput::FIELD_NAMES[field];
            check_rejected(&mut world, name, |w| {
                w.set_input(CarId::from_raw(0), CarInput::from_array(values))
            });
        }
    }
}

#[test]
fn out_of_range_inputs_are_clamped_and_gear_rounded() {
    let mut world = driven_world();
    let wild = CarInput {
        steer: -7.0,
        throttle: 3.0,
        brake: -1.0,
        handbrake: 2.0,
        clutch: -0.0,
        gear: 2.6,
    };
    world.set_input(CarId::from_raw(0), wild).unwrap();
    let got = world.input(CarId::from_raw(0)).unwrap();
    assert_eq!(
        got,
        CarInput {
            steer: -1.0,
            throttle: 1.0,
            brake: 0.0,
            handbrake: 1.0,
            clutch: 0.0,
            gear: 3.0
        }
    );
    assert!(
        got.clutch.is_sign_positive(),
        "negative zero is canonicalized"
    );
}

#[test]
fn bad_timesteps_are_rejected_and_change_nothing() {
    let mut world = driven_world();
    for dt in [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        -1.0 / 60.0,
        0.250_000_1,
        1e300,
    ] {
        check_rejected(&mut world, "timestep", |w| w.step(dt));
    }
    world.step(0.25).expect("the longest legal step");
}

#[test]
fn unknown_car_ids_are_errors_everywhere() {
    let mut world = driven_world();
    let ghost = CarId::from_raw(2);
    let msg = "unknown car id 2";
    check_rejected(&mut world, msg, |w| w.set_input(ghost, CarInput::default()));
    check_rejected(&mut world, msg, |w| w.set_surface(ghost, SurfaceId::ICE));
    check_rejected(&mut world, msg, |w| {
        w.set_wheel_surface(ghost, Wheel::RearLeft, SurfaceId::ICE)
    });
    check_rejected(&mut world, msg, |w| {
        w.set_ground_slope(ghost, GroundSlope::FLAT)
    });
    check_rejected(&mut world, msg, |w| {
        w.set_lod(ghost, LodSetting::new(Lod::Frozen))
    });
    check_rejected(&mut world, msg, |w| w.set_driver(ghost, None));
    check_rejected(&mut world, msg, |w| w.restore(ghost, &[]));
    assert!(world.snapshot(ghost).is_err());
    assert!(world.car_hash(ghost).is_err());
    assert!(world.telemetry(ghost).is_err());
    assert!(world.pose(ghost).is_err());
    assert!(world.input(ghost).is_err());
}

#[test]
fn bad_settings_are_rejected() {
    let mut world = driven_world();
    let car = CarId::from_raw(1);
    check_rejected(&mut world, "surface id 16", |w| {
        w.set_surface(car, SurfaceId(16))
    });
    check_rejected(&mut world, "surface id 8", |w| {
        w.set_wheel_surface(car, Wheel::FrontLeft, SurfaceId(8))
    });
    for rate in [f64::NAN, 0.0, 5.0, 1e9] {
        check_rejected(&mut world, "substep rate", |w| {
            w.set_lod(car, LodSetting::with_rate(Lod::Full, rate))
        });
    }
    for grade in [f64::NAN, 1.5, -2.0] {
        check_rejected(&mut world, "grade", |w| {
            w.set_ground_slope(
                car,
                GroundSlope {
                    grade,
                    cross_slope: 0.0,
                },
            )
        });
    }
    check_rejected(&mut world, "cross_slope", |w| {
        w.set_ground_slope(
            car,
            GroundSlope {
                grade: 0.0,
                cross_slope: f64::INFINITY,
            },
        )
    });
    check_rejected(&mut world, "initial pose", |w| {
        w.add_car(
            &preset("rwd_sports").unwrap(),
            InitialPose {
                x: f64::NAN,
                ..InitialPose::default()
            },
        )
    });
    assert!(Wheel::from_index(4).is_none());
}

#[test]
fn initial_poses_are_bounded_so_the_car_can_step() {
    let mut world = driven_world();
    for (field, pose) in [
        (
            "speed",
            InitialPose {
                speed: 1e6,
                ..InitialPose::default()
            },
        ),
        (
            "speed",
            InitialPose {
                speed: -1001.0,
                ..InitialPose::default()
            },
        ),
        (
            "x",
            InitialPose {
                x: 2e6,
                ..InitialPose::default()
            },
        ),
        (
            "y",
            InitialPose {
                y: -2e6,
                ..InitialPose::default()
            },
        ),
        (
            "yaw",
            InitialPose {
                yaw: f64::INFINITY,
                ..InitialPose::default()
            },
        ),
    ] {
        check_rejected(&mut world, field, |w| {
            w.add_car(&preset("kart").unwrap(), pose)
        });
    }
    // The extremes that are accepted give a car that steps.
    for name in ["fwd_hatchback", "rwd_sports", "awd_rally", "kart"] {
        for speed in [InitialPose::MAX_SPEED, -InitialPose::MAX_SPEED] {
            let mut w = World::new(WorldConfig::default()).unwrap();
            let pose = InitialPose {
                x: InitialPose::MAX_POSITION,
                y: -InitialPose::MAX_POSITION,
                yaw: 1.0,
                speed,
            };
            w.add_car(&preset(name).unwrap(), pose).unwrap();
            for step in 0..60 {
                w.step(1.0 / 60.0)
                    .unwrap_or_else(|e| panic!("{name} at {speed} m/s, step {step}: {e}"));
            }
        }
    }
}

#[test]
fn driver_styles_are_validated_and_a_bad_one_keeps_the_old_driver() {
    use std::sync::Arc;

    use skidpad_core::{DriverStyle, Track};

    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = driven_world();
    world
        .set_driver(CarId::from_raw(0), Some(track.clone()))
        .unwrap();
    let fine = DriverStyle::default();
    let profile = world
        .driver(CarId::from_raw(0))
        .unwrap()
        .unwrap()
        .speed_profile()
        .to_vec();
    for (field, style) in [
        (
            "cornering_grip",
            DriverStyle {
                cornering_grip: f64::NAN,
                ..fine
            },
        ),
        (
            "braking_grip",
            DriverStyle {
                braking_grip: 0.0,
                ..fine
            },
        ),
        (
            "acceleration",
            DriverStyle {
                acceleration: -1.0,
                ..fine
            },
        ),
        (
            "lookahead_base",
            DriverStyle {
                lookahead_base: f64::INFINITY,
                ..fine
            },
        ),
        (
            "lookahead_time",
            DriverStyle {
                lookahead_time: -0.1,
                ..fine
            },
        ),
        (
            "top_speed",
            DriverStyle {
                top_speed: 1e9,
                ..fine
            },
        ),
    ] {
        check_rejected(&mut world, field, |w| {
            w.set_driver_with_style(CarId::from_raw(0), Some(track.clone()), style)
        });
        let kept = world
            .driver(CarId::from_raw(0))
            .unwrap()
            .expect("the old driver stays");
        assert_eq!(kept.speed_profile(), profile.as_slice());
    }
}

#[test]
fn a_step_that_leaves_the_bounds_is_rolled_back_whole() {
    // Car 1 is put just inside the position bound, moving out of it: the
    // step that carries it over must be undone for every car.
    let mut world = driven_world();
    let track = std::sync::Arc::new(skidpad_core::Track::builtin("brandwood").unwrap());
    world.set_driver(CarId::from_raw(0), Some(track)).unwrap();
    let good = world.snapshot(CarId::from_raw(1)).unwrap();
    let mut twin = driven_world();
    twin.set_driver(
        CarId::from_raw(0),
        world
            .driver(CarId::from_raw(0))
            .unwrap()
            .map(|d| d.track().clone()),
    )
    .unwrap();
    let mut edge = good.clone();
    // Layout (snapshot.rs): position x at byte 18, velocity x at byte 74.
    edge[18..26].copy_from_slice(&(1e7 - 1e-3_f64).to_le_bytes());
    edge[74..82].copy_from_slice(&50.0_f64.to_le_bytes());
    world.restore(CarId::from_raw(1), &edge).unwrap();
    let records_before: Vec<_> = world.last_step_records().to_vec();
    check_rejected(&mut world, "car 1", |w| w.step(1.0 / 60.0));
    assert_eq!(world.last_step_records(), records_before.as_slice());
    // Put the car back: the world then goes on exactly as one that never
    // took the failed step.
    world.restore(CarId::from_raw(1), &good).unwrap();
    for _ in 0..120 {
        world.step(1.0 / 60.0).unwrap();
        twin.step(1.0 / 60.0).unwrap();
        assert_eq!(world.world_hash(), twin.world_hash());
    }
    assert!(observe(&world) == observe(&twin));
}

#[test]
fn telemetry_describes_the_last_step_whenever_it_is_read() {
    // Telemetry is computed on first read. Read or unread, it must show
    // the last successful step: not an input set since, nor a step that
    // was rolled back.
    let setup = || {
        let mut world = driven_world();
        let mut edge = world.snapshot(CarId::from_raw(1)).unwrap();
        edge[18..26].copy_from_slice(&(1e7 - 1e-3_f64).to_le_bytes());
        edge[74..82].copy_from_slice(&50.0_f64.to_le_bytes());
        world.step(1.0 / 60.0).unwrap();
        (world, edge)
    };
    let (read_early, _) = setup();
    let expected: Vec<f64> = read_early.telemetry(CarId::from_raw(0)).unwrap().to_vec();

    let (mut world, _) = setup();
    let id = CarId::from_raw(0);
    world
        .set_input(
            id,
            CarInput {
                throttle: 0.1,
                ..CarInput::default()
            },
        )
        .unwrap();
    let throttle = read_early.channel(id, "input_throttle").unwrap();
    assert!((throttle - 0.7).abs() < 1e-4, "{throttle}");
    assert_eq!(world.channel(id, "input_throttle").unwrap(), throttle);
    assert_eq!(world.telemetry(id).unwrap(), expected.as_slice());

    // A refused step leaves the unread telemetry of the step before it.
    let (mut world, edge) = setup();
    world.restore(CarId::from_raw(1), &edge).unwrap();
    let restored: Vec<f64> = world.telemetry(CarId::from_raw(1)).unwrap().to_vec();
    assert!(world.step(1.0 / 60.0).is_err());
    assert_eq!(world.telemetry(id).unwrap(), expected.as_slice());
    assert_eq!(
        world.telemetry(CarId::from_raw(1)).unwrap(),
        restored.as_slice()
    );

    // Inputs set twice, unread, then a refused step: still the last step.
    let (mut world, edge) = setup();
    for throttle in [0.2, 0.9] {
        let input = CarInput {
            throttle,
            ..CarInput::default()
        };
        world.set_input(id, input).unwrap();
    }
    world.restore(CarId::from_raw(1), &edge).unwrap();
    assert!(world.step(1.0 / 60.0).is_err());
    assert_eq!(world.telemetry(id).unwrap(), expected.as_slice());
    let next = world.input(id).unwrap().throttle;
    assert!((next - 0.9).abs() < 1e-4, "the next step's input: {next}");
}

#[test]
fn corrupt_snapshots_are_refused_and_change_nothing() {
    let mut world = driven_world();
    let good = world.snapshot(CarId::from_raw(0)).unwrap();
    for len in 0..good.len() {
        check_rejected(&mut world, "expected", |w| {
            w.restore(CarId::from_raw(0), &good[..len])
        });
    }
    let mut longer = good.clone();
    longer.push(0);
    check_rejected(&mut world, "expected", |w| {
        w.restore(CarId::from_raw(0), &longer)
    });
    let mut bad_magic = good.clone();
    bad_magic[0] ^= 0xff;
    check_rejected(&mut world, "magic", |w| {
        w.restore(CarId::from_raw(0), &bad_magic)
    });
    let mut bad_version = good.clone();
    bad_version[6] ^= 0x01;
    check_rejected(&mut world, "simulation version", |w| {
        w.restore(CarId::from_raw(0), &bad_version)
    });
    check_rejected(&mut world, "different car definition", |w| {
        w.restore(CarId::from_raw(1), &good)
    });
    let mut nan = good.clone();
    nan[18..26].copy_from_slice(&f64::NAN.to_le_bytes());
    check_rejected(&mut world, "not finite", |w| {
        w.restore(CarId::from_raw(0), &nan)
    });
    let mut gear = good.clone();
    // The tail: gear (i32), LOD code, 4 surface ids, clutch flag.
    let gear_at = skidpad_core::SNAPSHOT_LEN - 10;
    gear[gear_at..gear_at + 4].copy_from_slice(&99_i32.to_le_bytes());
    check_rejected(&mut world, "gear 99", |w| {
        w.restore(CarId::from_raw(0), &gear)
    });
    let mut surface = good.clone();
    surface[skidpad_core::SNAPSHOT_LEN - 2] = 200;
    check_rejected(&mut world, "surface id 200", |w| {
        w.restore(CarId::from_raw(0), &surface)
    });
    let mut clutch = good.clone();
    *clutch.last_mut().unwrap() = 2;
    check_rejected(&mut world, "clutch flag 2", |w| {
        w.restore(CarId::from_raw(0), &clutch)
    });
    // Every single-byte corruption is either refused or yields a finite,
    // steppable state: never a panic.
    for i in 0..good.len() {
        let mut probe = world.clone();
        let mut bytes = good.clone();
        bytes[i] ^= 0x5a;
        if probe.restore(CarId::from_raw(0), &bytes).is_ok() {
            let _ = probe.step(1.0 / 60.0);
            assert!(
                probe
                    .telemetry(CarId::from_raw(0))
                    .unwrap()
                    .iter()
                    .all(|v| v.is_finite())
            );
        }
    }
}
