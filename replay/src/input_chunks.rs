//! Where a recorder keeps the inputs it records: chunks of a fixed size
//! instead of one growing vector, so a long recording never copies what it
//! holds, and chunks reserved up front have their pages mapped already.

use skidpad_core::CarInput;

use crate::replay::CarTrack;

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

/// Splits inputs kept step by step (for the cars present at each step, in
/// car order) into one stream per car, for a recording of `steps` steps.
pub(crate) fn split_per_car(
    chunks: &[Vec<CarInput>],
    tracks: &[CarTrack],
    steps: u64,
) -> Vec<Vec<CarInput>> {
    let mut per_car: Vec<Vec<CarInput>> = tracks
        .iter()
        .map(|t| Vec::with_capacity(t.steps(steps) as usize))
        .collect();
    let mut flat = chunks.iter().flatten();
    for step in 0..steps {
        for (inputs, track) in per_car.iter_mut().zip(tracks) {
            if track.present_at(step)
                && let Some(&input) = flat.next()
            {
                inputs.push(input);
            }
        }
    }
    per_car
}

/// The last `count` inputs kept, oldest first, read from the chunks' end
/// (a rewind must not copy the whole recording).
pub(crate) fn last_inputs(chunks: &[Vec<CarInput>], count: usize) -> Vec<CarInput> {
    let mut tail: Vec<CarInput> = Vec::with_capacity(count);
    for chunk in chunks.iter().rev() {
        let need = count - tail.len();
        tail.extend(chunk[chunk.len().saturating_sub(need)..].iter().rev());
        if tail.len() == count {
            break;
        }
    }
    tail.reverse();
    tail
}

/// Drops the last `count` inputs kept, handing emptied chunks to `spare`.
pub(crate) fn drop_last_inputs(
    chunks: &mut Vec<Vec<CarInput>>,
    spare: &mut Vec<Vec<CarInput>>,
    mut count: usize,
) {
    while count > 0 {
        let Some(chunk) = chunks.last_mut() else {
            return;
        };
        let cut = count.min(chunk.len());
        chunk.truncate(chunk.len() - cut);
        count -= cut;
        if chunk.is_empty() {
            spare.extend(chunks.pop());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(k: usize) -> CarInput {
        CarInput {
            throttle: k as f64,
            ..CarInput::default()
        }
    }

    #[test]
    fn the_last_inputs_are_read_and_dropped_across_chunk_ends() {
        let mut chunks: Vec<Vec<CarInput>> = vec![
            (0..3).map(input).collect(),
            (3..6).map(input).collect(),
            vec![input(6)],
        ];
        let tail: Vec<f64> = last_inputs(&chunks, 5).iter().map(|i| i.throttle).collect();
        assert_eq!(tail, [2.0, 3.0, 4.0, 5.0, 6.0]);
        let mut spare = Vec::new();
        drop_last_inputs(&mut chunks, &mut spare, 5);
        assert_eq!(chunks, vec![vec![input(0), input(1)]]);
        assert_eq!(spare.len(), 2, "the emptied chunks are kept for reuse");
    }
}
