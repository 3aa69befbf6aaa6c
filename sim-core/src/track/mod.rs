//! Tracks: a closed centre line with the road's extent either side of it,
//! and optionally elevation and banking, authored as a
//! [`TrackDefinition`] (`definition.rs`; the built-in ones are in
//! `tracks/`). The control points are smoothed with a closed uniform
//! Catmull-Rom spline into a dense polyline at load time, using arithmetic
//! only, so every target builds the same points; the polyline starts at
//! the start/finish line. `Track::ground` (`ground.rs`) builds the track's
//! 3D surface.

pub(crate) mod driver;
pub(crate) mod ground;
mod locate;
pub(crate) mod track_definition;
pub(crate) mod traffic;

use glam::DVec2;

use crate::norm::Norm;
use crate::{CoreError, Result};
use track_definition::invalid;
pub use track_definition::{GridLayout, Side, Strip, SurfaceSpan, TrackDefinition};

/// Polyline points generated per control-point segment.
pub(crate) const SAMPLES_PER_SEGMENT: usize = 12;

/// (name, JSON) of the built-in tracks.
const TRACKS: &[(&str, &str)] = &[
    ("brandwood", include_str!("../../tracks/brandwood.json")),
    ("hillcrest", include_str!("../../tracks/hillcrest.json")),
];

/// A closed track.
#[derive(Clone, Debug, PartialEq)]
pub struct Track {
    definition: TrackDefinition,
    fingerprint: [u8; 32],
    points: Vec<DVec2>,
    /// Distance from the centre line to the road's left and right edges at
    /// each point, m.
    left: Vec<f64>,
    right: Vec<f64>,
    /// The narrowest full width, m.
    narrowest: f64,
    /// Arc length at each point, from point 0.
    distance: Vec<f64>,
    /// Signed curvature at each point, 1/m (positive: turning left).
    curvature: Vec<f64>,
    /// 1/|segment|² for the segment from each point to the next: `locate`
    /// projects onto some fifty segments per call and multiplies instead
    /// of dividing.
    inv_length_squared: Vec<f64>,
    length: f64,
    /// Height of the centre line at each point, m.
    elevation: Vec<f64>,
    /// Banking at each point, rad (positive: right-hand edge up).
    banking: Vec<f64>,
    /// Sector boundaries, m from the line, increasing.
    sectors: Vec<f64>,
    /// Circles around runs of segments, which let `locate` skip most of
    /// its search window.
    groups: locate::SegmentGroups,
}

/// Where a position lies relative to the centre line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrackPosition {
    /// Index of the polyline segment start nearest to the position.
    pub segment: usize,
    /// Distance along the centre line from the start, m, in [0, length).
    pub distance: f64,
    /// Signed distance from the centre line, m (positive: to the left).
    pub offset: f64,
}

/// The road's extent across the centre line at one place: the track
/// limits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoadEdges {
    /// Distance from the centre line to the left edge, m.
    pub left: f64,
    /// Distance from the centre line to the right edge, m.
    pub right: f64,
}

impl RoadEdges {
    /// The edge on the side of a signed offset (positive: left), m.
    #[must_use]
    pub fn toward(&self, offset: f64) -> f64 {
        if offset > 0.0 { self.left } else { self.right }
    }

    /// The middle of the road, m left of the centre line.
    #[must_use]
    pub fn middle(&self) -> f64 {
        (self.left - self.right) / 2.0
    }
}

/// Names of the built-in tracks.
#[must_use]
pub fn track_names() -> Vec<&'static str> {
    TRACKS.iter().map(|(n, _)| *n).collect()
}

/// The built-in track with this fingerprint, by name.
#[must_use]
pub fn builtin_track_by_fingerprint(fingerprint: &[u8; 32]) -> Option<&'static str> {
    TRACKS
        .iter()
        .map(|(n, _)| *n)
        .find(|name| Track::builtin(name).is_ok_and(|t| t.fingerprint() == *fingerprint))
}

impl Track {
    /// A built-in track by name.
    pub fn builtin(name: &str) -> Result<Track> {
        let (_, json) =
            TRACKS
                .iter()
                .find(|(n, _)| *n == name)
                .ok_or_else(|| CoreError::UnknownName {
                    kind: "track",
                    name: name.to_owned(),
                    known: track_names().join(", "),
                })?;
        Track::from_json(json)
    }

    /// Parses and builds a track file (a [`TrackDefinition`] as JSON).
    pub fn from_json(json: &str) -> Result<Track> {
        Track::from_definition(TrackDefinition::from_json(json)?)
    }

    /// Builds a track, checking its definition.
    pub fn from_definition(definition: TrackDefinition) -> Result<Track> {
        definition.check()?;
        let control: Vec<DVec2> = definition
            .centre_line
            .iter()
            .map(|&p| DVec2::from_array(p))
            .collect();
        let dense = control.len() * SAMPLES_PER_SEGMENT;
        // Smoothed like the centre line: the same spline on the values as
        // the y of points at x = 0.
        let smooth = |values: &Option<Vec<f64>>| match values {
            None => vec![0.0; dense],
            Some(v) => {
                let as_points: Vec<DVec2> = v.iter().map(|&v| DVec2::new(0.0, v)).collect();
                catmull_rom_closed(&as_points).iter().map(|p| p.y).collect()
            }
        };
        let mut elevation = smooth(&definition.elevation);
        let mut banking = smooth(&definition.banking);
        // Widths are interpolated linearly, so the road is never narrower
        // than at the control points either side.
        let (mut right, mut left) = match &definition.widths {
            Some(w) => (
                linear_closed(&w.iter().map(|p| p[0]).collect::<Vec<_>>()),
                linear_closed(&w.iter().map(|p| p[1]).collect::<Vec<_>>()),
            ),
            None => {
                let half = definition.width.unwrap_or_default() / 2.0;
                (vec![half; dense], vec![half; dense])
            }
        };
        let mut points = catmull_rom_closed(&control);
        if definition.start != 0.0 {
            let first = start_point(&points, definition.start)?;
            for v in [&mut elevation, &mut banking, &mut right, &mut left] {
                v.rotate_left(first);
            }
            points.rotate_left(first);
        }
        let mut track = Track::from_points(definition, points).map_err(invalid)?;
        track.narrowest = right
            .iter()
            .zip(&left)
            .map(|(r, l)| r + l)
            .fold(f64::INFINITY, f64::min);
        (track.elevation, track.banking, track.left, track.right) =
            (elevation, banking, left, right);
        track.sectors = match &track.definition.sectors {
            Some(s) => s.clone(),
            None => vec![track.length / 3.0, 2.0 * track.length / 3.0],
        };
        if let Some((i, span)) = track
            .definition
            .surfaces
            .iter()
            .enumerate()
            .find(|(_, span)| span.from >= track.length || span.to > track.length)
        {
            return Err(invalid(format!(
                "surfaces[{i}] runs from {} to {} m, beyond the lap ({} m)",
                span.from, span.to, track.length
            )));
        }
        if let Some(&last) = track.sectors.last()
            && last >= track.length
        {
            return Err(invalid(format!(
                "the last sector boundary ({last} m) is not before the line (the lap is {} m)",
                track.length
            )));
        }
        Ok(track)
    }

    fn from_points(definition: TrackDefinition, points: Vec<DVec2>) -> Result<Track, String> {
        let n = points.len();
        let mut distance = Vec::with_capacity(n);
        let mut total = 0.0;
        for i in 0..n {
            distance.push(total);
            let step = points[i].distance(points[(i + 1) % n]);
            if step < 1e-6 {
                return Err(format!("centre line repeats a point near index {i}"));
            }
            total += step;
        }
        let curvature = (0..n)
            .map(|i| menger_curvature(points[(i + n - 1) % n], points[i], points[(i + 1) % n]))
            .collect();
        let inv_length_squared = (0..n)
            .map(|i| 1.0 / (points[(i + 1) % n] - points[i]).length_squared())
            .collect();
        let groups = locate::SegmentGroups::new(&points);
        let fingerprint = definition.fingerprint();
        Ok(Track {
            definition,
            fingerprint,
            points,
            left: Vec::new(),
            right: Vec::new(),
            narrowest: 0.0,
            distance,
            curvature,
            inv_length_squared,
            length: total,
            elevation: vec![0.0; n],
            banking: vec![0.0; n],
            sectors: Vec::new(),
            groups,
        })
    }

    /// The definition this track was built from.
    #[must_use]
    pub fn definition(&self) -> &TrackDefinition {
        &self.definition
    }

    /// blake3 of the definition's canonical form
    /// ([`TrackDefinition::canonical_json`]): what a replay or a service
    /// names the track by.
    #[must_use]
    pub fn fingerprint(&self) -> [u8; 32] {
        self.fingerprint
    }

    /// The fingerprint as 64 lowercase hex digits.
    #[must_use]
    pub fn fingerprint_hex(&self) -> String {
        self.fingerprint
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The road's edges at a located position.
    #[must_use]
    pub fn edges(&self, at: &TrackPosition) -> RoadEdges {
        self.edges_along(at.distance, at.segment)
    }

    /// The road's edges `s` m along the line (wrapped to the lap),
    /// interpolated along the segment holding it; the search for that
    /// segment starts at `hint` (see [`Track::point_at`]).
    #[must_use]
    pub fn edges_along(&self, s: f64, hint: usize) -> RoadEdges {
        let s = self.wrap(s);
        let n = self.points.len();
        let i = self.segment_at(s, Some(hint));
        let j = (i + 1) % n;
        let t = ((s - self.distance[i]) / (self.points[j] - self.points[i]).norm()).clamp(0.0, 1.0);
        RoadEdges {
            left: self.left[i] + (self.left[j] - self.left[i]) * t,
            right: self.right[i] + (self.right[j] - self.right[i]) * t,
        }
    }

    /// The road's edges at each of [`points`](Self::points).
    pub fn edges_at_points(&self) -> impl Iterator<Item = RoadEdges> + '_ {
        self.left
            .iter()
            .zip(&self.right)
            .map(|(&left, &right)| RoadEdges { left, right })
    }

    /// Sector boundaries, m along the line from it, increasing (at least
    /// two: three or more sectors).
    #[must_use]
    pub fn sectors(&self) -> &[f64] {
        &self.sectors
    }

    /// The starting grid's layout.
    #[must_use]
    pub fn grid(&self) -> GridLayout {
        self.definition.grid.unwrap_or_default()
    }

    /// Height of the centre line at each of [`points`](Self::points), m.
    #[must_use]
    pub fn elevation(&self) -> &[f64] {
        &self.elevation
    }

    /// Banking at each of [`points`](Self::points), rad (positive: the
    /// right-hand edge is higher).
    #[must_use]
    pub fn banking(&self) -> &[f64] {
        &self.banking
    }

    /// Track name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.definition.name
    }

    /// The narrowest full width, m: the width of a track that has one
    /// width all round ([`edges`](Self::edges) gives it at a place).
    #[must_use]
    pub fn width(&self) -> f64 {
        self.narrowest
    }

    /// Length of one lap along the centre line, m.
    #[must_use]
    pub fn length(&self) -> f64 {
        self.length
    }

    /// The dense centre-line polyline.
    #[must_use]
    pub fn points(&self) -> &[DVec2] {
        &self.points
    }

    /// Signed curvature at each polyline point, 1/m.
    #[must_use]
    pub fn curvature(&self) -> &[f64] {
        &self.curvature
    }

    /// Arc length at each polyline point, m.
    #[must_use]
    pub fn distances(&self) -> &[f64] {
        &self.distance
    }

    /// The point at arc length `s` (wrapped to the lap), and the unit
    /// direction of travel there.
    #[must_use]
    pub fn point_at(&self, s: f64) -> (DVec2, DVec2) {
        let s = self.wrap(s);
        self.point_on_segment(s, self.segment_at(s, None))
    }

    /// [`Track::point_at`], starting the segment search at `hint` (a
    /// segment at or before the one holding `s`, such as the car's own):
    /// the same answer, found by a few steps along the polyline instead of
    /// a binary search over all of it.
    pub(crate) fn point_at_from(&self, s: f64, hint: usize) -> (DVec2, DVec2) {
        let s = self.wrap(s);
        self.point_on_segment(s, self.segment_at(s, Some(hint)))
    }

    fn point_on_segment(&self, s: f64, i: usize) -> (DVec2, DVec2) {
        let n = self.points.len();
        let (p0, p1) = (self.points[i], self.points[(i + 1) % n]);
        let seg = p1 - p0;
        let len = seg.norm();
        let t = (s - self.distance[i]) / len;
        (p0 + seg * t, seg / len)
    }

    /// `s.rem_euclid(length)`, bit for bit, without the division in the
    /// cases the AI meets every step: a distance already on the lap is its
    /// own remainder, and for one in [L, 2L) s − L is exact (Sterbenz's
    /// lemma), so it equals the exact remainder fmod returns. A remainder
    /// of −0 (from −0 or −L) is returned as +0, which the segment search
    /// orders after the lap's first point, not before it.
    #[must_use]
    pub fn wrap(&self, s: f64) -> f64 {
        let length = self.length;
        let r = if (0.0..length).contains(&s) {
            s
        } else if s >= length && s < 2.0 * length {
            s - length
        } else {
            s.rem_euclid(length)
        };
        if r == 0.0 { 0.0 } else { r }
    }

    /// The segment holding the wrapped distance `s`: the last polyline
    /// point whose arc length is at most `s`. With a `hint` at or before
    /// it, a walk of up to `HINT_STEPS` points finds it; otherwise (or when
    /// the walk runs out) a binary search does. Either way the answer is
    /// that one point, since the arc lengths strictly increase.
    pub(crate) fn segment_at(&self, s: f64, hint: Option<usize>) -> usize {
        /// Points walked from a hint before falling back to the search:
        /// the AI's look-ahead spans a few segments of a few metres each.
        const HINT_STEPS: usize = 16;
        let d = &self.distance;
        if let Some(mut i) = hint.filter(|&i| i < d.len() && d[i] <= s) {
            for _ in 0..HINT_STEPS {
                match d.get(i + 1) {
                    Some(&next) if next <= s => i += 1,
                    _ => return i,
                }
            }
        }
        match d.binary_search_by(|x| x.total_cmp(&s)) {
            Ok(i) => i,
            // Only a NaN with its sign bit set sorts before the first
            // point (0); its answer is NaN whichever segment it takes.
            Err(i) => i.saturating_sub(1),
        }
    }
}

/// The index of the polyline point nearest to `start` m along it from
/// point 0.
fn start_point(points: &[DVec2], start: f64) -> Result<usize> {
    let n = points.len();
    let mut along = 0.0;
    for i in 0..n {
        let step = points[i].distance(points[(i + 1) % n]);
        if start < along + step {
            return Ok(if start - along <= step / 2.0 {
                i
            } else {
                (i + 1) % n
            });
        }
        along += step;
    }
    Err(invalid(format!(
        "start ({start} m) is beyond the lap ({along} m)"
    )))
}

/// Values at each control point, interpolated linearly onto the polyline.
fn linear_closed(values: &[f64]) -> Vec<f64> {
    let n = values.len();
    let mut out = Vec::with_capacity(n * SAMPLES_PER_SEGMENT);
    for i in 0..n {
        let (a, b) = (values[i], values[(i + 1) % n]);
        for k in 0..SAMPLES_PER_SEGMENT {
            out.push(a + (b - a) * (k as f64 / SAMPLES_PER_SEGMENT as f64));
        }
    }
    out
}

/// Closed uniform Catmull-Rom through the control points.
fn catmull_rom_closed(c: &[DVec2]) -> Vec<DVec2> {
    let n = c.len();
    let mut out = Vec::with_capacity(n * SAMPLES_PER_SEGMENT);
    for i in 0..n {
        let (p0, p1, p2, p3) = (c[(i + n - 1) % n], c[i], c[(i + 1) % n], c[(i + 2) % n]);
        for k in 0..SAMPLES_PER_SEGMENT {
            let t = k as f64 / SAMPLES_PER_SEGMENT as f64;
            let (t2, t3) = (t * t, t * t * t);
            let p = (p1 * 2.0
                + (p2 - p0) * t
                + (p0 * 2.0 - p1 * 5.0 + p2 * 4.0 - p3) * t2
                + (p1 * 3.0 - p0 - p2 * 3.0 + p3) * t3)
                * 0.5;
            out.push(p);
        }
    }
    out
}

/// Signed curvature of the circle through three points.
fn menger_curvature(a: DVec2, b: DVec2, c: DVec2) -> f64 {
    let cross = (b - a).perp_dot(c - b);
    let denom = a.distance(b) * b.distance(c) * c.distance(a);
    if denom > 0.0 {
        2.0 * cross / denom
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_track_is_a_sane_closed_loop() {
        let t = Track::builtin("brandwood").unwrap();
        assert!(t.length() > 1000.0 && t.length() < 5000.0, "{}", t.length());
        let tightest = t.curvature().iter().fold(0.0_f64, |m, k| m.max(k.abs()));
        assert!(1.0 / tightest > 15.0, "tightest radius {}", 1.0 / tightest);
        let p = t.points()[37];
        let at = t.locate(p + DVec2::new(0.0, 0.0));
        assert!(at.offset.abs() < 1e-9);
        let (q, _) = t.point_at(at.distance);
        assert!(q.distance(p) < 1e-9);
    }

    #[test]
    fn bad_files_are_refused() {
        assert!(Track::from_json("{").is_err());
        let few = r#"{"name":"x","width":10,"centre_line":[[0,0],[1,0],[1,1],[0,1]]}"#;
        assert!(
            Track::from_json(few)
                .unwrap_err()
                .to_string()
                .contains("5..")
        );
        assert!(
            Track::builtin("nowhere")
                .unwrap_err()
                .to_string()
                .contains("brandwood")
        );
    }

    #[test]
    fn wrapping_is_the_euclidean_remainder() {
        let t = Track::builtin("brandwood").unwrap();
        let l = t.length();
        let cases = [
            0.0,
            1.5,
            l - 1e-9,
            l,
            l + 3.25,
            2.0 * l - 1e-9,
            2.0 * l,
            7.5 * l,
            -1.0,
            -l,
            -7.5 * l,
            f64::MAX,
            f64::MIN_POSITIVE,
        ];
        for s in cases {
            let expected = s.rem_euclid(l);
            let expected = if expected == 0.0 { 0.0 } else { expected };
            assert_eq!(t.wrap(s).to_bits(), expected.to_bits(), "{s}");
        }
        assert_eq!(t.wrap(-0.0).to_bits(), 0.0f64.to_bits());
        assert!(t.wrap(f64::NAN).is_nan() && t.wrap(f64::NEG_INFINITY).is_nan());
    }

    #[test]
    fn the_point_at_minus_zero_or_a_whole_lap_back_is_the_start() {
        // Both wrap to a remainder of −0, which the segment search used to
        // order before the first point and index out of bounds with.
        let t = Track::builtin("brandwood").unwrap();
        let start = t.point_at(0.0);
        assert_eq!(t.point_at(-0.0), start);
        assert_eq!(t.point_at(-t.length()), start);
        assert!(t.point_at(f64::NAN).0.is_nan());
        assert!(t.point_at(-f64::NAN).0.is_nan());
    }

    proptest::proptest! {
        #[test]
        fn a_search_from_any_earlier_segment_finds_the_same_point(
            which in 0usize..2,
            s in -1.0f64..3.0,
            back in 0usize..40,
        ) {
            let t = Track::builtin(track_names()[which]).unwrap();
            let s = s * t.length();
            let at = t.segment_at(t.wrap(s), None);
            let hint = at.saturating_sub(back);
            let (p, dir) = t.point_at(s);
            let (q, dir_q) = t.point_at_from(s, hint);
            proptest::prop_assert_eq!(t.segment_at(t.wrap(s), Some(hint)), at);
            proptest::prop_assert_eq!((p.x.to_bits(), p.y.to_bits()), (q.x.to_bits(), q.y.to_bits()));
            proptest::prop_assert_eq!((dir.x.to_bits(), dir.y.to_bits()), (dir_q.x.to_bits(), dir_q.y.to_bits()));
            // A hint past the answer is not used.
            proptest::prop_assert_eq!(t.segment_at(t.wrap(s), Some(at + 1)), at);
        }
    }
}
