//! Why a telemetry export was refused or failed, as a type a caller can
//! match (a command line adds its own flag names; a browser shows the
//! text as it is).

use skidpad_core::CoreError;
use skidpad_replay::ReplayError;

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// A range of laps that is not one: `text` as given.
    #[error("laps {text:?}: {reason}")]
    Laps {
        /// The range as given.
        text: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A row every 0 steps.
    #[error("the row stride must be at least 1 step")]
    Stride,
    /// The replay holds no such car.
    #[error("the replay has {cars} car(s) (0 to {}): no car {car}", cars.saturating_sub(1))]
    NoCar {
        /// The car asked for.
        car: u32,
        /// Cars the replay holds.
        cars: usize,
    },
    /// Laps were asked for, but the replay names no track to time them on.
    #[error("the replay names no track (metadata `track`), so it has no laps to choose")]
    NoTrack,
    /// The laps asked for hold no row of the car.
    #[error("car {car} has no rows in laps {first}-{last}: it started {started} lap(s)")]
    NoRowsInLaps {
        /// The car.
        car: u32,
        /// The first lap asked for.
        first: u32,
        /// The last lap asked for.
        last: u32,
        /// Laps the car started.
        started: usize,
    },
    /// The car has no row at all (removed before its first step, or
    /// joined after the last).
    #[error(
        "car {car} has no rows to log: the recording removed it before its first step (or it joined after the last)"
    )]
    NoRows {
        /// The car.
        car: u32,
    },
    /// More rows than a `.ld` file's 32-bit offsets reach.
    #[error(
        "{rows} rows of {channels} channels do not fit a .ld file's 32-bit offsets: log fewer laps, or a row every few steps"
    )]
    TooLong {
        /// Rows to write.
        rows: u64,
        /// Channels per row.
        channels: usize,
    },
    /// The replay's steps differ in length: a `.ld` log has one rate.
    #[error("a .ld log needs a fixed rate: this replay's steps are not all the same length")]
    VariableRate,
    /// A row every `stride` steps is not a whole number of Hz.
    #[error(
        "a row every {stride} steps gives {rate:.4} Hz, and a .ld log's rate is a whole number of Hz: pick a stride that divides the step rate ({step_rate:.4} Hz)"
    )]
    Rate {
        /// Steps per row.
        stride: u64,
        /// The rate that gives, Hz.
        rate: f64,
        /// The replay's step rate, Hz.
        step_rate: f64,
    },
    /// The replay could not be played.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The core refused (a car's state could not be read).
    #[error(transparent)]
    Core(#[from] CoreError),
    /// Writing the output, or the spool, failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// A telemetry result.
pub type Result<T, E = TelemetryError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use crate::TelemetryError;
    use crate::rows::RowFilter;

    #[test]
    fn a_bad_range_of_laps_is_a_typed_error_that_names_no_flag() {
        for (text, reason) in [
            ("0-2", "laps are numbered from 1 (e.g. 2-4)"),
            ("3-2", "the first lap is after the last"),
            ("two", "laps are numbered from 1 (e.g. 2-4)"),
        ] {
            let e = RowFilter::parse_laps(text).unwrap_err();
            assert!(
                matches!(&e, TelemetryError::Laps { text: t, reason: r } if t == text && *r == reason),
                "{e:?}"
            );
            assert!(!e.to_string().contains("--"), "{e}");
        }
        assert_eq!(RowFilter::parse_laps(" 2-4").unwrap(), (2, 4));
    }
}
