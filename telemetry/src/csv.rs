//! Plain CSV: one car's every telemetry channel, a row per written step.
//!
//! Two header rows: the column names, then their units. The columns are
//! `step`, `race_time` (s, the replay's clock), the race layer's `lap`
//! (laps completed + 1 once the car is past the line), `lap_time` (s into
//! that lap) and `lap_distance` (m along the centre line from the line,
//! resetting each lap so laps overlay), then every channel of
//! `CHANNELS.md` in order. The lap columns are empty for a replay that
//! names no track and on an out-lap. Values are written in Rust's
//! shortest round-trip form, so a row reads back to the exact telemetry.
//! A car the recording removed has its channel fields empty from the step
//! it was removed at. Rows are written as they are made.

use std::io::Write;

use crate::Result;
use skidpad_core::CHANNELS;

use crate::rows::Walk;

/// The columns before the channels, with their units.
const LEADING: [(&str, &str); 5] = [
    ("step", "1"),
    ("race_time", "s"),
    ("lap", "1"),
    ("lap_time", "s"),
    ("lap_distance", "m"),
];

fn header(out: &mut dyn Write) -> Result<()> {
    let names = LEADING
        .iter()
        .map(|(n, _)| *n)
        .chain(CHANNELS.iter().map(|c| c.name));
    let units = LEADING
        .iter()
        .map(|(_, u)| *u)
        .chain(CHANNELS.iter().map(|c| c.unit));
    writeln!(out, "{}", names.collect::<Vec<_>>().join(","))?;
    writeln!(out, "{}", units.collect::<Vec<_>>().join(","))?;
    Ok(())
}

/// A value, or an empty field.
fn field(out: &mut dyn Write, value: Option<f64>) -> Result<()> {
    match value {
        Some(v) => write!(out, ",{v}")?,
        None => write!(out, ",")?,
    }
    Ok(())
}

/// Writes the rows `walk` gives to `out` as CSV; returns the rows written
/// (besides the headers).
pub fn write_csv(out: &mut dyn Write, walk: &mut Walk<'_>) -> Result<u64> {
    // The header waits for the first row: the walk checks its arguments
    // (the car, the laps) first, and a refused command must leave nothing
    // on its output for a pipe to take as a file.
    let mut started = false;
    let walked = walk(&mut |row| {
        if !started {
            header(out)?;
            started = true;
        }
        write!(out, "{},{}", row.step, row.time)?;
        field(out, row.lap.map(f64::from))?;
        field(out, row.lap_time)?;
        field(out, row.lap_distance)?;
        match row.values {
            Some(values) => {
                for value in values {
                    write!(out, ",{value}")?;
                }
            }
            // Removed: empty fields from the step it was removed at.
            None => {
                for _ in 0..CHANNELS.len() {
                    write!(out, ",")?;
                }
            }
        }
        writeln!(out)?;
        Ok(())
    })?;
    if !started {
        header(out)?;
    }
    out.flush()?;
    Ok(walked.rows)
}
