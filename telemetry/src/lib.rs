//! One car's telemetry from a replay, in the formats analysis tools read:
//! plain CSV ([`csv`]), MoTeC CSV ([`motec_csv`]) and MoTeC i2 logged data
//! with its lap beacons ([`motec_ld`]). The `skidpad telemetry` command
//! and the wasm package both write through here, so a log made in a
//! browser is the same bytes as one made on the command line.
//!
//! Every writer takes a [`Walk`](rows::Walk): a pass over the replay that
//! gives one car's rows as the steps are made ([`rows::walk`] over a
//! `ReplayPlayer`), so nothing holds the race in memory; the MoTeC writers
//! need what only the whole race knows (the beacons, the row count) before
//! their rows, so the rows wait in a [`Spool`] the caller gives: an
//! unnamed temporary file on the command line, memory in the browser.
//! `MOTEC.md` beside this crate documents both MoTeC layouts byte by byte
//! and the i2 channel names.

pub mod csv;
mod error;
pub mod motec;
pub mod motec_csv;
pub mod motec_ld;
pub mod rows;

use std::io::{Read, Seek, Write};

pub use error::{Result, TelemetryError};

/// Where rows wait while a walk runs: written, then read back from the
/// start.
pub trait Spool: Read + Write + Seek {}

impl<T: Read + Write + Seek> Spool for T {}

/// An output a writer seeks in (a `.ld` is written channel by channel
/// while the rows come step by step).
pub trait SeekWrite: Write + Seek {}

impl<T: Write + Seek> SeekWrite for T {}
