//! Reading inputs with clear errors, telling replays from ghosts, and
//! setting up playback of a replay file.

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::beside::Beside;
use skidpad_core::{GroundSource, Track};
use skidpad_replay::{
    FileKind, Limits, NoHooks, PlayerOptions, Replay, ReplayHooks, ReplayPlayer,
    create_replay_world, decode_ground_file,
};

/// Reads a file; the error names it.
pub fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

/// Reads a file of a kind that is never larger than `max` bytes (`what`
/// names the kind), refusing a larger one before reading it.
pub fn read_capped(path: &Path, max: u64, what: &str) -> Result<Vec<u8>> {
    let size = std::fs::metadata(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    if size > max {
        bail!(
            "{} is {size} bytes; {what} is at most {max}",
            path.display()
        );
    }
    read(path)
}

/// [`read_capped`] of a text file.
pub fn read_text_capped(path: &Path, max: u64, what: &str) -> Result<String> {
    String::from_utf8(read_capped(path, max, what)?)
        .with_context(|| format!("cannot read {} as text", path.display()))
}

/// A ground file (`.skgd`): what a game built its ground from; or a glTF
/// scene's (`.glb`, `.gltf`) ground.
pub fn read_ground(path: &Path) -> Result<GroundSource> {
    if crate::track_cmd::is_scene(path) {
        let scene = crate::track_cmd::read_scene(path, &crate::track_cmd::ImportArgs::default())?;
        return Ok(GroundSource::Mesh(scene.ground));
    }
    decode_ground_file(&read(path)?)
        .with_context(|| format!("{} is not a ground file", path.display()))
}

/// The kind of a file's bytes when a command can read it (a replay or a
/// ghost), or an error naming the file and saying what it is instead.
pub fn kind(path: &Path, bytes: &[u8]) -> Result<FileKind> {
    match FileKind::sniff(bytes) {
        kind @ (FileKind::Replay | FileKind::Ghost) => Ok(kind),
        FileKind::Stream => bail!(
            "{} is a stream (.sks), not a replay: `skidpad recover` turns it into one",
            path.display()
        ),
        FileKind::Ground => bail!(
            "{} is a ground file (.skgd), not a replay: give it to the replays recorded on it with --ground",
            path.display()
        ),
        FileKind::Empty => bail!("{} is empty (0 bytes)", path.display()),
        FileKind::Unknown => bail!(
            "{} is neither a skidpad replay (.skr) nor a ghost (.skg): its first bytes are {}",
            path.display(),
            first_bytes(bytes)
        ),
    }
}

/// Up to the first 8 bytes, in hex, for messages about unknown files.
fn first_bytes(bytes: &[u8]) -> String {
    let shown: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
    shown.join(" ")
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

/// Reads and decodes a replay file within `limits`, given what `beside`
/// holds that it does not carry; a ghost given here is named as one.
pub fn load_replay(path: &Path, limits: &Limits, beside: &Beside) -> Result<Replay> {
    let bytes = read(path)?;
    if kind(path, &bytes)? == FileKind::Ghost {
        bail!(
            "{} is a ghost (.skg), not a replay: this command needs a replay (.skr)",
            path.display()
        );
    }
    let mut replay = skidpad_replay::decode_replay_with(&bytes, limits)
        .with_context(|| format!("cannot decode {}", path.display()))?;
    beside.apply(&mut replay)?;
    Ok(replay)
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

/// Plays the next step of a straight pass: its number (from 1) and the
/// host step it took, s; None after the last.
pub fn next_step(
    player: &mut ReplayPlayer<'_, Box<dyn ReplayHooks>>,
    replay: &Replay,
) -> Result<Option<(u64, f64)>> {
    if !player.advance()? {
        return Ok(None);
    }
    let step = player.step();
    Ok(Some((step, replay.dt.at(step - 1).unwrap_or(0.0))))
}

/// The replay's track (`ReplayHeader::TRACK_KEY`), for commands that
/// time laps: a replay that names none is refused, as the key's rule says.
pub fn track_of(replay: &Replay) -> Result<Track> {
    let key = skidpad_replay::ReplayHeader::TRACK_KEY;
    replay
        .header
        .track()
        .with_context(|| format!("the replay's track (metadata `{key}`)"))?
        .with_context(|| {
            format!(
                "the replay names no track (metadata `{key}`), so it has no line to time laps at"
            )
        })
}
