//! Deflate for streams inside the file, gzip for whole files, both with a
//! hard bound on output so a crafted input cannot exhaust memory.

use std::io::{Read, Write};

use flate2::Compression;
use flate2::bufread::GzDecoder;
use flate2::read::DeflateDecoder;
use flate2::write::{DeflateEncoder, GzEncoder};

use super::bytes::Writer;
use crate::{ReplayError, Result};

/// Largest decompressed replay accepted, bytes.
pub const MAX_DECOMPRESSED: usize = 1 << 30;
/// Deflate cannot expand data by more than about 1032:1; anything claiming
/// more is corrupt.
const MAX_RATIO: usize = 1032;
/// Most bytes reserved before inflating, beyond a small multiple of the
/// compressed size: a declared length is only a claim until the data
/// arrives, so the buffer grows with what really inflates.
const MAX_RESERVE: usize = 1 << 20;

/// The deflate level whose output is a replay's one canonical stream, by
/// the file's format version. Version 1 used level 9; version 2 uses level
/// 5, because the decoder proves a stream canonical by deflating what it
/// inflated and comparing: at level 9 that proof was nine tenths of
/// decoding a 20-car race (13 % of verifying it), at level 5 it takes a
/// sixth of the instructions, for streams 0.3 % larger.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CanonicalLevel(u32);

impl CanonicalLevel {
    /// The level this build writes (format version 2).
    pub(crate) const CURRENT: CanonicalLevel = CanonicalLevel(5);

    /// The level of a file of format `version` (one the preamble accepted).
    pub(crate) fn of_format(version: u16) -> CanonicalLevel {
        if version == 1 {
            CanonicalLevel(9)
        } else {
            CanonicalLevel::CURRENT
        }
    }
}

/// Deflate at `level` (miniz_oxide's output at a level is deterministic,
/// which is what makes it canonical).
pub(crate) fn deflate(data: &[u8], level: CanonicalLevel) -> Vec<u8> {
    let mut e = DeflateEncoder::new(Vec::new(), Compression::new(level.0));
    // Writing into a Vec cannot fail.
    let _ = e.write_all(data);
    e.finish().unwrap_or_default()
}

/// Inflates exactly `expected` bytes, refusing more or less, and never
/// allocating beyond the bound; refuses a stream other than the one
/// [`deflate`] makes at `level`.
pub(crate) fn inflate(
    data: &[u8],
    expected: usize,
    level: CanonicalLevel,
    section: &'static str,
    offset: usize,
) -> Result<Vec<u8>> {
    let err = |reason: String| ReplayError::Decode {
        section,
        offset,
        reason,
    };
    let bound = data
        .len()
        .saturating_mul(MAX_RATIO)
        .saturating_add(64)
        .min(MAX_DECOMPRESSED);
    if expected > bound {
        return Err(err(format!(
            "declares {expected} bytes from {} compressed, beyond the possible",
            data.len()
        )));
    }
    let mut out = Vec::with_capacity(expected.min(data.len().saturating_mul(4).max(MAX_RESERVE)));
    DeflateDecoder::new(data)
        .take(expected as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| err(format!("corrupt deflate stream: {e}")))?;
    if out.len() != expected {
        return Err(err(format!(
            "inflates to {} bytes, declared {expected}",
            out.len()
        )));
    }
    // Many deflate streams inflate to the same bytes; only the one this
    // encoder writes is accepted, so decode → encode gives back the input.
    if deflate(&out, level) != data {
        return Err(err("deflate stream is not in canonical form".into()));
    }
    Ok(out)
}

/// True when the bytes start with the gzip magic.
#[must_use]
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// gzip, as the browser's `CompressionStream("gzip")` makes.
#[must_use]
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::new(6));
    let _ = e.write_all(bytes);
    e.finish().unwrap_or_default()
}

/// gunzip with a bound: at most `max` bytes (and never more than
/// `MAX_DECOMPRESSED` or deflate's maximum ratio of the input). One gzip
/// member only: bytes after it are refused, as a plain file's are.
///
/// Going past `max` is [`ReplayError::LimitExceeded`] (`decoded bytes`,
/// with the first count past it as the value: inflating stops there);
/// going past the other bounds means a corrupt stream.
pub fn gunzip(bytes: &[u8], max: usize) -> Result<Vec<u8>> {
    let bound = bytes
        .len()
        .saturating_mul(MAX_RATIO)
        .min(MAX_DECOMPRESSED)
        .min(max);
    let (out, rest) = gunzip_member(bytes, bound.saturating_add(1))?;
    if out.len() > bound {
        if bound == max {
            return Err(ReplayError::LimitExceeded {
                limit: "decoded bytes",
                value: out.len() as u64,
                max: max as u64,
            });
        }
        return Err(gzip_error(format!(
            "decompresses beyond the {bound}-byte bound"
        )));
    }
    if !rest.is_empty() {
        return Err(ReplayError::Decode {
            section: "gzip",
            offset: bytes.len() - rest.len(),
            reason: format!(
                "{} bytes of trailing data after the gzip member",
                rest.len()
            ),
        });
    }
    Ok(out)
}

/// The first `n` decompressed bytes of a gzip stream (fewer if it is
/// shorter): just enough to read a header.
pub(crate) fn gunzip_prefix(bytes: &[u8], n: usize) -> Result<Vec<u8>> {
    Ok(gunzip_member(bytes, n)?.0)
}

/// Up to `n` decompressed bytes of the first gzip member, and the input
/// left after that member (meaningful when the member was read whole).
fn gunzip_member(bytes: &[u8], n: usize) -> Result<(Vec<u8>, &[u8])> {
    let mut out = Vec::with_capacity(n.min(bytes.len().saturating_mul(4)).min(MAX_RESERVE));
    let mut decoder = GzDecoder::new(bytes);
    (&mut decoder)
        .take(n as u64)
        .read_to_end(&mut out)
        .map_err(|e| gzip_error(format!("corrupt gzip stream: {e}")))?;
    Ok((out, decoder.into_inner()))
}

fn gzip_error(reason: String) -> ReplayError {
    ReplayError::Decode {
        section: "gzip",
        offset: 0,
        reason,
    }
}

/// A deflated section: the inflated length, then the deflate stream.
pub(super) fn deflated_section(raw: Writer) -> Writer {
    let mut w = Writer::default();
    let raw = w.absorb(raw);
    w.u64(raw.len() as u64);
    w.bytes(&deflate(&raw, CanonicalLevel::CURRENT));
    w
}
