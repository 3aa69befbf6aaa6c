//! Placing cars on a track: [`pose_along`] for any point of it, and the
//! starting grid's slots behind the line, so a game does not place its cars
//! with `point_at`, an arc tangent and offsets of its own.

pub use crate::track::track_definition::GridLayout;
use crate::{InitialPose, Track};

/// The pose of grid slot `slot` (0 is pole, on the left of the first row;
/// then left to right, row by row), facing along the track.
#[must_use]
pub fn grid_pose(track: &Track, slot: usize, layout: &GridLayout) -> InitialPose {
    let columns = layout.columns.max(1) as usize;
    let (row, column) = (slot / columns, slot % columns);
    let behind = layout.first_row + layout.row_spacing * row as f64;
    // Positive offsets are to the left (ISO 8855): column 0 is leftmost.
    let left = ((columns - 1) as f64 / 2.0 - column as f64) * layout.column_spacing;
    pose_along(track, track.length() - behind, left, layout.speed)
}

/// A car's pose `distance` metres along `track`'s centre line (wrapped to
/// the lap) and `left` metres to the left of it (negative: to the right),
/// facing along the track at `speed`. The heading is libm's `atan2`, so it
/// has the same bits on every target (std's is the platform's). Every
/// tool that puts a car on a track does it through here: the grid, the
/// golden scenarios, the fixtures, the tests.
#[must_use]
pub fn pose_along(track: &Track, distance: f64, left: f64, speed: f64) -> InitialPose {
    let (p, d) = track.point_at(distance);
    InitialPose {
        x: p.x - d.y * left,
        y: p.y + d.x * left,
        yaw: libm::atan2(d.y, d.x),
        speed,
    }
}
