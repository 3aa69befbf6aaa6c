//! Seals: a replay sealed by a race server's key checks out as that
//! server's, in every container (plain, gzip, decoded and re-encoded); any
//! change after sealing (a name, the ranked car, one input) and every
//! malformed seal is refused with the reason; a replay without a seal is
//! simply unsealed.

mod common;

use skidpad_replay::{
    Replay, ReplayError, ReplayHeader, SealingKey, check_seal, decode_replay, encode_replay,
    encode_replay_gzip, seal_replay,
};

fn key(byte: u8) -> SealingKey {
    SealingKey::from_seed([byte; 32])
}

fn sealed_race() -> (Replay, SealingKey) {
    let (mut replay, _, _) = common::record_race(2, 120, 30);
    replay
        .header
        .metadata
        .push((ReplayHeader::DRIVERS_KEY.into(), r#"["ann","bob"]"#.into()));
    replay
        .header
        .metadata
        .push((ReplayHeader::PLAYER_KEY.into(), "bob".into()));
    let server = key(7);
    seal_replay(&mut replay, &server).unwrap();
    (replay, server)
}

fn refusal(replay: &Replay) -> String {
    match check_seal(replay) {
        Err(ReplayError::Seal { reason }) => reason,
        other => panic!("expected a seal error, got {other:?}"),
    }
}

fn set(replay: &mut Replay, key: &str, value: &str) {
    let slot = replay
        .header
        .metadata
        .iter_mut()
        .find(|(k, _)| k == key)
        .unwrap();
    value.clone_into(&mut slot.1);
}

fn seal_of(replay: &Replay) -> String {
    replay
        .header
        .metadata_value(ReplayHeader::SEAL_KEY)
        .unwrap()
        .to_owned()
}

/// Adds a seal key after any the replay holds.
fn add_seal(replay: &mut Replay, seal: String) {
    replay
        .header
        .metadata
        .push((ReplayHeader::SEAL_KEY.into(), seal));
}

#[test]
fn a_sealed_replay_names_its_server_in_every_container() {
    let (replay, server) = sealed_race();
    assert_eq!(
        check_seal(&replay).unwrap().as_deref(),
        Some(server.public_hex().as_str())
    );
    let plain = decode_replay(&encode_replay(&replay).unwrap()).unwrap();
    let gzip = decode_replay(&encode_replay_gzip(&replay).unwrap()).unwrap();
    for copy in [plain, gzip] {
        assert_eq!(check_seal(&copy).unwrap(), Some(server.public_hex()));
    }
    // Sealing again replaces the seal rather than adding a second.
    let mut resealed = replay.clone();
    seal_replay(&mut resealed, &key(9)).unwrap();
    assert_eq!(check_seal(&resealed).unwrap(), Some(key(9).public_hex()));
}

#[test]
fn an_unsealed_replay_is_neither_trusted_nor_refused() {
    let (replay, _, _) = common::record_race(1, 60, 30);
    assert_eq!(check_seal(&replay).unwrap(), None);
}

#[test]
fn any_change_after_sealing_breaks_the_seal() {
    let (replay, server) = sealed_race();
    let mut renamed = replay.clone();
    set(&mut renamed, ReplayHeader::PLAYER_KEY, "ann");
    let mut swapped = replay.clone();
    set(&mut swapped, ReplayHeader::DRIVERS_KEY, r#"["bob","ann"]"#);
    let mut added = replay.clone();
    added
        .header
        .metadata
        .insert(0, (ReplayHeader::PLAYER_CAR_KEY.into(), "0".into()));
    let mut steered = replay.clone();
    steered.cars[1].inputs[50].steer = 0.25;
    for changed in [renamed, swapped, added, steered] {
        let reason = refusal(&changed);
        assert!(
            reason.contains(&server.public_hex()) && reason.contains("changed after"),
            "{reason}"
        );
    }
}

#[test]
fn a_seal_copied_from_another_replay_does_not_match() {
    let (replay, _) = sealed_race();
    let (mut other, _, _) = common::record_race(2, 90, 30);
    let seal = seal_of(&replay);
    add_seal(&mut other, seal);
    assert!(refusal(&other).contains("does not match"));
}

#[test]
fn malformed_seals_are_refused_with_the_reason() {
    let (replay, server) = sealed_race();
    let seal = seal_of(&replay);
    let signature = seal.rsplit(':').next().unwrap().to_owned();
    let cases = [
        ("nonsense".to_owned(), "is not `ed25519"),
        (seal.replacen("ed25519", "rsa", 1), "scheme \"rsa\""),
        (format!("ed25519:abcd:{signature}"), "the public key"),
        (
            format!("ed25519:{}:zz", server.public_hex()),
            "the signature",
        ),
        (
            format!("ed25519:+{}:{signature}", &server.public_hex()[1..]),
            "the public key",
        ),
        (format!("{seal}:extra"), "is not `ed25519"),
    ];
    for (value, expected) in cases {
        let mut bad = replay.clone();
        set(&mut bad, ReplayHeader::SEAL_KEY, &value);
        let reason = refusal(&bad);
        assert!(reason.contains(expected), "{value}: {reason}");
    }
    let mut doubled = replay.clone();
    add_seal(&mut doubled, seal);
    assert!(refusal(&doubled).contains("two seals"));
}

#[test]
fn a_key_file_reads_back_and_never_shows_its_secret() {
    let server = key(42);
    let text = format!("  {}\n", server.secret_hex());
    let read = SealingKey::from_hex(&text).unwrap();
    assert_eq!(read.public_hex(), server.public_hex());
    assert_ne!(server.public_hex(), server.secret_hex());
    let shown = format!("{server:?}");
    assert!(shown.contains(&server.public_hex()) && !shown.contains(&server.secret_hex()));
    for bad in ["", "00", &"g".repeat(64), &"0".repeat(65)] {
        match SealingKey::from_hex(bad) {
            Err(ReplayError::Seal { reason }) => assert!(reason.contains("hex digits"), "{reason}"),
            other => panic!("{bad:?} read as {other:?}"),
        }
    }
}
