//! The input layer's one error type.

/// A device profile or a setting the input layer refuses.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum InputError {
    /// A profile that is not the JSON a profile is.
    #[error("device profile is not valid JSON: {0}")]
    Json(String),
    /// A setting outside its range; `field` names it as the JSON does.
    #[error("{field}: {reason}")]
    Invalid {
        /// The setting, as a JSON path (`steer.dead_zone`).
        field: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// Result with [`InputError`].
pub type Result<T> = std::result::Result<T, InputError>;

pub(crate) fn invalid(field: impl Into<String>, reason: impl Into<String>) -> InputError {
    InputError::Invalid {
        field: field.into(),
        reason: reason.into(),
    }
}

/// Refuses `v` outside `[lo, hi]` (NaN included), naming `field`.
pub(crate) fn check_range(field: impl Into<String>, v: f64, lo: f64, hi: f64) -> Result<()> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(invalid(field, format!("must be in [{lo}, {hi}], got {v}")))
    }
}
