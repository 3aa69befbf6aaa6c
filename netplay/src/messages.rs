//! The messages a race server and its clients exchange, after seed 001's
//! port table: every message is one binary WebSocket message, `u8 channel`
//! then the channel's payload. This module holds the channel numbers and
//! the two client-to-server payloads the server decodes on every tick: the
//! numbered analog input and the seed's `seq:action:name` command.
//! `netplay/FORMAT.md` has both byte by byte.

use skidpad_core::{CarInput, INPUT_RESOLUTION};

use crate::error::{Result, message_error};

/// Message channels (seed 001's ports where a race has a use for them;
/// 20 and up are skidpad's own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Channel {
    /// Server → client, JSON: the client's settings (rates, delay, schema).
    Config = 0,
    /// Both ways, JSON: server → client the sign-in form; client → server
    /// the answer with the seat token.
    Auth = 1,
    /// Server → client, JSON: `null`, or why the sign-in failed.
    AuthResult = 2,
    /// Server → client, JSON: the track and the cars' definition.
    Map = 3,
    /// Server → client, a snapshot frame that bypasses interpolation.
    FirstShot = 4,
    /// Server → client, a snapshot frame; client → server, a command
    /// string (`seq:action:name`).
    Shot = 5,
    /// Client → server, UTF-8: a chat line.
    ChatSend = 6,
    /// Server → client, JSON: countdown, start, finish.
    GameInform = 7,
    /// Server → client, JSON: server full, kicked (with a code).
    TechInform = 8,
    /// Server → client, JSON: this player's HUD keys that changed.
    Panel = 13,
    /// Server → client, JSON: standings as row deltas.
    Stat = 14,
    /// Server → client, JSON: a chat line.
    Chat = 15,
    /// Client → server: a numbered analog input ([`InputMessage`]).
    Input = 20,
    /// Server → client: `u32` ping id; the client answers on [`Channel::Pong`].
    Ping = 30,
    /// Client → server: the `u32` ping id back.
    Pong = 31,
}

impl Channel {
    /// Every channel, in byte order.
    pub const ALL: [Channel; 15] = {
        use Channel::*;
        [
            Config, Auth, AuthResult, Map, FirstShot, Shot, ChatSend, GameInform, TechInform,
            Panel, Stat, Chat, Input, Ping, Pong,
        ]
    };

    /// The channel of byte `b`, if it is one.
    #[must_use]
    pub fn from_byte(b: u8) -> Option<Channel> {
        Self::ALL.into_iter().find(|c| *c as u8 == b)
    }

    /// The channel's name in camelCase, as JavaScript callers key it
    /// (`authResult`, `chatSend`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Channel::Config => "config",
            Channel::Auth => "auth",
            Channel::AuthResult => "authResult",
            Channel::Map => "map",
            Channel::FirstShot => "firstShot",
            Channel::Shot => "shot",
            Channel::ChatSend => "chatSend",
            Channel::GameInform => "gameInform",
            Channel::TechInform => "techInform",
            Channel::Panel => "panel",
            Channel::Stat => "stat",
            Channel::Chat => "chat",
            Channel::Input => "input",
            Channel::Ping => "ping",
            Channel::Pong => "pong",
        }
    }
}

/// One numbered input: what the player's car should run from `tick` on.
///
/// Layout (29 bytes, big-endian): `u32 seq`, `u32 tick`, five `i32`
/// analog fields (steer, throttle, brake, handbrake, clutch) as multiples
/// of 1/65536, the core's own input grid, so the server runs exactly the
/// value the client predicted with; `i8 gear`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InputMessage {
    /// Increases by at least one per message from a client.
    pub seq: u32,
    /// The server tick the input is for: applied before that tick is
    /// stepped, or at the next tick if it arrives late.
    pub tick: u32,
    /// The input, on the core's grid.
    pub input: CarInput,
}

impl InputMessage {
    /// Payload bytes.
    pub const LEN: usize = 29;

    /// The largest magnitude an analog field takes on the wire, beyond
    /// every input's range (steer −1…1, pedals 0…1): the encoder clamps to
    /// it and the server refuses a value past it (a client that wrote a
    /// float's bits, a NaN's among them, into the fixed-point field).
    pub const WIRE_LIMIT: f64 = 2.0;

    /// The payload (without the channel byte). Analog fields are rounded
    /// to the grid and clamped to ±2, beyond every input's range.
    #[must_use]
    pub fn encode(&self) -> [u8; Self::LEN] {
        let mut out = [0; Self::LEN];
        out[..4].copy_from_slice(&self.seq.to_be_bytes());
        out[4..8].copy_from_slice(&self.tick.to_be_bytes());
        let a = self.input.to_array();
        for (i, v) in a[..5].iter().enumerate() {
            let q =
                libm::round(v.clamp(-Self::WIRE_LIMIT, Self::WIRE_LIMIT) * INPUT_RESOLUTION) as i32;
            out[8 + 4 * i..12 + 4 * i].copy_from_slice(&q.to_be_bytes());
        }
        out[28] = libm::round(a[5].clamp(-128.0, 127.0)) as i8 as u8;
        out
    }

    /// Reads a payload. Only the length is checked here; the server checks
    /// the values (range, seq order, tick window) against the race.
    pub fn decode(bytes: &[u8]) -> Result<InputMessage> {
        if bytes.len() != Self::LEN {
            return Err(message_error(
                "input message",
                bytes.len().min(Self::LEN),
                format!("{} bytes where an input has {}", bytes.len(), Self::LEN),
            ));
        }
        let word = |i: usize| [bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]];
        let mut a = [0.0; 6];
        for (i, v) in a[..5].iter_mut().enumerate() {
            *v = f64::from(i32::from_be_bytes(word(8 + 4 * i))) / INPUT_RESOLUTION;
        }
        a[5] = f64::from(bytes[28] as i8);
        Ok(InputMessage {
            seq: u32::from_be_bytes(word(0)),
            tick: u32::from_be_bytes(word(4)),
            input: CarInput::from_array(a),
        })
    }
}

/// A key pressed or released.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyAction {
    /// `down`.
    Down,
    /// `up`.
    Up,
}

/// Seed 001's digital command, `seq:action:name` (`7:down:nextPlayer`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// The client's input counter.
    pub seq: u32,
    /// Pressed or released.
    pub action: KeyAction,
    /// The command's name: ASCII letters and digits.
    pub name: String,
}

/// Longest command name, bytes.
pub const MAX_COMMAND_NAME: usize = 32;

impl Command {
    /// Parses `seq:action:name`; anything else is an error.
    pub fn parse(text: &str) -> Result<Command> {
        let bad = |why: &str| message_error("command", 0, format!("{:?}: {why}", truncated(text)));
        let mut parts = text.split(':');
        let (Some(seq), Some(action), Some(name), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad("expected seq:action:name"));
        };
        let seq = seq
            .parse::<u32>()
            .ok()
            .filter(|_| seq.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| bad("seq is not a u32"))?;
        let action = match action {
            "down" => KeyAction::Down,
            "up" => KeyAction::Up,
            _ => return Err(bad("action is down or up")),
        };
        if name.is_empty()
            || name.len() > MAX_COMMAND_NAME
            || !name.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            return Err(bad("a name is 1 to 32 ASCII letters and digits"));
        }
        Ok(Command {
            seq,
            action,
            name: name.to_owned(),
        })
    }

    /// The wire text.
    #[must_use]
    pub fn to_text(&self) -> String {
        let action = match self.action {
            KeyAction::Down => "down",
            KeyAction::Up => "up",
        };
        format!("{}:{action}:{}", self.seq, self.name)
    }
}

/// At most 40 characters of `text`, for an error message.
fn truncated(text: &str) -> String {
    text.chars().take(40).collect()
}

/// The game inform (channel 7) that says when the race starts:
/// `[0, {"startTick": T, "seated": n, "needed": N}]` while it counts down
/// or waits for seats (`startTick` null until the seats are taken), `[1]`
/// once it is on. Seed 001's game codes: 0 countdown, 1 on, 2 finished.
#[must_use]
pub fn start_inform(start_tick: Option<u32>, started: bool, seated: usize, needed: u32) -> String {
    if started {
        return "[1]".into();
    }
    serde_json::json!([0, { "startTick": start_tick, "seated": seated, "needed": needed }])
        .to_string()
}

/// What a game inform says of the start: `Some(start tick)` for a
/// countdown inform (`Some(None)` while the race waits for seats), `None`
/// for any other inform (a client then keeps what it knew).
#[must_use]
pub fn start_tick_of(inform: &[u8]) -> Option<Option<u32>> {
    let value: serde_json::Value = serde_json::from_slice(inform).ok()?;
    let [code, details] = value.as_array()?.as_slice() else {
        return None;
    };
    if code.as_u64() != Some(0) {
        return None;
    }
    let tick = details.get("startTick")?;
    if tick.is_null() {
        return Some(None);
    }
    Some(Some(u32::try_from(tick.as_u64()?).ok()?))
}
