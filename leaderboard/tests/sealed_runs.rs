//! Seals at the judge: an online race's entry (its replay names its
//! drivers) is ranked only under the seal of a race server the leaderboard
//! trusts, and then as the server named it; a seal that does not check out
//! or comes from an unknown server is refused before anything is
//! simulated; `sealed_only` refuses every unsealed run.

mod common;

use common::record_field;
use skidpad_leaderboard::judge::judge;
use skidpad_leaderboard::outcome::{Outcome, Rejection, Verified};
use skidpad_leaderboard::seals::SealPolicy;
use skidpad_replay::{Limits, Replay, ReplayHeader, SealingKey, encode_replay, seal_replay};

const STEPS: u64 = 120;

/// Bob's entry of a two-car online race: car 1, named by the drivers key.
fn bobs_entry() -> Replay {
    record_field(
        "rwd_sports",
        2,
        STEPS,
        &[
            (ReplayHeader::DRIVERS_KEY, r#"["ann","bob"]"#),
            (ReplayHeader::PLAYER_KEY, "bob"),
            (ReplayHeader::PLAYER_CAR_KEY, "1"),
        ],
    )
}

fn server() -> SealingKey {
    SealingKey::from_seed([3; 32])
}

fn sealed(mut replay: Replay, key: &SealingKey) -> Vec<u8> {
    seal_replay(&mut replay, key).unwrap();
    encode_replay(&replay).unwrap()
}

fn trusting(key: &SealingKey, sealed_only: bool) -> SealPolicy {
    SealPolicy::trusting(&[key.public_hex()], sealed_only).unwrap()
}

fn verified(bytes: &[u8], policy: &SealPolicy) -> Verified {
    match judge(bytes, &Limits::default(), policy) {
        Outcome::Verified(run) => *run,
        rejected => panic!("{rejected:?}"),
    }
}

fn refused(bytes: &[u8], policy: &SealPolicy) -> String {
    match judge(bytes, &Limits::default(), policy) {
        Outcome::Rejected {
            reason: Rejection::Rules { message },
        } => message,
        other => panic!("expected a rules rejection, got {other:?}"),
    }
}

#[test]
fn a_trusted_seal_ranks_the_car_the_server_named() {
    let key = server();
    let run = verified(&sealed(bobs_entry(), &key), &trusting(&key, false));
    assert_eq!((run.player.as_str(), run.car), ("bob", 1));
    assert_eq!(run.steps, STEPS);
    assert_eq!(run.sealed_by, Some(key.public_hex()));
    // The key's case does not matter to the policy.
    let upper = SealPolicy::trusting(&[key.public_hex().to_uppercase()], false).unwrap();
    assert_eq!(
        verified(&sealed(bobs_entry(), &key), &upper).sealed_by,
        Some(key.public_hex())
    );
}

#[test]
fn an_online_race_without_a_trusted_seal_is_refused() {
    let key = server();
    let unsealed = encode_replay(&bobs_entry()).unwrap();
    let reason = refused(&unsealed, &trusting(&key, false));
    assert!(reason.contains("names its drivers"), "{reason}");

    let stranger = SealingKey::from_seed([4; 32]);
    let reason = refused(&sealed(bobs_entry(), &stranger), &trusting(&key, false));
    assert!(
        reason.contains("does not trust") && reason.contains(&stranger.public_hex()),
        "{reason}"
    );
    // No trusted server at all: the same refusal, not a ranking.
    let reason = refused(&sealed(bobs_entry(), &key), &SealPolicy::default());
    assert!(reason.contains("does not trust"), "{reason}");
}

#[test]
fn an_entry_edited_after_sealing_is_refused() {
    let key = server();
    let mut replay = bobs_entry();
    seal_replay(&mut replay, &key).unwrap();
    // ann claims bob's car under her name.
    for (k, v) in &mut replay.header.metadata {
        if k == ReplayHeader::PLAYER_KEY {
            "ann".clone_into(v);
        }
    }
    let reason = refused(&encode_replay(&replay).unwrap(), &trusting(&key, false));
    assert!(reason.contains("changed after it was sealed"), "{reason}");
}

#[test]
fn sealed_only_refuses_every_unsealed_run() {
    let key = server();
    let alone = encode_replay(&record_field("rwd_sports", 1, STEPS, &[])).unwrap();
    // A run one person recorded alone is ranked unsealed by default...
    assert_eq!(verified(&alone, &trusting(&key, false)).sealed_by, None);
    // ...and refused by a board of online races only, as is a race whose
    // drivers' names were stripped.
    let reason = refused(&alone, &trusting(&key, true));
    assert!(reason.contains("only runs sealed"), "{reason}");
    let stripped = record_field(
        "rwd_sports",
        2,
        STEPS,
        &[(ReplayHeader::PLAYER_CAR_KEY, "1")],
    );
    let reason = refused(&encode_replay(&stripped).unwrap(), &trusting(&key, true));
    assert!(reason.contains("only runs sealed"), "{reason}");
    assert!(
        verified(&sealed(bobs_entry(), &key), &trusting(&key, true))
            .sealed_by
            .is_some()
    );
}

#[test]
fn a_malformed_trusted_key_is_refused_by_name() {
    for bad in ["", "abc", &"x".repeat(64), &"0".repeat(63)] {
        let error = SealPolicy::trusting(&[bad], false).unwrap_err();
        assert!(error.contains("64 hex digits"), "{bad:?}: {error}");
    }
}

#[test]
fn the_service_refuses_seal_options_it_cannot_honour_before_serving() {
    let dir = tempfile::tempdir().unwrap();
    let start = |flags: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_skidpad-leaderboard"))
            .args(["--listen", "127.0.0.1:0", "--database"])
            .arg(common::sqlite_url(dir.path()))
            .args(flags)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{flags:?} started: {out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // Ranking only sealed runs while trusting no server would rank nothing.
    let stderr = start(&["--sealed-only"]);
    assert!(
        stderr.contains("needs at least one --trust-race-server"),
        "{stderr}"
    );
    let stderr = start(&["--trust-race-server", "not-a-key"]);
    assert!(
        stderr.contains("--trust-race-server") && stderr.contains("64 hex digits"),
        "{stderr}"
    );
}
