//! The ghost file format (`.skg`), version 1. Byte-by-byte description in
//! `ghost/FORMAT.md`; in short, all little-endian:
//!
//! ```text
//! 0     4  magic "SKGH"
//! 4     2  format version, u16 = 1
//! 6     2  flags, u16, must be 0
//! 8     4  frame count n, u32, 1 ..= MAX_FRAMES
//! 12    4  payload length p, u32
//! 16    p  payload: nine channel streams in field order t x y z yaw pitch
//!          roll steer speed
//! 16+p 32  blake3 of bytes 0 .. 16+p
//! ```
//!
//! A channel stream codes each f32 losslessly: its bits are mapped to an
//! order-preserving integer, predicted linearly from the two previous
//! values, and the zigzagged residual is bit-packed in blocks of 16 frames,
//! each block led by one byte giving its bit width. Smooth motion gives
//! small residuals, so a 60 Hz lap costs about 16 bytes a frame instead of
//! 36. Encoding is canonical: widths are minimal and padding bits zero, and
//! the decoder refuses anything else, so decode → encode gives back the
//! input bytes.
//!
//! The decoder never panics and allocates at most 36 bytes per frame, with
//! the frame count bounded by the payload's length before allocation.

use crate::{Ghost, GhostError, GhostFrame, Result};

/// The first four bytes of every `.skg` file.
pub const MAGIC: &[u8; 4] = b"SKGH";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u16 = 1;
const HEADER_LEN: usize = 16;
const CHECKSUM_LEN: usize = 32;
/// Frames per bit-packed block.
const BLOCK: usize = 16;
/// Widest residual: order-preserving values span 2^32, a linear
/// prediction from two of them spans 2^34, and zigzag adds one bit.
const MAX_WIDTH: u32 = 35;
/// Most frames a file may hold: 77 hours at 60 Hz. Bounds allocation
/// independently of the payload-length check.
pub const MAX_FRAMES: u32 = 1 << 24;
const CHANNELS: usize = 9;

/// Encodes a ghost; a ghost of more than [`MAX_FRAMES`] frames does not
/// fit the format and is an error rather than a file no decoder accepts.
pub fn encode_ghost(ghost: &Ghost) -> Result<Vec<u8>> {
    let frames = ghost.frames();
    let count = u32::try_from(frames.len())
        .ok()
        .filter(|&n| n <= MAX_FRAMES)
        .ok_or_else(|| {
            GhostError::Encode(format!(
                "{} frames, more than the format's {MAX_FRAMES}",
                frames.len()
            ))
        })?;
    let mut payload = Vec::with_capacity(frames.len() * 18);
    for channel in 0..CHANNELS {
        let values: Vec<u32> = frames
            .iter()
            .map(|f| f.to_array()[channel].to_bits())
            .collect();
        encode_channel(&values, &mut payload);
    }
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len() + CHECKSUM_LEN);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&0_u16.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    // At most 2^24 frames of at most 9 channels × 5 bytes: within u32.
    let payload_len = u32::try_from(payload.len())
        .map_err(|_| GhostError::Encode(format!("payload of {} bytes", payload.len())))?;
    out.extend_from_slice(&payload_len.to_le_bytes());
    out.extend_from_slice(&payload);
    let checksum = blake3::hash(&out);
    out.extend_from_slice(checksum.as_bytes());
    Ok(out)
}

/// Decodes a ghost, checking every byte (see the module docs).
pub fn decode_ghost(bytes: &[u8]) -> Result<Ghost> {
    let err = |offset: usize, reason: String| GhostError::Decode { offset, reason };
    if bytes.len() < HEADER_LEN + CHECKSUM_LEN {
        return Err(err(
            bytes.len(),
            format!(
                "file is {} bytes, shorter than the {} of header and checksum",
                bytes.len(),
                HEADER_LEN + CHECKSUM_LEN
            ),
        ));
    }
    if &bytes[0..4] != MAGIC {
        return Err(err(0, "bad magic: not a skidpad ghost".into()));
    }
    let version = u16::from_le_bytes([bytes[4], bytes[5]]);
    if version != FORMAT_VERSION {
        return Err(GhostError::FormatVersion {
            expected: FORMAT_VERSION,
            found: version,
        });
    }
    let flags = u16::from_le_bytes([bytes[6], bytes[7]]);
    if flags != 0 {
        return Err(err(6, format!("unknown flags {flags:#06x}")));
    }
    let count = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    let payload_len = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
    let expected_len = HEADER_LEN
        .checked_add(payload_len)
        .and_then(|n| n.checked_add(CHECKSUM_LEN));
    if expected_len != Some(bytes.len()) {
        return Err(err(
            12,
            format!(
                "payload length {payload_len} does not match the file's {} bytes",
                bytes.len()
            ),
        ));
    }
    let body_end = HEADER_LEN + payload_len;
    if blake3::hash(&bytes[..body_end]).as_bytes() != &bytes[body_end..] {
        return Err(err(
            body_end,
            "checksum mismatch: the file is corrupt".into(),
        ));
    }
    if count == 0 || count > MAX_FRAMES {
        return Err(err(
            8,
            format!("frame count {count} outside 1..={MAX_FRAMES}"),
        ));
    }
    let n = count as usize;
    // Every block costs at least its width byte in each channel, so the
    // payload bounds the frame count before anything is allocated.
    let blocks = n.div_ceil(BLOCK);
    if blocks * CHANNELS > payload_len {
        return Err(err(
            8,
            format!("{n} frames cannot fit in a {payload_len}-byte payload"),
        ));
    }

    let mut reader = BitReader::new(&bytes[HEADER_LEN..body_end], HEADER_LEN);
    let mut columns = vec![vec![0_u32; n]; CHANNELS];
    for column in &mut columns {
        decode_channel(&mut reader, column)?;
    }
    if reader.position < payload_len {
        return Err(err(
            HEADER_LEN + reader.position,
            "trailing bytes after the last channel".into(),
        ));
    }
    let frames = (0..n)
        .map(|i| GhostFrame::from_array(std::array::from_fn(|c| f32::from_bits(columns[c][i]))))
        .collect();
    Ghost::from_frames(frames).map_err(|e| err(HEADER_LEN, format!("invalid frames: {e}")))
}

/// Maps f32 bits to an integer that orders like the float (−0 just below
/// +0, NaNs at the ends), so smooth motion gives small differences. A
/// bijection on all 2^32 patterns.
fn ordinal(bits: u32) -> i64 {
    if bits >> 31 == 1 {
        -i64::from(bits & 0x7fff_ffff) - 1
    } else {
        i64::from(bits)
    }
}

fn from_ordinal(o: i64) -> Option<u32> {
    if o < 0 {
        let magnitude = u32::try_from(-(o + 1)).ok()?;
        (magnitude <= 0x7fff_ffff).then_some(magnitude | 0x8000_0000)
    } else {
        u32::try_from(o).ok().filter(|b| b >> 31 == 0)
    }
}

fn prediction(history: &[i64], i: usize) -> i64 {
    match i {
        0 => 0,
        1 => history[0],
        _ => 2 * history[i - 1] - history[i - 2],
    }
}

fn zigzag(r: i64) -> u64 {
    ((r << 1) ^ (r >> 63)) as u64
}

fn unzigzag(z: u64) -> i64 {
    ((z >> 1) as i64) ^ -((z & 1) as i64)
}

fn encode_channel(values: &[u32], out: &mut Vec<u8>) {
    let ords: Vec<i64> = values.iter().map(|&b| ordinal(b)).collect();
    let residuals: Vec<u64> = (0..ords.len())
        .map(|i| zigzag(ords[i] - prediction(&ords, i)))
        .collect();
    for block in residuals.chunks(BLOCK) {
        let width = block
            .iter()
            .map(|z| 64 - z.leading_zeros())
            .max()
            .unwrap_or(0);
        out.push(width as u8);
        let mut writer = BitWriter::new(out);
        for &z in block {
            writer.write(z, width);
        }
        writer.flush();
    }
}

fn decode_channel(reader: &mut BitReader<'_>, column: &mut [u32]) -> Result<()> {
    let mut ords = vec![0_i64; column.len()];
    for start in (0..column.len()).step_by(BLOCK) {
        let end = (start + BLOCK).min(column.len());
        let width_at = reader.offset();
        let width = u32::from(reader.byte()?);
        if width > MAX_WIDTH {
            return Err(GhostError::Decode {
                offset: width_at,
                reason: format!("bit width {width} exceeds {MAX_WIDTH}"),
            });
        }
        let mut widest = 0;
        for i in start..end {
            let z = reader.bits(width)?;
            widest = widest.max(64 - z.leading_zeros());
            let o = prediction(&ords, i)
                .checked_add(unzigzag(z))
                .and_then(|o| from_ordinal(o).map(|bits| (o, bits)));
            let Some((o, bits)) = o else {
                return Err(GhostError::Decode {
                    offset: reader.offset(),
                    reason: format!("value {i} decodes outside the f32 range"),
                });
            };
            ords[i] = o;
            column[i] = bits;
        }
        reader.end_block()?;
        if widest != width {
            return Err(GhostError::Decode {
                offset: width_at,
                reason: format!("bit width {width} is not minimal ({widest}): not canonical"),
            });
        }
    }
    Ok(())
}

/// LSB-first bit packing into a byte vector.
struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    used: u32,
}

impl<'a> BitWriter<'a> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        BitWriter {
            out,
            acc: 0,
            used: 0,
        }
    }

    fn write(&mut self, value: u64, width: u32) {
        let mut value = value;
        let mut width = width;
        // Write in chunks of at most 32 bits so the accumulator never
        // overflows (at most 7 bits are pending between chunks).
        while width > 0 {
            let take = width.min(32);
            let chunk = value & ((1_u64 << take) - 1);
            self.acc |= chunk << self.used;
            self.used += take;
            value >>= take;
            width -= take;
            while self.used >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.used -= 8;
            }
        }
    }

    fn flush(&mut self) {
        if self.used > 0 {
            self.out.push(self.acc as u8);
            self.acc = 0;
            self.used = 0;
        }
    }
}

/// Reads what `BitWriter` wrote, with every read bounds-checked.
struct BitReader<'a> {
    data: &'a [u8],
    /// Offset of `data` in the file, for error messages.
    base: usize,
    position: usize,
    acc: u64,
    available: u32,
}

impl<'a> BitReader<'a> {
    fn new(data: &'a [u8], base: usize) -> Self {
        BitReader {
            data,
            base,
            position: 0,
            acc: 0,
            available: 0,
        }
    }

    fn offset(&self) -> usize {
        self.base + self.position
    }

    fn truncated(&self) -> GhostError {
        GhostError::Decode {
            offset: self.offset(),
            reason: "payload ends inside a channel".into(),
        }
    }

    fn byte(&mut self) -> Result<u8> {
        debug_assert_eq!(self.available, 0);
        let b = *self
            .data
            .get(self.position)
            .ok_or_else(|| self.truncated())?;
        self.position += 1;
        Ok(b)
    }

    fn bits(&mut self, width: u32) -> Result<u64> {
        let mut value = 0_u64;
        let mut filled = 0;
        while filled < width {
            if self.available == 0 {
                let b = *self
                    .data
                    .get(self.position)
                    .ok_or_else(|| self.truncated())?;
                self.position += 1;
                self.acc = u64::from(b);
                self.available = 8;
            }
            let take = (width - filled).min(self.available);
            value |= (self.acc & ((1 << take) - 1)) << filled;
            self.acc >>= take;
            self.available -= take;
            filled += take;
        }
        Ok(value)
    }

    /// Ends a block: the rest of the current byte must be zero padding.
    fn end_block(&mut self) -> Result<()> {
        if self.available > 0 && self.acc != 0 {
            return Err(GhostError::Decode {
                offset: self.offset() - 1,
                reason: "non-zero padding bits: not canonical".into(),
            });
        }
        self.available = 0;
        self.acc = 0;
        Ok(())
    }
}
