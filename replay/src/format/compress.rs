//! Deflate for streams inside the file, gzip for whole files, both with a
//! hard bound on output so a crafted input cannot exhaust memory.

use std::io::{Read, Write};

use flate2::Compression;
use flate2::read::{DeflateDecoder, GzDecoder};
use flate2::write::{DeflateEncoder, GzEncoder};

use crate::{ReplayError, Result};

/// Largest decompressed replay accepted, bytes.
pub const MAX_DECOMPRESSED: usize = 1 << 30;
/// Deflate cannot expand data by more than about 1032:1; anything claiming
/// more is corrupt.
const MAX_RATIO: usize = 1032;

/// Deflate at the level the format always uses (canonical output for this
/// encoder).
pub(crate) fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = DeflateEncoder::new(Vec::new(), Compression::new(9));
    // Writing into a Vec cannot fail.
    let _ = e.write_all(data);
    e.finish().unwrap_or_default()
}

/// Inflates exactly `expected` bytes, refusing more or less, and never
/// allocating beyond the bound.
pub(crate) fn inflate(
    data: &[u8],
    expected: usize,
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
    let mut out = Vec::with_capacity(expected);
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
    if deflate(&out) != data {
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

/// gunzip with a bound: at most `MAX_DECOMPRESSED` bytes and at most the
/// deflate maximum ratio of the input.
pub fn gunzip(bytes: &[u8]) -> Result<Vec<u8>> {
    let bound = bytes.len().saturating_mul(MAX_RATIO).min(MAX_DECOMPRESSED);
    let out = gunzip_prefix(bytes, bound + 1)?;
    if out.len() > bound {
        return Err(ReplayError::Decode {
            section: "gzip",
            offset: 0,
            reason: format!("decompresses beyond the {bound}-byte bound"),
        });
    }
    Ok(out)
}

/// The first `n` decompressed bytes of a gzip stream (fewer if it is
/// shorter): the whole of it under `gunzip`'s bound, or just a header.
pub(crate) fn gunzip_prefix(bytes: &[u8], n: usize) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(n.min(1 << 20));
    GzDecoder::new(bytes)
        .take(n as u64)
        .read_to_end(&mut out)
        .map_err(|e| ReplayError::Decode {
            section: "gzip",
            offset: 0,
            reason: format!("corrupt gzip stream: {e}"),
        })?;
    Ok(out)
}
