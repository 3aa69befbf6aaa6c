//! The binary snapshot frame (seed 001, "Бинарный snapshot-кадр"): its
//! byte layout, encoder and decoder. `netplay/FORMAT.md` gives the layout
//! byte by byte; in short, all big-endian:
//!
//! ```text
//! frame  = u8 format version (SNAPSHOT_FORMAT_VERSION)
//!          u32 tick            (the server's step count)
//!          u32 server time, ms (since the race's start)
//!          block*              (each: u8 key id, then the key's block)
//! block  = indexed8:       u8 count,  count × (u8 id,  u8 hasData, [row])
//!          indexed32:      u16 count, count × (u32 id, u8 hasData, [row])
//!          list16:         u16 count, count × row
//!          indexedNoNull8: u8 count,  count × (u8 index, row)
//! row    = [u8 tail flag, when the key has optionalFrom] fields…
//! ```
//!
//! No magic bytes: a frame only ever travels inside a message whose
//! channel byte already says what it is, and at 30 frames a second per
//! player every byte is paid for.
//!
//! The decoder never panics. It refuses a frame longer than
//! [`MAX_FRAME_LEN`] before reading it, and allocates rows only after
//! checking that the bytes left can hold the declared count at the key's
//! smallest row size; so a decoded frame takes at most
//! `(24 + 8 × widest row) / 2` bytes of memory per byte of frame, a bound
//! the receiver's own schema sets.
//!
//! Encoding is canonical, so `encode(decode(bytes)) == bytes` for every
//! frame the decoder accepts. The decoder therefore refuses what the
//! encoder never writes: a key twice, an empty block, an id twice in one
//! block, a hasData byte other than 0 or 1, a tail flag of 1 on an all-zero
//! tail, a non-finite float, and in a rounded
//! block a float that is not already rounded to 2 decimals.

use std::collections::HashSet;

use crate::error::{Result, encode_error, frame_error};
use crate::schema::{BlockKind, FieldType, KeySpec, Precision, Schema};

/// The snapshot format version this build writes and reads. A client drops
/// a frame of another version.
pub const SNAPSHOT_FORMAT_VERSION: u8 = 1;
/// Bytes before the first block.
pub const HEADER_LEN: usize = 9;
/// Longest frame the decoder reads, bytes. 64 cars at 30 Hz take about
/// 2.5 kB a frame; a megabyte leaves room for a game's own keys and
/// refuses a hostile frame before any work is done.
pub const MAX_FRAME_LEN: usize = 1 << 20;

/// One field's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// An f32 field.
    F32(f32),
    /// A u8 field.
    U8(u8),
    /// A u16 field.
    U16(u16),
    /// A u32 field.
    U32(u32),
}

impl Value {
    /// The value as f64, whatever its type.
    #[must_use]
    pub fn as_f64(self) -> f64 {
        match self {
            Value::F32(v) => f64::from(v),
            Value::U8(v) => f64::from(v),
            Value::U16(v) => f64::from(v),
            Value::U32(v) => f64::from(v),
        }
    }

    /// Zero of type `ty`: what an absent optional tail reads as.
    #[must_use]
    pub fn zero(ty: FieldType) -> Value {
        match ty {
            FieldType::F32 => Value::F32(0.0),
            FieldType::U8 => Value::U8(0),
            FieldType::U16 => Value::U16(0),
            FieldType::U32 => Value::U32(0),
        }
    }

    fn ty(self) -> FieldType {
        match self {
            Value::F32(_) => FieldType::F32,
            Value::U8(_) => FieldType::U8,
            Value::U16(_) => FieldType::U16,
            Value::U32(_) => FieldType::U32,
        }
    }

    /// All bits zero: +0.0 counts, −0.0 does not (it travels).
    fn is_zero_bits(self) -> bool {
        match self {
            Value::F32(v) => v.to_bits() == 0,
            Value::U8(v) => v == 0,
            Value::U16(v) => v == 0,
            Value::U32(v) => v == 0,
        }
    }
}

/// One row: a value per field of its key, in the schema's order, always
/// full width (an absent optional tail is zeros).
pub type Row = Vec<Value>;

/// One key's content in a frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// `indexed8` and `indexed32`: entities by id; `None` means the entity
    /// is gone.
    Indexed(Vec<(u32, Option<Row>)>),
    /// `list16`: anonymous rows.
    List(Vec<Row>),
    /// `indexedNoNull8`: fixed slots by index.
    Slots(Vec<(u8, Row)>),
}

impl Block {
    /// Rows in the block (gone entities included).
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            Block::Indexed(rows) => rows.len(),
            Block::List(rows) => rows.len(),
            Block::Slots(rows) => rows.len(),
        }
    }

    /// True when the block has no rows (it is then not sent).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One snapshot frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    /// The server's step count when the frame was taken.
    pub tick: u32,
    /// Server time, ms since the race's start.
    pub server_time_ms: u32,
    /// Blocks by key byte, in wire order.
    pub blocks: Vec<(u8, Block)>,
}

impl Frame {
    /// The block of the key named `key`, if this frame carries one.
    #[must_use]
    pub fn block<'a>(&'a self, schema: &Schema, key: &str) -> Option<&'a Block> {
        let id = schema.by_name(key)?.id;
        self.blocks.iter().find(|(k, _)| *k == id).map(|(_, b)| b)
    }
}

/// A float as the wire carries it in a rounded block: 2 decimals, then
/// through f32 (seed 001, "Округление"). Rounding twice changes nothing.
#[must_use]
pub fn round2(v: f32) -> f32 {
    // f32 × 100 is exact in f64 (24 + 7 bits), so the rounding step sees
    // the value itself; libm keeps the bits alike on every target.
    (libm::round(f64::from(v) * 100.0) / 100.0) as f32
}

/// Encodes `frame` with `schema`. Blocks with no rows are left out; floats
/// of rounded blocks are rounded; a zero optional tail is left off.
pub fn encode_frame(schema: &Schema, frame: &Frame) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(HEADER_LEN + 64);
    out.push(SNAPSHOT_FORMAT_VERSION);
    out.extend_from_slice(&frame.tick.to_be_bytes());
    out.extend_from_slice(&frame.server_time_ms.to_be_bytes());
    for (i, (id, block)) in frame.blocks.iter().enumerate() {
        let spec = schema
            .by_id(*id)
            .ok_or_else(|| encode_error(id.to_string(), "no such key id in the schema"))?;
        if frame.blocks[..i].iter().any(|(k, _)| k == id) {
            return Err(encode_error(&spec.key, "block appears twice in the frame"));
        }
        if block.is_empty() {
            continue;
        }
        if block.len() > spec.kind.max_rows() {
            return Err(encode_error(
                &spec.key,
                format!(
                    "{} rows, a {:?} block holds at most {}",
                    block.len(),
                    spec.kind,
                    spec.kind.max_rows()
                ),
            ));
        }
        out.push(*id);
        encode_block(spec, block, &mut out)?;
    }
    if out.len() > MAX_FRAME_LEN {
        return Err(encode_error(
            "",
            format!("frame of {} bytes exceeds {MAX_FRAME_LEN}", out.len()),
        ));
    }
    Ok(out)
}

fn encode_block(spec: &KeySpec, block: &Block, out: &mut Vec<u8>) -> Result<()> {
    let count = block.len();
    let mismatch = || {
        encode_error(
            &spec.key,
            format!("a {:?} block cannot hold this Block variant", spec.kind),
        )
    };
    match (spec.kind, block) {
        (BlockKind::Indexed8 | BlockKind::Indexed32, Block::Indexed(rows)) => {
            let narrow = spec.kind == BlockKind::Indexed8;
            write_count(out, count, narrow);
            let mut seen = HashSet::with_capacity(count);
            for (id, row) in rows {
                if !seen.insert(*id) {
                    return Err(encode_error(&spec.key, format!("id {id} appears twice")));
                }
                if narrow {
                    let id = u8::try_from(*id).map_err(|_| {
                        encode_error(&spec.key, format!("id {id} does not fit an indexed8 block"))
                    })?;
                    out.push(id);
                } else {
                    out.extend_from_slice(&id.to_be_bytes());
                }
                match row {
                    None => out.push(0),
                    Some(row) => {
                        out.push(1);
                        encode_row(spec, row, out)?;
                    }
                }
            }
        }
        (BlockKind::List16, Block::List(rows)) => {
            write_count(out, count, false);
            for row in rows {
                encode_row(spec, row, out)?;
            }
        }
        (BlockKind::IndexedNoNull8, Block::Slots(rows)) => {
            write_count(out, count, true);
            let mut seen = HashSet::with_capacity(count);
            for (index, row) in rows {
                if !seen.insert(*index) {
                    return Err(encode_error(
                        &spec.key,
                        format!("slot {index} appears twice"),
                    ));
                }
                out.push(*index);
                encode_row(spec, row, out)?;
            }
        }
        _ => return Err(mismatch()),
    }
    Ok(())
}

fn write_count(out: &mut Vec<u8>, count: usize, narrow: bool) {
    // The caller checked `count` against the kind's limit.
    if narrow {
        out.push(count as u8);
    } else {
        out.extend_from_slice(&(count as u16).to_be_bytes());
    }
}

fn encode_row(spec: &KeySpec, row: &Row, out: &mut Vec<u8>) -> Result<()> {
    if row.len() != spec.fields.len() {
        return Err(encode_error(
            &spec.key,
            format!(
                "row of {} values, the key has {} fields",
                row.len(),
                spec.fields.len()
            ),
        ));
    }
    let rounded = spec.precision == Precision::Rounded;
    let wire_value = |v: Value| match v {
        Value::F32(f) if rounded => Value::F32(round2(f)),
        other => other,
    };
    let end = match spec.optional_from {
        Some(k) => {
            let tail = row[k..].iter().any(|v| !wire_value(*v).is_zero_bits());
            out.push(u8::from(tail));
            if tail { row.len() } else { k }
        }
        None => row.len(),
    };
    for (field, value) in spec.fields.iter().zip(&row[..end]) {
        if value.ty() != field.ty {
            return Err(encode_error(
                &spec.key,
                format!(
                    "field {:?} is {:?}, the row gives {value:?}",
                    field.name, field.ty
                ),
            ));
        }
        match wire_value(*value) {
            Value::F32(f) if !f.is_finite() => {
                return Err(encode_error(
                    &spec.key,
                    format!("field {:?} is {f}", field.name),
                ));
            }
            Value::F32(f) => out.extend_from_slice(&f.to_be_bytes()),
            Value::U8(v) => out.push(v),
            Value::U16(v) => out.extend_from_slice(&v.to_be_bytes()),
            Value::U32(v) => out.extend_from_slice(&v.to_be_bytes()),
        }
    }
    Ok(())
}

/// Decodes a frame. Errors give the byte offset; a frame of another
/// format version is [`crate::NetError::Version`].
pub fn decode_frame(schema: &Schema, bytes: &[u8]) -> Result<Frame> {
    if bytes.len() > MAX_FRAME_LEN {
        return Err(frame_error(
            0,
            format!("frame of {} bytes exceeds {MAX_FRAME_LEN}", bytes.len()),
        ));
    }
    let mut r = Reader { bytes, pos: 0 };
    let version = r.u8()?;
    if version != SNAPSHOT_FORMAT_VERSION {
        return Err(crate::NetError::Version {
            expected: SNAPSHOT_FORMAT_VERSION,
            found: version,
        });
    }
    let tick = r.u32()?;
    let server_time_ms = r.u32()?;
    let mut blocks: Vec<(u8, Block)> = Vec::new();
    while r.pos < bytes.len() {
        let at = r.pos;
        let id = r.u8()?;
        let spec = schema
            .by_id(id)
            .ok_or_else(|| frame_error(at, format!("key id {id} is not in the schema")))?;
        if blocks.iter().any(|(k, _)| *k == id) {
            return Err(frame_error(at, format!("key {:?} appears twice", spec.key)));
        }
        blocks.push((id, decode_block(spec, &mut r)?));
    }
    Ok(Frame {
        tick,
        server_time_ms,
        blocks,
    })
}

fn decode_block(spec: &KeySpec, r: &mut Reader<'_>) -> Result<Block> {
    let at = r.pos;
    let count = match spec.kind {
        BlockKind::Indexed8 | BlockKind::IndexedNoNull8 => usize::from(r.u8()?),
        BlockKind::Indexed32 | BlockKind::List16 => usize::from(r.u16()?),
    };
    if count == 0 {
        return Err(frame_error(
            at,
            format!("key {:?}: an empty block is never sent", spec.key),
        ));
    }
    // Allocate only what the bytes left can hold.
    let fits = r.remaining() / spec.min_row_wire_bytes().max(1);
    if count > fits {
        return Err(frame_error(
            at,
            format!(
                "key {:?}: {count} rows cannot fit in the {} bytes left",
                spec.key,
                r.remaining()
            ),
        ));
    }
    Ok(match spec.kind {
        BlockKind::Indexed8 | BlockKind::Indexed32 => {
            let mut rows: Vec<(u32, Option<Row>)> = Vec::with_capacity(count);
            // A set, not a scan: 65 535 rows would otherwise cost 2e9
            // comparisons, CPU a small frame must not buy.
            let mut seen = HashSet::with_capacity(count);
            for _ in 0..count {
                let at = r.pos;
                let id = if spec.kind == BlockKind::Indexed8 {
                    u32::from(r.u8()?)
                } else {
                    r.u32()?
                };
                if !seen.insert(id) {
                    return Err(frame_error(
                        at,
                        format!("key {:?}: id {id} appears twice", spec.key),
                    ));
                }
                let has_data = r.u8()?;
                let row = match has_data {
                    0 => None,
                    1 => Some(decode_row(spec, r)?),
                    other => {
                        return Err(frame_error(
                            r.pos - 1,
                            format!("hasData is 0 or 1, not {other}"),
                        ));
                    }
                };
                rows.push((id, row));
            }
            Block::Indexed(rows)
        }
        BlockKind::List16 => {
            let mut rows = Vec::with_capacity(count);
            for _ in 0..count {
                rows.push(decode_row(spec, r)?);
            }
            Block::List(rows)
        }
        BlockKind::IndexedNoNull8 => {
            let mut rows: Vec<(u8, Row)> = Vec::with_capacity(count);
            let mut seen = [false; 256];
            for _ in 0..count {
                let at = r.pos;
                let index = r.u8()?;
                if std::mem::replace(&mut seen[usize::from(index)], true) {
                    return Err(frame_error(
                        at,
                        format!("key {:?}: slot {index} appears twice", spec.key),
                    ));
                }
                rows.push((index, decode_row(spec, r)?));
            }
            Block::Slots(rows)
        }
    })
}

fn decode_row(spec: &KeySpec, r: &mut Reader<'_>) -> Result<Row> {
    let (flag_at, end) = match spec.optional_from {
        Some(k) => {
            let at = r.pos;
            match r.u8()? {
                0 => (Some((at, false)), k),
                1 => (Some((at, true)), spec.fields.len()),
                other => return Err(frame_error(at, format!("tail flag is 0 or 1, not {other}"))),
            }
        }
        None => (None, spec.fields.len()),
    };
    let rounded = spec.precision == Precision::Rounded;
    let mut row = Vec::with_capacity(spec.fields.len());
    for field in &spec.fields[..end] {
        let at = r.pos;
        let value = match field.ty {
            FieldType::F32 => {
                let v = f32::from_bits(r.u32()?);
                if !v.is_finite() {
                    return Err(frame_error(at, format!("field {:?} is {v}", field.name)));
                }
                if rounded && round2(v).to_bits() != v.to_bits() {
                    return Err(frame_error(
                        at,
                        format!("field {:?} = {v} is not rounded to 2 decimals", field.name),
                    ));
                }
                Value::F32(v)
            }
            FieldType::U8 => Value::U8(r.u8()?),
            FieldType::U16 => Value::U16(r.u16()?),
            FieldType::U32 => Value::U32(r.u32()?),
        };
        row.push(value);
    }
    if let Some((at, present)) = flag_at {
        let k = spec.optional_from.unwrap_or(0);
        if present && row[k..].iter().all(|v| v.is_zero_bits()) {
            return Err(frame_error(
                at,
                "tail flag 1 on an all-zero tail (the encoder leaves it off)",
            ));
        }
        row.extend(spec.fields[row.len()..].iter().map(|f| Value::zero(f.ty)));
    }
    Ok(row)
}

/// Reads big-endian values, with the offset of every failure.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let end = self.pos.checked_add(N).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(frame_error(
                self.pos,
                format!("frame ends inside a {N}-byte value"),
            ));
        };
        let mut out = [0; N];
        out.copy_from_slice(&self.bytes[self.pos..end]);
        self.pos = end;
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.take::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_be_bytes(self.take()?))
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_be_bytes(self.take()?))
    }
}
