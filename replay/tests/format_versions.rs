//! Format versions: a version-1 file (deflate streams at level 9) still
//! decodes, to the same replay, and each version accepts only its own
//! canonical deflate streams.

mod common;

use std::io::{Read, Write};

use common::record_race;
use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use skidpad_replay::{
    FORMAT_VERSION, ReplayError, decode_replay, encode_replay, read_replay_header,
};

/// Section ids whose payload is a u64 inflated length and a deflate stream.
const DEFLATED: [u16; 2] = [4, 7];

/// `bytes` (a plain replay) with every deflate stream re-deflated at
/// `level`, the format version field set to `version`, and the checksum
/// recomputed: what a writer of that version would have made.
fn rewritten(bytes: &[u8], level: u32, version: u16) -> Vec<u8> {
    let body = &bytes[8..bytes.len() - 32];
    let mut out = bytes[..8].to_vec();
    out[4..6].copy_from_slice(&version.to_le_bytes());
    let mut at = 0;
    while at < body.len() {
        let id = u16::from_le_bytes([body[at], body[at + 1]]);
        let len = u32::from_le_bytes(body[at + 4..at + 8].try_into().unwrap()) as usize;
        let mut payload = body[at + 8..at + 8 + len].to_vec();
        if DEFLATED.contains(&id) {
            let mut raw = Vec::new();
            DeflateDecoder::new(&payload[8..])
                .read_to_end(&mut raw)
                .unwrap();
            let mut e = DeflateEncoder::new(Vec::new(), Compression::new(level));
            e.write_all(&raw).unwrap();
            payload.truncate(8);
            payload.extend(e.finish().unwrap());
        }
        out.extend_from_slice(&body[at..at + 4]);
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        out.extend(payload);
        at += 8 + len;
    }
    let sum = blake3::hash(&out);
    out.extend_from_slice(sum.as_bytes());
    out
}

fn decode_error(bytes: &[u8]) -> String {
    decode_replay(bytes).unwrap_err().to_string()
}

#[test]
fn version_one_files_decode_to_the_same_replay_and_re_encode_as_the_current_version() {
    let replay = record_race(3, 700, 200).0;
    let current = encode_replay(&replay).unwrap();
    assert_eq!(u16::from_le_bytes([current[4], current[5]]), FORMAT_VERSION);
    assert_eq!(FORMAT_VERSION, 2);
    let version_one = rewritten(&current, 9, 1);
    assert_ne!(
        version_one, current,
        "level 9 and level 5 streams differ here"
    );
    assert_eq!(decode_replay(&version_one).unwrap(), replay);
    assert_eq!(read_replay_header(&version_one).unwrap(), replay.header);
    assert_eq!(
        encode_replay(&decode_replay(&version_one).unwrap()).unwrap(),
        current
    );
    // The current writer's output is its own rewrite at level 5.
    assert_eq!(rewritten(&current, 5, 2), current);
}

#[test]
fn each_version_refuses_the_other_versions_streams() {
    let current = encode_replay(&record_race(3, 700, 200).0).unwrap();
    let level_9_as_2 = rewritten(&current, 9, 2);
    let level_5_as_1 = rewritten(&current, 5, 1);
    for bytes in [&level_9_as_2, &level_5_as_1] {
        assert!(
            decode_error(bytes).contains("deflate stream is not in canonical form"),
            "{}",
            decode_error(bytes)
        );
    }
    // Another compressor's stream (level 1) is refused by both versions.
    for version in [1, 2] {
        assert!(decode_error(&rewritten(&current, 1, version)).contains("not in canonical form"));
    }
}

#[test]
fn versions_beyond_the_current_and_zero_are_refused_with_the_version_error() {
    let current = encode_replay(&record_race(2, 300, 100).0).unwrap();
    for version in [0, FORMAT_VERSION + 1, u16::MAX] {
        let bytes = rewritten(&current, 5, version);
        assert_eq!(
            decode_replay(&bytes).unwrap_err(),
            ReplayError::FormatVersion {
                expected: FORMAT_VERSION,
                found: version
            }
        );
        assert!(read_replay_header(&bytes).is_err());
    }
}
