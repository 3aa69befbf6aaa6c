//! The checks every pointer argument passes before it is read or written:
//! NULL and misaligned pointers are refused with a status, never
//! dereferenced, and handles are boxed here and nowhere else.

use std::ffi::{CStr, c_char};

use crate::status::{Failure, SkidpadStatus};

fn null(what: &str) -> Failure {
    Failure::new(
        SkidpadStatus::NullPointer,
        format!("{what} is NULL or not aligned"),
    )
}

/// A shared reference to what `pointer` points at.
///
/// # Safety
/// `pointer` is NULL or points at a live `T` that nothing mutates while the
/// reference lives.
pub(crate) unsafe fn borrow<'a, T>(pointer: *const T, what: &str) -> Result<&'a T, Failure> {
    if pointer.is_null() || !pointer.is_aligned() {
        return Err(null(what));
    }
    // SAFETY: not NULL, aligned, and live by the caller's contract.
    Ok(unsafe { &*pointer })
}

/// A shared reference, or `None` for NULL (an optional argument).
///
/// # Safety
/// As [`borrow`].
pub(crate) unsafe fn borrow_optional<'a, T>(
    pointer: *const T,
    what: &str,
) -> Result<Option<&'a T>, Failure> {
    if pointer.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's contract.
    unsafe { borrow(pointer, what) }.map(Some)
}

/// An exclusive reference to what `pointer` points at.
///
/// # Safety
/// `pointer` is NULL or points at a live `T` that nothing else uses while
/// the reference lives.
pub(crate) unsafe fn borrow_mut<'a, T>(pointer: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    if pointer.is_null() || !pointer.is_aligned() {
        return Err(null(what));
    }
    // SAFETY: not NULL, aligned, and exclusive by the caller's contract.
    Ok(unsafe { &mut *pointer })
}

/// Checks an output pointer before any work is done, so that a failed
/// check leaves nothing half done.
pub(crate) fn check_out<T>(pointer: *mut T, what: &str) -> Result<(), Failure> {
    if pointer.is_null() || !pointer.is_aligned() {
        return Err(null(what));
    }
    Ok(())
}

/// Writes `value` through an output pointer.
///
/// # Safety
/// `pointer` is NULL or valid for a write of a `T`.
pub(crate) unsafe fn write<T>(pointer: *mut T, value: T, what: &str) -> Result<(), Failure> {
    check_out(pointer, what)?;
    // SAFETY: checked above; valid for writes by the caller's contract.
    unsafe { pointer.write(value) };
    Ok(())
}

/// Hands a new handle to the caller through `out`.
///
/// # Safety
/// As [`write`].
pub(crate) unsafe fn hand_out<T>(out: *mut *mut T, value: T, what: &str) -> Result<(), Failure> {
    check_out(out, what)?;
    // SAFETY: as `write`.
    unsafe { out.write(Box::into_raw(Box::new(value))) };
    Ok(())
}

/// Takes back and drops a handle given out by [`hand_out`]; NULL is
/// ignored, like C's `free`.
///
/// # Safety
/// `handle` is NULL or a handle of this type from this library that is
/// not used again.
pub(crate) unsafe fn drop_handle<T>(handle: *mut T) {
    if !handle.is_null() {
        crate::status::quietly((), || {
            // SAFETY: the caller gives back a handle `hand_out` boxed.
            drop(unsafe { Box::from_raw(handle) });
        });
    }
}

/// `len` elements at `pointer` (any pointer, NULL included, when `len` is 0).
///
/// # Safety
/// `pointer` is NULL or valid for reads of `len` `T`s that nothing mutates
/// during the call.
pub(crate) unsafe fn slice<'a, T>(
    pointer: *const T,
    len: usize,
    what: &str,
) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if pointer.is_null() || !pointer.is_aligned() {
        return Err(null(what));
    }
    if len
        .checked_mul(size_of::<T>())
        .is_none_or(|bytes| bytes > isize::MAX as usize)
    {
        return Err(Failure::invalid(format!(
            "{what}: {len} elements is too many"
        )));
    }
    // SAFETY: checked above; valid for `len` reads by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(pointer, len) })
}

/// The UTF-8 text of `len` bytes at `pointer` (JSON handed over with its
/// length; no NUL needed).
///
/// # Safety
/// As [`slice`].
pub(crate) unsafe fn text_bytes<'a>(
    pointer: *const u8,
    len: usize,
    what: &str,
) -> Result<&'a str, Failure> {
    // SAFETY: the caller's contract.
    let bytes = unsafe { slice(pointer, len, what) }?;
    std::str::from_utf8(bytes).map_err(|e| Failure::invalid(format!("{what} is not UTF-8: {e}")))
}

/// The UTF-8 text of a NUL-terminated string.
///
/// # Safety
/// `pointer` is NULL or a NUL-terminated string.
pub(crate) unsafe fn c_text<'a>(pointer: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if pointer.is_null() {
        return Err(null(what));
    }
    // SAFETY: not NULL and NUL-terminated by the caller's contract.
    let text = unsafe { CStr::from_ptr(pointer) };
    text.to_str()
        .map_err(|e| Failure::invalid(format!("{what} is not UTF-8: {e}")))
}
