//! Cutting a lap out of a longer ghost, by time or by frame index.

use crate::{Ghost, GhostError, GhostFrame, Result};

/// The frames with `from ≤ t ≤ to`, re-timed so the first is at zero.
///
/// Both bounds are rounded to f32 first, so a bound written as an f64 that
/// names a frame's time keeps that frame. An empty selection (bounds outside
/// the ghost, or `from > to`) is an error, [`GhostError::EmptySlice`],
/// never an empty ghost: a ghost always has a frame to show.
pub fn slice_ghost(ghost: &Ghost, from: f64, to: f64) -> Result<Ghost> {
    if from.is_nan() || to.is_nan() {
        return Err(GhostError::InvalidArgument {
            what: "slice bounds",
            reason: format!("must not be NaN, got {from}..={to}"),
        });
    }
    let (lo, hi) = (from as f32, to as f32);
    let frames = ghost.frames();
    let start = frames.partition_point(|f| f.t < lo);
    let end = frames.partition_point(|f| f.t <= hi);
    retimed(ghost, start, end, || format!("{from}..={to} s"))
}

/// Frames `i0..i1` (half-open, as Rust slices), re-timed from zero. An
/// empty or out-of-range selection is [`GhostError::EmptySlice`].
pub fn slice_ghost_frames(ghost: &Ghost, i0: usize, i1: usize) -> Result<Ghost> {
    let end = i1.min(ghost.len());
    retimed(ghost, i0.min(end), end, || format!("frames {i0}..{i1}"))
}

fn retimed(ghost: &Ghost, start: usize, end: usize, what: impl Fn() -> String) -> Result<Ghost> {
    let selected = &ghost.frames()[start..end.max(start)];
    let Some(first) = selected.first() else {
        return Err(GhostError::EmptySlice {
            what: what(),
            start: ghost.start_time(),
            end: ghost.end_time(),
        });
    };
    let t0 = first.t;
    Ghost::from_frames(
        selected
            .iter()
            .map(|f| GhostFrame {
                t: f.t - t0,
                pose: f.pose,
            })
            .collect(),
    )
}
