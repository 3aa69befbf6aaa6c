//! The `.skg` format: lossless, canonical, compact, and a decoder that
//! refuses every corruption without panicking.

mod common;

use proptest::prelude::*;
use skidpad_ghost::{
    FORMAT_VERSION, Ghost, GhostError, GhostFrame, GhostPose, decode_ghost, encode_ghost,
};

fn small() -> Ghost {
    let frames = (0..20)
        .map(|k| {
            let t = k as f32 / 60.0;
            GhostFrame {
                t,
                pose: GhostPose {
                    x: 100.0 + 20.0 * t,
                    y: -3.0 * t * t,
                    z: 0.46,
                    yaw: 3.1 + 0.05 * k as f32,
                    pitch: if k % 2 == 0 { -0.0 } else { 1e-39 },
                    roll: -0.01,
                    steer: 0.0,
                    speed: 20.0 + t,
                },
            }
        })
        .collect();
    Ghost::from_frames(frames).unwrap()
}

fn bits(g: &Ghost) -> Vec<[u32; 9]> {
    g.frames()
        .iter()
        .map(|f| f.to_array().map(f32::to_bits))
        .collect()
}

#[test]
fn round_trip_is_bit_exact_and_canonical() {
    let ghost = small();
    let bytes = encode_ghost(&ghost).unwrap();
    let back = decode_ghost(&bytes).unwrap();
    assert_eq!(bits(&back), bits(&ghost), "-0.0 and subnormals survive");
    assert_eq!(encode_ghost(&back).unwrap(), bytes);
}

proptest! {
    #[test]
    fn any_finite_ghost_round_trips(
        raw in prop::collection::vec(prop::array::uniform8(prop::num::f32::NORMAL | prop::num::f32::SUBNORMAL | prop::num::f32::ZERO), 1..70),
        steps in prop::collection::vec(common::f32_between(1e-6, 10.0), 70),
    ) {
        let mut t = 0.0_f32;
        let frames: Vec<GhostFrame> = raw.iter().zip(&steps).map(|(v, dt)| {
            let f = GhostFrame::from_array([t, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]]);
            t += dt.max(t * 1e-6);
            f
        }).collect();
        let ghost = Ghost::from_frames(frames).unwrap();
        let bytes = encode_ghost(&ghost).unwrap();
        let back = decode_ghost(&bytes).unwrap();
        prop_assert_eq!(bits(&back), bits(&ghost));
        prop_assert_eq!(encode_ghost(&back).unwrap(), bytes);
    }
}

#[test]
fn a_60_hz_ai_lap_takes_at_most_18_bytes_a_frame() {
    for name in skidpad_core::preset_names() {
        let (ghost, _) = common::ai_lap(name, 1);
        let bytes = encode_ghost(&ghost).unwrap();
        let per_frame = bytes.len() as f64 / ghost.len() as f64;
        println!(
            "{name}: {} frames, {} bytes, {per_frame:.2} bytes/frame (raw 36)",
            ghost.len(),
            bytes.len()
        );
        assert!(per_frame <= 18.0, "{name}: {per_frame:.2} bytes per frame");
        assert_eq!(bits(&decode_ghost(&bytes).unwrap()), bits(&ghost));
    }
}

#[test]
fn every_truncation_is_refused() {
    let bytes = encode_ghost(&small()).unwrap();
    for len in 0..bytes.len() {
        let err = decode_ghost(&bytes[..len]).unwrap_err();
        assert!(
            matches!(err, GhostError::Decode { .. }),
            "prefix {len}: {err}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(decode_ghost(&longer).is_err(), "trailing bytes");
}

#[test]
fn every_byte_mutation_is_refused_by_the_checksum() {
    let bytes = encode_ghost(&small()).unwrap();
    for i in 0..bytes.len() {
        for mask in [0x01_u8, 0x80, 0xff] {
            let mut m = bytes.clone();
            m[i] ^= mask;
            assert!(decode_ghost(&m).is_err(), "byte {i} ^ {mask:#x} accepted");
        }
    }
}

/// Re-seals a mutated body with a valid checksum, so the parser behind the
/// checksum sees the corruption.
fn resealed(mut bytes: Vec<u8>) -> Vec<u8> {
    let body = bytes.len() - 32;
    let sum = blake3::hash(&bytes[..body]);
    bytes[body..].copy_from_slice(sum.as_bytes());
    bytes
}

#[test]
fn mutations_behind_a_valid_checksum_never_panic() {
    let bytes = encode_ghost(&small()).unwrap();
    let body = bytes.len() - 32;
    for i in 0..body {
        for mask in [0x01_u8, 0x02, 0x10, 0x80, 0xff] {
            let mut m = bytes.clone();
            m[i] ^= mask;
            // Either an error or a valid ghost that re-encodes to itself.
            if let Ok(g) = decode_ghost(&resealed(m.clone())) {
                assert_eq!(
                    encode_ghost(&g).unwrap(),
                    resealed(m),
                    "byte {i} ^ {mask:#x}: non-canonical input accepted"
                );
            }
        }
    }
}

#[test]
fn hostile_headers_are_refused_before_allocating() {
    let bytes = encode_ghost(&small()).unwrap();
    let mut huge = bytes.clone();
    huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(
        decode_ghost(&resealed(huge))
            .unwrap_err()
            .to_string()
            .contains("frame count")
    );
    let mut many = bytes.clone();
    many[8..12].copy_from_slice(&1_000_000_u32.to_le_bytes());
    assert!(
        decode_ghost(&resealed(many))
            .unwrap_err()
            .to_string()
            .contains("cannot fit")
    );
    let mut zero = bytes.clone();
    zero[8..12].copy_from_slice(&0_u32.to_le_bytes());
    assert!(decode_ghost(&resealed(zero)).is_err());
    let mut long_payload = bytes.clone();
    long_payload[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(
        decode_ghost(&long_payload)
            .unwrap_err()
            .to_string()
            .contains("payload length")
    );
}

#[test]
fn another_version_is_refused_naming_both() {
    let mut bytes = encode_ghost(&small()).unwrap();
    bytes[4..6].copy_from_slice(&7_u16.to_le_bytes());
    let err = decode_ghost(&resealed(bytes)).unwrap_err();
    assert_eq!(
        err,
        GhostError::FormatVersion {
            expected: FORMAT_VERSION,
            found: 7
        }
    );
    assert!(err.to_string().contains('7') && err.to_string().contains(&FORMAT_VERSION.to_string()));
    let mut magic = encode_ghost(&small()).unwrap();
    magic[0] = b'X';
    assert!(
        decode_ghost(&magic)
            .unwrap_err()
            .to_string()
            .contains("magic")
    );
}

#[test]
fn the_fuzz_corpus_and_regressions_decode_without_panicking() {
    // The minimised corpus (`cargo fuzz cmin`) and any crash inputs kept
    // as regressions, each checked as the fuzz target checks it: as it is
    // and re-sealed with a valid checksum; an accepted ghost re-encodes to
    // its bytes.
    let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut inputs = 0;
    for dir in ["corpus/decode_ghost", "regressions"] {
        for entry in std::fs::read_dir(fuzz.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                continue;
            }
            let data = std::fs::read(&path).unwrap();
            let mut sealed = data.clone();
            sealed.extend_from_slice(blake3::hash(&data).as_bytes());
            for bytes in [&data, &sealed] {
                if let Ok(g) = decode_ghost(bytes) {
                    assert_eq!(&encode_ghost(&g).unwrap(), bytes, "{}", path.display());
                }
            }
            inputs += 1;
        }
    }
    assert!(
        inputs >= 20,
        "only {inputs} fuzz inputs: is the corpus committed?"
    );
}
