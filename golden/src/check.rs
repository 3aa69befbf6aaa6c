//! Plays golden files back and compares them with `HASHES`.

use skidpad_core::SIMULATION_VERSION;
use skidpad_core::hex;
use skidpad_ghost::{decode_ghost, encode_ghost};
use skidpad_replay::{
    PlayerOptions, ReplayHooks, ReplayPlayer, create_replay_world, decode_replay,
};

use crate::hashes;
use crate::scenarios::Scenario;

/// What one golden file's check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileCheck {
    /// `v1/flat_lap.skr` and so on.
    pub file: String,
    /// What was checked, for the log.
    pub summary: String,
}

/// The directory name of this core's goldens.
#[must_use]
pub fn current_dir() -> String {
    format!("v{SIMULATION_VERSION}")
}

/// Checks the embedded corpus, this version's: every replay must play with
/// zero desyncs and the pinned hashes, and every ghost must match its
/// pinned blake3. Older corpora are not embedded: natively,
/// [`check_older_refused`] reads them from disk.
pub fn check_all() -> Result<Vec<FileCheck>, String> {
    let current = current_dir();
    let mut out = Vec::new();
    let hashes_text = crate::files::FILES
        .iter()
        .find(|(v, n, _)| *v == current && *n == "HASHES")
        .map(|(_, _, b)| String::from_utf8_lossy(b).into_owned())
        .ok_or_else(|| format!("golden/{current}/HASHES is missing: run `cargo xtask golden`"))?;
    let expected = hashes::parse(&hashes_text);
    for scenario in Scenario::ALL {
        let name = format!("{}.skr", scenario.name());
        if !crate::files::FILES
            .iter()
            .any(|(v, n, _)| *v == current && *n == name)
        {
            return Err(format!(
                "golden/{current}/{name} is missing: run `cargo xtask golden --add-missing`"
            ));
        }
    }
    for &(version, name, bytes) in crate::files::FILES {
        let file = format!("{version}/{name}");
        if name.ends_with(".skr") {
            out.push(check_replay(&file, name, bytes, &expected)?);
        } else if name.ends_with(".skg") {
            let line = hashes::ghost_line(name, bytes);
            let pinned = expected
                .iter()
                .any(|(f, k, h)| f == name && k == "file" && line.ends_with(h.as_str()));
            if !pinned {
                return Err(format!("{file}: blake3 does not match HASHES"));
            }
            decode_ghost(bytes).map_err(|e| format!("{file}: {e}"))?;
        }
    }
    Ok(out)
}

/// Every replay of every older corpus on disk (`golden/v1/` up to the one
/// before this version's) is refused by this core with the
/// simulation-version error, read from its header alone; their archived
/// cores verify them (`skidpad-cores`' tests).
#[cfg(not(target_arch = "wasm32"))]
pub fn check_older_refused() -> Result<Vec<FileCheck>, String> {
    let mut out = Vec::new();
    for version in 1..SIMULATION_VERSION {
        let dir = crate::corpus::dir(version);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.ends_with(".skr"))
            .collect();
        names.sort();
        for name in names {
            let file = format!("v{version}/{name}");
            let bytes = crate::corpus::file(version, &name)?;
            match skidpad_replay::verify(
                &bytes,
                skidpad_replay::NoHooks,
                &skidpad_replay::Limits::default(),
            ) {
                Err(skidpad_replay::ReplayError::SimulationVersion { core, .. })
                    if core == SIMULATION_VERSION => {}
                other => {
                    return Err(format!(
                        "{file}: an old golden must be refused with the version error, got {other:?}"
                    ));
                }
            }
            out.push(FileCheck {
                file,
                summary: "refused: older simulation version".into(),
            });
        }
    }
    Ok(out)
}

fn check_replay(
    file: &str,
    name: &str,
    bytes: &[u8],
    expected: &[(String, String, String)],
) -> Result<FileCheck, String> {
    let scenario =
        Scenario::from_file(name).ok_or_else(|| format!("{file}: no scenario of that name"))?;
    let replay = decode_replay(bytes).map_err(|e| format!("{file}: {e}"))?;
    let world = create_replay_world(&replay).map_err(|e| format!("{file}: {e}"))?;
    let options = PlayerOptions {
        cache_budget: 0,
        ..PlayerOptions::default()
    };
    let mut player = ReplayPlayer::with_options(world, &replay, scenario.hooks(), options)
        .map_err(|e| format!("{file}: {e}"))?;
    let pinned = |key: &str| {
        expected
            .iter()
            .find(|(f, k, _)| f == name && k == key)
            .map(|(_, _, h)| h.clone())
            .ok_or_else(|| format!("{file}: HASHES has no entry for {key}"))
    };
    let mut cutter = scenario.ghost_cutter(player.world());
    let mut keyframes = 0;
    let check_here =
        |player: &ReplayPlayer<'_, Box<dyn ReplayHooks>>, key: &str| -> Result<(), String> {
            let got = hex(&player.world().world_hash());
            let want = pinned(key)?;
            if got != want {
                return Err(format!(
                    "{file}: world hash at {key} is {got}, HASHES pins {want}"
                ));
            }
            Ok(())
        };
    check_here(&player, "0")?;
    while player.advance().map_err(|e| format!("{file}: {e}"))? {
        if let Some(c) = &mut cutter {
            c.observe(player.world())?;
        }
        if replay.keyframe_at(player.step()).is_some() {
            check_here(&player, &player.step().to_string())?;
            keyframes += 1;
        }
    }
    check_here(&player, "final")?;
    if player.desyncs() != 0 {
        return Err(format!(
            "{file}: {} desyncs; first: {:?}",
            player.desyncs(),
            player.first_desync()
        ));
    }
    if let Some(c) = cutter {
        let (ghost_file, ghost) = c.finish()?;
        let bytes = encode_ghost(&ghost).map_err(|e| format!("{ghost_file}: {e}"))?;
        let line = hashes::ghost_line(&ghost_file, &bytes);
        let want = pinned_ghost(expected, &ghost_file)?;
        if !line.ends_with(&want) {
            return Err(format!(
                "{file}: the re-simulated {ghost_file} differs from the golden one"
            ));
        }
    }
    Ok(FileCheck {
        file: file.to_owned(),
        summary: format!(
            "{} steps, {keyframes} keyframes checked, 0 desyncs",
            player.step()
        ),
    })
}

fn pinned_ghost(expected: &[(String, String, String)], file: &str) -> Result<String, String> {
    expected
        .iter()
        .find(|(f, k, _)| f == file && k == "file")
        .map(|(_, _, h)| h.clone())
        .ok_or_else(|| format!("HASHES has no entry for {file}"))
}
