//! The one error type of skidpad-core. Every fallible public function returns
//! [`CoreError`]; messages are lowercase and carry the offending value.

use crate::CarId;

/// Everything that can go wrong when using the core.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CoreError {
    /// The car id does not name a car of this world.
    #[error("unknown car id {0}")]
    UnknownCar(CarId),
    /// An input field was NaN or infinite.
    #[error("input field `{field}` is not finite: {value}")]
    NonFiniteInput {
        /// Name of the input field.
        field: &'static str,
        /// The rejected value.
        value: f64,
    },
    /// The host step length is not finite or outside (0, 0.25] seconds.
    #[error("timestep must be finite and in (0, 0.25] s, got {0}")]
    InvalidTimestep(f64),
    /// A car definition failed validation; `field` is its dotted path.
    #[error("invalid car definition: `{field}` {reason}")]
    InvalidDefinition {
        /// Dotted path of the bad field, e.g. `chassis.mass`.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A definition or data file could not be parsed as JSON.
    #[error("cannot parse {what}: {message}")]
    Parse {
        /// What was being parsed.
        what: &'static str,
        /// The parser's message, with line and column.
        message: String,
    },
    /// No built-in preset or track has this name.
    #[error("unknown {kind} `{name}` (known: {known})")]
    UnknownName {
        /// "preset" or "track".
        kind: &'static str,
        /// The name asked for.
        name: String,
        /// The names that exist, comma separated.
        known: String,
    },
    /// The surface id is not in the world's surface table.
    #[error("unknown surface id {id} (the table has {count} surfaces)")]
    UnknownSurface {
        /// The id asked for.
        id: u8,
        /// How many surfaces the table holds.
        count: usize,
    },
    /// A surface table or surface is invalid.
    #[error("invalid surface table: {0}")]
    InvalidSurfaceTable(String),
    /// A wheel index outside 0..4.
    #[error("wheel index {0} out of range (0..4)")]
    InvalidWheel(u8),
    /// A value other than an input (pose, slope, rate) is out of range.
    #[error("invalid {what}: {reason}")]
    InvalidArgument {
        /// Which argument.
        what: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A snapshot could not be restored.
    #[error("cannot restore snapshot: {0}")]
    Snapshot(String),
    /// A step produced a non-finite state; the world was left as before it.
    #[error("car {car} became numerically unstable; the step was rolled back")]
    NumericalInstability {
        /// The car whose state went non-finite.
        car: CarId,
    },
}

/// Result alias for the core.
pub type Result<T, E = CoreError> = std::result::Result<T, E>;

/// Checks one number; `field` is the dotted path used in the error.
pub(crate) fn check(field: &str, value: f64, ok: bool, reason: &str) -> Result<()> {
    if value.is_finite() && ok {
        Ok(())
    } else {
        Err(CoreError::InvalidDefinition {
            field: field.to_owned(),
            reason: format!("{reason}, got {value}"),
        })
    }
}
