//! The validation suite of SPEC §4.7 (issue "vehicle-model depth"), each
//! manoeuvre with its tolerance written here. Expected values come from
//! theory computed from the car definition (`manoeuvres::friction_bound_100`,
//! `manoeuvres::theory_understeer_gradient`), not from earlier runs.
//! `cargo run --release -p skidpad-examples --example validation` prints
//! the same figures as `VALIDATION.md`'s table.

use skidpad_core::{CarDefinition, DifferentialsDefinition, Lod};
use skidpad_examples::manoeuvres::{
    self, ALL, LATERAL_G, LINEAR_G, LaneChange, ROAD, SPEED_TEST_G, Stepping, ZERO_TO_100_RANGES,
    car, constant_radius, constant_speed, double_lane_change, friction_bound_100, step_steer,
    stop_from_100, theory_understeer_gradient, zero_to_100,
};

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
    let run = manoeuvres::timestep_sweep(&car("rwd_sports").unwrap()).unwrap();
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
    converged_at_default_rates(manoeuvres::ai_lap, 0.005);
}

#[test]
fn launches_at_the_default_substep_rates_match_four_times_finer_ones() {
    // A standing start is the hardest case for a low rate (wheelspin,
    // traction control and the clutch): at 250 Hz the rear-drive car's
    // 0–100 km/h took 5.02 s against 4.53 s at 1 kHz, at 300 Hz 4.52 s.
    converged_at_default_rates(manoeuvres::zero_to_100, 0.02);
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
fn iso_3888_courses_as_written() {
    // ISO 3888-1 at 60 and 80 km/h and ISO 3888-2 at 50, 60 and 70 km/h:
    // through every gate (no excess outside the lanes) and without a spin
    // (body slip under 10°), throttle released at the entry. (The
    // hatchback's 3888-1 run at 100 km/h strays 1.8 cm: VALIDATION.md
    // shows that row failing.)
    for name in ROAD {
        let def = car(name).unwrap();
        for (course, speeds) in [
            (LaneChange::Double, &[60.0, 80.0][..]),
            (LaneChange::ObstacleAvoidance, &[50.0, 60.0, 70.0][..]),
        ] {
            for &kmh in speeds {
                let run = double_lane_change(&def, Stepping::FULL, kmh / 3.6, course).unwrap();
                assert_eq!(
                    run.max_corridor_excess,
                    0.0,
                    "{name}, {} at {kmh} km/h: {run:?}",
                    course.name()
                );
                assert!(
                    run.max_body_slip_deg < 10.0,
                    "{name}, {} at {kmh} km/h: {run:?}",
                    course.name()
                );
            }
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
        for (grade, handbrake) in manoeuvres::parked_cases(&def) {
            let run = manoeuvres::parked(&def, Stepping::FULL, grade, handbrake).unwrap();
            assert!(
                run.max_speed < 1e-4 && run.drift < 1e-3,
                "{name} on {grade} (handbrake {handbrake}): {run:?}"
            );
        }
    }
}

#[test]
fn the_iso_3888_courses_have_the_standards_dimensions() {
    let b = 1.8;
    let close = |a: f64, e: f64| (a - e).abs() < 1e-12;
    let right = |l: &manoeuvres::Lane| l.centre - l.half_width;
    let left = |l: &manoeuvres::Lane| l.centre + l.half_width;
    // ISO 3888-1: 15 m at 1.1b + 0.25, 30 m, 25 m at 1.2b + 0.25 offset
    // 3.5 m, 25 m, 15 m at 1.3b + 0.25.
    let [one, three, five] = manoeuvres::lane_change_course(LaneChange::Double, b);
    assert!(close(one.end - one.start, 15.0) && close(2.0 * one.half_width, 1.1 * b + 0.25));
    assert!(close(three.start - one.end, 30.0) && close(three.end - three.start, 25.0));
    assert!(close(2.0 * three.half_width, 1.2 * b + 0.25));
    assert!(close(right(&three) - right(&one), 3.5));
    assert!(close(five.start - three.end, 25.0) && close(five.end - five.start, 15.0));
    assert!(close(2.0 * five.half_width, 1.3 * b + 0.25) && close(right(&five), right(&one)));
    // ISO 3888-2: 12 m at 1.1b + 0.25, 13.5 m, 11 m at b + 1 (its right
    // edge 1 m left of the first lane's left edge), 12.5 m, 12 m at 3 m.
    let [one, three, five] = manoeuvres::lane_change_course(LaneChange::ObstacleAvoidance, b);
    assert!(close(one.end - one.start, 12.0) && close(2.0 * one.half_width, 1.1 * b + 0.25));
    assert!(close(three.start - one.end, 13.5) && close(three.end - three.start, 11.0));
    assert!(close(2.0 * three.half_width, b + 1.0) && close(right(&three) - left(&one), 1.0));
    assert!(close(five.start - three.end, 12.5) && close(five.end - five.start, 12.0));
    assert!(close(2.0 * five.half_width, 3.0) && close(right(&five), right(&one)));
}

#[test]
fn fmvss_126_as_written_passes_with_stability_control() {
    // The A series from the slowly increasing steers, both directions, the
    // regulation's limits (35 % at 1.0 s, 20 % at 1.75 s, 1.83 m): every
    // road preset passes with its stability control on; the rear-drive
    // sports car spins without it (VALIDATION.md shows that row failing).
    for name in ROAD {
        let mut def = car(name).unwrap();
        def.assists.stability_control = true;
        let test = manoeuvres::fmvss_126(&def).unwrap();
        assert!(
            (10.0..60.0).contains(&test.reference_angle),
            "{name}: {test:?}"
        );
        assert!(test.runs.len() >= 40, "{name}: {} runs", test.runs.len());
        assert!(
            test.passes(),
            "{name}: {:?}, {}",
            test.worst_ratios(),
            test.least_displacement()
        );
    }
    let mut def = car("rwd_sports").unwrap();
    def.assists.stability_control = false;
    let test = manoeuvres::fmvss_126(&def).unwrap();
    assert!(test.worst_ratios().0 > 0.35, "{:?}", test.worst_ratios());
}

#[test]
fn the_fmvss_126_series_and_filter_are_the_standards() {
    // 1.5·A in 0.5·A steps to the greater of 6.5·A and 270°, at most 300°.
    let series = manoeuvres::amplitudes(20.0);
    assert_eq!(series.first(), Some(&30.0));
    assert_eq!(series.last(), Some(&270.0));
    assert!(series.windows(2).all(|w| w[1] - w[0] <= 10.0 + 1e-9));
    assert_eq!(manoeuvres::amplitudes(50.0).last(), Some(&300.0));
    assert_eq!(manoeuvres::amplitudes(45.0).last(), Some(&292.5));
    // The phaseless filter keeps a constant, lags nothing and takes out
    // what lies well above its cutoff.
    let rate = 200.0;
    let signal: Vec<f64> = (0..400)
        .map(|k| {
            let t = f64::from(k) / rate;
            3.0 + (2.0 * std::f64::consts::PI * t).sin()
                + (2.0 * std::f64::consts::PI * 40.0 * t).sin()
        })
        .collect();
    let filtered = manoeuvres::phaseless_low_pass(&signal, rate, 6.0);
    for (k, v) in filtered.iter().enumerate().skip(100).take(200) {
        let t = k as f64 / rate;
        let slow = 3.0 + (2.0 * std::f64::consts::PI * t).sin();
        assert!((v - slow).abs() < 0.01, "{t}: {v} vs {slow}");
    }
}
