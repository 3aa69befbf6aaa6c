//! Prints `VALIDATION.md`'s table: every SPEC §4.7 manoeuvre for every
//! preset it applies to, with the measured value, the expected value from
//! theory (computed from the definition), the tolerance and the verdict.
//! The assertions themselves are `tests/validation_manoeuvres.rs`.
//!
//! Run: `cargo run --release -p skidpad-examples --example validation`

use skidpad_core::{CarDefinition, DifferentialsDefinition, SurfaceId};
use skidpad_examples::manoeuvres::{
    ALL, LATERAL_G, LINEAR_G, LaneChange, ROAD, SPEED_TEST_G, Stepping, ZERO_TO_100_RANGES, ai_lap,
    car, constant_radius, constant_speed, double_lane_change, fmvss_126, friction_bound_100,
    parked, parked_cases, sine_with_dwell, step_steer, stop_from_100, theory_understeer_gradient,
    timestep_sweep, zero_to_100,
};

fn row(
    manoeuvre: &str,
    preset: &str,
    measured: String,
    expected: String,
    tolerance: &str,
    ok: bool,
) {
    let verdict = if ok { "pass" } else { "FAIL" };
    println!("| {manoeuvre} | {preset} | {measured} | {expected} | {tolerance} | {verdict} |");
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("| manoeuvre | preset | measured | expected | tolerance | verdict |");
    println!("|---|---|---:|---:|---|---|");
    for (name, lo, hi) in ZERO_TO_100_RANGES {
        let t = zero_to_100(&car(name)?, Stepping::FULL)?.unwrap_or(f64::INFINITY);
        let ok = (lo..=hi).contains(&t);
        row(
            "0–100 km/h",
            name,
            format!("{t:.2} s"),
            format!("{lo}–{hi} s"),
            "range for the kind of car",
            ok,
        );
    }
    for name in ALL {
        let def = car(name)?;
        let bound = friction_bound_100(&def);
        let locked = stop_from_100(&def, Stepping::FULL, false)?;
        row(
            "100–0 km/h, locked",
            name,
            format!("{locked:.2} m"),
            format!("≥ {bound:.2} m"),
            "≥ 1.0 × v²/(2µg)",
            locked >= bound,
        );
    }
    for name in ROAD {
        let def = car(name)?;
        let bound = friction_bound_100(&def);
        let abs = stop_from_100(&def, Stepping::FULL, true)?;
        let ratio = abs / bound;
        row(
            "100–0 km/h, ABS",
            name,
            format!("{abs:.2} m ({ratio:.3} ×)"),
            format!("{bound:.2} m"),
            "[1.0, 1.15] × v²/(2µg)",
            (1.0..=1.15).contains(&ratio),
        );
    }
    for name in ROAD {
        let def = car(name)?;
        let theory = theory_understeer_gradient(&def);
        let mut open = def.clone();
        open.differentials = DifferentialsDefinition::default();
        let linear = constant_radius(&open, Stepping::SINGLE_TRACK, &LINEAR_G)?.gradient();
        let single = constant_radius(&def, Stepping::SINGLE_TRACK, &LATERAL_G)?.gradient();
        let full = constant_radius(&def, Stepping::FULL, &LATERAL_G)?.gradient();
        row(
            "ISO 4138 R = 40 m, single-track K, open diffs, 0.05–0.15 g",
            name,
            format!("{linear:.3} deg/g"),
            format!("{theory:.3} deg/g (linear theory)"),
            "± 0.3 deg/g",
            (linear - theory).abs() <= 0.3,
        );
        row(
            "ISO 4138 R = 40 m, full-model K, 0.1–0.3 g",
            name,
            format!("{full:.3} deg/g"),
            format!("{single:.3} deg/g (single-track)"),
            "± 0.25 deg/g",
            (full - single).abs() <= 0.25,
        );
        let step = step_steer(&def, Stepping::FULL, full)?;
        row(
            "ISO 7401 step steer, 80 km/h",
            name,
            format!(
                "{:.2} m/s², slip ≤ {:.1}°",
                step.steady_lateral, step.max_body_slip_deg
            ),
            "4 m/s², no spin".into(),
            "3–5 m/s², slip < 5°",
            (3.0..=5.0).contains(&step.steady_lateral) && step.max_body_slip_deg < 5.0,
        );
        for (course, speeds) in [
            (LaneChange::Double, [60.0, 80.0, 100.0]),
            (LaneChange::ObstacleAvoidance, [50.0, 60.0, 70.0]),
        ] {
            for kmh in speeds {
                let lane = double_lane_change(&def, Stepping::FULL, kmh / 3.6, course)?;
                row(
                    &format!("{}, {kmh} km/h", course.name()),
                    name,
                    format!(
                        "outside lanes {:.3} m, slip ≤ {:.1}°",
                        lane.max_corridor_excess, lane.max_body_slip_deg
                    ),
                    "inside every gate, no spin".into(),
                    "0 m, slip < 10°",
                    lane.max_corridor_excess == 0.0 && lane.max_body_slip_deg < 10.0,
                );
            }
        }
    }
    for name in ALL {
        let def = car(name)?;
        for kmh in [60.0, 100.0] {
            let k = |stepping| -> Result<f64, Box<dyn std::error::Error>> {
                Ok(constant_speed(&def, stepping, kmh / 3.6, &SPEED_TEST_G)?.gradient())
            };
            let (full, single) = (k(Stepping::FULL)?, k(Stepping::SINGLE_TRACK)?);
            row(
                &format!("ISO 4138 {kmh} km/h constant speed, K full vs single-track"),
                name,
                format!("{full:.3} deg/g"),
                format!("{single:.3} deg/g (single-track)"),
                "± 0.3 deg/g",
                (full - single).abs() <= 0.3,
            );
        }
    }
    for name in ALL {
        let def = car(name)?;
        for (grade, handbrake) in parked_cases(&def) {
            let run = parked(&def, Stepping::FULL, grade, handbrake)?;
            let holder = if handbrake { "handbrake" } else { "brake" };
            row(
                &format!("parked on {:.0} %, {holder}", grade * 100.0),
                name,
                format!("{:.1e} m/s, drift {:.1e} m", run.max_speed, run.drift),
                "at rest".into(),
                "< 1e-4 m/s, < 1e-3 m over 10 s",
                run.max_speed < 1e-4 && run.drift < 1e-3,
            );
        }
    }
    let mut def = car("rwd_sports")?;
    let (ratio_off, slip_off, _) = sine_with_dwell(&def, 0.5, SurfaceId::WET_ASPHALT)?;
    def.assists.stability_control = true;
    let (ratio_on, slip_on, _) = sine_with_dwell(&def, 0.5, SurfaceId::WET_ASPHALT)?;
    for name in ROAD {
        for esc in [false, true] {
            let mut def = car(name)?;
            def.assists.stability_control = esc;
            let test = fmvss_126(&def)?;
            let (at_1_0, at_1_75) = test.worst_ratios();
            row(
                &format!(
                    "FMVSS 126 sine with dwell, dry, ESC {}: A = {:.1}°, {} runs",
                    if esc { "on" } else { "off" },
                    test.reference_angle,
                    test.runs.len()
                ),
                name,
                format!(
                    "yaw {:.0} % at 1.0 s, {:.0} % at 1.75 s; {:.2} m",
                    100.0 * at_1_0.max(0.0),
                    100.0 * at_1_75.max(0.0),
                    test.least_displacement()
                ),
                "≤ 35 %, ≤ 20 % of ψ_peak; ≥ 1.83 m at 1.07 s (5·A on)".into(),
                "FMVSS 126 S5.2",
                test.passes(),
            );
        }
    }
    row(
        "half-lock sine with dwell, 80 km/h wet, ESC off (not FMVSS 126)",
        "rwd_sports",
        format!("yaw ratio {ratio_off:.2}, slip {slip_off:.1}°"),
        "spins".into(),
        "ratio > 0.35",
        ratio_off > 0.35,
    );
    row(
        "half-lock sine with dwell, 80 km/h wet, ESC on (not FMVSS 126)",
        "rwd_sports",
        format!("yaw ratio {ratio_on:.2}, slip {slip_on:.1}°"),
        "stable".into(),
        "ratio < 0.35 (FMVSS 126), slip < 10°",
        ratio_on < 0.35 && slip_on < 10.0,
    );

    let sweep = timestep_sweep(&car("rwd_sports")?)?;
    let (dk, k0) = (sweep.worst_gradient, sweep.gradient);
    let ((dlocked, dabs), (locked0, abs0)) = (sweep.worst_stops, sweep.stops);
    row(
        "timestep sweep (30–240 Hz × 250–2000 Hz), K",
        "rwd_sports",
        format!("worst {dk:.4} deg/g"),
        format!("{k0:.4} deg/g at 240 × 2000 Hz"),
        "± 0.05 deg/g",
        dk <= 0.05,
    );
    row(
        "timestep sweep, stop locked",
        "rwd_sports",
        format!("worst {:.3} %", dlocked * 100.0),
        format!("{locked0:.3} m"),
        "± 1 %",
        dlocked <= 0.01,
    );
    row(
        "timestep sweep, stop ABS",
        "rwd_sports",
        format!("worst {:.3} %", dabs * 100.0),
        format!("{abs0:.3} m"),
        "± 1 %",
        dabs <= 0.01,
    );

    for (stepping, model) in [
        (Stepping::FULL, "Full"),
        (Stepping::SINGLE_TRACK, "SingleTrack"),
    ] {
        type Measure = fn(&CarDefinition, Stepping) -> skidpad_core::Result<Option<f64>>;
        let checks: [(&str, Measure, f64, usize); 2] = [
            ("AI lap of brandwood", ai_lap, 0.005, 3),
            ("0–100 km/h", zero_to_100, 0.02, 2),
        ];
        for (what, measure, tolerance, decimals) in checks {
            for name in ALL {
                let def = car(name)?;
                let fine = stepping.four_times_finer(&def);
                let fine_hz = fine.substep_hz.unwrap_or(f64::NAN);
                let default = measure(&def, stepping)?.unwrap_or(f64::INFINITY);
                let reference = measure(&def, fine)?.unwrap_or(f64::NAN);
                let deviation = (default / reference - 1.0).abs();
                row(
                    &format!("{what}, {model}, default substeps"),
                    name,
                    format!("{default:.decimals$} s ({:.3} %)", deviation * 100.0),
                    format!("{reference:.decimals$} s at {fine_hz} Hz"),
                    &format!("± {} %", tolerance * 100.0),
                    deviation <= tolerance,
                );
            }
        }
    }
    real_tire_rows()
}

/// Project Chrono's real `.tir` files (`sim-core/tests/data/tir/`): how
/// close each imported tire's pure-slip curves come to the file's own full
/// curves (every pure-slip term the file gives, zero camber) between half
/// and one and a half times the nominal load. The imported peaks and
/// stiffnesses equal the file's Magic Formula exactly
/// (`sim-core/tests/tir_real_files.rs`); the gap is the terms this core's
/// tire lacks, itemised in each import's warnings (`skidpad tire FILE`).
fn real_tire_rows() -> Result<(), Box<dyn std::error::Error>> {
    let files: [(&str, &str); 6] = [
        (
            "Sedan_Pac02Tire",
            include_str!("../sim-core/tests/data/tir/Sedan_Pac02Tire.tir"),
        ),
        (
            "mf_185_80R14",
            include_str!("../sim-core/tests/data/tir/mf_185_80R14.tir"),
        ),
        (
            "335_65R22_5_G275MSA_40psi",
            include_str!("../sim-core/tests/data/tir/335_65R22_5_G275MSA_40psi.tir"),
        ),
        (
            "HMMWV_Pac02Tire",
            include_str!("../sim-core/tests/data/tir/HMMWV_Pac02Tire.tir"),
        ),
        (
            "Generic_Pac02Tire",
            include_str!("../sim-core/tests/data/tir/Generic_Pac02Tire.tir"),
        ),
        (
            "suv_Pac02Tire",
            include_str!("../sim-core/tests/data/tir/suv_Pac02Tire.tir"),
        ),
    ];
    for (name, text) in files {
        let import = skidpad_core::parse_tir(text)?;
        let worst =
            |f: fn(&skidpad_core::CurveGap) -> f64| import.gaps.iter().map(f).fold(0.0, f64::max);
        let (fx, fy) = (
            worst(|g| g.longitudinal_percent),
            worst(|g| g.lateral_percent),
        );
        row(
            ".tir import, pure-slip curves against the file's full curves, 0.5–1.5 × FNOMIN·LFZO",
            name,
            format!("Fx {fx:.1} %, Fy {fy:.1} % of peak"),
            "the file's Magic Formula with every pure-slip term".to_owned(),
            "< 10 % of peak",
            fx < 10.0 && fy < 10.0,
        );
    }
    Ok(())
}
