//! Telling the SDK's files apart by their first bytes, for every tool that
//! takes "a file" (the CLI, the services, the viewer through wasm), so no
//! tool keeps its own copy of the magic numbers. Names mean nothing here:
//! a renamed replay is still a replay.

use super::compress::is_gzip;

/// What a file holds, by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// A `.skr` replay, plain (`SKRP`) or gzipped (the decoder inflates
    /// gzip and refuses anything but a replay inside).
    Replay,
    /// A `.sks` stream (`SKST`): `read_stream` or `skidpad recover` turns
    /// it into a replay.
    Stream,
    /// A `.skg` ghost (`SKGH`).
    Ghost,
    /// A `.skgd` ground file (`SKGD`): the ground replays that do not
    /// carry theirs were recorded on.
    Ground,
    /// No bytes at all.
    Empty,
    /// Anything else (including a file shorter than its magic number).
    Unknown,
}

impl FileKind {
    /// The kind of `bytes`.
    ///
    /// ```
    /// use skidpad_replay::FileKind;
    ///
    /// assert_eq!(FileKind::sniff(b"SKRP\x01\x00\x00\x00"), FileKind::Replay);
    /// assert_eq!(FileKind::sniff(&[0x1f, 0x8b, 8]), FileKind::Replay);
    /// assert_eq!(FileKind::sniff(b"SKGH"), FileKind::Ghost);
    /// assert_eq!(FileKind::sniff(b"SKGD"), FileKind::Ground);
    /// assert_eq!(FileKind::sniff(b""), FileKind::Empty);
    /// assert_eq!(FileKind::sniff(b"{\"json\": 1}"), FileKind::Unknown);
    /// ```
    #[must_use]
    pub fn sniff(bytes: &[u8]) -> FileKind {
        if bytes.is_empty() {
            FileKind::Empty
        } else if bytes.starts_with(super::MAGIC) || is_gzip(bytes) {
            FileKind::Replay
        } else if bytes.starts_with(super::stream::MAGIC) {
            FileKind::Stream
        } else if bytes.starts_with(skidpad_ghost::GHOST_MAGIC) {
            FileKind::Ghost
        } else if bytes.starts_with(super::GROUND_MAGIC) {
            FileKind::Ground
        } else {
            FileKind::Unknown
        }
    }

    /// The kind's name as tools print it: `replay`, `stream`, `ghost`,
    /// `ground`, `empty` or `unknown`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Replay => "replay",
            FileKind::Stream => "stream",
            FileKind::Ghost => "ghost",
            FileKind::Ground => "ground",
            FileKind::Empty => "empty",
            FileKind::Unknown => "unknown",
        }
    }

    /// The file extension the SDK writes for the kind, if it has one.
    #[must_use]
    pub fn extension(self) -> Option<&'static str> {
        match self {
            FileKind::Replay => Some("skr"),
            FileKind::Stream => Some("sks"),
            FileKind::Ghost => Some("skg"),
            FileKind::Ground => Some("skgd"),
            FileKind::Empty | FileKind::Unknown => None,
        }
    }
}
