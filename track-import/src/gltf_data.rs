//! A glTF scene's binary data, read within bounds: each buffer from the
//! GLB's `BIN` chunk, a `data:` URI or a file beside the scene, and each
//! accessor checked against its view and buffer before a byte is read, so
//! that a hostile file gets an error naming the element instead of a
//! panic or an allocation its size does not pay for.

use std::borrow::Cow;
use std::path::Path;

use base64::Engine as _;
use gltf::accessor::{DataType, Dimensions};
use gltf::buffer::Source;

use crate::ImportError;

/// Every buffer's bytes, by index.
pub(crate) struct Buffers<'a>(Vec<Cow<'a, [u8]>>);

/// The largest external buffer file read, bytes (the file limit of a GLB).
pub(crate) const MAX_EXTERNAL_BUFFER: u64 = 1 << 30;

impl<'a> Buffers<'a> {
    /// Reads every buffer of `gltf`. A URI that is not `data:` is a file
    /// relative to `base_dir` (refused without one, and when it leaves
    /// that folder).
    pub(crate) fn read(
        gltf: &'a gltf::Gltf,
        base_dir: Option<&Path>,
    ) -> Result<Buffers<'a>, ImportError> {
        let mut buffers = Vec::with_capacity(gltf.buffers().len());
        for buffer in gltf.buffers() {
            let at = format!("buffers[{}]", buffer.index());
            let bytes = match buffer.source() {
                Source::Bin => Cow::Borrowed(gltf.blob.as_deref().ok_or_else(|| {
                    file(format!(
                        "{at} is the GLB's binary chunk, which the file does not have"
                    ))
                })?),
                Source::Uri(uri) => {
                    Cow::Owned(read_uri(uri, base_dir).map_err(|why| file(format!("{at}: {why}")))?)
                }
            };
            if bytes.len() < buffer.length() {
                return Err(file(format!(
                    "{at} declares {} bytes but holds {}",
                    buffer.length(),
                    bytes.len()
                )));
            }
            buffers.push(bytes);
        }
        Ok(Buffers(buffers))
    }

    /// An accessor's elements as `f64` vectors of `N` components (float
    /// components only: positions).
    pub(crate) fn floats<const N: usize>(
        &self,
        accessor: &gltf::Accessor<'_>,
        at: &str,
    ) -> Result<Vec<[f64; N]>, ImportError> {
        let dimensions = match N {
            2 => Dimensions::Vec2,
            3 => Dimensions::Vec3,
            _ => Dimensions::Scalar,
        };
        if accessor.data_type() != DataType::F32 || accessor.dimensions() != dimensions {
            return Err(file(format!(
                "{at} must be {dimensions:?} of f32, got {:?} of {:?}",
                accessor.dimensions(),
                accessor.data_type()
            )));
        }
        let (bytes, stride) = self.elements(accessor, at)?;
        let mut out = Vec::with_capacity(accessor.count());
        for k in 0..accessor.count() {
            let element = &bytes[k * stride..];
            let mut v = [0.0; N];
            for (c, value) in v.iter_mut().enumerate() {
                let raw: [u8; 4] = element[4 * c..4 * c + 4].try_into().expect("4 bytes");
                *value = f64::from(f32::from_le_bytes(raw));
                if !value.is_finite() {
                    return Err(file(format!("{at}: element {k} is not finite")));
                }
            }
            out.push(v);
        }
        Ok(out)
    }

    /// An index accessor's values (unsigned bytes, shorts or ints).
    pub(crate) fn indices(
        &self,
        accessor: &gltf::Accessor<'_>,
        at: &str,
    ) -> Result<Vec<u32>, ImportError> {
        let width = match accessor.data_type() {
            DataType::U8 => 1,
            DataType::U16 => 2,
            DataType::U32 => 4,
            other => {
                return Err(file(format!(
                    "{at} must hold unsigned indices, got {other:?}"
                )));
            }
        };
        if accessor.dimensions() != Dimensions::Scalar {
            return Err(file(format!("{at} must be scalar indices")));
        }
        let (bytes, stride) = self.elements(accessor, at)?;
        Ok((0..accessor.count())
            .map(|k| {
                let e = &bytes[k * stride..];
                match width {
                    1 => u32::from(e[0]),
                    2 => u32::from(u16::from_le_bytes([e[0], e[1]])),
                    _ => u32::from_le_bytes([e[0], e[1], e[2], e[3]]),
                }
            })
            .collect())
    }

    /// The bytes from an accessor's first element to the end of its last,
    /// and the stride between elements, once the whole range is known to
    /// lie inside its view and the view inside its buffer.
    fn elements(
        &self,
        accessor: &gltf::Accessor<'_>,
        at: &str,
    ) -> Result<(&[u8], usize), ImportError> {
        if accessor.sparse().is_some() {
            return Err(file(format!(
                "{at} is sparse, which this importer does not read"
            )));
        }
        let Some(view) = accessor.view() else {
            return Err(file(format!("{at} has no buffer view")));
        };
        let size = accessor.size();
        let stride = view.stride().unwrap_or(size);
        if stride < size {
            return Err(file(format!(
                "{at}: its view's byteStride {stride} is shorter than an element ({size} bytes)"
            )));
        }
        let buffer = self.0.get(view.buffer().index()).ok_or_else(|| {
            file(format!(
                "{at}: its view names buffer {}, which is missing",
                view.buffer().index()
            ))
        })?;
        let view_end = view.offset().checked_add(view.length());
        let view_bytes = view_end
            .and_then(|end| buffer.get(view.offset()..end))
            .ok_or_else(|| {
                file(format!(
                    "{at}: its view (bytes {} + {}) runs past buffer {} ({} bytes)",
                    view.offset(),
                    view.length(),
                    view.buffer().index(),
                    buffer.len()
                ))
            })?;
        let count = accessor.count();
        let span = match count {
            0 => 0,
            n => (n - 1)
                .checked_mul(stride)
                .and_then(|s| s.checked_add(size))
                .unwrap_or(usize::MAX),
        };
        let bytes = accessor
            .offset()
            .checked_add(span)
            .and_then(|end| view_bytes.get(accessor.offset()..end))
            .ok_or_else(|| {
                file(format!(
                    "{at}: {count} elements of {size} bytes from byte {} run past its view ({} bytes)",
                    accessor.offset(),
                    view.length()
                ))
            })?;
        Ok((bytes, stride))
    }
}

/// A buffer's bytes from its URI: a base64 `data:` URI, or a relative file
/// path inside `base_dir`.
fn read_uri(uri: &str, base_dir: Option<&Path>) -> Result<Vec<u8>, String> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (_, payload) = rest
            .split_once(";base64,")
            .ok_or("a data: URI must be base64 (`data:…;base64,…`)")?;
        return base64::engine::general_purpose::STANDARD
            .decode(payload)
            .map_err(|e| format!("its data: URI is not base64: {e}"));
    }
    let Some(dir) = base_dir else {
        return Err(format!(
            "names the file {uri:?}, and a scene read from bytes has no folder to read it from"
        ));
    };
    let relative = Path::new(uri);
    let inside = relative
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    if uri.contains(':') || !inside {
        return Err(format!(
            "names {uri:?}: only files beside the scene (relative, without `..`) are read"
        ));
    }
    let path = dir.join(relative);
    let length = std::fs::metadata(&path)
        .map_err(|e| format!("its file {} is missing: {e}", path.display()))?
        .len();
    if length > MAX_EXTERNAL_BUFFER {
        return Err(format!(
            "its file {} is {length} bytes, more than the {MAX_EXTERNAL_BUFFER} read",
            path.display()
        ));
    }
    std::fs::read(&path).map_err(|e| format!("cannot read its file {}: {e}", path.display()))
}

fn file(reason: String) -> ImportError {
    ImportError::File(reason)
}
