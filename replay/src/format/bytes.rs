//! Little-endian writing and bounds-checked reading of the replay's
//! primitive fields. Every read returns an error naming the section and the
//! file offset instead of panicking.

use crate::{ReplayError, Result};

/// Appends primitives to a buffer. A length that does not fit its field
/// is remembered (the first one) and returned by [`Writer::done`], so the
/// encoder never cuts a string or wraps a count silently.
#[derive(Default)]
pub(crate) struct Writer {
    pub buf: Vec<u8>,
    error: Option<String>,
}

impl Writer {
    /// The bytes, or the first length that did not fit.
    pub fn done(self) -> Result<Vec<u8>> {
        match self.error {
            None => Ok(self.buf),
            Some(reason) => Err(ReplayError::Encode(reason)),
        }
    }

    /// Takes over another writer's first error (for nested buffers).
    pub fn absorb(&mut self, other: Writer) -> Vec<u8> {
        if self.error.is_none() {
            self.error = other.error;
        }
        other.buf
    }

    pub fn fail(&mut self, reason: String) {
        self.error.get_or_insert(reason);
    }

    /// A count or length as u32, refusing what does not fit.
    pub fn len32(&mut self, n: usize, what: &str) {
        match u32::try_from(n) {
            Ok(v) => self.u32(v),
            Err(_) => {
                self.fail(format!("{what}: {n} does not fit the format's u32"));
                self.u32(u32::MAX);
            }
        }
    }

    /// A `str16`: u16 byte length, then the UTF-8 bytes.
    pub fn str16(&mut self, s: &str, what: &str) {
        match u16::try_from(s.len()) {
            Ok(n) => {
                self.u16(n);
                self.bytes(s.as_bytes());
            }
            Err(_) => self.fail(format!(
                "{what} is {} bytes, longer than the format's {}",
                s.len(),
                u16::MAX
            )),
        }
    }

    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn f64(&mut self, v: f64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// LEB128, shortest form.
    pub fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }
    pub fn bytes(&mut self, v: &[u8]) {
        self.buf.extend_from_slice(v);
    }
    /// A u32 length, then the bytes.
    pub fn blob(&mut self, v: &[u8], what: &str) {
        self.len32(v.len(), what);
        self.bytes(v);
    }
}

/// Reads primitives from a slice that starts at file offset `base`.
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
    pub section: &'static str,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], base: usize, section: &'static str) -> Self {
        Reader {
            data,
            pos: 0,
            base,
            section,
        }
    }

    pub fn offset(&self) -> usize {
        self.base + self.pos
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.pos == self.data.len()
    }

    pub fn error(&self, reason: impl Into<String>) -> ReplayError {
        ReplayError::Decode {
            section: self.section,
            offset: self.offset(),
            reason: reason.into(),
        }
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.error(format!("needs {n} bytes, {} left", self.remaining())));
        }
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }
    pub fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    pub fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_le_bytes(self.array()?))
    }

    /// LEB128; refuses overlong forms and values past 64 bits, so each
    /// value has exactly one encoding.
    pub fn varint(&mut self) -> Result<u64> {
        let start = self.offset();
        let mut value = 0_u64;
        for i in 0..10 {
            let b = self.u8()?;
            let bits = u64::from(b & 0x7f);
            if i == 9 && b > 1 {
                return Err(self.error(format!("varint at {start} exceeds 64 bits")));
            }
            value |= bits << (7 * i);
            if b & 0x80 == 0 {
                if i > 0 && b == 0 {
                    return Err(self.error(format!("overlong varint at {start}")));
                }
                return Ok(value);
            }
        }
        Err(self.error(format!("varint at {start} is too long")))
    }

    /// A u32 length, then that many bytes.
    pub fn blob(&mut self) -> Result<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }

    /// A count that is about to size an allocation: each item needs at
    /// least `min_item_bytes` of the rest of the input.
    pub fn count(&mut self, min_item_bytes: usize, what: &str) -> Result<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_item_bytes.max(1)) > self.remaining() {
            return Err(self.error(format!(
                "{n} {what} cannot fit in the {} bytes left",
                self.remaining()
            )));
        }
        Ok(n)
    }

    pub fn finish(&self) -> Result<()> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(self.error(format!("{} unexpected trailing bytes", self.remaining())))
        }
    }
}
