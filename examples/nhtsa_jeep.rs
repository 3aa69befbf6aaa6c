//! Prints `VALIDATION.md`'s measured-car section: NHTSA's 1997 Jeep
//! Cherokee against the estimated and the fitted build, on the data
//! README's 17 figures and on the traces (`skidpad_examples::measured_car`).
//! The fit runs here again and must find `measured_car::FITTED`.
//!
//! Run: `cargo run --release -p skidpad-examples --example nhtsa_jeep`

use skidpad_core::CarDefinition;
use skidpad_examples::measured_car::{
    ACCELERATION_TRACE_LIMIT, BRAKING_TOLERANCE, FITTED, METRICS, Manoeuvre, Scorecard,
    THROTTLE_FIT_UNTIL_S, drive_at, figures, fit_on_sis, jeep_estimated, jeep_fitted, score,
    steady_speed,
};

fn verdict(pass: bool) -> &'static str {
    if pass { "pass" } else { "FAIL" }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let estimated_def = jeep_estimated()?;
    let fit = fit_on_sis(&estimated_def)?;
    println!("fit on sis: {fit:?}");
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-3 * b.abs();
    if !(close(fit.steering_stiffness, FITTED.steering_stiffness)
        && close(fit.roll_centre_scale, FITTED.roll_centre_scale)
        && close(fit.friction_scale, FITTED.friction_scale))
    {
        println!("FITTED is stale: set it to the values above");
    }
    // The measured figures as this harness reads them from the files,
    // beside the README's.
    let mut read_back = Vec::new();
    for manoeuvre in Manoeuvre::ALL {
        read_back.extend(figures(manoeuvre, &manoeuvre.measured()));
    }
    let estimated = score(&estimated_def)?;
    let fitted_def = jeep_fitted()?;
    let fitted = score(&fitted_def)?;
    let builds: [&Scorecard; 2] = [&estimated, &fitted];
    println!();
    println!(
        "| run | figure | measured (README) | read here from the files | estimated | | fitted | | tolerance |"
    );
    println!("|---|---|---:|---:|---:|---|---:|---|---|");
    for (i, metric) in METRICS.iter().enumerate() {
        let mut line = format!(
            "| {} | {} ({}) | {} | {:.3} |",
            metric.manoeuvre.name(),
            metric.name,
            metric.unit,
            metric.published,
            read_back[i]
        );
        for card in builds {
            let c = card.figures[i];
            line.push_str(&format!(" {:.3} | {} |", c.value, verdict(c.pass)));
        }
        line.push_str(&format!(" {} |", metric.tolerance.describe(metric.unit)));
        println!("{line}");
    }
    println!(
        "| | **figures within tolerance** | | | **{} of 17** | | **{} of 17** | | |",
        estimated.passed(),
        fitted.passed()
    );
    println!();
    println!("| run | trace | estimated: RMS difference / measured range | | fitted | | limit |");
    println!("|---|---|---:|---|---:|---|---:|");
    for (e, f) in estimated.traces.iter().zip(&fitted.traces) {
        println!(
            "| {} | {} | {:.1} % | {} | {:.1} % | {} | {:.0} % |",
            e.manoeuvre.name(),
            e.channel,
            100.0 * e.error,
            verdict(e.error <= e.limit),
            100.0 * f.error,
            verdict(f.error <= f.limit),
            100.0 * e.limit
        );
    }
    println!(
        "| | **traces within limit** | **{} of 12** | | **{} of 12** | | |",
        estimated.traces_passed(),
        fitted.traces_passed()
    );
    println!();
    println!("| run | held deceleration (m/s²) | measured | estimated | | fitted | | tolerance |");
    println!("|---|---|---:|---:|---|---:|---|---|");
    for (e, f) in estimated.braking.iter().zip(&fitted.braking) {
        let role = if e.predicted {
            "predicted"
        } else {
            "brake gain fitted here"
        };
        println!(
            "| {} | {role} | {:.2} | {:.2} | {} | {:.2} | {} | ± {:.0} % |",
            e.run.name(),
            e.measured,
            e.value,
            if e.predicted { verdict(e.pass()) } else { "" },
            f.value,
            if f.predicted { verdict(f.pass()) } else { "" },
            100.0 * BRAKING_TOLERANCE
        );
    }
    println!(
        "\nbrake gain: estimated {:.5}, fitted {:.5} per N of pedal (full brake at {:.0} N)",
        estimated.brake_gain,
        fitted.brake_gain,
        1.0 / fitted.brake_gain
    );
    println!();
    println!(
        "| accel | throttle = gain × pedal, the gain fitted on the speed at {THROTTLE_FIT_UNTIL_S:.0} s | measured | estimated | | fitted | | limit |"
    );
    println!("|---|---|---:|---:|---|---:|---|---|");
    let [e, f] = [estimated.acceleration, fitted.acceleration];
    println!("| accel | gain | | {:.3} | | {:.3} | | |", e.gain, f.gain);
    println!(
        "| accel | speed at {THROTTLE_FIT_UNTIL_S:.0} s, m/s (fitted here) | {:.2} | {:.2} | | {:.2} | | |",
        e.measured_fitted_speed, e.fitted_speed, f.fitted_speed
    );
    println!(
        "| accel | speed at the end, m/s (predicted) | {:.2} | {:.2} | | {:.2} | | |",
        e.measured_final_speed, e.final_speed, f.final_speed
    );
    println!(
        "| accel | speed trace after {THROTTLE_FIT_UNTIL_S:.0} s: RMS difference / measured range (predicted) | | {:.2} % | {} | {:.2} % | {} | {:.0} % |",
        100.0 * e.predicted_error,
        verdict(e.pass()),
        100.0 * f.predicted_error,
        verdict(f.pass()),
        100.0 * ACCELERATION_TRACE_LIMIT
    );
    print_step_at_its_own_speed(&fitted_def)?;
    print_rear_roll_steer_sensitivity(&estimated_def)
}

/// What a rear roll steer (`suspension.rear.roll_steer`) would do to the
/// fitted build: for each coefficient the three values are fitted on `sis`
/// again and every figure scored. The definition has none: the Cherokee's
/// is not published, and a leaf-spring axle's roll steer can take either
/// sign (it follows the springs' eyes and shackles), so this table is a
/// sensitivity, not a build.
fn print_rear_roll_steer_sensitivity(
    estimated: &CarDefinition,
) -> Result<(), Box<dyn std::error::Error>> {
    let lc22 = METRICS
        .iter()
        .position(|m| m.manoeuvre == Manoeuvre::Lc22)
        .unwrap_or_default();
    println!();
    println!(
        "| rear roll steer (rad/rad, + understeers) | steering stiffness fitted (N·m/rad) | fitted figures within tolerance | lc22 peak a_y (m/s²) | lc22 peak yaw rate (deg/s) |"
    );
    println!("|---:|---:|---:|---:|---:|");
    for coefficient in ROLL_STEER_SENSITIVITY {
        let mut def = estimated.clone();
        def.suspension.rear.roll_steer = coefficient;
        let fit = fit_on_sis(&def)?;
        let card = score(&fit.apply(&def))?;
        println!(
            "| {coefficient:+.2} | {:.0} | {} of 17 | {:.3} | {:.3} |",
            fit.steering_stiffness,
            card.passed(),
            card.figures[lc22].value,
            card.figures[lc22 + 1].value
        );
    }
    Ok(())
}

/// The rear roll steers the sensitivity table tries, of either sign.
const ROLL_STEER_SENSITIVITY: [f64; 5] = [-0.1, 0.0, 0.1, 0.2, 0.3];

/// The step steer's steady figures for the fitted build at the README's
/// 12 m/s and at the speed the measured car had in the steady window
/// (its a_y over its yaw rate): how much of the misses the speed explains.
/// The scores above stay at the README's speed.
fn print_step_at_its_own_speed(fitted: &CarDefinition) -> Result<(), Box<dyn std::error::Error>> {
    let step = Manoeuvre::Step;
    let own = steady_speed(&step.measured());
    let first = METRICS
        .iter()
        .position(|m| m.manoeuvre == step)
        .unwrap_or_default();
    let at_readme = figures(step, &drive_at(fitted, step, step.speed())?);
    let at_own = figures(step, &drive_at(fitted, step, own)?);
    println!();
    println!(
        "| step, fitted | measured (README) | at {:.2} m/s (README) | | at {own:.2} m/s (measured a_y / r) | | tolerance |",
        step.speed()
    );
    println!("|---|---:|---:|---|---:|---|---|");
    for k in 0..3 {
        let metric = &METRICS[first + k];
        let cell = |v: f64| {
            format!(
                "{v:.3} | {}",
                verdict(metric.tolerance.accepts(v, metric.published))
            )
        };
        println!(
            "| {} ({}) | {} | {} | {} | {} |",
            metric.name,
            metric.unit,
            metric.published,
            cell(at_readme[k]),
            cell(at_own[k]),
            metric.tolerance.describe(metric.unit)
        );
    }
    Ok(())
}
