//! Any bytes: `decode_ghost` returns an error or a ghost that re-encodes to
//! exactly those bytes (canonical encoding); it never panics. Each input is
//! tried as it is and re-sealed with a valid checksum, so the fuzzer reaches
//! the parser behind the checksum.
//!
//! Run: `cd ghost/fuzz && cargo +nightly fuzz run decode_ghost`

#![no_main]

use libfuzzer_sys::fuzz_target;
use skidpad_ghost::{decode_ghost, encode_ghost};

fuzz_target!(|data: &[u8]| {
    let mut sealed = data.to_vec();
    sealed.extend_from_slice(blake3::hash(data).as_bytes());
    for input in [data, &sealed[..]] {
        if let Ok(ghost) = decode_ghost(input) {
            assert_eq!(encode_ghost(&ghost).unwrap(), input);
        }
    }
});
