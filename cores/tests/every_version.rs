//! The archive of old cores against the golden corpus every version left:
//! each corpus verifies through its own archived module with the pinned
//! hashes, the current one identically to the native core, and the sandbox
//! refuses what it must (tampered replays and modules, work bombs, versions
//! it does not hold).
//!
//! A version whose fingerprint `cargo xtask test` found unchanged in the
//! manifest is frozen: nothing that could change its verdicts changed since
//! they were last checked, so its corpus is not replayed again (xtask names
//! those versions in `SKIDPAD_ARCHIVE_FROZEN`; unset, every corpus is
//! replayed, as `cargo xtask cores --check --all` does).

use std::io::{Read, Write};

use skidpad_cores::{
    Archive, CoresError, LoadedCore, Sandbox, SandboxBudget, declared_car_steps,
    simulation_version_of,
};
use skidpad_golden::{Scenario, corpus, hashes};
use skidpad_replay::{Limits, NoHooks, decode_replay, read_replay_header, verify_replay};

fn load(version: u32) -> LoadedCore {
    let archive = Archive::embedded().expect("the embedded archive");
    let core = archive.core(version).expect("an archived core");
    Sandbox::new().expect("sandbox").load(core).expect("loads")
}

fn golden(version: u32, name: &str) -> Vec<u8> {
    corpus::file(version, name).unwrap_or_else(|e| panic!("{e}"))
}

/// The `.skr` files of `golden/v<version>/`, by name.
fn replays(version: u32) -> Vec<(String, Vec<u8>)> {
    let dir = corpus::dir(version);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".skr"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let bytes = golden(version, &name);
            (name, bytes)
        })
        .collect()
}

/// The versions `SKIDPAD_ARCHIVE_FROZEN` names (`1,2,3`): none when unset.
fn frozen_versions() -> Vec<u32> {
    std::env::var("SKIDPAD_ARCHIVE_FROZEN")
        .unwrap_or_default()
        .split(',')
        .filter(|v| !v.trim().is_empty())
        .map(|v| {
            v.trim()
                .parse()
                .unwrap_or_else(|_| panic!("SKIDPAD_ARCHIVE_FROZEN: {v:?} is not a version"))
        })
        .collect()
}

fn verify(
    core: &LoadedCore,
    bytes: &[u8],
) -> skidpad_cores::Result<skidpad_cores::ArchivedVerdict> {
    let header = read_replay_header(bytes).expect("today's decoder reads every header");
    core.verify(bytes, declared_car_steps(&header), SandboxBudget::default())
}

/// Every `.skr` of `golden/v<version>/` through that version's module:
/// zero desyncs, and every hash `HASHES` pins (step 0, each keyframe, the
/// end) equal to the sandbox's. Returns the files checked.
fn check_corpus(version: u32) -> usize {
    let core = load(version);
    let pinned = hashes::parse(&String::from_utf8_lossy(&golden(version, "HASHES")));
    let dir = format!("v{version}");
    let mut checked = 0;
    for (name, bytes) in replays(version) {
        let verdict = verify(&core, &bytes).unwrap_or_else(|e| panic!("{dir}/{name}: {e}"));
        assert_eq!(
            verdict.desyncs, 0,
            "{dir}/{name}: {:?}",
            verdict.first_desync
        );
        assert_eq!(verdict.header.simulation_version, version);
        let lines: Vec<_> = pinned.iter().filter(|(f, _, _)| *f == name).collect();
        assert!(!lines.is_empty(), "{dir}/HASHES pins nothing for {name}");
        for (_, key, want) in lines {
            let got = if key == "final" {
                &verdict.final_hash
            } else {
                let step: u64 = key.parse().expect("a step");
                &verdict
                    .keyframe_hashes
                    .iter()
                    .find(|(s, _)| *s == step)
                    .unwrap_or_else(|| panic!("{dir}/{name}: no hash at step {step}"))
                    .1
            };
            assert_eq!(got, want, "{dir}/{name} at {key}");
        }
        checked += 1;
    }
    checked
}

#[test]
fn every_golden_corpus_verifies_through_its_own_archived_core() {
    let archive = Archive::embedded().expect("the embedded archive");
    let versions = archive.versions();
    let current = skidpad_core::SIMULATION_VERSION;
    assert_eq!(
        versions,
        (1..=current).collect::<Vec<_>>(),
        "the archive must hold every version up to the current one (cargo xtask cores)"
    );
    // The current version is always replayed (its corpus is the one that
    // changes); a frozen one only when its fingerprint changed.
    let frozen = frozen_versions();
    let (skipped, replayed): (Vec<u32>, Vec<u32>) = versions
        .iter()
        .copied()
        .partition(|v| *v != current && frozen.contains(v));
    for version in &skipped {
        println!(
            "v{version}: frozen (its fingerprint in cores/archive/manifest.json is unchanged); not replayed"
        );
    }
    // Two versions at a time: the machines have two cores.
    let results: Vec<(u32, usize)> = replayed
        .chunks(replayed.len().div_ceil(2))
        .map(|chunk| chunk.to_vec())
        .map(|chunk| {
            std::thread::spawn(move || {
                chunk
                    .iter()
                    .map(|&v| (v, check_corpus(v)))
                    .collect::<Vec<_>>()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flat_map(|t| t.join().expect("a corpus check panicked"))
        .collect();
    for (version, files) in &results {
        assert!(*files >= 4, "v{version} checked only {files} replays");
        let entry = archive.core(*version).expect("archived").entry();
        println!(
            "v{version}: module {} bytes ({} gzip), {files} replays, 0 desyncs, every pinned hash equal",
            entry.bytes, entry.compressed_bytes
        );
    }
}

#[test]
fn the_current_corpus_verifies_identically_natively_and_archived() {
    let current = skidpad_core::SIMULATION_VERSION;
    let core = load(current);
    for (name, bytes) in replays(current) {
        let replay = decode_replay(&bytes).expect("decodes natively");
        let hooks = Scenario::game_logic(&replay).unwrap_or_else(|| Box::new(NoHooks));
        let native = verify_replay(&replay, hooks, &Limits::default()).expect("verifies natively");
        let archived = verify(&core, &bytes).expect("verifies archived");
        assert_eq!(archived.desyncs, native.desyncs, "{name}");
        assert_eq!(archived.steps_simulated, native.steps, "{name}");
        assert_eq!(
            archived.final_hash,
            skidpad_core::hex(&native.final_hash),
            "{name}"
        );
        assert_eq!(
            archived.header.keyframes as usize, native.keyframes,
            "{name}"
        );
    }
}

/// Raw deflate at the replay format's canonical level.
fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(9));
    e.write_all(bytes).expect("deflate");
    e.finish().expect("deflate")
}

/// `file` with one bit flipped in the last car snapshot of its last
/// keyframe (the low byte of that snapshot's first float), re-deflated and
/// re-sealed as the format requires (FORMAT.md: sections, §7, the blake3
/// trailer): a forgery only a re-simulation can catch.
fn forge_last_keyframe(file: &[u8], snapshot_len: usize) -> Vec<u8> {
    let body = &file[..file.len() - 32];
    let mut out = body[..8].to_vec();
    let mut at = 8;
    while at < body.len() {
        let id = u16::from_le_bytes([body[at], body[at + 1]]);
        let len = u32::from_le_bytes(body[at + 4..at + 8].try_into().expect("4 bytes")) as usize;
        let payload = &body[at + 8..at + 8 + len];
        if id == 7 {
            let raw_len = u64::from_le_bytes(payload[..8].try_into().expect("8 bytes"));
            let mut raw = Vec::new();
            flate2::read::DeflateDecoder::new(&payload[8..])
                .read_to_end(&mut raw)
                .expect("inflates");
            assert_eq!(raw.len() as u64, raw_len);
            let first_float = raw.len() - snapshot_len + 18;
            raw[first_float] ^= 1;
            let mut new_payload = raw_len.to_le_bytes().to_vec();
            new_payload.extend(deflate(&raw));
            out.extend_from_slice(&body[at..at + 4]);
            out.extend_from_slice(&(new_payload.len() as u32).to_le_bytes());
            out.extend(new_payload);
        } else {
            out.extend_from_slice(&body[at..at + 8 + len]);
        }
        at += 8 + len;
    }
    let trailer = blake3::hash(&out);
    out.extend_from_slice(trailer.as_bytes());
    out
}

#[test]
fn a_forged_old_replay_is_refused_naming_the_field() {
    // Version 3's snapshots are 316 bytes (FORMAT.md §7).
    let core = load(3);
    let forged = forge_last_keyframe(&golden(3, "mixed_field.skr"), 316);
    let verdict = verify(&core, &forged).expect("a well-formed file plays");
    assert!(!verdict.is_valid());
    let desync = verdict.first_desync.expect("a desync report");
    let fields: Vec<&str> = desync.fields.iter().map(|f| f.field.as_str()).collect();
    assert_eq!(desync.step, verdict.steps_simulated, "at the last keyframe");
    assert_eq!(fields.len(), 1, "one field: {fields:?}");
    assert!(desync.text.contains(fields[0]), "{}", desync.text);
    // A byte of the body changed without re-sealing: the old decoder's own
    // error.
    let mut broken = golden(3, "mixed_field.skr").to_vec();
    let in_body = broken.len() - 40;
    broken[in_body] ^= 0x40;
    match verify(&core, &broken) {
        Err(CoresError::Refused { version: 3, reason }) => {
            assert!(
                reason.contains("blake3") || reason.contains("checksum"),
                "{reason}"
            );
        }
        other => panic!("expected the old core's refusal, got {other:?}"),
    }
}

#[test]
fn the_sandbox_stops_a_core_that_outruns_its_budget() {
    let core = load(4);
    let bytes = golden(4, "long_run.skr");
    let header = read_replay_header(&bytes).expect("header");
    let declared = declared_car_steps(&header);
    // Fuel for a tenth of what ten minutes of two cars need.
    let starved = SandboxBudget {
        fuel_per_car_step: 10_000,
        base_fuel: 0,
        ..SandboxBudget::default()
    };
    let started = std::time::Instant::now();
    match core.verify(&bytes, declared, starved) {
        Err(CoresError::OutOfFuel { version: 4, fuel }) => {
            assert_eq!(fuel, declared * 10_000);
        }
        other => panic!("expected the fuel to run out, got {other:?}"),
    }
    println!("stopped by fuel after {:?}", started.elapsed());
    // A memory cap under what decoding needs.
    let cramped = SandboxBudget {
        memory_bytes: 2 << 20,
        ..SandboxBudget::default()
    };
    match core.verify(&bytes, declared, cramped) {
        Err(CoresError::Trapped { version: 4, .. } | CoresError::Load { version: 4, .. }) => {}
        other => panic!("expected the memory cap to stop it, got {other:?}"),
    }
    // More declared work than the budget: refused before any instance.
    let small = SandboxBudget {
        max_car_steps: declared - 1,
        ..SandboxBudget::default()
    };
    assert!(matches!(
        core.verify(&bytes, declared, small),
        Err(CoresError::DeclaredWork { .. })
    ));
}

#[test]
fn a_module_that_differs_from_the_manifest_is_refused_before_it_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let archive_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("archive");
    for entry in std::fs::read_dir(&archive_dir).expect("archive") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).expect("copy");
    }
    // One byte of v2's module changed, gzipped again.
    let original = Archive::open(dir.path())
        .expect("opens")
        .core(2)
        .expect("v2")
        .module_bytes()
        .expect("intact");
    let mut changed = original.clone();
    let last = changed.len() - 1;
    changed[last] ^= 1;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&changed).expect("gzip");
    std::fs::write(dir.path().join("v2.wasm.gz"), gz.finish().expect("gzip")).expect("write");
    let archive = Archive::open(dir.path()).expect("the manifest still reads");
    match Sandbox::new()
        .expect("sandbox")
        .load(archive.core(2).expect("listed"))
    {
        Err(CoresError::ModuleMismatch {
            version: 2,
            found,
            pinned,
        }) => assert_ne!(found, pinned),
        Err(other) => panic!("expected a mismatch, got {other}"),
        Ok(_) => panic!("a module that differs from the manifest was loaded"),
    }
}

#[test]
fn a_version_with_no_archived_core_is_refused_saying_so() {
    let archive = Archive::embedded().expect("archive");
    let current = skidpad_core::SIMULATION_VERSION;
    let error = archive
        .core(current + 1)
        .expect_err("not archived")
        .to_string();
    assert!(
        error.contains(&format!(
            "simulation version {} has no archived core",
            current + 1
        )),
        "{error}"
    );
    assert!(error.contains(&format!("1 to {current}")), "{error}");
    // Today's decoder reads the version of every archived corpus's files.
    for version in 1..=current {
        assert_eq!(
            simulation_version_of(&golden(version, "flat_lap.skr")).expect("header"),
            version
        );
    }
}

#[test]
fn an_archived_core_plays_a_replay_to_the_poses_the_native_core_shows() {
    let current = skidpad_core::SIMULATION_VERSION;
    let bytes = golden(current, "mixed_field.skr");
    let core = load(current);
    let mut playback = core.open(&bytes, SandboxBudget::default()).expect("opens");
    assert_eq!(playback.header().cars, 6);
    let replay = decode_replay(&bytes).expect("decodes");
    let world = skidpad_replay::create_replay_world(&replay).expect("world");
    let mut native = skidpad_replay::ReplayPlayer::new(world, &replay, NoHooks).expect("player");
    for step in [0, 1, 599, 1200, 5399] {
        assert_eq!(playback.seek(step).expect("seeks"), step);
        native.seek(step).expect("seeks natively");
        let poses = playback.poses().expect("poses");
        assert_eq!(poses.len(), 6);
        for pose in &poses {
            let p = native
                .world()
                .pose(skidpad_core::CarId::from_raw(pose.car))
                .expect("native pose");
            let car = pose.car;
            assert_eq!(pose.position, p.position.to_array(), "car {car} at {step}");
            assert_eq!(
                (pose.yaw, pose.pitch, pose.roll, pose.steer, pose.speed),
                (p.yaw, p.pitch, p.roll, p.steer_angle, p.speed),
                "car {car} at {step}"
            );
        }
    }
}
