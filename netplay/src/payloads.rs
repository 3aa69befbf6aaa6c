//! The JSON payloads of the message channels (`netplay/FORMAT.md`,
//! "Messages"), and the one place a message gets its channel byte.

use serde::{Deserialize, Serialize};

use crate::messages::Channel;

/// A message: the channel byte, then the payload.
#[must_use]
pub fn message(channel: Channel, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + payload.len());
    out.push(channel as u8);
    out.extend_from_slice(payload);
    out
}

/// A message whose payload is `value` as JSON.
#[must_use]
pub fn json_message(channel: Channel, value: &impl Serialize) -> Vec<u8> {
    message(
        channel,
        serde_json::to_string(value)
            .expect("payloads serialize")
            .as_bytes(),
    )
}

/// Channel 0: what a client needs before the first frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientConfig {
    /// The frames' format version.
    pub snapshot_format_version: u8,
    /// Server ticks per second.
    pub tick_hz: u32,
    /// Ticks per frame.
    pub ticks_per_frame: u32,
    /// Furthest ahead an input may name its tick.
    pub max_input_lead: u32,
    /// Interpolation delay, ms.
    pub interpolation_delay_ms: f64,
    /// Frames older than this are dropped, ms.
    pub max_frame_age_ms: f64,
    /// The snapshot schema, as `Schema::from_json` reads it.
    pub schema: serde_json::Value,
    /// Whether the server makes each driver's leaderboard entry at the
    /// finish (`GET /entry`; it does when it records). Absent from older
    /// servers' configs: read as false.
    #[serde(default)]
    pub entries: bool,
}

/// Channel 1, server → client: the sign-in form's fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuthForm {
    /// Field names the answer must carry.
    pub params: Vec<String>,
}

/// Channel 1, client → server: the answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthAnswer {
    /// The seat token.
    pub token: String,
    /// The name to race under (at most 32 characters are kept).
    pub name: String,
    /// `"all"`: the client predicts every car, and its frames carry the
    /// confirmations (FORMAT.md, "Predicting every car"); absent or
    /// `"own"`: only its own car.
    #[serde(default, skip_serializing_if = "Prediction::is_own")]
    pub predict: Prediction,
}

/// Which cars a client predicts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Prediction {
    /// Its own car; the others are drawn from the cars block.
    #[default]
    Own,
    /// Every car, from the confirmed inputs.
    All,
}

impl Prediction {
    fn is_own(&self) -> bool {
        *self == Prediction::Own
    }
}

/// Longest `ground` a map message may carry: base64 of a ground file of
/// [`MAX_MAP_GROUND_BYTES`](crate::race_config::MAX_MAP_GROUND_BYTES).
pub const MAX_MAP_GROUND_TEXT: usize = crate::race_config::MAX_MAP_GROUND_BYTES.div_ceil(3) * 4;

/// Channel 3: the race the client joined.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MapData {
    /// Built-in track name (an own track's name with `track_definition`).
    pub track: String,
    /// The car preset every player drives (an own car's name with
    /// `car_definition`).
    pub car: String,
    /// The race's own track, when it is not a built-in one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub track_definition: Option<skidpad_core::TrackDefinition>,
    /// The race's own car, when it is not a preset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub car_definition: Option<skidpad_core::CarDefinition>,
    /// The race's own ground, when it is not the track's generated one: a
    /// ground file (`.skgd`), base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground: Option<String>,
    /// Laps in the race.
    pub laps: u32,
    /// The player's seat: its id in the `cars` and `player` blocks;
    /// `null` for a spectator, who has no car.
    pub seat: Option<u8>,
}

impl MapData {
    /// The map a race run with `config` hands the player in `seat`
    /// (`None`: a spectator); `ground` is the race's own ground as the
    /// message carries it.
    #[must_use]
    pub fn of(config: &crate::RaceConfig, ground: Option<&String>, seat: Option<u8>) -> MapData {
        MapData {
            track: config.track.clone(),
            car: config.car.clone(),
            track_definition: config.track_definition.clone(),
            car_definition: config.car_definition.clone(),
            ground: ground.cloned(),
            laps: config.laps,
            seat,
        }
    }

    /// The race's track: its own definition (checked), or the built-in
    /// one it names.
    pub fn race_track(&self) -> skidpad_core::Result<skidpad_core::Track> {
        crate::race_config::race_track(&self.track, self.track_definition.as_ref())
    }

    /// The race's own ground, from the ground file the message carries;
    /// `None` on the track's generated ground.
    pub fn race_ground_source(&self) -> skidpad_core::Result<Option<skidpad_core::GroundSource>> {
        let Some(text) = &self.ground else {
            return Ok(None);
        };
        use base64::Engine as _;
        let invalid = |reason: String| skidpad_core::CoreError::InvalidArgument {
            what: "map ground",
            reason,
        };
        if text.len() > MAX_MAP_GROUND_TEXT {
            return Err(invalid(format!(
                "{} base64 characters, over {MAX_MAP_GROUND_TEXT}",
                text.len()
            )));
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|e| invalid(e.to_string()))?;
        skidpad_replay::decode_ground_file(&bytes)
            .map(Some)
            .map_err(|e| invalid(e.to_string()))
    }

    /// The race's ground: its own, from the ground file the message
    /// carries, or `track`'s generated one.
    pub fn race_ground(
        &self,
        track: &skidpad_core::Track,
    ) -> skidpad_core::Result<std::sync::Arc<dyn skidpad_core::Ground>> {
        crate::race_config::race_ground(track, self.race_ground_source()?.as_ref())
    }

    /// The car every player drives: its own definition (checked), or the
    /// preset it names.
    pub fn race_car(&self) -> skidpad_core::Result<skidpad_core::CarDefinition> {
        crate::race_config::race_car(&self.car, self.car_definition.as_ref())
    }
}

/// Channel 8 codes, also used as the WebSocket close code of a kick.
pub mod tech_codes {
    /// The sign-in failed (no such token, seat taken, no answer in time).
    pub const AUTH_FAILED: u16 = 4001;
    /// Every seat is taken.
    pub const SERVER_FULL: u16 = 4002;
    /// The smoothed latency passed the limit (seed 001).
    pub const LATENCY: u16 = 4003;
    /// Too many pings in a row went unanswered (seed 001).
    pub const MISSED_PINGS: u16 = 4004;
    /// A message that breaks the protocol (unknown channel, bad payload).
    pub const PROTOCOL: u16 = 4005;
    /// Too many refused inputs: a flood or a confused client.
    pub const FLOOD: u16 = 4006;
}
