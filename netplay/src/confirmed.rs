//! The race as the server confirmed it, for clients that run every car
//! themselves ([`RaceClient`](crate::RaceClient)): the input each car ran
//! with at each tick (sent as changes), the cars put down (joined, reset)
//! or taken out at a tick with their exact poses, and a hash of every
//! car's state at the frame's tick. A predicting client's first shot also
//! carries every car's full state. `FORMAT.md`, "Predicting every car",
//! has the blocks byte for byte.

use skidpad_core::{CarId, CarInput, InitialPose, SNAPSHOT_LEN, World};

use crate::error::{NetError, Result, frame_error};
use crate::frame::{Block, Frame, Row, Value};
use crate::race_schema::STATE_WORDS;
use crate::schema::{BlockClass, BlockKind, FieldSpec, FieldType, KeySpec, Precision};

/// Key byte of the confirmed input changes.
pub const INPUTS_KEY: u8 = 6;
/// Key byte of the cars put down or taken out.
pub const PLACED_KEY: u8 = 7;
/// Key byte of the cars' state hashes.
pub const HASHES_KEY: u8 = 8;
/// Key byte of the cars' full states (first shots of predicting clients).
pub const STATES_KEY: u8 = 9;

/// What happened to a car just before a tick was stepped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Placement {
    /// The car joined the race at this pose (`World::add_car`): it is
    /// stepped from this tick on, after every car already there.
    Joined(InitialPose),
    /// The car was put back on the track at this pose
    /// (`World::reset_car`: a player's `reset`, or the AI's own).
    Reset(InitialPose),
    /// The car left the race: this tick steps without it.
    Left,
}

impl Placement {
    fn code(self) -> u8 {
        match self {
            Placement::Joined(_) => 0,
            Placement::Reset(_) => 1,
            Placement::Left => 2,
        }
    }

    fn pose(self) -> InitialPose {
        match self {
            Placement::Joined(p) | Placement::Reset(p) => p,
            Placement::Left => InitialPose::default(),
        }
    }
}

/// From `tick` on, the car in `seat` runs `input` (until a later change).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InputChange {
    /// The car's seat.
    pub seat: u8,
    /// The first tick stepped with it.
    pub tick: u32,
    /// The input, on the core's input grid.
    pub input: CarInput,
}

/// A car put down or taken out before `tick` was stepped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlacedCar {
    /// The car's seat.
    pub seat: u8,
    /// The tick it applies before.
    pub tick: u32,
    /// What happened.
    pub placement: Placement,
}

/// The confirmation blocks of one frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Confirmation {
    /// Input changes, in tick order (and seat order within a tick).
    pub inputs: Vec<InputChange>,
    /// Placements, in the order the server made them.
    pub placed: Vec<PlacedCar>,
    /// Every car's [`state_hash`] after the frame's tick, in the server's
    /// stepping order.
    pub hashes: Vec<(u8, u64)>,
    /// Every car's full state (`World::snapshot`) after the frame's tick,
    /// in the server's stepping order: only in a predicting client's
    /// first shot.
    pub states: Vec<(u8, Vec<u8>)>,
}

/// Two bits of input are the same input: compared by bits, so that the
/// sign of a zero counts as it does in the simulation.
#[must_use]
pub fn same_input(a: &CarInput, b: &CarInput) -> bool {
    a.to_array()
        .iter()
        .zip(b.to_array())
        .all(|(x, y)| x.to_bits() == y.to_bits())
}

/// The first 8 bytes of the car's state hash (`World::car_hash`, blake3),
/// big-endian: enough to catch a desync, 8 bytes a car on the wire.
pub fn state_hash(world: &World, car: CarId) -> skidpad_core::Result<u64> {
    let hash = world.car_hash(car)?;
    let mut first = [0_u8; 8];
    first.copy_from_slice(&hash[..8]);
    Ok(u64::from_be_bytes(first))
}

/// The four keys, for the race schema.
pub(crate) fn key_specs() -> Vec<KeySpec> {
    use FieldType::{F32, U8, U32};
    let d = FieldSpec::discrete;
    let key = |key: &str, id: u8, kind: BlockKind, fields: Vec<FieldSpec>| KeySpec {
        key: key.into(),
        id,
        kind,
        class: BlockClass::Event,
        fields,
        optional_from: None,
        precision: Precision::Full,
    };
    let mut inputs = vec![d("car", U8), d("tick", U32)];
    inputs.extend(CarInput::FIELD_NAMES[..5].iter().map(|name| d(name, F32)));
    inputs.push(d("gear", U8));
    let mut placed = vec![d("car", U8), d("tick", U32), d("what", U8)];
    for name in ["x", "y", "yaw", "speed"] {
        placed.push(d(&format!("{name}Hi"), U32));
        placed.push(d(&format!("{name}Lo"), U32));
    }
    let states = (0..STATE_WORDS).map(|i| d(&format!("s{i}"), U32)).collect();
    vec![
        key("inputs", INPUTS_KEY, BlockKind::List16, inputs),
        key("placed", PLACED_KEY, BlockKind::List16, placed),
        key(
            "hashes",
            HASHES_KEY,
            BlockKind::Indexed8,
            vec![d("h0", U32), d("h1", U32)],
        ),
        key("states", STATES_KEY, BlockKind::Indexed8, states),
    ]
}

impl InputChange {
    /// The row, in the inputs block's field order (gear as `gear + 1`).
    #[must_use]
    pub fn to_row(&self) -> Row {
        let mut row = vec![Value::U8(self.seat), Value::U32(self.tick)];
        // Grid values (k / 65 536, |k| ≤ 65 536) are exact in an f32.
        row.extend(
            self.input.to_array()[..5]
                .iter()
                .map(|&v| Value::F32(v as f32)),
        );
        let gear = (self.input.gear + 1.0).clamp(0.0, 255.0);
        row.push(Value::U8(gear as u8));
        row
    }

    /// Reads a decoded row back.
    pub fn from_row(row: &[Value]) -> Result<InputChange> {
        let [
            Value::U8(seat),
            Value::U32(tick),
            analog @ ..,
            Value::U8(gear),
        ] = row
        else {
            return Err(frame_error(
                0,
                "an inputs row is car u8, tick u32, …, gear u8",
            ));
        };
        if analog.len() != 5 {
            return Err(frame_error(0, "an inputs row has five analog fields"));
        }
        let mut fields = [0.0; 6];
        for (field, value) in fields.iter_mut().zip(analog) {
            let Value::F32(v) = value else {
                return Err(frame_error(0, "an inputs row's analog fields are f32"));
            };
            *field = f64::from(*v);
        }
        fields[5] = f64::from(*gear) - 1.0;
        Ok(InputChange {
            seat: *seat,
            tick: *tick,
            input: CarInput::from_array(fields),
        })
    }
}

impl PlacedCar {
    /// The row, in the placed block's field order: each pose field as its
    /// f64 bits, high word first (zeros for a car that left).
    #[must_use]
    pub fn to_row(&self) -> Row {
        let mut row = vec![
            Value::U8(self.seat),
            Value::U32(self.tick),
            Value::U8(self.placement.code()),
        ];
        let p = self.placement.pose();
        for v in [p.x, p.y, p.yaw, p.speed] {
            let bits = v.to_bits();
            row.push(Value::U32((bits >> 32) as u32));
            row.push(Value::U32(bits as u32));
        }
        row
    }

    /// Reads a decoded row back.
    pub fn from_row(row: &[Value]) -> Result<PlacedCar> {
        let [
            Value::U8(seat),
            Value::U32(tick),
            Value::U8(what),
            words @ ..,
        ] = row
        else {
            return Err(frame_error(
                0,
                "a placed row is car u8, tick u32, what u8, …",
            ));
        };
        if words.len() != 8 {
            return Err(frame_error(0, "a placed row has eight pose words"));
        }
        let mut pose = [0.0; 4];
        for (v, pair) in pose.iter_mut().zip(words.chunks_exact(2)) {
            let (Value::U32(hi), Value::U32(lo)) = (pair[0], pair[1]) else {
                return Err(frame_error(0, "a placed row's pose words are u32"));
            };
            *v = f64::from_bits((u64::from(hi) << 32) | u64::from(lo));
        }
        let pose = InitialPose {
            x: pose[0],
            y: pose[1],
            yaw: pose[2],
            speed: pose[3],
        };
        let placement = match what {
            0 => Placement::Joined(pose),
            1 => Placement::Reset(pose),
            2 => Placement::Left,
            other => {
                return Err(frame_error(
                    0,
                    format!("placed row: what {other} is not 0 (joined), 1 (reset) or 2 (left)"),
                ));
            }
        };
        Ok(PlacedCar {
            seat: *seat,
            tick: *tick,
            placement,
        })
    }
}

/// A car's state as a row of [`STATE_WORDS`] big-endian words.
pub(crate) fn state_row(state: &[u8]) -> Result<Row> {
    if state.len() != SNAPSHOT_LEN {
        return Err(NetError::Encode {
            key: "states".into(),
            reason: format!("a state of {} bytes, not {SNAPSHOT_LEN}", state.len()),
        });
    }
    Ok(state
        .chunks_exact(4)
        .map(|w| Value::U32(u32::from_be_bytes([w[0], w[1], w[2], w[3]])))
        .collect())
}

/// A row of words back to the state's bytes.
pub(crate) fn state_of_row(row: &[Value]) -> Result<Vec<u8>> {
    let mut state = Vec::with_capacity(SNAPSHOT_LEN);
    for v in row {
        let Value::U32(w) = v else {
            return Err(frame_error(0, "a state row's fields are u32"));
        };
        state.extend_from_slice(&w.to_be_bytes());
    }
    if state.len() != SNAPSHOT_LEN {
        return Err(frame_error(0, "a state row is not a car snapshot"));
    }
    Ok(state)
}

impl Confirmation {
    /// The confirmation blocks of `frame` (empty where it has none).
    pub fn of(frame: &Frame) -> Result<Confirmation> {
        let mut out = Confirmation::default();
        for (key, block) in &frame.blocks {
            match (*key, block) {
                (INPUTS_KEY, Block::List(rows)) => {
                    out.inputs = rows
                        .iter()
                        .map(|r| InputChange::from_row(r))
                        .collect::<Result<_>>()?;
                }
                (PLACED_KEY, Block::List(rows)) => {
                    out.placed = rows
                        .iter()
                        .map(|r| PlacedCar::from_row(r))
                        .collect::<Result<_>>()?;
                }
                (HASHES_KEY, Block::Indexed(rows)) => {
                    for (seat, row) in rows {
                        let Some([Value::U32(h0), Value::U32(h1)]) = row.as_deref() else {
                            return Err(frame_error(0, "a hashes row is two u32 words"));
                        };
                        let seat = u8::try_from(*seat)
                            .map_err(|_| frame_error(0, "a hashes row's car is a seat"))?;
                        out.hashes
                            .push((seat, (u64::from(*h0) << 32) | u64::from(*h1)));
                    }
                }
                (STATES_KEY, Block::Indexed(rows)) => {
                    for (seat, row) in rows {
                        let (Ok(seat), Some(row)) = (u8::try_from(*seat), row) else {
                            return Err(frame_error(0, "a states row is a seat's car state"));
                        };
                        out.states.push((seat, state_of_row(row)?));
                    }
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// The hashes block's row of a car: its hash as two words.
    pub(crate) fn hash_row(hash: u64) -> Row {
        vec![Value::U32((hash >> 32) as u32), Value::U32(hash as u32)]
    }
}
