//! MoTeC i2 logged data: one car's telemetry as a `.ld` file, with its lap
//! beacons as the `.ldx` text that goes beside it.
//!
//! The columns are the MoTeC CSV export's ([`motec::columns`]): the lap number,
//! lap time and lap distance, the channels with a standard i2 name under
//! it in i2's units, then every other channel under its own name. Samples
//! are 32-bit floats at the recording rate (a whole number of Hz: the
//! step's rate over the stride). The format, as this writer lays it out,
//! is documented byte by byte in `telemetry/MOTEC.md`; it follows the public
//! descriptions of the format (the `motec-i2` crate, which the tests read
//! it back with, and `ldparser`), and like them it cannot say what every
//! byte of a logger's header means: the unknown constants are written as
//! those logs have them.
//!
//! The file is channel by channel (each channel's samples together), the
//! walk gives rows, and the row count is known only at the end: the rows
//! wait in a spool (a temporary file, or memory in the browser), then go
//! out a block of rows at a time, each channel's part of the block written
//! at its place. Besides the spool, memory stays at one block, whatever
//! the race's length.
//!
//! A log has no empty samples: the lap columns hold 0 on an out-lap, and
//! a car the recording removed ends its log where it was removed (the
//! event comment says so).

use std::io::{SeekFrom, Write};

use crate::{Result, TelemetryError};

use crate::motec::{self, Column, LogInfo};
use crate::rows::{Walk, Walked};
use crate::{SeekWrite, Spool};

/// The header's size, where the event block starts.
const HEADER_SIZE: usize = 0x6E2;
const EVENT_SIZE: usize = 64 + 64 + 1024 + 2;
const VENUE_SIZE: usize = 64 + 1034 + 2;
const VEHICLE_SIZE: usize = 64 + 128 + 4 + 32 + 32;
/// Where the channels' metadata starts.
const META_START: usize = HEADER_SIZE + EVENT_SIZE + VENUE_SIZE + VEHICLE_SIZE;
/// One channel's metadata.
const META_SIZE: usize = 124;
/// Bytes per sample (f32).
const SAMPLE: usize = 4;
/// Rows moved from the temporary file per block.
const BLOCK_ROWS: usize = 4096;

/// A written log.
#[derive(Debug)]
pub struct LdLog {
    /// Samples per channel.
    pub rows: u64,
    /// The `.ldx` to put beside the `.ld`: the lap beacons.
    pub ldx: String,
}

/// Writes the rows `walk` gives (every `stride`-th step) as a `.ld` log to
/// `out`, the rows waiting in `spool` meanwhile; returns the row count and
/// the `.ldx` text.
pub fn write_ld(
    out: &mut dyn SeekWrite,
    info: &LogInfo,
    stride: u64,
    spool: &mut dyn Spool,
    walk: &mut Walk<'_>,
) -> Result<LdLog> {
    let columns = motec::columns();
    // The first written row's time (the log's zero) and step, the last's
    // time, whether rows without the car came first (it joined late), and
    // the step it was removed at, if it was.
    let mut first_time = None;
    let mut first_step = None;
    let mut last_time = 0.0;
    let mut arrived_late = false;
    let mut removed_at = None;
    let mut written = 0u64;
    let walked = {
        let mut rows = std::io::BufWriter::new(&mut *spool);
        let walked = walk(&mut |row| {
            if row.values.is_none() {
                if first_time.is_some() {
                    removed_at.get_or_insert(row.step);
                } else {
                    arrived_late = true;
                }
                return Ok(());
            }
            first_time.get_or_insert(row.time);
            first_step.get_or_insert(row.step);
            last_time = row.time;
            for column in &columns {
                // Only the lap columns are ever empty (an out-lap).
                let v = motec::value(column, row).unwrap_or(0.0);
                rows.write_all(&(v as f32).to_le_bytes())?;
            }
            written += 1;
            Ok(())
        })?;
        rows.flush()?;
        walked
    };
    if written == 0 {
        return Err(TelemetryError::NoRows { car: info.car });
    }
    let rate = sample_rate(&walked, stride)?;
    let data_start = META_START + columns.len() * META_SIZE;
    // In u64: on a 32-bit target (wasm) the product could wrap. Once the
    // end fits the format's u32 offsets, every offset fits a usize.
    let end = (columns.len() as u64 * SAMPLE as u64)
        .checked_mul(written)
        .and_then(|bytes| bytes.checked_add(data_start as u64));
    if end.is_none_or(|end| u32::try_from(end).is_err()) {
        return Err(TelemetryError::TooLong {
            rows: written,
            channels: columns.len(),
        });
    }
    let mut comment = format!(
        "skidpad replay {}, car {}, simulation version {}; channels as skidpad's CHANNELS.md, lap columns 0 on an out-lap.",
        info.file_name, info.car, info.simulation_version
    );
    if let (true, Some(step)) = (arrived_late, first_step) {
        comment.push_str(&format!(
            " The car joined the recording at step {step}: the log starts there."
        ));
    }
    if let Some(step) = removed_at {
        comment.push_str(&format!(
            " The recording removed the car at step {step}: the log ends there."
        ));
    }
    let head = Head {
        channels: columns.len(),
        driver: &info.driver,
        vehicle: &info.vehicle,
        venue: walked.track.as_deref().unwrap_or(""),
        session: &format!("car {}", info.car),
        short_comment: &info.file_name,
        comment: &comment,
        mass: info.mass.round() as u32,
    };
    let layout = Layout {
        rows: written as usize,
        data_start,
        rate,
    };
    write_blocks(out, &head, &columns, &layout, spool)?;
    let start = first_time.unwrap_or(0.0);
    let beacons: Vec<f64> = motec::beacons(&walked)
        .into_iter()
        .filter(|t| (start..=last_time).contains(t))
        .map(|t| t - start)
        .collect();
    Ok(LdLog {
        rows: written,
        ldx: ldx(&beacons),
    })
}

/// The log's rate: the step's rate over the stride, a whole number of Hz
/// as the format stores it.
fn sample_rate(walked: &Walked, stride: u64) -> Result<u16> {
    let Some(dt) = walked.dt else {
        return Err(TelemetryError::VariableRate);
    };
    let rate = 1.0 / (dt * stride as f64);
    let whole = rate.round();
    if (rate - whole).abs() > 1e-6 * rate || !(1.0..=f64::from(u16::MAX)).contains(&whole) {
        return Err(TelemetryError::Rate {
            stride,
            rate,
            step_rate: 1.0 / dt,
        });
    }
    Ok(whole as u16)
}

/// What the header, event, venue and vehicle blocks say.
struct Head<'a> {
    channels: usize,
    driver: &'a str,
    vehicle: &'a str,
    venue: &'a str,
    session: &'a str,
    short_comment: &'a str,
    comment: &'a str,
    /// kg.
    mass: u32,
}

/// Where the samples go.
struct Layout {
    rows: usize,
    data_start: usize,
    rate: u16,
}

impl Layout {
    /// Where channel `k`'s samples start.
    fn data_of(&self, k: usize) -> usize {
        self.data_start + k * self.rows * SAMPLE
    }
}

fn write_blocks(
    file: &mut dyn SeekWrite,
    head: &Head<'_>,
    columns: &[Column],
    layout: &Layout,
    rows: &mut dyn Spool,
) -> Result<()> {
    let mut out = Bytes::default();
    header(&mut out, head, layout.data_start);
    debug_assert_eq!(out.0.len(), HEADER_SIZE);
    out.text(64, &format!("skidpad {}", head.short_comment));
    out.text(64, head.session);
    out.text(1024, head.comment);
    out.u16((HEADER_SIZE + EVENT_SIZE) as u16);
    out.text(64, head.venue);
    out.zeros(1034);
    out.u16((HEADER_SIZE + EVENT_SIZE + VENUE_SIZE) as u16);
    out.text(64, head.vehicle);
    out.zeros(128);
    out.u32(head.mass);
    out.text(32, "car");
    out.text(32, "");
    debug_assert_eq!(out.0.len(), META_START);
    for (k, column) in columns.iter().enumerate() {
        let at = |k: usize| (META_START + k * META_SIZE) as u32;
        out.u32(if k == 0 { 0 } else { at(k - 1) });
        out.u32(if k + 1 == columns.len() { 0 } else { at(k + 1) });
        out.u32(layout.data_of(k) as u32);
        out.u32(layout.rows as u32);
        // Unknown; the logs the public readers were written from have 4.
        out.u16(4);
        // Type 7 is a float, of 4 bytes.
        out.u16(7);
        out.u16(SAMPLE as u16);
        out.u16(layout.rate);
        // Offset 0, multiplier 1, scale 1, no decimal places: a sample is
        // the value itself.
        out.u16(0);
        out.u16(1);
        out.u16(1);
        out.u16(0);
        out.text(32, column.name);
        out.text(8, "");
        out.text(12, &ascii_unit(column.unit));
        // Unknown; as those logs have it.
        out.0.push(201);
        out.zeros(39);
    }
    debug_assert_eq!(out.0.len(), layout.data_start);
    file.write_all(&out.0)?;
    transpose(file, columns.len(), layout, rows)?;
    file.flush()?;
    Ok(())
}

/// The file header (the first `HEADER_SIZE` bytes).
fn header(out: &mut Bytes, head: &Head<'_>, data_start: usize) {
    out.u32(0x40);
    out.u32(0);
    out.u32(META_START as u32);
    out.u32(data_start as u32);
    out.zeros(20);
    out.u32(HEADER_SIZE as u32);
    out.zeros(24);
    // Unknown constants, as every public log has them (the middle one
    // with the next reads as 1 000 000 in a u32).
    out.u16(0);
    out.u16(0x4240);
    out.u16(0x000F);
    // Device serial, type and version.
    out.u32(0);
    out.text(8, "skidpad");
    out.u16(u16::try_from(skidpad_core::SIMULATION_VERSION).unwrap_or(u16::MAX));
    out.u16(0x0080);
    out.u32(head.channels as u32);
    out.u32(0x0001_0064);
    // The replay keeps no wall-clock time: every export of it says the
    // same date, so the same replay gives the same bytes.
    out.text(16, "01/01/1970");
    out.zeros(16);
    out.text(16, "00:00:00");
    out.zeros(16);
    out.text(64, head.driver);
    out.text(64, head.vehicle);
    out.zeros(64);
    out.text(64, head.venue);
    out.zeros(64);
    out.zeros(1024);
    // The "pro logging" word of the public logs.
    out.u32(0x00D2_0822);
    out.u16(0);
    out.text(64, head.session);
    out.text(64, head.short_comment);
    out.zeros(8);
    out.0.push(99);
    out.zeros(117);
}

/// Moves the rows (row by row in `rows`) to their channels' places in
/// `file`, a block of rows at a time.
fn transpose(
    file: &mut dyn SeekWrite,
    channels: usize,
    layout: &Layout,
    rows: &mut dyn Spool,
) -> Result<()> {
    rows.seek(SeekFrom::Start(0))?;
    let row_bytes = channels * SAMPLE;
    let mut block = vec![0u8; BLOCK_ROWS * row_bytes];
    let mut column = Vec::with_capacity(BLOCK_ROWS * SAMPLE);
    let mut first = 0;
    while first < layout.rows {
        let n = BLOCK_ROWS.min(layout.rows - first);
        let block = &mut block[..n * row_bytes];
        rows.read_exact(block)?;
        for k in 0..channels {
            column.clear();
            for row in block.chunks_exact(row_bytes) {
                column.extend_from_slice(&row[k * SAMPLE..(k + 1) * SAMPLE]);
            }
            file.seek(SeekFrom::Start((layout.data_of(k) + first * SAMPLE) as u64))?;
            file.write_all(&column)?;
        }
        first += n;
    }
    Ok(())
}

/// A unit in the ASCII the format's readers expect.
fn ascii_unit(unit: &str) -> String {
    unit.replace('²', "^2").replace('·', "")
}

/// The `.ldx` beside a log: a marker per crossing of the line, in
/// microseconds from the log's first sample, and the lap summary i2
/// shows. i2 counts the stretch before the first beacon as lap 1.
fn ldx(beacons: &[f64]) -> String {
    let mut text = String::from(
        "<?xml version=\"1.0\"?>\n<LDXFile Locale=\"English_United States.1252\" DefaultLocale=\"C\" Version=\"1.6\">\n <Layers>\n  <Layer>\n   <MarkerBlock>\n    <MarkerGroup Name=\"Beacons\" Index=\"3\">\n",
    );
    for (k, t) in beacons.iter().enumerate() {
        text.push_str(&format!(
            "     <Marker Version=\"100\" ClassName=\"BCN\" Name=\"Manual.{}\" Flags=\"77\" Time=\"{:.3}\"/>\n",
            k + 1,
            t * 1e6
        ));
    }
    text.push_str(
        "    </MarkerGroup>\n   </MarkerBlock>\n   <RangeBlock/>\n  </Layer>\n  <Details>\n",
    );
    text.push_str(&format!(
        "   <String Id=\"Total Laps\" Value=\"{}\"/>\n",
        beacons.len() + 1
    ));
    // A whole lap runs from one beacon to the next; i2 numbers it by the
    // beacon that ends it.
    let fastest = beacons
        .windows(2)
        .enumerate()
        .map(|(k, w)| (k + 2, w[1] - w[0]))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((lap, time)) = fastest {
        let minutes = (time / 60.0).floor();
        text.push_str(&format!(
            "   <String Id=\"Fastest Time\" Value=\"{}:{:06.3}\"/>\n   <String Id=\"Fastest Lap\" Value=\"{lap}\"/>\n",
            minutes as u64,
            time - minutes * 60.0
        ));
    }
    text.push_str("  </Details>\n </Layers>\n</LDXFile>\n");
    text
}

/// A little-endian byte builder with fixed-width text fields.
#[derive(Default)]
struct Bytes(Vec<u8>);

impl Bytes {
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn zeros(&mut self, n: usize) {
        self.0.resize(self.0.len() + n, 0);
    }

    /// `text` in a field of `width` bytes: ASCII (anything else becomes
    /// `?`), cut to leave at least one NUL, NUL-padded.
    fn text(&mut self, width: usize, text: &str) {
        let bytes: Vec<u8> = text
            .chars()
            .map(|c| if c.is_ascii() { c as u8 } else { b'?' })
            .take(width - 1)
            .collect();
        self.0.extend_from_slice(&bytes);
        self.zeros(width - bytes.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blocks_sit_where_the_header_points() {
        assert_eq!(HEADER_SIZE, 1762);
        assert_eq!(META_START, 4276);
        let mut out = Bytes::default();
        let head = Head {
            channels: 3,
            driver: "ann",
            vehicle: "rwd_sports",
            venue: "brandwood",
            session: "car 0",
            short_comment: "demo.skr",
            comment: "",
            mass: 1300,
        };
        header(&mut out, &head, META_START + 3 * META_SIZE);
        assert_eq!(out.0.len(), HEADER_SIZE);
        assert_eq!(&out.0[0x9E..0xA1], b"ann");
        assert_eq!(&out.0[0x15E..0x167], b"brandwood");
    }

    #[test]
    fn units_are_ascii_and_the_lap_summary_counts_whole_laps() {
        assert_eq!(ascii_unit("m/s²"), "m/s^2");
        assert_eq!(ascii_unit("N·m"), "Nm");
        let text = ldx(&[10.0, 72.5, 133.75]);
        assert!(text.contains("Time=\"10000000.000\""));
        assert!(text.contains("Id=\"Total Laps\" Value=\"4\""));
        // Lap 3 (beacon 2 to 3) took 61.25 s, lap 2 took 62.5 s.
        assert!(text.contains("Id=\"Fastest Time\" Value=\"1:01.250\""));
        assert!(text.contains("Id=\"Fastest Lap\" Value=\"3\""));
        assert!(!ldx(&[5.0]).contains("Fastest"));
    }
}
