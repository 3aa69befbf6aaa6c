//! MoTeC CSV: one car's telemetry as the CSV file MoTeC i2 imports (File →
//! Import) and many lap-analysis tools read.
//!
//! Layout, by row (1-based):
//!
//! - 1 to 12: the preamble, a quoted key and its value(s) per row
//!   (`"Format","MoTeC CSV File"`, `Venue` the track, `Vehicle` the car's
//!   class, `Driver` the replay's `player` or `car N`, `Device`
//!   `skidpad`, `Comment` the replay's file name, `Sample Rate` in Hz,
//!   `Duration` in s, `Beacon Markers` the race time of every crossing of
//!   the line, one per cell, from the project's race layer);
//! - 13 and 14 empty;
//! - 15 the channel names, 16 their units, quoted;
//! - 17 and 18 empty;
//! - from 19 a row per written step, numbers unquoted, a field left empty
//!   where a value does not exist (the lap on an out-lap; every channel
//!   once the recording removed the car).
//!
//! The columns are [`motec::columns`]: standard i2 names in i2's units
//! where one exists ([`motec::MAPPED`]), every other channel under its own
//! name (`CHANNELS.md`) and SI unit. The preamble needs the crossings
//! before the rows, so the rows wait in a spool (a temporary file, or
//! memory in the browser) while the one walk runs, then follow it.

use std::io::{SeekFrom, Write};

use crate::Result;

use crate::Spool;
use crate::motec::{self, LogInfo};
use crate::rows::{RowFilter, Walk};

/// A quoted CSV cell (a quote inside is doubled).
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// Writes the rows `walk` gives (those `filter` chose) as MoTeC CSV to
/// `out`, the rows waiting in `spool` meanwhile; returns the rows written.
pub fn write_motec_csv(
    out: &mut dyn Write,
    info: &LogInfo,
    filter: &RowFilter,
    spool: &mut dyn Spool,
    walk: &mut Walk<'_>,
) -> Result<u64> {
    let columns = motec::columns();
    let walked = {
        let mut rows = std::io::BufWriter::new(&mut *spool);
        let walked = walk(&mut |row| {
            write!(rows, "{}", row.time)?;
            for column in &columns {
                match motec::value(column, row) {
                    Some(v) => write!(rows, ",{v}")?,
                    None => write!(rows, ",")?,
                }
            }
            writeln!(rows)?;
            Ok(())
        })?;
        rows.flush()?;
        walked
    };
    let beacons = motec::beacons(&walked);
    let rate = walked
        .dt
        .map(|dt| 1.0 / (dt * filter.stride as f64))
        .unwrap_or(0.0);
    let preamble: [Vec<String>; 12] = [
        vec![quoted("Format"), quoted("MoTeC CSV File")],
        vec![
            quoted("Venue"),
            quoted(walked.track.as_deref().unwrap_or("")),
        ],
        vec![quoted("Vehicle"), quoted(&info.vehicle)],
        vec![quoted("Driver"), quoted(&info.driver)],
        vec![quoted("Device"), quoted("skidpad")],
        vec![quoted("Comment"), quoted(&info.file_name)],
        vec![quoted("Log Date"), quoted("")],
        vec![quoted("Log Time"), quoted("")],
        vec![
            quoted("Sample Rate"),
            quoted(&format!("{rate:.3}")),
            quoted("Hz"),
        ],
        vec![
            quoted("Duration"),
            quoted(&format!("{:.3}", walked.duration)),
            quoted("s"),
        ],
        vec![quoted("Range"), quoted(&range_text(filter))],
        std::iter::once(quoted("Beacon Markers"))
            .chain(beacons.iter().map(|t| quoted(&format!("{t}"))))
            .collect(),
    ];
    for row in &preamble {
        writeln!(out, "{}", row.join(","))?;
    }
    writeln!(out)?;
    writeln!(out)?;
    let names: Vec<String> = std::iter::once(quoted("Time"))
        .chain(columns.iter().map(|c| quoted(c.name)))
        .collect();
    let units: Vec<String> = std::iter::once(quoted("s"))
        .chain(columns.iter().map(|c| quoted(c.unit)))
        .collect();
    writeln!(out, "{}", names.join(","))?;
    writeln!(out, "{}", units.join(","))?;
    writeln!(out)?;
    writeln!(out)?;
    spool.seek(SeekFrom::Start(0))?;
    std::io::copy(spool, out)?;
    out.flush()?;
    Ok(walked.rows)
}

fn range_text(filter: &RowFilter) -> String {
    match filter.laps {
        Some((first, last)) if first == last => format!("lap {first}"),
        Some((first, last)) => format!("laps {first}-{last}"),
        None => "entire outing".to_owned(),
    }
}
