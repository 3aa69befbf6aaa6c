//! The section table of a `.skr` file: section ids, reading the table
//! (order, flags, unknown sections) into readers of each payload, and what
//! a failed checksum means.

use super::bytes::Reader;
use super::{CHECKSUM, PREAMBLE, REQUIRED, SECTION_HEADER};
use crate::{ReplayError, Result};

// Section ids, in the order they appear.
pub(super) const END: u16 = 0;
pub(super) const HEADER: u16 = 1;
pub(super) const DEFINITIONS: u16 = 2;
pub(super) const DT: u16 = 3;
pub(super) const INPUTS: u16 = 4;
pub(super) const LOD: u16 = 5;
pub(super) const SURFACES: u16 = 6;
pub(super) const KEYFRAMES: u16 = 7;
pub(super) const GHOSTS: u16 = 8;
pub(super) const REMOVALS: u16 = 9;
pub(super) const RESETS: u16 = 10;
pub(super) const GROUND: u16 = 11;
pub(super) const ARRIVALS: u16 = 12;
pub(super) const REWINDS: u16 = 13;

/// The known sections of a file whose checksum passed, each a reader of
/// its payload; taken one by one as the decoder needs them.
pub(super) struct Sections<'a> {
    found: Vec<(u16, Reader<'a>)>,
}

impl<'a> Sections<'a> {
    /// Reads the table from `body` (the bytes between the preamble and the
    /// checksum): rising ids, known flags, an end section; unknown
    /// optional sections are skipped and unknown required ones refused.
    pub(super) fn read(body: &'a [u8]) -> Result<Self> {
        let mut r = Reader::new(body, PREAMBLE, "sections");
        let mut found: Vec<(u16, Reader<'a>)> = Vec::new();
        loop {
            let id = r.u16()?;
            let flags = r.u16()?;
            if flags & !REQUIRED != 0 {
                return Err(r.error(format!("section {id}: unknown flags {flags:#x}")));
            }
            let length = r.u32()? as usize;
            let base = r.offset();
            let payload = r.take(length)?;
            if id == END {
                if length != 0 || flags != REQUIRED {
                    return Err(r.error("malformed end section"));
                }
                break;
            }
            if found.last().is_some_and(|(last, _)| *last >= id) {
                return Err(r.error(format!("section {id} out of order")));
            }
            let known = id <= REWINDS;
            let required_flag = flags & REQUIRED != 0;
            if known && required_flag != !matches!(id, GHOSTS | GROUND) {
                return Err(r.error(format!(
                    "section {} has the wrong required flag",
                    section_name(id)
                )));
            }
            match (known, required_flag) {
                (true, _) => found.push((id, Reader::new(payload, base, section_name(id)))),
                (false, true) => {
                    return Err(r.error(format!(
                        "unknown required section {id}: written by a newer format"
                    )));
                }
                (false, false) => {} // an optional section from a newer writer
            }
        }
        r.finish()?;
        Ok(Sections { found })
    }

    /// Section `id`, if the file has it.
    pub(super) fn take(&mut self, id: u16) -> Option<Reader<'a>> {
        let i = self.found.iter().position(|(s, _)| *s == id)?;
        Some(self.found.remove(i).1)
    }

    /// Section `id`, which every replay has.
    pub(super) fn require(&mut self, id: u16) -> Result<Reader<'a>> {
        self.take(id).ok_or_else(|| ReplayError::Decode {
            section: section_name(id),
            offset: PREAMBLE,
            reason: "required section missing".into(),
        })
    }
}

/// The section's name in messages.
pub(super) fn section_name(id: u16) -> &'static str {
    match id {
        HEADER => "header",
        DEFINITIONS => "definitions",
        DT => "dt",
        INPUTS => "inputs",
        LOD => "lod",
        SURFACES => "surfaces",
        KEYFRAMES => "keyframes",
        GHOSTS => "ghosts",
        REMOVALS => "removals",
        RESETS => "resets",
        GROUND => "ground",
        ARRIVALS => "arrivals",
        REWINDS => "rewinds",
        _ => "unknown",
    }
}

/// What a failed checksum most likely means, from the section lengths
/// (read without trusting them): a file cut short, bytes after the end, or
/// the same length with altered content.
pub(super) fn checksum_failure(bytes: &[u8]) -> String {
    let len = bytes.len();
    let mut at = PREAMBLE;
    let declared = loop {
        let Some(header) = bytes.get(at..at + SECTION_HEADER) else {
            break None;
        };
        let id = u16::from_le_bytes([header[0], header[1]]);
        let length = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
        at = at
            .saturating_add(SECTION_HEADER)
            .saturating_add(length as usize);
        if id == END {
            break Some(at.saturating_add(CHECKSUM));
        }
    };
    match declared {
        Some(expected) if expected == len => format!(
            "checksum mismatch: the file has the {len} bytes its sections declare, but its content was altered"
        ),
        Some(expected) if expected < len => format!(
            "checksum mismatch: the sections declare {expected} bytes, the file has {len} ({} extra bytes at the end)",
            len - expected
        ),
        Some(expected) => format!(
            "checksum mismatch: the file is truncated ({len} bytes, its sections declare {expected})"
        ),
        // The sections run past the end; an end section and the checksum
        // would follow them.
        None => format!(
            "checksum mismatch: the file is truncated ({len} bytes, its sections declare at least {})",
            at.saturating_add(SECTION_HEADER + CHECKSUM)
        ),
    }
}
