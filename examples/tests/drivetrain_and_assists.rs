//! The drivetrain and the driver assists, each against what a driver
//! would expect of a real car: the automatic gearbox shifts in order, a
//! manual one takes the gear asked for, the clutch pulls away, engine
//! braking and the limiter, differentials on split friction, traction
//! control, ABS in telemetry, stability control in a sine with dwell; and
//! every preset loads by name.

use skidpad_core::{
    CarDefinition, CarId, CarInput, DifferentialKind, InitialPose, ShiftMode, SurfaceId, Wheel,
    World, WorldConfig,
};
use skidpad_examples::manoeuvres::{self, ALL, KMH_100, ROAD, car};

const DT: f64 = 1.0 / 60.0;

/// One car on dry asphalt.
fn world_with(def: &CarDefinition, speed: f64) -> (World, CarId) {
    let mut world = World::new(WorldConfig::default()).unwrap();
    let pose = InitialPose {
        speed,
        ..InitialPose::default()
    };
    let id = world.add_car(def, pose).unwrap();
    (world, id)
}

fn run(world: &mut World, id: CarId, input: CarInput, seconds: f64) {
    world.set_input(id, input).unwrap();
    for _ in 0..(seconds / DT) as usize {
        world.step(DT).unwrap();
    }
}

fn full_throttle() -> CarInput {
    CarInput {
        throttle: 1.0,
        gear: 1.0,
        ..CarInput::default()
    }
}

#[test]
fn the_automatic_gearbox_shifts_up_in_order_and_does_not_hunt() {
    for name in ROAD {
        let def = car(name).unwrap();
        let (mut world, id) = world_with(&def, 0.0);
        world.set_input(id, full_throttle()).unwrap();
        let mut gears = vec![];
        for _ in 0..(40.0 / DT) as usize {
            world.step(DT).unwrap();
            gears.push(world.channel(id, "gear").unwrap());
        }
        // Under full throttle: never a downshift, and each upshift by one.
        for pair in gears.windows(2) {
            assert!(
                pair[1] == pair[0] || pair[1] == pair[0] + 1.0,
                "{name}: {pair:?}"
            );
        }
        assert!(
            *gears.last().unwrap() >= 4.0,
            "{name} reached gear {:?}",
            gears.last()
        );
        // Cruising at a steady part throttle: no shifting back and forth.
        run(
            &mut world,
            id,
            CarInput {
                throttle: 0.25,
                gear: 1.0,
                ..CarInput::default()
            },
            10.0,
        );
        let mut changes = 0;
        let mut last = world.channel(id, "gear").unwrap();
        for _ in 0..(10.0 / DT) as usize {
            world.step(DT).unwrap();
            let gear = world.channel(id, "gear").unwrap();
            changes += usize::from(gear != last);
            last = gear;
        }
        assert!(
            changes <= 1,
            "{name}: {changes} shifts in 10 s of steady cruising"
        );
    }
}

#[test]
fn a_manual_gearbox_takes_the_gear_asked_for_including_reverse() {
    let mut def = car("rwd_sports").unwrap();
    def.gearbox.mode = ShiftMode::Manual;
    let (mut world, id) = world_with(&def, 0.0);
    let reverse = CarInput {
        throttle: 0.5,
        gear: -1.0,
        ..CarInput::default()
    };
    run(&mut world, id, reverse, 3.0);
    assert_eq!(world.channel(id, "gear").unwrap(), -1.0);
    assert!(world.channel(id, "vx").unwrap() < -2.0, "backing up");
    let neutral = CarInput {
        brake: 1.0,
        ..CarInput::default()
    };
    run(&mut world, id, neutral, 3.0);
    assert_eq!(world.channel(id, "gear").unwrap(), 0.0);
    let second = CarInput {
        throttle: 1.0,
        gear: 2.0,
        ..CarInput::default()
    };
    run(&mut world, id, second, 4.0);
    assert_eq!(world.channel(id, "gear").unwrap(), 2.0);
    assert!(world.channel(id, "vx").unwrap() > 5.0);
}

#[test]
fn the_clutch_pulls_away_without_stalling_and_the_pedal_declutches() {
    for name in ALL {
        let def = car(name).unwrap();
        let idle = def.engine.idle_rpm;
        let (mut world, id) = world_with(&def, 0.0);
        // In gear at rest with the engine idling, the car stays put: the
        // clutch is below its bite point.
        run(
            &mut world,
            id,
            CarInput {
                gear: 1.0,
                ..CarInput::default()
            },
            2.0,
        );
        assert!(world.channel(id, "speed").unwrap() < 0.01, "{name} crept");
        let rpm = world.channel(id, "engine_rpm").unwrap();
        assert!(
            (rpm - idle).abs() < 0.05 * idle,
            "{name} idles at {rpm:.0} rpm"
        );
        // Part throttle: the clutch slips (engine faster than the
        // driveline), then locks, and the engine never drops below idle.
        let input = CarInput {
            throttle: 0.5,
            gear: 1.0,
            ..CarInput::default()
        };
        world.set_input(id, input).unwrap();
        let (mut slipped, mut min_rpm) = (false, f64::INFINITY);
        for _ in 0..(6.0 / DT) as usize {
            world.step(DT).unwrap();
            let rpm = world.channel(id, "engine_rpm").unwrap();
            min_rpm = min_rpm.min(rpm);
            let torque = world.channel(id, "clutch_torque").unwrap();
            let engine = world.channel(id, "engine_torque").unwrap();
            slipped |= torque < engine - 1.0;
        }
        assert!(slipped, "{name}: the clutch slipped while pulling away");
        assert!(
            min_rpm >= 0.95 * idle,
            "{name}: no stall ({min_rpm:.0} rpm)"
        );
        assert!(
            world.channel(id, "speed").unwrap() > 3.0,
            "{name} pulled away"
        );
        // Pedal down at speed: nothing reaches the wheels and the free
        // engine revs on the throttle.
        let declutched = CarInput {
            throttle: 1.0,
            clutch: 1.0,
            gear: 1.0,
            ..CarInput::default()
        };
        run(&mut world, id, declutched, 1.0);
        assert_eq!(world.channel(id, "clutch_torque").unwrap(), 0.0, "{name}");
        let free = world.channel(id, "engine_rpm").unwrap();
        assert!(
            free > 0.9 * def.engine.limiter_rpm,
            "{name} free-revs to {free:.0} rpm"
        );
    }
}

#[test]
fn the_engine_brakes_the_car_and_respects_its_limiter() {
    let mut def = car("rwd_sports").unwrap();
    def.gearbox.mode = ShiftMode::Manual;
    // Coasting from 90 km/h for 3 s: in third gear the engine brakes the
    // car; in neutral only drag and rolling resistance do.
    let coast = |gear: f64| {
        let (mut world, id) = world_with(&def, 25.0);
        run(
            &mut world,
            id,
            CarInput {
                gear,
                ..CarInput::default()
            },
            3.0,
        );
        world.channel(id, "speed").unwrap()
    };
    let (in_gear, neutral) = (coast(3.0), coast(0.0));
    assert!(
        in_gear < neutral - 0.5,
        "in gear {in_gear:.2} m/s, neutral {neutral:.2} m/s"
    );
    // Full throttle in first gear: the engine holds at its limiter.
    let (mut world, id) = world_with(&def, 0.0);
    let first = CarInput {
        throttle: 1.0,
        gear: 1.0,
        ..CarInput::default()
    };
    world.set_input(id, first).unwrap();
    let mut top = 0.0_f64;
    for _ in 0..(8.0 / DT) as usize {
        world.step(DT).unwrap();
        top = top.max(world.channel(id, "engine_rpm").unwrap());
    }
    let limiter = def.engine.limiter_rpm;
    assert!(
        top > 0.97 * limiter && top < 1.02 * limiter,
        "peak {top:.0} rpm, limiter {limiter}"
    );
}

/// Speed after 3 s of `throttle` with the given wheels on ice.
fn split_mu_launch(def: &CarDefinition, on_ice: &[Wheel], throttle: f64) -> f64 {
    let (mut world, id) = world_with(def, 0.0);
    for &w in on_ice {
        world.set_wheel_surface(id, w, SurfaceId::ICE).unwrap();
    }
    let input = CarInput {
        throttle,
        gear: 1.0,
        ..CarInput::default()
    };
    run(&mut world, id, input, 3.0);
    world.channel(id, "speed").unwrap()
}

#[test]
fn locked_and_limited_slip_differentials_pull_away_on_split_friction() {
    // Rear-left wheel on ice: an open differential sends both wheels the
    // torque the icy one can take; locking it lets the dry wheel drive. A
    // driver's part throttle, so the dry wheel is not spun past its grip.
    const THROTTLE: f64 = 0.6;
    let mut def = car("rwd_sports").unwrap();
    let open = split_mu_launch(&def, &[Wheel::RearLeft], THROTTLE);
    def.differentials.rear = DifferentialKind::LimitedSlip {
        preload: 100.0,
        lock_ratio: 0.5,
    };
    let lsd = split_mu_launch(&def, &[Wheel::RearLeft], THROTTLE);
    def.differentials.rear = DifferentialKind::Locked;
    let locked = split_mu_launch(&def, &[Wheel::RearLeft], THROTTLE);
    assert!(
        lsd > 1.3 * open && lsd <= 1.01 * locked,
        "open {open:.2}, LSD {lsd:.2}, locked {locked:.2} m/s"
    );
    assert!(
        locked > 1.3 * open,
        "open {open:.2}, locked {locked:.2} m/s"
    );
}

#[test]
fn the_awd_centre_differential_splits_torque_and_can_lock() {
    let mut def = car("awd_rally").unwrap();
    def.differentials.front = DifferentialKind::Open;
    def.differentials.rear = DifferentialKind::Open;
    // Front axle on ice: an open centre differential limits the rear to
    // what the front can take (times the split ratio).
    def.differentials.centre.coupling = DifferentialKind::Open;
    let open = split_mu_launch(&def, &[Wheel::FrontLeft, Wheel::FrontRight], 1.0);
    def.differentials.centre.coupling = DifferentialKind::Locked;
    let locked = split_mu_launch(&def, &[Wheel::FrontLeft, Wheel::FrontRight], 1.0);
    assert!(
        locked > 1.3 * open,
        "open {open:.2}, locked {locked:.2} m/s"
    );
    // On dry ground the split shows in the wheel torques.
    let (mut world, id) = world_with(&car("awd_rally").unwrap(), 5.0);
    run(&mut world, id, full_throttle(), 0.2);
    let fx = |w: &str| world.channel(id, &format!("wheel_{w}_fx")).unwrap();
    assert!(fx("fl") > 0.0 && fx("rl") > 0.0, "all four wheels drive");
}

#[test]
fn traction_control_holds_the_driven_wheels_near_peak_slip() {
    let mut def = car("rwd_sports").unwrap();
    let launch = |def: &CarDefinition| {
        let (mut world, id) = world_with(def, 0.0);
        world.set_surface(id, SurfaceId::WET_ASPHALT).unwrap();
        run(&mut world, id, full_throttle(), 1.5);
        (
            world.channel(id, "wheel_rl_slip_ratio").unwrap(),
            world.channel(id, "tc_active").unwrap(),
            world.channel(id, "speed").unwrap(),
        )
    };
    let (slip_off, active_off, speed_off) = launch(&def);
    def.assists.traction_control = true;
    let (slip_on, active_on, speed_on) = launch(&def);
    assert_eq!(active_off, 0.0);
    assert!(active_on > 0.0, "TC acts");
    assert!(
        slip_on < slip_off && slip_on < 0.3,
        "slip {slip_on:.3} with TC, {slip_off:.3} without"
    );
    assert!(
        speed_on >= 0.95 * speed_off,
        "TC loses little drive: {speed_on:.2} vs {speed_off:.2}"
    );
}

#[test]
fn abs_activity_shows_in_telemetry() {
    let mut def = car("fwd_hatchback").unwrap();
    def.assists.abs = true;
    let (mut world, id) = world_with(&def, KMH_100);
    run(
        &mut world,
        id,
        CarInput {
            brake: 1.0,
            ..CarInput::default()
        },
        0.5,
    );
    assert!(world.channel(id, "abs_active").unwrap() > 0.0);
    let slip = world.channel(id, "wheel_fl_slip_ratio").unwrap();
    assert!(
        slip > -0.3,
        "ABS keeps the front wheels turning: slip {slip:.3}"
    );
    let (mut plain, car_id) = world_with(&car("fwd_hatchback").unwrap(), KMH_100);
    run(
        &mut plain,
        car_id,
        CarInput {
            brake: 1.0,
            ..CarInput::default()
        },
        0.5,
    );
    assert_eq!(plain.channel(car_id, "abs_active").unwrap(), 0.0);
    assert!(
        plain.channel(car_id, "wheel_fl_slip_ratio").unwrap() < -0.9,
        "locked"
    );
}

#[test]
fn stability_control_passes_a_sine_with_dwell_that_spins_the_car_without_it() {
    // The FMVSS 126 manoeuvre at 80 km/h on a wet road, throttle released:
    // a 0.7 Hz sine of half lock with a 0.5 s dwell at its second peak.
    // Pass mark (FMVSS 126): 1 s after the steering ends the yaw rate is
    // below 35 % of its peak. Without stability control the RWD car spins.
    let mut def = car("rwd_sports").unwrap();
    let (ratio_off, slip_off, esc_off) =
        manoeuvres::sine_with_dwell(&def, 0.5, SurfaceId::WET_ASPHALT).unwrap();
    def.assists.stability_control = true;
    let (ratio_on, slip_on, esc_on) =
        manoeuvres::sine_with_dwell(&def, 0.5, SurfaceId::WET_ASPHALT).unwrap();
    assert_eq!(esc_off, 0.0);
    assert!(
        ratio_off > 0.35 && slip_off > 20.0,
        "without ESC: ratio {ratio_off:.2}, slip {slip_off:.1}°"
    );
    assert!(esc_on > 0.0, "ESC acts");
    assert!(
        ratio_on < 0.35 && slip_on < 10.0,
        "with ESC: ratio {ratio_on:.2}, slip {slip_on:.1}°"
    );
}

#[test]
fn every_preset_is_a_json_file_loadable_by_name() {
    let names = skidpad_core::preset_names();
    for name in ALL {
        assert!(names.contains(&name), "{name}");
        let def = car(name).unwrap();
        assert_eq!(CarDefinition::from_json(&def.to_json()).unwrap(), def);
    }
}
