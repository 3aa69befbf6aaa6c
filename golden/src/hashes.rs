//! `HASHES`: the expected world hash at every keyframe and at the end of
//! each golden replay, and the blake3 of each golden ghost file.
//!
//! One entry per line, `#` starts a comment:
//!
//! ```text
//! <file> <keyframe step> <world hash, hex>
//! <file> final <world hash, hex>
//! <file.skg> file <blake3 of the file, hex>
//! ```

use skidpad_core::hex;
use skidpad_replay::Replay;

/// Lines for one replay.
#[must_use]
pub fn replay_lines(file: &str, replay: &Replay) -> Vec<String> {
    let mut lines: Vec<String> = replay
        .keyframes
        .iter()
        .map(|k| format!("{file} {} {}", k.step, hex(&k.world_hash)))
        .collect();
    if let Some(last) = replay.keyframes.last() {
        lines.push(format!("{file} final {}", hex(&last.world_hash)));
    }
    lines
}

/// The line for one ghost file.
#[must_use]
pub fn ghost_line(file: &str, bytes: &[u8]) -> String {
    format!("{file} file {}", blake3::hash(bytes).to_hex())
}

/// The entries of a HASHES text: (file, key, hex).
#[must_use]
pub fn parse(text: &str) -> Vec<(String, String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            Some((
                parts.next()?.to_owned(),
                parts.next()?.to_owned(),
                parts.next()?.to_owned(),
            ))
        })
        .collect()
}
