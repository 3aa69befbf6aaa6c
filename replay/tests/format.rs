//! The `.skr` format: round trip, canonical bytes, gzip, header-only reads,
//! sections, and refusal of every kind of bad input.

mod common;

use common::{DT, LapGame, race_world, record_lap_game, record_race, resealed};
use skidpad_core::{CarId, CarInput, SIMULATION_VERSION};
use skidpad_replay::{
    FORMAT_VERSION, Limits, NoHooks, RecorderOptions, Replay, ReplayError, ReplayRecorder,
    decode_replay, encode_replay, encode_replay_gzip, gunzip, gzip, read_replay_header, verify,
};

fn sample() -> Replay {
    record_race(3, 700, 200).0
}

#[test]
fn decode_of_encode_is_the_replay_and_encoding_is_canonical() {
    let replay = sample();
    let bytes = encode_replay(&replay).unwrap();
    let back = decode_replay(&bytes).unwrap();
    assert_eq!(back, replay);
    assert_eq!(encode_replay(&back).unwrap(), bytes);
    let gz = encode_replay_gzip(&replay).unwrap();
    assert!(gz.starts_with(&[0x1f, 0x8b]));
    assert_eq!(
        decode_replay(&gz).unwrap(),
        replay,
        "gzip is detected by its magic"
    );
    assert_eq!(gunzip(&gzip(&bytes), usize::MAX).unwrap(), bytes);
}

#[test]
fn inputs_that_are_not_on_the_core_grid_round_trip_too() {
    let mut replay = sample();
    replay.cars[1].inputs[5] = CarInput {
        steer: 0.1,
        throttle: -0.0,
        brake: 1e-300,
        handbrake: f64::MAX,
        clutch: 0.3,
        gear: 2.0,
    };
    let bytes = encode_replay(&replay).unwrap();
    let back = decode_replay(&bytes).unwrap();
    let got = back.cars[1].inputs[5].to_array().map(f64::to_bits);
    assert_eq!(got, replay.cars[1].inputs[5].to_array().map(f64::to_bits));
    assert_eq!(encode_replay(&back).unwrap(), bytes);
}

#[test]
fn embedded_ghosts_and_metadata_survive() {
    let mut world = race_world(2);
    let options = RecorderOptions {
        embed_ghosts: true,
        metadata: vec![
            ("track".into(), "brandwood".into()),
            ("claimed_lap".into(), "61.25".into()),
        ],
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options).unwrap();
    for _ in 0..120 {
        recorder.step(&mut world, DT).unwrap();
    }
    let replay = recorder.finish(&world).unwrap();
    let ghosts = replay.ghosts.as_ref().unwrap();
    assert_eq!(ghosts.len(), 2);
    assert_eq!(ghosts[0].len(), 121, "frame 0 plus one per step");
    let back = decode_replay(&encode_replay(&replay).unwrap()).unwrap();
    assert_eq!(back, replay);
    assert_eq!(back.header.metadata[1].1, "61.25");
}

#[test]
fn the_header_reads_alone_plain_and_gzipped() {
    let replay = sample();
    let header = read_replay_header(&encode_replay(&replay).unwrap()).unwrap();
    assert_eq!(header, replay.header);
    assert_eq!(
        read_replay_header(&encode_replay_gzip(&replay).unwrap()).unwrap(),
        replay.header
    );
    // A body that is cut off does not matter to a header read.
    let bytes = encode_replay(&replay).unwrap();
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let header_end = 16 + header_len;
    assert_eq!(
        read_replay_header(&bytes[..header_end]).unwrap(),
        replay.header
    );
    assert!(read_replay_header(&bytes[..header_end - 1]).is_err());
}

#[test]
fn truncations_are_refused() {
    let bytes = encode_replay(&sample()).unwrap();
    let step = (bytes.len() / 300).max(1);
    for len in (0..bytes.len())
        .step_by(step)
        .chain(bytes.len() - 40..bytes.len())
    {
        assert!(
            decode_replay(&bytes[..len]).is_err(),
            "prefix {len} accepted"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(decode_replay(&longer).is_err(), "trailing byte accepted");
}

#[test]
fn a_failed_checksum_says_whether_the_file_is_short_long_or_altered() {
    let bytes = encode_replay(&sample()).unwrap();
    let n = bytes.len();
    let message = |b: &[u8]| decode_replay(b).unwrap_err().to_string();
    assert!(
        message(&bytes[..n - 1]).contains(&format!(
            "truncated ({} bytes, its sections declare {n})",
            n - 1
        )),
        "{}",
        message(&bytes[..n - 1])
    );
    let cut = n / 2;
    assert!(
        message(&bytes[..cut]).contains(&format!(
            "truncated ({cut} bytes, its sections declare at least"
        )),
        "{}",
        message(&bytes[..cut])
    );
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 5]);
    assert!(
        message(&longer).contains(&format!(
            "the sections declare {n} bytes, the file has {} (5 extra",
            n + 5
        )),
        "{}",
        message(&longer)
    );
    let mut altered = bytes.clone();
    altered[n - 100] ^= 1; // inside the last section's payload
    assert!(
        message(&altered).contains("content was altered"),
        "{}",
        message(&altered)
    );
}

#[test]
fn corruption_is_caught_by_the_checksum_and_the_parser() {
    let bytes = encode_replay(&sample()).unwrap();
    let body = bytes.len() - 32;
    let step = (body / 400).max(1);
    for i in (0..body).step_by(step) {
        let mut m = bytes.clone();
        m[i] ^= 0x41;
        assert!(decode_replay(&m).is_err(), "byte {i} flipped and accepted");
        // Behind a valid checksum the parser must still never panic, and
        // anything it accepts must be canonical.
        let sealed = resealed(m);
        if let Ok(r) = decode_replay(&sealed) {
            assert!(
                encode_replay(&r).unwrap() == sealed,
                "non-canonical bytes at {i} accepted"
            );
        }
    }
}

#[test]
fn versions_are_checked() {
    let replay = sample();
    let mut bytes = encode_replay(&replay).unwrap();
    bytes[4..6].copy_from_slice(&9_u16.to_le_bytes());
    let err = decode_replay(&resealed(bytes)).unwrap_err();
    assert_eq!(
        err,
        ReplayError::FormatVersion {
            expected: FORMAT_VERSION,
            found: 9
        }
    );

    let mut other = replay.clone();
    other.header.simulation_version = SIMULATION_VERSION + 7;
    let err = verify(&encode_replay(&other).unwrap(), NoHooks, &Limits::default()).unwrap_err();
    assert_eq!(
        err,
        ReplayError::SimulationVersion {
            replay: SIMULATION_VERSION + 7,
            core: SIMULATION_VERSION
        }
    );
    let text = err.to_string();
    assert!(text.contains(&format!("simulation version {}", SIMULATION_VERSION + 7)));
    assert!(text.contains(&format!("simulation version {SIMULATION_VERSION}")));
}

/// Inserts a section just before the end section.
fn with_extra_section(bytes: &[u8], id: u16, flags: u16, payload: &[u8]) -> Vec<u8> {
    let end = bytes.len() - 32 - 8;
    let mut out = bytes[..end].to_vec();
    out.extend_from_slice(&id.to_le_bytes());
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&bytes[end..]);
    resealed(out)
}

#[test]
fn unknown_optional_sections_are_skipped_and_unknown_required_ones_refused() {
    let replay = sample();
    let bytes = encode_replay(&replay).unwrap();
    let optional = with_extra_section(&bytes, 40, 0, b"from a newer writer");
    assert_eq!(decode_replay(&optional).unwrap(), replay);
    let required = with_extra_section(&bytes, 41, 1, b"must understand");
    assert!(
        decode_replay(&required)
            .unwrap_err()
            .to_string()
            .contains("unknown required section 41")
    );
}

#[test]
fn hostile_sizes_are_refused_without_allocating() {
    let replay = sample();
    let bytes = encode_replay(&replay).unwrap();
    // The header's step count claims an enormous run.
    let header_start = 16;
    let version_len = u16::from_le_bytes([bytes[header_start], bytes[header_start + 1]]) as usize;
    let steps_at = header_start + 2 + version_len + 8;
    let mut huge = bytes.clone();
    huge[steps_at..steps_at + 8].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
    assert!(decode_replay(&resealed(huge)).is_err());
    // A gzip bomb: 200 MB of zeros is refused or decoded within bounds, never
    // expanded past the limit.
    let bomb = gzip(&vec![0_u8; 20 << 20]);
    assert!(decode_replay(&bomb).is_err());
    assert!(decode_replay(b"").is_err() && decode_replay(&[0x1f, 0x8b, 0]).is_err());
}

#[test]
fn verify_reports_steps_duration_hash_and_game_state() {
    let (replay, recorded) = record_lap_game(900, 300);
    let mut game = LapGame::default();
    let report = verify(
        &encode_replay_gzip(&replay).unwrap(),
        &mut game,
        &Limits::default(),
    )
    .unwrap();
    assert!(report.is_valid());
    assert_eq!(report.steps, 900);
    assert!((report.duration - 15.0).abs() < 1e-9);
    assert_eq!(report.keyframes, 4);
    assert_eq!(report.simulation_version, SIMULATION_VERSION);
    assert_eq!(
        report.final_hash,
        replay.keyframes.last().unwrap().world_hash
    );
    assert_eq!(
        game.timer.crossings, recorded.crossings,
        "the game's result through the hooks"
    );
}

#[test]
fn verify_counts_a_tampered_input() {
    let (mut replay, _, _) = record_race(2, 400, 100);
    // A cheater edits car 0's throttle for a stretch of steps.
    for input in &mut replay.cars[0].inputs[120..160] {
        input.throttle = 1.0;
        input.brake = 0.0;
    }
    let report = verify(
        &encode_replay(&replay).unwrap(),
        NoHooks,
        &Limits::default(),
    )
    .unwrap();
    assert!(!report.is_valid());
    assert!(report.desyncs >= 1);
    let first = report.first_desync.unwrap();
    assert_eq!(first.step, 200);
    // Car 0 is named; the faster car 0 may also have run into car 1,
    // which then desyncs with it.
    assert_eq!(first.cars[0], CarId::from_raw(0));
}

#[test]
fn the_fuzz_corpus_and_regressions_decode_without_panicking() {
    // The minimised corpus (`cargo fuzz cmin`) and any crash inputs kept
    // as regressions, each checked as the fuzz target checks it: as it is
    // and re-sealed with a valid checksum, so the parsers behind the
    // checksum see it too; an accepted replay re-encodes to its bytes.
    let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut inputs = 0;
    for dir in ["corpus/decode_replay", "regressions"] {
        for entry in std::fs::read_dir(fuzz.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                continue;
            }
            let data = std::fs::read(&path).unwrap();
            let mut sealed = data.clone();
            sealed.extend_from_slice(blake3::hash(&data).as_bytes());
            for bytes in [&data, &sealed] {
                let _ = read_replay_header(bytes);
                if let Ok(r) = decode_replay(bytes)
                    && !skidpad_replay::is_gzip(bytes)
                {
                    assert!(encode_replay(&r).unwrap() == *bytes, "{}", path.display());
                }
            }
            inputs += 1;
        }
    }
    assert!(
        inputs >= 50,
        "only {inputs} fuzz inputs: is the corpus committed?"
    );
}

#[test]
fn strings_that_do_not_fit_are_an_encoding_error_not_a_cut() {
    let replay = sample();
    let mut long_key = replay.clone();
    long_key.header.metadata = vec![("k".repeat(80_000), "v".into())];
    let err = encode_replay(&long_key).unwrap_err();
    assert!(
        matches!(&err, ReplayError::Encode(m) if m.contains("metadata key is 80000 bytes")),
        "{err}"
    );
    assert!(encode_replay_gzip(&long_key).is_err());
    let mut long_version = replay.clone();
    long_version.header.core_version = "9".repeat(70_000);
    assert!(encode_replay(&long_version).is_err());
    // A header beyond what the header reader accepts is refused too.
    let mut huge_header = replay.clone();
    huge_header.header.metadata = vec![("notes".into(), "x".repeat(2 << 20))];
    let err = encode_replay(&huge_header).unwrap_err().to_string();
    assert!(err.contains("header is"), "{err}");
    // A 600 000-byte value fits the format; decoding it needs the metadata
    // limit raised, and then it comes back whole.
    let mut long_value = replay.clone();
    long_value.header.metadata = vec![("notes".into(), "v".repeat(600_000))];
    let bytes = encode_replay(&long_value).unwrap();
    let err = decode_replay(&bytes).unwrap_err();
    assert!(
        matches!(
            err,
            ReplayError::LimitExceeded {
                limit: "metadata bytes",
                value: 600_005,
                ..
            }
        ),
        "{err}"
    );
    let raised = Limits {
        max_metadata_bytes: 1 << 20,
        ..Limits::default()
    };
    assert_eq!(
        skidpad_replay::decode_replay_with(&bytes, &raised).unwrap(),
        long_value
    );
}
