//! Where a recorder keeps the inputs it records: chunks of a fixed size
//! instead of one growing vector, so a long recording never copies what it
//! holds, and chunks reserved up front have their pages mapped already.

use skidpad_core::CarInput;

/// Inputs per recording chunk (3 MiB).
const INPUT_CHUNK: usize = 1 << 16;

/// Appends one input, in a spare chunk when the last one is full.
pub(crate) fn push_chunked(
    chunks: &mut Vec<Vec<CarInput>>,
    spare: &mut Vec<Vec<CarInput>>,
    input: CarInput,
) {
    match chunks.last_mut() {
        Some(chunk) if chunk.len() < INPUT_CHUNK => chunk.push(input),
        _ => {
            let mut chunk = spare
                .pop()
                .unwrap_or_else(|| Vec::with_capacity(INPUT_CHUNK));
            chunk.push(input);
            chunks.push(chunk);
        }
    }
}

/// Empty chunks with room for `inputs` inputs, every page written once so
/// the system has mapped it.
pub(crate) fn reserved_chunks(inputs: u64) -> Vec<Vec<CarInput>> {
    let count = inputs.div_ceil(INPUT_CHUNK as u64);
    (0..count)
        .map(|_| {
            // Not `vec![CarInput::default(); …]`: all zeros, it would be
            // allocated zeroed, and the system maps such pages only when
            // they are first written.
            let mut chunk = Vec::with_capacity(INPUT_CHUNK);
            chunk.resize(
                INPUT_CHUNK,
                CarInput {
                    throttle: 1.0,
                    ..CarInput::default()
                },
            );
            chunk.clear();
            chunk
        })
        .collect()
}
