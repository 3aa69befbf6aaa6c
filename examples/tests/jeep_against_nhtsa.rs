//! The measured-car harness (`skidpad_examples::measured_car`): its metric
//! code reads the published figures back from NHTSA's files, the Jeep's
//! definition carries the imported real tire it says it does, and each
//! build's score is the one `VALIDATION.md` reports.

use skidpad_core::parse_tir;
use skidpad_examples::measured_car::{
    Acceleration, METRICS, Manoeuvre, THROTTLE_FIT_UNTIL_S, drive, drive_at, figures,
    jeep_estimated, jeep_fitted, score, steady_speed,
};

#[test]
fn the_metric_code_reads_the_published_figures_back_from_the_measured_files() {
    let mut read = Vec::new();
    for manoeuvre in Manoeuvre::ALL {
        read.extend(figures(manoeuvre, &manoeuvre.measured()));
    }
    assert_eq!(read.len(), METRICS.len());
    for (metric, value) in METRICS.iter().zip(&read) {
        // Every figure within its own tolerance of the README's. The
        // files give the lane change at 22.5 m/s a peak roll of 2.73°
        // (the sensors' mean; the front one alone 3.03°) where the README
        // reads 3.42°: VALIDATION.md shows both and compares with the
        // README's.
        assert!(
            metric.tolerance.accepts(*value, metric.published),
            "{} {}: read {value}, published {}",
            metric.manoeuvre.name(),
            metric.name,
            metric.published
        );
    }
    // The figures that define the car's linear behaviour come back close.
    assert!((read[0] - 0.18).abs() < 0.005, "yaw gain {}", read[0]);
    assert!((read[1] - 3.6).abs() < 0.05, "ay gain {}", read[1]);
    assert!((read[4] - 3.63).abs() < 0.05, "roll gradient {}", read[4]);
    assert!((read[8] - 0.28).abs() <= 0.011, "response {}", read[8]);
}

#[test]
fn the_step_s_car_ran_slower_than_the_readme_s_speed_which_explains_its_miss() {
    // In the steady window a_y / r is the speed: the measured car held
    // 11.71 m/s, 2.4 % under the README's 12.
    let own = steady_speed(&Manoeuvre::Step.measured());
    assert!((own - 11.71).abs() < 0.01, "{own} m/s");
    // The model at 12 m/s reads its own 12 back (its speed controller
    // holds it), so the measure is sound.
    let fitted = jeep_fitted().unwrap();
    let at_readme = drive(&fitted, Manoeuvre::Step).unwrap();
    assert!((steady_speed(&at_readme) - 12.0).abs() < 0.05);
    // The fitted build misses the steady lateral acceleration at 12 m/s
    // (+11 % against ± 10 %) and meets it at the measured car's speed;
    // the scores stay at the README's speed.
    let published = METRICS[5].published;
    let lateral = |r| figures(Manoeuvre::Step, &r)[0] / published - 1.0;
    assert!((0.10..0.12).contains(&lateral(at_readme)));
    let at_own = drive_at(&fitted, Manoeuvre::Step, own).unwrap();
    assert!((0.07..0.10).contains(&lateral(at_own)));
}

#[test]
fn the_acceleration_run_reads_as_the_data_readme_describes_it() {
    // "straight acceleration at about 10 % throttle, 0 → 17 m/s over 63 s"
    let run = Acceleration::measured();
    let pedal = run.pedal.iter().sum::<f64>() / run.pedal.len() as f64;
    assert!((pedal - 0.10).abs() < 0.01, "mean pedal {pedal}");
    assert!(run.speed[0] < 0.2, "from rest: {}", run.speed[0]);
    let last = *run.speed.last().unwrap();
    assert!((last - 17.0).abs() < 0.5, "to 17 m/s: {last}");
    assert!((run.time.last().unwrap() - 63.0).abs() < 0.5);
}

#[test]
fn the_estimated_jeep_runs_on_the_imported_suv_tire() {
    let def = jeep_estimated().unwrap();
    let import = parse_tir(include_str!(
        "../../sim-core/tests/data/tir/suv_Pac02Tire.tir"
    ))
    .unwrap();
    // The JSON holds the import's values as `skidpad tire --json` prints
    // them, and reads back to the same bits (serde_json's
    // float_roundtrip).
    assert_eq!(def.tires.front, import.parameters);
    assert_eq!(def.tires.rear, import.parameters);
    // The published steering ratio: 14 hand-wheel degrees per road-wheel
    // degree.
    let ratio = def.steering.feel.hand_wheel_lock / def.steering.max_angle;
    assert!((ratio - 14.0).abs() < 1e-12);
}

#[test]
fn the_fitted_values_reproduce_the_three_sis_figures_they_were_fitted_on() {
    // `FITTED` holds what `fit_on_sis` found (the `nhtsa_jeep` example
    // runs the fit again); with them the slow steer's understeer
    // gradient, maximum lateral acceleration and roll gradient land on
    // the measured figures.
    let sis = figures(
        Manoeuvre::Sis,
        &drive(&jeep_fitted().unwrap(), Manoeuvre::Sis).unwrap(),
    );
    for (index, within) in [(2, 0.02), (3, 0.02), (4, 0.02)] {
        let published = METRICS[index].published;
        assert!(
            (sis[index] - published).abs() <= within * published,
            "{}: {} against {published}",
            METRICS[index].name,
            sis[index]
        );
    }
}

#[test]
fn each_build_scores_what_validation_md_reports() {
    let estimated = score(&jeep_estimated().unwrap()).unwrap();
    assert_eq!(estimated.figures.len(), 17);
    assert_eq!(estimated.traces.len(), 12);
    // VALIDATION.md's measured-car table (regenerate it with the
    // `nhtsa_jeep` example when a change moves these).
    assert_eq!(estimated.passed(), 5, "{:#?}", estimated.figures);
    assert_eq!(estimated.traces_passed(), 2);
    let fitted = score(&jeep_fitted().unwrap()).unwrap();
    assert_eq!(fitted.passed(), 14, "{:#?}", fitted.figures);
    assert_eq!(fitted.traces_passed(), 12, "{:#?}", fitted.traces);
    // The brake gain fitted on the moderate stop gives its deceleration
    // back; the severe stop is predicted within 10 %.
    for card in [&estimated, &fitted] {
        let [moderate, severe] = [card.braking[0], card.braking[1]];
        assert!(
            (moderate.value - moderate.measured).abs() < 0.01,
            "{moderate:?}"
        );
        assert!(severe.predicted && severe.pass(), "{severe:?}");
        // The pedal-to-throttle gain fitted on the acceleration run's
        // first 25 s gives its speed there back; the rest is predicted
        // 8.2 % off (RMS over the measured range), inside the 15 % limit,
        // with the throttle body, the torque converter and the box's
        // light-throttle points (20.7 % with a clutch and no throttle body,
        // 15.4 % with the converter alone; 4.8 % when the harness held the
        // light points whatever the pedal).
        let accel = card.acceleration;
        assert!(
            (accel.fitted_speed - accel.measured_fitted_speed).abs() < 0.05,
            "{accel:?} at {THROTTLE_FIT_UNTIL_S} s"
        );
        assert!(
            (0.075..0.09).contains(&accel.predicted_error) && accel.pass(),
            "{accel:?}"
        );
    }
}
