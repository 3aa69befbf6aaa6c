//! The validation suite of SPEC §4.7 (issue "vehicle-model depth"), each
//! manoeuvre with its tolerance written here. Expected values come from
//! theory computed from the car definition (`validation::friction_bound_100`,
//! `validation::theory_understeer_gradient`), not from earlier runs.
//! `cargo run --release -p skidpad-examples --example validation` prints
//! the same figures as `VALIDATION.md`'s table.

use skidpad_core::{
    CarDefinition, CarId, CarInput, DifferentialKind, DifferentialsDefinition, InitialPose, Lod,
    ShiftMode, SurfaceId, Wheel, World, WorldConfig,
};
use skidpad_examples::validation::{
    self, ALL, KMH_100, LATERAL_G, LINEAR_G, ROAD, SPEED_TEST_G, Stepping, ZERO_TO_100_RANGES, car,
    constant_radius, constant_speed, double_lane_change, friction_bound_100, step_steer,
    stop_from_100, theory_understeer_gradient, zero_to_100,
};

const DT: f64 = 1.0 / 60.0;

#[test]
fn zero_to_100_takes_as_long_as_for_real_cars_of_each_kind() {
    // Ranges for production cars of each kind: `ZERO_TO_100_RANGES`.
    for (name, lo, hi) in ZERO_TO_100_RANGES {
        let t = zero_to_100(&car(name).unwrap(), Stepping::FULL)
            .unwrap()
            .expect("reaches 100 km/h");
        assert!((lo..=hi).contains(&t), "{name}: {t:.2} s");
    }
}

#[test]
fn locked_wheel_stops_are_longer_than_the_friction_bound() {
    // A sliding tire gives less than its peak friction, so no locked stop
    // may beat v²/(2 µ_peak g).
    for name in ALL {
        let def = car(name).unwrap();
        let distance = stop_from_100(&def, Stepping::FULL, false).unwrap();
        let bound = friction_bound_100(&def);
        assert!(distance >= bound, "{name}: {distance:.2} m < {bound:.2} m");
    }
}

#[test]
fn abs_stops_within_15_percent_of_the_friction_bound() {
    // SPEC §4.7: within [1.0, 1.15] × v²/(2 µ_peak g) on dry asphalt, with
    // µ_peak from the tire parameters. (The kart brakes its rear axle only,
    // so its bound is a different formula; it is left out.)
    for name in ROAD {
        let def = car(name).unwrap();
        let distance = stop_from_100(&def, Stepping::FULL, true).unwrap();
        let ratio = distance / friction_bound_100(&def);
        assert!((1.0..=1.15).contains(&ratio), "{name}: {ratio:.3} × bound");
        let locked = stop_from_100(&def, Stepping::FULL, false).unwrap();
        assert!(
            distance < locked,
            "{name}: ABS {distance:.1} m vs locked {locked:.1} m"
        );
    }
}

#[test]
fn iso_4138_single_track_understeer_matches_linear_theory() {
    // Tolerance 0.3 deg/g (the issue's): the single-track model against
    // K = W_f/C_f − W_r/C_r from the definition's tires at static load.
    // Linear theory knows neither the lateral load transfer nor locking
    // differentials, both of which the model has (they bend K upward with
    // lateral acceleration), so it is compared with open differentials in
    // the linear range, 0.05 to 0.15 g.
    for name in ROAD {
        let mut def = car(name).unwrap();
        def.differentials = DifferentialsDefinition::default();
        let measured = constant_radius(&def, Stepping::SINGLE_TRACK, &LINEAR_G)
            .unwrap()
            .gradient();
        let theory = theory_understeer_gradient(&def);
        assert!(
            (measured - theory).abs() <= 0.3,
            "{name}: {measured:.3} vs theory {theory:.3} deg/g"
        );
    }
}

#[test]
fn iso_4138_full_model_understeer_matches_the_single_track_model() {
    // Tolerance 0.25 deg/g: both models have the lateral load transfer
    // (the single-track one as a steady-state estimate from the roll
    // stiffnesses) and differentials that couple wheels turning at
    // different speeds; the full model adds roll and pitch dynamics,
    // camber and the struts' own travel. Measured gap: at most 0.06.
    for name in ROAD {
        let def = car(name).unwrap();
        let full = constant_radius(&def, Stepping::FULL, &LATERAL_G)
            .unwrap()
            .gradient();
        let single = constant_radius(&def, Stepping::SINGLE_TRACK, &LATERAL_G)
            .unwrap()
            .gradient();
        assert!(
            (full - single).abs() <= 0.25,
            "{name}: full {full:.3} vs single-track {single:.3} deg/g"
        );
        assert!(full > 0.0, "{name} understeers");
    }
}

#[test]
fn switching_level_of_detail_keeps_the_understeer_gradient_at_speed() {
    // ISO 4138 at constant speed, 60 and 100 km/h, 0.1 to 0.3 g, every
    // preset: a car switched between Full and SingleTrack mid-race must
    // handle alike. Tolerance 0.3 deg/g; measured gap at most 0.21 (the
    // kart at 60 km/h, whose locked axle lets go as its inner wheel
    // unloads, which the single-track model's steady-state transfer
    // follows only approximately). Before the single-track model had the
    // differentials and the lateral transfer, the rally car was 1.66 apart
    // and the kart 2.39.
    for name in ALL {
        let def = car(name).unwrap();
        for kmh in [60.0, 100.0] {
            let v = kmh / 3.6;
            let k = |stepping| {
                constant_speed(&def, stepping, v, &SPEED_TEST_G)
                    .unwrap()
                    .gradient()
            };
            let (full, single) = (k(Stepping::FULL), k(Stepping::SINGLE_TRACK));
            assert!(
                (full - single).abs() <= 0.3,
                "{name} at {kmh} km/h: full {full:.3} vs single-track {single:.3} deg/g"
            );
        }
    }
}

#[test]
fn timestep_sweep_agrees_with_the_finest_setting() {
    // Host 30/60/120/240 Hz × substeps 250/500/1000/2000 Hz: understeer
    // gradient within 0.05 deg/g and stopping distance (locked and ABS)
    // within 1 % of host 240 Hz × 2000 Hz.
    let run = validation::timestep_sweep(&car("rwd_sports").unwrap()).unwrap();
    assert!(run.worst_gradient <= 0.05, "{run:?}");
    assert!(
        run.worst_stops.0 <= 0.01 && run.worst_stops.1 <= 0.01,
        "{run:?}"
    );
}

/// Requires `measure` (seconds) at the default substep rate of both models
/// to lie within `tolerance` (relative) of the same at four times the rate,
/// for every preset.
fn converged_at_default_rates(
    measure: fn(&CarDefinition, Stepping) -> skidpad_core::Result<Option<f64>>,
    tolerance: f64,
) {
    for lod in [Lod::Full, Lod::SingleTrack] {
        for name in ALL {
            let def = car(name).unwrap();
            let stepping = Stepping {
                lod,
                host_hz: 60.0,
                substep_hz: None,
            };
            let fine = stepping.four_times_finer(&def);
            let default = measure(&def, stepping).unwrap().unwrap();
            let reference = measure(&def, fine).unwrap().unwrap();
            assert!(
                (default / reference - 1.0).abs() <= tolerance,
                "{name} {lod:?}: {default} s, {reference} s at {fine:?}"
            );
        }
    }
}

#[test]
fn ai_laps_at_the_default_substep_rates_match_four_times_finer_ones() {
    // The default rates (the presets' 300 Hz for the full model, 120 Hz for
    // the single-track one) are chosen by this and the launch test below:
    // an AI lap of brandwood within 0.5 % of the same lap at four times the
    // rate, every preset.
    converged_at_default_rates(validation::ai_lap, 0.005);
}

#[test]
fn launches_at_the_default_substep_rates_match_four_times_finer_ones() {
    // A standing start is the hardest case for a low rate (wheelspin,
    // traction control and the clutch): at 250 Hz the rear-drive car's
    // 0–100 km/h took 5.02 s against 4.53 s at 1 kHz, at 300 Hz 4.52 s.
    converged_at_default_rates(validation::zero_to_100, 0.02);
}

#[test]
fn a_locked_axles_cornering_does_not_depend_on_the_substep() {
    // The axle's differential acts inside the wheels' implicit update, so
    // its yaw moment reaches the body in the same substep. Coupled after
    // it (simulation version 6), the kart's 60 km/h gradient ran from
    // 2.53 deg/g at 250 Hz to 2.88 at 4 kHz; now 2.906 at 150 Hz and 2.905
    // at 1.2 kHz.
    let def = car("kart").unwrap();
    for (lod, coarse, fine) in [(Lod::Full, 150.0, 1200.0), (Lod::SingleTrack, 120.0, 480.0)] {
        let k = |rate| {
            let stepping = Stepping {
                lod,
                host_hz: 60.0,
                substep_hz: Some(rate),
            };
            constant_speed(&def, stepping, 60.0 / 3.6, &SPEED_TEST_G)
                .unwrap()
                .gradient()
        };
        let (coarse, fine) = (k(coarse), k(fine));
        assert!(
            (coarse - fine).abs() <= 0.02,
            "{lod:?}: {coarse} against {fine} deg/g"
        );
    }
}

#[test]
fn iso_7401_step_steer_at_80_kmh_settles_without_spinning() {
    // The input is sized for 4 m/s² from the kinematic angle plus the
    // car's measured understeer; the car must settle near it (3–5 m/s²)
    // with its body slip under 5°.
    for name in ROAD {
        let def = car(name).unwrap();
        let gradient = constant_radius(&def, Stepping::FULL, &LATERAL_G)
            .unwrap()
            .gradient();
        let run = step_steer(&def, Stepping::FULL, gradient).unwrap();
        assert!(run.max_body_slip_deg < 5.0, "{name}: {run:?}");
        assert!((3.0..=5.0).contains(&run.steady_lateral), "{name}: {run:?}");
    }
}

#[test]
fn iso_3888_double_lane_change_at_60_80_and_100_kmh() {
    // Through every gate (no excess outside the lanes) and without a spin
    // (body slip under 10°), throttle released at the entry.
    for name in ROAD {
        let def = car(name).unwrap();
        for kmh in [60.0, 80.0, 100.0] {
            let run = double_lane_change(&def, Stepping::FULL, kmh / 3.6).unwrap();
            assert_eq!(
                run.max_corridor_excess, 0.0,
                "{name} at {kmh} km/h: {run:?}"
            );
            assert!(
                run.max_body_slip_deg < 10.0,
                "{name} at {kmh} km/h: {run:?}"
            );
        }
    }
}

#[test]
fn parked_on_a_grade_the_car_holds_still() {
    // SPEC §4.7: on 10, 20 and 30 % grades on the service brake, and on 10
    // and 20 % on the handbrake, under 0.1 mm/s and under 1 mm of drift
    // over 10 s (after 2 s to settle). The kart has no handbrake.
    for name in ALL {
        let def = car(name).unwrap();
        for (grade, handbrake) in validation::parked_cases(&def) {
            let run = validation::parked(&def, Stepping::FULL, grade, handbrake).unwrap();
            assert!(
                run.max_speed < 1e-4 && run.drift < 1e-3,
                "{name} on {grade} (handbrake {handbrake}): {run:?}"
            );
        }
    }
}

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
        validation::sine_with_dwell(&def, 0.5, SurfaceId::WET_ASPHALT).unwrap();
    def.assists.stability_control = true;
    let (ratio_on, slip_on, esc_on) =
        validation::sine_with_dwell(&def, 0.5, SurfaceId::WET_ASPHALT).unwrap();
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
