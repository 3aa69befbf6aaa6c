//! What a replay of any simulation version says about its cars' resets,
//! for replays this build cannot decode (another version's: the archive
//! of old cores plays them, and its interface has no resets). The
//! sections read here (header, removals, arrivals, resets) keep their layout
//! across simulation versions; the body's (snapshots, definitions) is
//! never read.

use super::presence;
use super::resets::decode_resets;
use super::sections::{HEADER, RESETS, Sections};
use super::{checked_body, decode_header, gunzip, is_gzip};
use crate::Result;
use crate::limits::Limits;
use crate::replay::CarReset;

/// Per car, the resets a replay of any simulation version records
/// (empty for a car never reset): the file's preamble, checksum, header,
/// removals and resets section are checked as [`decode_replay`](super::decode_replay)
/// checks them, a gzip file inflated within the default limits.
pub fn read_resets_any_version(bytes: &[u8]) -> Result<Vec<Vec<CarReset>>> {
    if is_gzip(bytes) {
        let max = usize::try_from(Limits::default().max_decoded_bytes).unwrap_or(usize::MAX);
        return resets_of_plain(&gunzip(bytes, max)?);
    }
    resets_of_plain(bytes)
}

fn resets_of_plain(bytes: &[u8]) -> Result<Vec<Vec<CarReset>>> {
    let (_, body) = checked_body(bytes)?;
    let mut sections = Sections::read(body)?;
    let header = decode_header(&mut sections.require(HEADER)?)?;
    // The car count sizes what follows.
    Limits::default().check_header(&header)?;
    let spans = presence(&mut sections, &header)?.spans;
    match sections.take(RESETS) {
        Some(r) => decode_resets(r, &spans),
        None => Ok(vec![Vec::new(); spans.len()]),
    }
}
