//! The netplay crate's one error type.

/// A schema, frame or message that netplay refuses.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum NetError {
    /// A schema entry that breaks a rule; `key` names the entry.
    #[error("snapshot schema, key {key:?}: {reason}")]
    Schema {
        /// The entry's key name (or its id, when the name is the problem).
        key: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A schema that is not the JSON a schema is.
    #[error("snapshot schema is not valid JSON: {0}")]
    SchemaJson(String),
    /// A frame of another snapshot format version: the client drops it.
    #[error("snapshot frame has format version {found}, this build reads {expected}")]
    Version {
        /// The version this build reads and writes.
        expected: u8,
        /// The version the frame declares.
        found: u8,
    },
    /// A frame that cannot be decoded; `offset` is the byte where the
    /// problem was found.
    #[error("snapshot frame, byte {offset}: {reason}")]
    Frame {
        /// Byte offset into the frame.
        offset: usize,
        /// What is wrong.
        reason: String,
    },
    /// A client's message (an input, a command) that cannot be read;
    /// `offset` is the byte of its payload where the problem was found.
    #[error("{kind}, byte {offset}: {reason}")]
    Message {
        /// What the message was to be: `input message`, `command`.
        kind: &'static str,
        /// Byte offset into the payload.
        offset: usize,
        /// What is wrong.
        reason: String,
    },
    /// Blocks that cannot be encoded with this schema.
    #[error("cannot encode key {key:?}: {reason}")]
    Encode {
        /// The block's key name.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// A recorded race that cannot give the asked driver's leaderboard
    /// entry (not a recording, no such driver, the car left the race).
    #[error("leaderboard entry: {reason}")]
    Entry {
        /// Why.
        reason: String,
    },
    /// A request the race refuses (a seat, an input, a setting); nothing
    /// changed.
    #[error("refused: {reason}")]
    Refused {
        /// Why.
        reason: String,
    },
}

/// Result with [`NetError`].
pub type Result<T> = std::result::Result<T, NetError>;

pub(crate) fn schema_error(key: impl Into<String>, reason: impl Into<String>) -> NetError {
    NetError::Schema {
        key: key.into(),
        reason: reason.into(),
    }
}

pub(crate) fn frame_error(offset: usize, reason: impl Into<String>) -> NetError {
    NetError::Frame {
        offset,
        reason: reason.into(),
    }
}

pub(crate) fn message_error(
    kind: &'static str,
    offset: usize,
    reason: impl Into<String>,
) -> NetError {
    NetError::Message {
        kind,
        offset,
        reason: reason.into(),
    }
}

pub(crate) fn encode_error(key: impl Into<String>, reason: impl Into<String>) -> NetError {
    NetError::Encode {
        key: key.into(),
        reason: reason.into(),
    }
}
