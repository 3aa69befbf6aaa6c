//! `Track::locate`: where a position lies relative to the centre line.
//!
//! The answer is defined by a scan with no history (it depends on the
//! position alone, so a restored snapshot drives exactly as before): find
//! the nearest of every `SAMPLES_PER_SEGMENT`-th polyline point over the
//! whole lap, then the nearest segment in a window of two control spans
//! either side of it, the first in window order on ties.
//!
//! The window holds 49 segments and the AI asks once per car and host step,
//! so scanning it all was a fifth of a single-track car-step. Runs of
//! `GROUP` segments carry a circle around them; the run whose circle is
//! nearest is scanned first, and a run whose circle lies farther away than
//! the best segment found so far is skipped. Candidates compare by (squared
//! distance, place in the window), which is what a strict `<` in window
//! order picks, and a skipped segment is strictly farther than the best: the
//! answer is the full scan's, bit for bit (the tests below hold it to the
//! full scan).

use glam::DVec2;

use super::{SAMPLES_PER_SEGMENT, Track, TrackPosition};
use crate::norm::Norm;

/// Segments per group. The window's start is a multiple of
/// `SAMPLES_PER_SEGMENT`, so groups of a divisor of it line up with the
/// window.
const GROUP: usize = 4;
/// Segments either side of the nearest control point that the window
/// covers: two control spans.
const HALF_WINDOW: usize = 2 * SAMPLES_PER_SEGMENT;
/// Segments in the window.
const WINDOW: usize = 2 * HALF_WINDOW + 1;
/// Groups the window touches: its last segment is the first of a group.
const WINDOW_GROUPS: usize = (WINDOW - 1) / GROUP + 1;

const _: () = assert!(SAMPLES_PER_SEGMENT.is_multiple_of(GROUP));

/// A circle around a run of `GROUP` consecutive segments.
#[derive(Clone, Copy, Debug, PartialEq)]
struct GroupCircle {
    centre: DVec2,
    /// Rounded up, so that rounding can never put a segment outside.
    radius: f64,
    /// The part of the bound's safety margin that depends on the centre
    /// alone (see `nearest_in_window`).
    margin: f64,
}

/// What `locate` searches besides the polyline: the control points (every
/// `SAMPLES_PER_SEGMENT`-th polyline point, side by side so the first pass
/// walks one short array) and a circle around each run of `GROUP`
/// consecutive segments.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SegmentGroups {
    controls: Vec<DVec2>,
    circles: Vec<GroupCircle>,
}

impl SegmentGroups {
    /// Circles for a closed polyline whose length is a multiple of
    /// `SAMPLES_PER_SEGMENT` (the spline always gives one).
    pub(crate) fn new(points: &[DVec2]) -> Self {
        let n = points.len();
        debug_assert!(n.is_multiple_of(SAMPLES_PER_SEGMENT));
        let circles = (0..n / GROUP)
            .map(|g| {
                // A segment lies in the convex hull of its two ends, so a
                // circle around a run's GROUP + 1 points holds its segments.
                let run = || (0..=GROUP).map(|k| points[(g * GROUP + k) % n]);
                let (low, high) = run().fold(
                    (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
                    |(low, high), q| (low.min(q), high.max(q)),
                );
                let centre = (low + high) * 0.5;
                let radius = run().map(|q| q.distance(centre)).fold(0.0, f64::max);
                GroupCircle {
                    centre,
                    radius: radius * (1.0 + 1e-12) + 1e-9,
                    margin: 1e-6 + 1e-9 * centre.length(),
                }
            })
            .collect();
        SegmentGroups {
            controls: points
                .iter()
                .step_by(SAMPLES_PER_SEGMENT)
                .copied()
                .collect(),
            circles,
        }
    }
}

/// The best segment so far.
#[derive(Clone, Copy)]
struct Candidate {
    /// Squared distance from the position.
    distance_squared: f64,
    /// Place in the window (the tie-breaker); `usize::MAX` until a
    /// segment is taken.
    walk: usize,
    segment: usize,
    /// Where along the segment, 0..=1.
    t: f64,
}

impl Track {
    /// Where a car at `position` goes back on the track (a reset, the AI's
    /// own or a player's): the point on the centre line level with it, and
    /// the heading along the track there, rad.
    #[must_use]
    pub fn rejoin_point(&self, position: DVec2) -> (DVec2, f64) {
        let here = self.locate(position);
        let (point, along) = self.point_at_from(here.distance, here.segment);
        (point, libm::atan2(along.y, along.x))
    }

    /// Projects a position onto the centre line.
    ///
    /// The search has no history (the answer depends on `p` alone): it
    /// finds the nearest of every `SAMPLES_PER_SEGMENT`-th point over the
    /// whole lap, then the nearest segment within two control spans of it.
    /// That is the true nearest segment for any position closer to the line
    /// than to a part of the track more than two control spans away along
    /// it, which holds on and near the racing surface of any sane track.
    #[must_use]
    pub fn locate(&self, p: DVec2) -> TrackPosition {
        let n = self.points.len();
        let start = (self.nearest_sample(p) + n - HALF_WINDOW) % n;
        let best = self.nearest_in_window(p, start);
        let (i, t) = (best.segment, best.t);
        let (a, b) = (self.points[i], self.points[(i + 1) % n]);
        let seg = b - a;
        let side = seg.perp_dot(p - a).signum();
        let distance = self.wrap(self.distance[i] + t * seg.norm());
        TrackPosition {
            segment: i,
            distance,
            offset: side * best.distance_squared.sqrt(),
        }
    }

    /// Index of the nearest of every `SAMPLES_PER_SEGMENT`-th point (the
    /// control points), the lowest on ties.
    fn nearest_sample(&self, p: DVec2) -> usize {
        let mut nearest = (f64::INFINITY, 0);
        for (k, control) in self.groups.controls.iter().enumerate() {
            let d2 = control.distance_squared(p);
            if d2 < nearest.0 {
                nearest = (d2, k);
            }
        }
        nearest.1 * SAMPLES_PER_SEGMENT
    }

    /// The nearest of the `WINDOW` segments from `start`, skipping groups
    /// that cannot hold it.
    fn nearest_in_window(&self, p: DVec2, start: usize) -> Candidate {
        let circles = &self.groups.circles;
        // A lower bound on the distance from p to each group's segments,
        // less a margin far above the rounding of the distances compared
        // with it (relative to the coordinates' size). The window's groups
        // run from `start / GROUP` round the lap's end.
        let mut bounds = [0.0; WINDOW_GROUPS];
        let (head, tail) = circles.split_at(start / GROUP);
        for (bound, circle) in bounds.iter_mut().zip(tail.iter().chain(head)) {
            let d = (circle.centre - p).norm();
            *bound = d - circle.radius - (circle.margin + 1e-9 * d);
        }
        let nearest_group =
            (0..WINDOW_GROUPS).fold(0, |best, k| if bounds[k] < bounds[best] { k } else { best });
        let mut best = Candidate {
            distance_squared: f64::INFINITY,
            walk: usize::MAX,
            segment: 0,
            t: 0.0,
        };
        self.scan_group(p, start, nearest_group, &mut best);
        for (k, &bound) in bounds.iter().enumerate() {
            // Written so that a NaN bound (a NaN position) scans.
            let cannot_hold_it = bound > 0.0 && bound * bound > best.distance_squared;
            if k != nearest_group && !cannot_hold_it {
                self.scan_group(p, start, k, &mut best);
            }
        }
        best
    }

    /// Offers the window's group `k` to `best`.
    fn scan_group(&self, p: DVec2, start: usize, k: usize, best: &mut Candidate) {
        let n = self.points.len();
        for walk in k * GROUP..((k + 1) * GROUP).min(WINDOW) {
            // start < n and the window is shorter than the lap (a track
            // has at least 5 control spans), so one subtraction wraps it.
            let i = start + walk;
            let i = if i >= n { i - n } else { i };
            let next = if i + 1 == n { 0 } else { i + 1 };
            let (a, b) = (self.points[i], self.points[next]);
            let seg = b - a;
            let t = ((p - a).dot(seg) * self.inv_length_squared[i]).clamp(0.0, 1.0);
            let d2 = (a + seg * t).distance_squared(p);
            // A tie never displaces the empty start (as in the full scan,
            // where nothing beats an infinite distance and segment 0 stays).
            let better = d2 < best.distance_squared
                || (d2 == best.distance_squared && best.walk < WINDOW && walk < best.walk);
            if better {
                *best = Candidate {
                    distance_squared: d2,
                    walk,
                    segment: i,
                    t,
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition: every segment of the window, in order, strict `<`.
    fn full_scan(track: &Track, p: DVec2) -> TrackPosition {
        let n = track.points.len();
        let start = (track.nearest_sample(p) + n - HALF_WINDOW) % n;
        let mut best = (f64::INFINITY, 0, 0.0);
        for walk in 0..WINDOW {
            let i = (start + walk) % n;
            let (a, b) = (track.points[i], track.points[(i + 1) % n]);
            let seg = b - a;
            let t = ((p - a).dot(seg) * track.inv_length_squared[i]).clamp(0.0, 1.0);
            let d2 = (a + seg * t).distance_squared(p);
            if d2 < best.0 {
                best = (d2, i, t);
            }
        }
        let (d2, i, t) = best;
        let (a, b) = (track.points[i], track.points[(i + 1) % n]);
        let seg = b - a;
        TrackPosition {
            segment: i,
            distance: (track.distance[i] + t * seg.length()).rem_euclid(track.length),
            offset: seg.perp_dot(p - a).signum() * d2.sqrt(),
        }
    }

    fn same(a: TrackPosition, b: TrackPosition) -> bool {
        a.segment == b.segment
            && a.distance.to_bits() == b.distance.to_bits()
            && a.offset.to_bits() == b.offset.to_bits()
    }

    fn tracks() -> &'static [Track] {
        static TRACKS: std::sync::OnceLock<Vec<Track>> = std::sync::OnceLock::new();
        TRACKS.get_or_init(|| {
            super::super::track_names()
                .into_iter()
                .map(|name| Track::builtin(name).unwrap())
                .collect()
        })
    }

    #[test]
    fn ties_on_the_polyline_go_to_the_first_segment_in_the_window() {
        // A polyline point is at distance 0 from the two segments that meet
        // there, and the midpoint of a segment lies on it.
        for track in tracks() {
            let n = track.points.len();
            for i in 0..n {
                let a = track.points[i];
                let mid = (a + track.points[(i + 1) % n]) * 0.5;
                for p in [a, mid, a + DVec2::new(0.0, 3.0)] {
                    assert!(same(track.locate(p), full_scan(track, p)), "{p}");
                }
            }
        }
    }

    #[test]
    fn positions_that_are_not_numbers_answer_as_the_full_scan() {
        let track = &tracks()[0];
        for p in [
            DVec2::new(f64::NAN, 0.0),
            DVec2::new(f64::INFINITY, 0.0),
            DVec2::splat(1e300),
        ] {
            let (fast, full) = (track.locate(p), full_scan(track, p));
            assert_eq!(fast.segment, full.segment);
            assert_eq!(fast.distance.to_bits(), full.distance.to_bits());
            assert_eq!(fast.offset.is_nan(), full.offset.is_nan());
        }
    }

    proptest! {
        #[test]
        fn answers_as_the_full_scan(
            which in 0usize..2,
            s in 0.0f64..1.0,
            offset in -80.0f64..80.0,
            far_x in -3000.0f64..3000.0,
            far_y in -3000.0f64..3000.0,
        ) {
            let track = &tracks()[which];
            // Near the line (where cars drive) and anywhere at all.
            let (on, dir) = track.point_at(s * track.length());
            let near = on + dir.perp() * offset;
            for p in [near, DVec2::new(far_x, far_y)] {
                prop_assert!(same(track.locate(p), full_scan(track, p)), "{}", p);
            }
        }
    }
}
