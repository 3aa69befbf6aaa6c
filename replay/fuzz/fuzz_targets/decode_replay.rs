//! Any bytes: `decode_replay` and `read_replay_header` return an error or a
//! value, never panic; an accepted replay re-encodes to exactly its input
//! (canonical form). Each input is also tried re-sealed with a valid
//! checksum, so the fuzzer reaches the section parsers.
//!
//! Run: `cd replay/fuzz && cargo +nightly fuzz run decode_replay`

#![no_main]

use libfuzzer_sys::fuzz_target;
use skidpad_replay::{decode_replay, encode_replay, read_replay_header};

fuzz_target!(|data: &[u8]| {
    let _ = read_replay_header(data);
    let mut sealed = data.to_vec();
    sealed.extend_from_slice(blake3::hash(data).as_bytes());
    for input in [data, &sealed[..]] {
        if let Ok(replay) = decode_replay(input) {
            if !skidpad_replay::is_gzip(input) {
                assert_eq!(encode_replay(&replay).unwrap(), input);
            }
        }
    }
});
