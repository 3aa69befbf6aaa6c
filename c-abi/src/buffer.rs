//! `SkidpadBuffer`: bytes this library made (an encoded replay or ghost, a
//! report's text) that the caller reads and then frees.

use crate::args::drop_handle;
use crate::status::quietly;

/// Bytes owned by the library. Read them with `skidpad_buffer_data` and
/// `skidpad_buffer_len`, then `skidpad_buffer_free`.
pub struct SkidpadBuffer {
    pub(crate) bytes: Vec<u8>,
}

/// The buffer's first byte; NULL for a NULL buffer. Valid until the buffer
/// is freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_buffer_data(buffer: *const SkidpadBuffer) -> *const u8 {
    quietly(std::ptr::null(), || {
        // SAFETY: NULL or a live buffer from this library.
        unsafe { buffer.as_ref() }.map_or(std::ptr::null(), |b| b.bytes.as_ptr())
    })
}

/// The buffer's length in bytes; 0 for a NULL buffer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_buffer_len(buffer: *const SkidpadBuffer) -> usize {
    quietly(0, || {
        // SAFETY: NULL or a live buffer from this library.
        unsafe { buffer.as_ref() }.map_or(0, |b| b.bytes.len())
    })
}

/// Frees a buffer; NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skidpad_buffer_free(buffer: *mut SkidpadBuffer) {
    // SAFETY: NULL or a buffer from this library, not used again.
    unsafe { drop_handle(buffer) }
}
