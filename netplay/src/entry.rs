//! One driver's leaderboard entry from a race the server recorded.
//!
//! A recorded race holds every car of the race and names their drivers
//! (metadata `drivers`: the stream's header those it began with, the
//! replay the server writes at the end every one). A leaderboard ranks one car of a replay, named by
//! `player_car`, under the player named by `player`, and a run is one file:
//! so each driver of a race submits their own copy, which differs from the
//! recording only in those two keys. The simulation is untouched and the
//! leaderboard re-simulates it, so the copy verifies as the recording does.

use skidpad_replay::{
    FileKind, Limits, Replay, ReplayHeader, SealingKey, clip_replay, decode_replay_with,
    encode_replay, read_stream, seal_replay,
};

use crate::error::{NetError, Result};

/// Metadata key of the stretches the built-in AI drove a player's car
/// while their link was down: a JSON list of [`RecordedStint`]s.
pub const AI_STINTS_KEY: &str = "ai_stints";

/// A stretch the AI drove car `car` (its index in the recording): the
/// recorded steps from `from_step` up to, not including, `to_step` (the
/// first the player drove again, or the car was gone; `None`: to the
/// recording's end). Steps count from the recording's first, 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RecordedStint {
    /// The car's index in the recording.
    pub car: usize,
    /// The first step the AI drove.
    pub from_step: u64,
    /// The first step it did not; `None`: to the end.
    pub to_step: Option<u64>,
}

/// A driver's entry, ready to submit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderboardEntry {
    /// The `.skr` replay to submit.
    pub bytes: Vec<u8>,
    /// The ranked car's index in the replay.
    pub car: u32,
    /// Steps the replay holds.
    pub steps: u64,
    /// The step before which the driver left the race (the entry ends one
    /// step earlier, the car's last in the world); `None` when they raced
    /// to the recording's end.
    pub left_at: Option<u64>,
    /// Whether the recording was finished (a stream cut by a crash gives
    /// the entry of its whole chunks).
    pub complete: bool,
}

/// The entry of `driver` in `recording` (a `.sks` stream the server wrote,
/// or a `.skr` replay, plain or gzip), ranked under `player` (the driver's
/// name when `None`: the name must be the one the leaderboard token
/// holds). When the driver left the race before the recording ends, the
/// entry is the race until they left, re-recorded to the step before. With
/// `seal`, the entry carries the server's seal, so a leaderboard trusting
/// the key knows the name and the car are the server's. Refused when the
/// recording names no drivers or names `driver` for no car or for two.
pub fn leaderboard_entry(
    recording: &[u8],
    driver: &str,
    player: Option<&str>,
    seal: Option<&SealingKey>,
    limits: &Limits,
) -> Result<LeaderboardEntry> {
    let refuse = |reason: String| NetError::Entry { reason };
    let (mut replay, complete) = read_recording(recording, limits)?;
    let car = driver_car(&replay, driver).map_err(refuse)?;
    // A leaderboard ranks a car that is in its replay to the end, and a
    // driver who left (most often: finished and closed the game) was
    // removed before step `left_at`. A replay's world at that step is
    // already without the car, so the entry ends one step earlier: at the
    // last step the car was still there.
    let left_at = replay.cars[car as usize].removed_at;
    if let Some(step) = left_at {
        if step < 2 {
            return Err(refuse(format!(
                "{driver:?} (car {car}) left the race at step {step}, before taking part in it"
            )));
        }
        replay = clip_replay(&replay, 0, step - 1, limits)
            .map_err(|e| refuse(format!("cutting the race where {driver:?} left: {e}")))?;
    }
    // A seal the recording carried covered other names: it is dropped, and
    // only `seal` can seal the entry again.
    replay
        .header
        .metadata
        .retain(|(k, _)| k != ReplayHeader::SEAL_KEY);
    let player = player.unwrap_or(driver);
    set_metadata(&mut replay.header, ReplayHeader::PLAYER_KEY, player);
    set_metadata(
        &mut replay.header,
        ReplayHeader::PLAYER_CAR_KEY,
        &car.to_string(),
    );
    if let Some(key) = seal {
        seal_replay(&mut replay, key).map_err(|e| refuse(format!("sealing the entry: {e}")))?;
    }
    let bytes = encode_replay(&replay).map_err(|e| refuse(format!("writing the entry: {e}")))?;
    Ok(LeaderboardEntry {
        bytes,
        car,
        steps: replay.header.step_count,
        left_at,
        complete,
    })
}

/// A recorded race (a `.sks` stream or a `.skr` replay, plain or gzip)
/// as a replay, and whether the recording was finished.
fn read_recording(recording: &[u8], limits: &Limits) -> Result<(Replay, bool)> {
    let refuse = |reason: String| NetError::Entry { reason };
    match FileKind::sniff(recording) {
        FileKind::Stream => {
            let stream =
                read_stream(recording, limits).map_err(|e| refuse(format!("the stream: {e}")))?;
            Ok((stream.replay, stream.complete))
        }
        FileKind::Replay => Ok((
            decode_replay_with(recording, limits)
                .map_err(|e| refuse(format!("the replay: {e}")))?,
            true,
        )),
        kind => Err(refuse(format!(
            "a {} file is not a recorded race (a .sks stream or a .skr replay)",
            kind.name()
        ))),
    }
}

/// The race the server recorded as one `.skr` replay naming every car's
/// driver (`names`, by car index, in metadata `drivers`): a stream's
/// header names only the cars it began with, and players who joined later
/// arrived in it. The stretches the AI drove for an absent player go in
/// metadata [`AI_STINTS_KEY`] (when there were any). Also whether the
/// recording was finished.
#[cfg(feature = "service")]
pub(crate) fn race_replay(
    recording: &[u8],
    names: &[String],
    stints: &[RecordedStint],
    limits: &Limits,
) -> Result<(Vec<u8>, bool)> {
    let (mut replay, complete) = read_recording(recording, limits)?;
    let drivers = serde_json::json!(names).to_string();
    set_metadata(&mut replay.header, ReplayHeader::DRIVERS_KEY, &drivers);
    if !stints.is_empty() {
        let stints = serde_json::json!(stints).to_string();
        set_metadata(&mut replay.header, AI_STINTS_KEY, &stints);
    }
    let bytes = encode_replay(&replay).map_err(|e| NetError::Entry {
        reason: format!("writing the race's replay: {e}"),
    })?;
    Ok((bytes, complete))
}

/// The index of the one car `driver` drove.
fn driver_car(replay: &Replay, driver: &str) -> std::result::Result<u32, String> {
    let drivers = replay
        .header
        .drivers()
        .map_err(|e| e.to_string())?
        .ok_or_else(|| {
            format!(
                "the recording names no drivers (metadata `{}`): set `{}` to the car's index yourself",
                ReplayHeader::DRIVERS_KEY,
                ReplayHeader::PLAYER_CAR_KEY
            )
        })?;
    let mut cars = drivers
        .iter()
        .enumerate()
        .filter(|(_, name)| name.as_str() == driver)
        .map(|(index, _)| index);
    match (cars.next(), cars.next()) {
        (Some(car), None) if car < replay.cars.len() => {
            u32::try_from(car).map_err(|_| format!("car index {car} is out of range"))
        }
        (Some(car), None) => Err(format!(
            "`{}` names {driver:?} for car {car}, but the replay has {} cars",
            ReplayHeader::DRIVERS_KEY,
            replay.cars.len()
        )),
        (Some(first), Some(second)) => Err(format!(
            "{driver:?} drove two cars ({first} and {second}): the entry cannot say which to rank"
        )),
        (None, _) => Err(format!(
            "{driver:?} did not drive in this recording; its drivers are {drivers:?}"
        )),
    }
}

/// Sets `key` to `value`, replacing the key's value where it is present.
fn set_metadata(header: &mut ReplayHeader, key: &str, value: &str) {
    match header.metadata.iter_mut().find(|(k, _)| k == key) {
        Some((_, v)) => value.clone_into(v),
        None => header.metadata.push((key.to_owned(), value.to_owned())),
    }
}
