//! Any bytes: `decode_frame` returns an error or a frame, never panics,
//! and an accepted frame encodes back to exactly its input (canonical
//! form). Two schemas are tried: skidpad's race schema, and one with every
//! block kind, an optional tail and a map-dynamics row with roles, so the
//! fuzzer reaches each decoder path.
//!
//! Run: `cd netplay/fuzz && cargo +nightly fuzz run decode_frame`

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use skidpad_netplay::{Schema, decode_frame, encode_frame, race_schema};

static SCHEMAS: LazyLock<[Schema; 2]> = LazyLock::new(|| {
    let every_kind = Schema::from_json(include_str!("../every_kind.json")).expect("fuzz schema is valid");
    [race_schema(), every_kind]
});

fuzz_target!(|data: &[u8]| {
    for schema in SCHEMAS.iter() {
        if let Ok(frame) = decode_frame(schema, data) {
            assert_eq!(encode_frame(schema, &frame).unwrap(), data);
        }
    }
});
