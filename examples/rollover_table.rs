//! Prints `VALIDATION.md`'s rollover table: for each preset its static
//! stability factor (half the track over the centre of mass's height)
//! against its tires' peak lateral friction, and the peak roll, wheel lift
//! and peak lateral acceleration of a 40 m circle driven to the limit and
//! of NHTSA's fishhook at 60, 70 and 80 km/h both ways, on flat dry
//! asphalt; then the sideways crashes: struck in the side at 54 and
//! 72 km/h, sliding into a standing car at 54 km/h, and the lowest lateral
//! speed at which a 0.2 m kerb trips the car over; and a hatchback sliding
//! sideways into each built-in track's barrier. The assertions are
//! `tests/rollover_resistance.rs`.
//!
//! Run: `cargo run --release -p skidpad-examples --example rollover_table`

use skidpad_examples::manoeuvres::{
    ALL, Crash, FMVSS_214, KERB_HEIGHT, RollWatch, barrier_slide, car, circle_to_limit,
    fishhook_series, kerb_trip, kerb_trip_speed, peak_lateral_friction, side_impact,
    slide_into_standing, static_stability_factor, trip_theory_speed,
};

fn cells(run: &RollWatch) -> String {
    let lift = if run.two_wheel_s > 0.0 {
        format!("two wheels {:.2} s", run.two_wheel_s)
    } else if run.one_wheel_s > 0.0 {
        format!("one wheel {:.2} s", run.one_wheel_s)
    } else {
        "none".to_owned()
    };
    format!(
        "{:.2} g | {:.1}° | {lift}",
        run.peak_lateral_g, run.peak_roll_deg
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "| preset | SSF | tire µ (lateral) | circle: peak a_y | circle: peak roll | circle: lift | fishhook: peak a_y | fishhook: peak roll | fishhook: lift | verdict |"
    );
    println!("|---|---:|---:|---:|---:|---|---:|---:|---|---|");
    for name in ALL {
        let def = car(name)?;
        let ssf = static_stability_factor(&def);
        let mu = peak_lateral_friction(&def);
        let circle = circle_to_limit(&def)?;
        let hook = fishhook_series(&def)?;
        let worst = circle.worst(hook);
        let verdict = if ssf <= mu {
            "SSF ≤ µ: may lift"
        } else if worst.two_wheel_s > 0.0 || worst.rolled_over() {
            "FAIL"
        } else {
            "pass"
        };
        println!(
            "| {name} | {ssf:.2} | {mu:.2} | {} | {} | {verdict} |",
            cells(&circle),
            cells(&hook)
        );
    }
    println!();
    crash_table()?;
    println!();
    barrier_table()
}

fn crash_cells(crash: &Crash) -> String {
    format!(
        "{:.1}°, {:.1}° | {:.0} N·s",
        crash.struck_roll_deg, crash.other_roll_deg, crash.impulse
    )
}

/// The sideways crashes: both cars' peak roll (struck first) and the
/// largest one-step impulse.
fn crash_table() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "| preset | side impact {:.0} km/h: roll (struck, striker) | impulse | side impact 72 km/h: roll | impulse | sliding into a standing car at {:.0} km/h: roll (sliding, standing) | impulse | {KERB_HEIGHT} m kerb at 6 m/s: roll | {KERB_HEIGHT} m kerb: lowest speed that rolls it over | rigid-trip theory |",
        FMVSS_214 * 3.6,
        FMVSS_214 * 3.6
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for name in ALL {
        let def = car(name)?;
        let trip = match kerb_trip_speed(&def)? {
            Some(speed) => format!("{speed:.0} m/s ({:.0} km/h)", speed * 3.6),
            None => "none up to 20 m/s".to_owned(),
        };
        let theory = match trip_theory_speed(&def) {
            Some(speed) => format!("{speed:.1} m/s"),
            None => "centre of mass below the kerb".to_owned(),
        };
        println!(
            "| {name} | {} | {} | {} | {:.1}° | {trip} | {theory} |",
            crash_cells(&side_impact(&def, FMVSS_214)?),
            crash_cells(&side_impact(&def, 20.0)?),
            crash_cells(&slide_into_standing(&def, FMVSS_214)?),
            kerb_trip(&def, 6.0)?.struck_roll_deg
        );
    }
    Ok(())
}

/// A hatchback sliding sideways into each built-in track's barrier at two
/// places: its peak roll at each lateral speed.
fn barrier_table() -> Result<(), Box<dyn std::error::Error>> {
    const SPEEDS: [f64; 4] = [10.0, 15.0, 20.0, 25.0];
    let def = car("fwd_hatchback")?;
    let speeds: Vec<String> = SPEEDS.iter().map(|s| format!("{s:.0} m/s")).collect();
    println!(
        "| fwd_hatchback into the barrier | {} |",
        speeds.join(" | ")
    );
    println!("|---|{}", "---:|".repeat(SPEEDS.len()));
    for track in ["brandwood", "hillcrest"] {
        for distance in [150.0, 600.0] {
            let mut rolls = Vec::new();
            for speed in SPEEDS {
                let slide = barrier_slide(&def, track, distance, speed)?;
                rolls.push(format!("{:.1}°", slide.struck_roll_deg));
            }
            println!("| {track}, {distance:.0} m | {} |", rolls.join(" | "));
        }
    }
    Ok(())
}
