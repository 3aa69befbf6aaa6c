//! Prints `VALIDATION.md`'s rollover table: for each preset its static
//! stability factor (half the track over the centre of mass's height)
//! against its tires' peak lateral friction, and the peak roll, wheel lift
//! and peak lateral acceleration of a 40 m circle driven to the limit and
//! of NHTSA's fishhook at 60, 70 and 80 km/h both ways, on flat dry
//! asphalt. The assertions are `tests/rollover_resistance.rs`.
//!
//! Run: `cargo run --release -p skidpad-examples --example rollover_table`

use skidpad_examples::manoeuvres::{
    ALL, RollWatch, car, circle_to_limit, fishhook_series, peak_lateral_friction,
    static_stability_factor,
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
    Ok(())
}
