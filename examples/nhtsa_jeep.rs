//! Prints `VALIDATION.md`'s measured-car section: NHTSA's 1997 Jeep
//! Cherokee against the estimated and the fitted build, on the data
//! README's 17 figures and on the traces (`skidpad_examples::measured_car`).
//!
//! Run: `cargo run --release -p skidpad-examples --example nhtsa_jeep`

use skidpad_examples::measured_car::{
    METRICS, Manoeuvre, Scorecard, figures, jeep_estimated, score,
};

fn verdict(pass: bool) -> &'static str {
    if pass { "pass" } else { "FAIL" }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The measured figures as this harness reads them from the files,
    // beside the README's.
    let mut read_back = Vec::new();
    for manoeuvre in Manoeuvre::ALL {
        read_back.extend(figures(manoeuvre, &manoeuvre.measured()));
    }
    let estimated = score(&jeep_estimated()?)?;
    let builds: [(&str, &Scorecard); 1] = [("estimated", &estimated)];
    println!(
        "| run | figure | measured (README) | read here from the data | estimated | | tolerance |"
    );
    println!("|---|---|---:|---:|---:|---|---|");
    for (i, metric) in METRICS.iter().enumerate() {
        let mut line = format!(
            "| {} | {} ({}) | {} | {:.3} |",
            metric.manoeuvre.name(),
            metric.name,
            metric.unit,
            metric.published,
            read_back[i]
        );
        for (_, card) in builds {
            let c = card.figures[i];
            line.push_str(&format!(" {:.3} | {} |", c.value, verdict(c.pass)));
        }
        line.push_str(&format!(" {} |", metric.tolerance.describe(metric.unit)));
        println!("{line}");
    }
    for (name, card) in builds {
        println!(
            "\n{name}: {} of 17 figures, {} of {} traces",
            card.passed(),
            card.traces_passed(),
            card.traces.len()
        );
    }
    println!("\n| run | trace | estimated RMS / range | limit |");
    println!("|---|---|---:|---:|");
    for (i, t) in estimated.traces.iter().enumerate() {
        let _ = i;
        println!(
            "| {} | {} | {:.1} % {} | {:.0} % |",
            t.manoeuvre.name(),
            t.channel,
            100.0 * t.error,
            verdict(t.error <= t.limit),
            100.0 * t.limit
        );
    }
    Ok(())
}
