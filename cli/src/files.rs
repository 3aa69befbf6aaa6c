//! Reading inputs with clear errors, telling replays from ghosts, and
//! setting up playback of a replay file.

use std::path::Path;

use anyhow::{Context, Result, bail};
use skidpad_core::Track;
use skidpad_replay::{
    Limits, NoHooks, PlayerOptions, Replay, ReplayHooks, ReplayPlayer, create_replay_world, is_gzip,
};

/// What a file holds, by its magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A `.skr` replay, plain or gzipped.
    Replay,
    /// A `.skg` ghost.
    Ghost,
}

/// Reads a file; the error names it.
pub fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

/// The kind of a file's bytes, or an error naming the file.
pub fn kind(path: &Path, bytes: &[u8]) -> Result<Kind> {
    if bytes.starts_with(b"SKGH") {
        Ok(Kind::Ghost)
    } else if bytes.starts_with(b"SKRP") || is_gzip(bytes) {
        Ok(Kind::Replay)
    } else if bytes.starts_with(b"SKST") {
        bail!(
            "{} is a stream (.sks), not a replay: `skidpad recover` turns it into one",
            path.display()
        )
    } else {
        bail!("{} is neither a skidpad replay nor a ghost", path.display())
    }
}

/// The game logic a replay needs to play back: given the decoded replay,
/// the hooks that rebuild the game's own state (`None` when it needs
/// none). The `skidpad` binary knows no game ([`no_game_logic`]): a
/// replay whose game steered its cars through hooks desyncs there, and a
/// game that ships its own verifier passes its own function (the CLI's
/// tests pass the golden scenarios').
pub type GameLogic = fn(&Replay) -> Option<Box<dyn ReplayHooks>>;

/// The [`GameLogic`] of the `skidpad` binary: none.
#[must_use]
pub fn no_game_logic(_replay: &Replay) -> Option<Box<dyn ReplayHooks>> {
    None
}

/// The hooks `game_logic` gives `replay`, or [`NoHooks`].
pub(crate) fn hooks_for(replay: &Replay, game_logic: GameLogic) -> Box<dyn ReplayHooks> {
    game_logic(replay).unwrap_or_else(|| Box::new(NoHooks))
}

/// A metadata value.
#[must_use]
pub fn metadata<'a>(replay: &'a Replay, key: &str) -> Option<&'a str> {
    replay
        .header
        .metadata
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Reads and decodes a replay file within `limits`; a ghost given here is
/// named as one.
pub fn load_replay(path: &Path, limits: &Limits) -> Result<Replay> {
    let bytes = read(path)?;
    if kind(path, &bytes)? == Kind::Ghost {
        bail!(
            "{} is a ghost (.skg), not a replay: this command needs a replay (.skr)",
            path.display()
        );
    }
    skidpad_replay::decode_replay_with(&bytes, limits)
        .with_context(|| format!("cannot decode {}", path.display()))
}

/// A player for a straight pass over `replay` (no seek cache), with the
/// hooks `game_logic` gives it, within `limits`.
pub fn straight_player<'r>(
    replay: &'r Replay,
    limits: &Limits,
    game_logic: GameLogic,
) -> Result<ReplayPlayer<'r, Box<dyn ReplayHooks>>> {
    let world = create_replay_world(replay)?;
    let options = PlayerOptions {
        cache_budget: 0,
        limits: *limits,
        ..PlayerOptions::default()
    };
    Ok(ReplayPlayer::with_options(
        world,
        replay,
        hooks_for(replay, game_logic),
        options,
    )?)
}

/// The replay's track (`track` metadata), or the built-in default.
pub fn track_of(replay: &Replay) -> Result<Track> {
    let name = metadata(replay, "track").unwrap_or("brandwood");
    Track::builtin(name).with_context(|| format!("the replay's track `{name}`"))
}
