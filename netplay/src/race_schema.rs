//! The schema skidpad ships for a race, and the rows it is made of.
//!
//! | key       | id | kind     | class | what                                         |
//! |-----------|---:|----------|-------|----------------------------------------------|
//! | `cars`    | 1  | indexed8 | hot   | every car's drawn state, rounded              |
//! | `player`  | 2  | indexed8 | event | the receiving player's car, full precision    |
//! | `contact` | 3  | list16   | event | car–car contacts begun this frame             |
//! | `lap`     | 4  | list16   | event | laps completed this frame                     |
//! | `removed` | 5  | list16   | event | cars that left the race this frame            |
//! | `inputs`  | 6  | list16   | event | confirmed input changes (predicting clients)  |
//! | `placed`  | 7  | list16   | event | cars joined, reset or gone, at a tick, exact  |
//! | `hashes`  | 8  | indexed8 | event | every car's state hash at the frame's tick    |
//! | `states`  | 9  | indexed8 | event | every car's full state (their first shot)     |
//!
//! Keys 6 to 9 go only to clients that predict every car (`confirmed.rs`).
//!
//! A game adds its own keys with [`Schema::extended`], using ids from
//! [`FIRST_GAME_KEY_ID`] on so that skidpad can add keys without taking
//! one a game uses.

use skidpad_core::{CarPose, SNAPSHOT_LEN};

use crate::error::{NetError, Result, frame_error};
use crate::frame::{Row, Value};
use crate::schema::{
    BlockClass, BlockKind, FieldSpec, FieldType, Interp, KeySpec, Precision, Schema,
};

/// Key byte of the cars block.
pub const CARS_KEY: u8 = 1;
/// Key byte of the player block.
pub const PLAYER_KEY: u8 = 2;
/// Key byte of the contact events.
pub const CONTACT_KEY: u8 = 3;
/// Key byte of the lap events.
pub const LAP_KEY: u8 = 4;
/// Key byte of the removal events.
pub const REMOVED_KEY: u8 = 5;
/// The first key byte left to games.
pub const FIRST_GAME_KEY_ID: u8 = 64;

/// Words of a car's state in the player block: the core's snapshot
/// (340 bytes) as big-endian u32s, so the block's fields stay the seed's
/// four types and prediction gets every bit.
pub const STATE_WORDS: usize = SNAPSHOT_LEN / 4;
const _: () = assert!(
    SNAPSHOT_LEN.is_multiple_of(4),
    "the state must fill whole words"
);

/// Bits of the cars block's `flags`.
pub mod flags {
    /// Brake pedal past 5 %: brake lights.
    pub const BRAKING: u8 = 1;
    /// Completed the race's laps.
    pub const FINISHED: u8 = 2;
    /// Driven by the server's AI, not a player.
    pub const AI: u8 = 4;
}

/// Why a car left the race (`removed.reason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum RemovalReason {
    /// The player left.
    Left = 0,
    /// The server kicked the player (latency or missed pings).
    Kicked = 1,
    /// The server retired the car (stuck, race over).
    Retired = 2,
}

/// skidpad's race schema.
#[must_use]
pub fn race_schema() -> Schema {
    use FieldType::{U8, U16, U32};
    let f = FieldSpec::float;
    let d = FieldSpec::discrete;
    let cars = KeySpec {
        key: "cars".into(),
        id: CARS_KEY,
        kind: BlockKind::Indexed8,
        class: BlockClass::Hot,
        fields: vec![
            f("x", Interp::Lerp),
            f("y", Interp::Lerp),
            f("z", Interp::Lerp),
            f("yaw", Interp::LerpAngle),
            f("pitch", Interp::LerpAngle),
            f("roll", Interp::LerpAngle),
            f("speed", Interp::Lerp),
            f("steer", Interp::Lerp),
            f("rpm", Interp::Lerp),
            d("gear", U8),
            d("lap", U8),
            d("flags", U8),
        ],
        optional_from: None,
        precision: Precision::Rounded,
    };
    let mut player_fields = vec![
        d("lastInputSeq", U32),
        d("inputTick", U32),
        d("inputWait", U32),
        d("lateInputs", U32),
        d("resets", U32),
    ];
    player_fields.extend((0..STATE_WORDS).map(|i| d(&format!("s{i}"), U32)));
    let player = KeySpec {
        key: "player".into(),
        id: PLAYER_KEY,
        kind: BlockKind::Indexed8,
        class: BlockClass::Event,
        fields: player_fields,
        optional_from: None,
        precision: Precision::Full,
    };
    let event = |key: &str, id: u8, fields: Vec<FieldSpec>| KeySpec {
        key: key.into(),
        id,
        kind: BlockKind::List16,
        class: BlockClass::Event,
        fields,
        optional_from: None,
        precision: Precision::Rounded,
    };
    let contact = event(
        "contact",
        CONTACT_KEY,
        vec![
            d("a", U8),
            d("b", U8),
            d("impulse", FieldType::F32),
            d("x", FieldType::F32),
            d("y", FieldType::F32),
            d("z", FieldType::F32),
        ],
    );
    let lap = event(
        "lap",
        LAP_KEY,
        vec![
            d("car", U8),
            d("lap", U16),
            d("timeMs", U32),
            d("valid", U8),
        ],
    );
    let removed = event("removed", REMOVED_KEY, vec![d("car", U8), d("reason", U8)]);
    let mut keys = vec![cars, player, contact, lap, removed];
    keys.extend(crate::confirmed::key_specs());
    Schema::new(keys).expect("skidpad's own schema is valid")
}

/// What the cars block says of one car.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CarRow {
    /// The car's pose (position, yaw, pitch, roll, steer, speed are sent).
    pub pose: CarPose,
    /// Engine speed, rpm.
    pub rpm: f64,
    /// Engaged gear: −1 reverse, 0 neutral, then gear numbers.
    pub gear: i32,
    /// Laps completed (saturates at 255).
    pub lap: u32,
    /// [`flags`] bits.
    pub flags: u8,
}

impl CarRow {
    /// The row, in the cars block's field order. The gear travels as
    /// `gear + 1` (0 reverse, 1 neutral, 2 first…).
    #[must_use]
    pub fn to_row(&self) -> Row {
        let p = &self.pose;
        let f = |v: f64| Value::F32(v as f32);
        vec![
            f(p.position.x),
            f(p.position.y),
            f(p.position.z),
            f(p.yaw),
            f(p.pitch),
            f(p.roll),
            f(p.speed),
            f(p.steer_angle),
            f(self.rpm),
            Value::U8(u8::try_from((self.gear + 1).clamp(0, 255)).unwrap_or(0)),
            Value::U8(u8::try_from(self.lap.min(255)).unwrap_or(u8::MAX)),
            Value::U8(self.flags),
        ]
    }
}

/// Fields of the player row before the state words.
const HEAD: usize = 5;

/// The player block's row: the last input the server applied and the car's
/// exact state after the frame's tick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerRow {
    /// The `seq` of the last input message the server applied.
    pub last_input_seq: u32,
    /// The tick at which it was applied.
    pub input_tick: u32,
    /// Ticks it waited at the server between arriving and applying: how
    /// early it came (0: just in time, or late when `input_tick` is past
    /// the tick it asked for). The client steers its lead by it.
    pub input_wait: u32,
    /// Inputs of this player that arrived after their tick, since it
    /// joined: when it grows, a difference from the prediction is the
    /// server running the late input at a later tick, not a mistake.
    pub late_inputs: u32,
    /// Resets of this player's car since it joined (asked with the
    /// `reset` command): when it grows, a difference from the prediction
    /// is the car put back on the track, not a mistake.
    pub resets: u32,
    /// The car's snapshot (`World::snapshot`), [`SNAPSHOT_LEN`] bytes.
    pub state: Vec<u8>,
}

impl PlayerRow {
    /// The row, in the player block's field order.
    pub fn to_row(&self) -> Result<Row> {
        if self.state.len() != SNAPSHOT_LEN {
            return Err(NetError::Encode {
                key: "player".into(),
                reason: format!(
                    "state of {} bytes, a car snapshot has {SNAPSHOT_LEN}",
                    self.state.len()
                ),
            });
        }
        let mut row = vec![
            Value::U32(self.last_input_seq),
            Value::U32(self.input_tick),
            Value::U32(self.input_wait),
            Value::U32(self.late_inputs),
            Value::U32(self.resets),
        ];
        row.extend(
            self.state
                .chunks_exact(4)
                .map(|w| Value::U32(u32::from_be_bytes([w[0], w[1], w[2], w[3]]))),
        );
        Ok(row)
    }

    /// Reads a decoded player row back.
    pub fn from_row(row: &[Value]) -> Result<PlayerRow> {
        let word = |v: &Value| match v {
            Value::U32(w) => Ok(*w),
            other => Err(frame_error(
                0,
                format!("player block field is {other:?}, not u32"),
            )),
        };
        if row.len() != HEAD + STATE_WORDS {
            return Err(frame_error(
                0,
                format!(
                    "player row of {} fields, expected {}",
                    row.len(),
                    HEAD + STATE_WORDS
                ),
            ));
        }
        let mut state = Vec::with_capacity(SNAPSHOT_LEN);
        for v in &row[HEAD..] {
            state.extend_from_slice(&word(v)?.to_be_bytes());
        }
        Ok(PlayerRow {
            last_input_seq: word(&row[0])?,
            input_tick: word(&row[1])?,
            input_wait: word(&row[2])?,
            late_inputs: word(&row[3])?,
            resets: word(&row[4])?,
            state,
        })
    }
}
