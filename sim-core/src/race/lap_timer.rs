//! `LapTimer`: one car's laps, by the rules in the module docs.
//!
//! The timer follows the car's *progress*, its distance raced along the
//! centre line with laps unwrapped (0 at the line at the start, negative on
//! the grid behind it). The line is at every multiple of the lap length and
//! checkpoint `k` of lap `m` at `(m − 1 + k / C) · L`, so every crossing,
//! forward or backward, is a change of `floor(progress / spacing)`.

use std::sync::Arc;

use glam::DVec2;

use super::lap::{Lap, LapFault, LapStart};
use super::sectors::SectorSplits;
use crate::{Track, TrackPosition};

/// How far behind the line (m) a car may start and still be on the grid:
/// its lap 1 then runs from the start. A grid of 64 cars two abreast at
/// 8 m a row is 256 m long.
pub const GRID_ZONE: f64 = 300.0;

/// How close to the line (m, either side) a car's start counts as on it:
/// a car placed at distance 0 may be located a rounding error behind it,
/// and must not complete a lap by creeping forward.
pub const ON_LINE: f64 = 0.05;

/// The rules a race is timed by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RaceRules {
    /// Checkpoints per lap, the line included, evenly spaced along the
    /// centre line (at least 2). A lap that misses one is invalid.
    pub checkpoints: u32,
    /// How far the centre of mass may stray beyond the road's edge (its
    /// white line), m, before the lap in progress is invalid. The default
    /// is the kerb's width ([`KERB_WIDTH`](crate::KERB_WIDTH)): the track
    /// limit is "the car's centre beyond the kerb", a rule real series
    /// use, which for a road car falls about where all four wheels are
    /// past the white line. Edges differ per side and point on an own
    /// track (`Track::edges`).
    pub track_limit_margin: f64,
    /// Laps in the race: a car is finished when it completes this many.
    /// `None`: an open session (practice, a time trial) that never ends.
    pub laps: Option<u32>,
}

impl Default for RaceRules {
    fn default() -> Self {
        RaceRules {
            checkpoints: 8,
            track_limit_margin: crate::KERB_WIDTH,
            laps: None,
        }
    }
}

/// Times one car's laps from its positions, observation by observation.
#[derive(Clone, Debug)]
pub struct LapTimer {
    track: Arc<Track>,
    rules: RaceRules,
    /// Race time and progress at the last observation; `None` before the
    /// first.
    last: Option<(f64, f64)>,
    /// Track distance at the last observation, m, in [0, length).
    last_distance: f64,
    /// The highest checkpoint boundary passed (`floor(progress /
    /// spacing)`), so a boundary passed again after reversing is not news.
    reached: i64,
    /// The lap in progress: when and how it began; `None` on an out-lap.
    lap_start: Option<(f64, LapStart)>,
    faults: Vec<LapFault>,
    /// The lap in progress's sector splits.
    sectors: SectorSplits,
    laps: Vec<Lap>,
}

impl LapTimer {
    /// A timer for one car on `track`. The first [`observe`](Self::observe)
    /// is the car's start.
    ///
    /// # Panics
    /// Never for `RaceRules` with at least 2 checkpoints; fewer are taken
    /// as 2.
    #[must_use]
    pub fn new(track: Arc<Track>, rules: RaceRules) -> Self {
        let rules = RaceRules {
            checkpoints: rules.checkpoints.max(2),
            ..rules
        };
        LapTimer {
            track,
            rules,
            last: None,
            last_distance: 0.0,
            reached: 0,
            lap_start: None,
            faults: Vec::new(),
            sectors: SectorSplits::default(),
            laps: Vec::new(),
        }
    }

    /// The track.
    #[must_use]
    pub fn track(&self) -> &Arc<Track> {
        &self.track
    }

    /// Distance between checkpoints, m.
    fn spacing(&self) -> f64 {
        self.track.length() / f64::from(self.rules.checkpoints)
    }

    /// Laps completed so far, valid or not.
    #[must_use]
    pub fn laps(&self) -> &[Lap] {
        &self.laps
    }

    /// The fastest valid lap.
    #[must_use]
    pub fn best_valid(&self) -> Option<&Lap> {
        self.laps
            .iter()
            .filter(|l| l.is_valid())
            .min_by(|a, b| a.time().total_cmp(&b.time()))
    }

    /// Distance raced along the centre line from the line, m (negative on
    /// the grid), at the last observation; `None` before the first.
    #[must_use]
    pub fn progress(&self) -> Option<f64> {
        self.last.map(|(_, p)| p)
    }

    /// Race time and progress at the last observation.
    #[must_use]
    pub fn last_observation(&self) -> Option<(f64, f64)> {
        self.last
    }

    /// When the timed lap in progress passed each of the track's sector
    /// boundaries so far (race time, s; empty on an out-lap): a game shows
    /// a sector's time the moment it ends, before the lap does.
    #[must_use]
    pub fn splits_in_progress(&self) -> &[f64] {
        self.sectors.splits()
    }

    /// The lap in progress: when and how it began (`None` on an out-lap or
    /// before the first observation).
    #[must_use]
    pub fn lap_in_progress(&self) -> Option<(f64, LapStart)> {
        self.lap_start
    }

    /// Why the lap in progress will not count, so far (empty while it is
    /// clean): a game shows the reason the moment the lap is lost.
    #[must_use]
    pub fn faults_in_progress(&self) -> &[LapFault] {
        &self.faults
    }

    /// The car's centre of mass at race time `time` (s; not decreasing from
    /// one call to the next). Returns the lap this observation completed.
    pub fn observe(&mut self, time: f64, position: DVec2) -> Option<Lap> {
        let here = self.track.locate(position);
        let length = self.track.length();
        let Some((t0, p0)) = self.last else {
            self.start(time, here.distance);
            self.check_limits(time, &here);
            return None;
        };
        // The car moves a few metres a step, so a change of more than half
        // a lap is a move across the line, forward or backward.
        let mut delta = here.distance - self.last_distance;
        if delta < -length / 2.0 {
            delta += length;
        } else if delta >= length / 2.0 {
            delta -= length;
        }
        let p1 = p0 + delta;
        self.last = Some((time, p1));
        self.last_distance = here.distance;
        self.check_limits(time, &here);
        if delta <= 0.0 {
            return None;
        }
        let timing = self.lap_start.is_some();
        self.sectors.pass(&self.track, (t0, p0), (time, p1), timing);
        let spacing = self.spacing();
        let before = floor_index(p0 / spacing);
        let after = floor_index(p1 / spacing);
        if after > before + 1 && self.lap_start.is_some() {
            self.fault(LapFault::Jumped {
                time,
                distance: delta,
            });
        }
        let mut completed = None;
        for boundary in before + 1..=after {
            if boundary <= self.reached {
                // Passed before, then reversed over it: nothing new.
                continue;
            }
            let expected = self.reached + 1;
            self.reached = boundary;
            let checkpoints = i64::from(self.rules.checkpoints);
            if boundary.rem_euclid(checkpoints) != 0 {
                if boundary > expected && self.lap_start.is_some() {
                    self.fault(LapFault::SkippedCheckpoint {
                        time,
                        reached: within_lap(boundary, checkpoints),
                        expected: within_lap(expected, checkpoints),
                    });
                }
                continue;
            }
            // The line, at progress `boundary / checkpoints` laps.
            let at = boundary as f64 * spacing;
            let crossing = t0 + (at - p0) / delta * (time - t0);
            if boundary > expected && self.lap_start.is_some() {
                self.fault(LapFault::SkippedCheckpoint {
                    time,
                    reached: self.rules.checkpoints,
                    expected: within_lap(expected, checkpoints),
                });
            }
            if let Some(lap) = self.cross_line(crossing, boundary == 0) {
                completed = Some(lap);
            }
        }
        completed
    }

    /// The first observation: on the grid (behind the line within
    /// `GRID_ZONE`, or on it) lap 1 starts now, standing; elsewhere the car
    /// is on an out-lap until it reaches the line.
    fn start(&mut self, time: f64, distance: f64) {
        let length = self.track.length();
        let on_line = distance <= ON_LINE || length - distance <= ON_LINE;
        let progress = if on_line { 0.0 } else { distance - length };
        let on_grid = on_line || length - distance <= GRID_ZONE;
        self.last = Some((time, progress));
        self.last_distance = if on_line { 0.0 } else { distance };
        self.reached = floor_index(progress / self.spacing());
        self.sectors.start();
        if on_grid {
            self.lap_start = Some((time, LapStart::Standing));
        }
    }

    /// A first forward crossing of the line at `at`. `race_start` is the
    /// crossing at progress 0 (the end of the run up from the grid, or of
    /// an out-lap), which ends no lap.
    fn cross_line(&mut self, at: f64, race_start: bool) -> Option<Lap> {
        if race_start {
            if self.lap_start.is_none() {
                self.lap_start = Some((at, LapStart::Flying));
                self.faults.clear();
                self.sectors.clear();
            }
            return None;
        }
        let completed = self.lap_start.map(|(start, kind)| Lap {
            number: self.laps.len() as u32 + 1,
            start,
            end: at,
            kind,
            faults: std::mem::take(&mut self.faults),
            sectors: self.sectors.times(&self.track, start, at),
        });
        if let Some(lap) = &completed {
            self.laps.push(lap.clone());
        }
        self.lap_start = Some((at, LapStart::Flying));
        self.faults.clear();
        self.sectors.clear();
        completed
    }

    fn check_limits(&mut self, time: f64, here: &TrackPosition) {
        let offset = here.offset;
        let limit = self.track.edges(here).toward(offset) + self.rules.track_limit_margin;
        if offset.abs() > limit && self.lap_start.is_some() {
            self.fault(LapFault::LeftTrack {
                time,
                offset: offset.abs(),
                limit,
            });
        }
    }

    /// One fault of each kind is enough to read; the first is kept.
    /// The game reset the car at race time `time`: the lap in progress
    /// does not count.
    pub fn note_reset(&mut self, time: f64) {
        self.fault(LapFault::Reset { time });
    }

    fn fault(&mut self, fault: LapFault) {
        if !self.faults.iter().any(|f| f.same_kind(&fault)) {
            self.faults.push(fault);
        }
    }
}

/// `floor(x)` as an integer; progress is bounded by the world's position
/// bounds, far inside i64.
fn floor_index(x: f64) -> i64 {
    x.floor() as i64
}

/// The checkpoint number within its lap (1 .. checkpoints; the line is
/// `checkpoints`).
fn within_lap(boundary: i64, checkpoints: i64) -> u32 {
    let k = boundary.rem_euclid(checkpoints);
    (if k == 0 { checkpoints } else { k }) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brandwood() -> Arc<Track> {
        Arc::new(Track::builtin("brandwood").unwrap())
    }

    /// Feeds the timer the centre line at each progress value (m from the
    /// line), one observation per 1/60 s, `offset(p)` m to its left.
    fn drive(timer: &mut LapTimer, progress: &[f64], offset: impl Fn(f64) -> f64) -> Vec<Lap> {
        let track = timer.track().clone();
        let mut laps = Vec::new();
        for (k, &p) in progress.iter().enumerate() {
            let (at, d) = track.point_at(p);
            let left = DVec2::new(-d.y, d.x);
            laps.extend(timer.observe(k as f64 / 60.0, at + left * offset(p)));
        }
        laps
    }

    fn at_speed(from: f64, speed: f64, seconds: f64) -> Vec<f64> {
        let steps = (seconds * 60.0) as usize;
        (0..=steps)
            .map(|k| from + speed * k as f64 / 60.0)
            .collect()
    }

    #[test]
    fn a_car_on_the_grid_runs_a_standing_first_lap_then_flying_laps() {
        let track = brandwood();
        let length = track.length();
        let mut timer = LapTimer::new(track, RaceRules::default());
        let speed = 40.0;
        let laps = drive(
            &mut timer,
            &at_speed(-20.0, speed, 3.2 * length / speed),
            |_| 0.0,
        );
        assert_eq!(laps.len(), 3, "{laps:?}");
        assert_eq!(laps[0].kind, LapStart::Standing);
        assert_eq!(laps[0].start, 0.0);
        // The standing lap includes the 20 m up to the line.
        assert!((laps[0].time() - (length + 20.0) / speed).abs() < 1e-6);
        for lap in &laps[1..] {
            assert_eq!(lap.kind, LapStart::Flying);
            assert!((lap.time() - length / speed).abs() < 1e-6, "{lap:?}");
        }
        for lap in &laps {
            assert!(lap.is_valid(), "{lap:?}");
        }
        assert_eq!(laps[1].start, laps[0].end);
    }

    #[test]
    fn a_car_started_on_the_line_completes_a_full_lap_not_a_creep() {
        let track = brandwood();
        let length = track.length();
        for start in [0.0, -1e-9, 1e-9, length] {
            let mut timer = LapTimer::new(track.clone(), RaceRules::default());
            let laps = drive(
                &mut timer,
                &at_speed(start, 30.0, 1.5 * length / 30.0),
                |_| 0.0,
            );
            assert_eq!(laps.len(), 1, "start {start}: {laps:?}");
            assert!((laps[0].time() - length / 30.0).abs() < 1e-6);
        }
    }

    #[test]
    fn a_car_started_mid_lap_is_on_an_out_lap() {
        let track = brandwood();
        let length = track.length();
        let mut timer = LapTimer::new(track, RaceRules::default());
        let laps = drive(
            &mut timer,
            &at_speed(length / 2.0, 40.0, 2.2 * length / 40.0),
            |_| 0.0,
        );
        assert_eq!(laps.len(), 1, "{laps:?}");
        assert_eq!(laps[0].kind, LapStart::Flying);
        assert!((laps[0].time() - length / 40.0).abs() < 1e-6);
    }

    #[test]
    fn the_crossing_is_interpolated_within_the_step() {
        let track = brandwood();
        let length = track.length();
        let mut timer = LapTimer::new(track, RaceRules::default());
        // 10 m steps of one second: the line falls 3 m into a step.
        let progress: Vec<f64> = (0..)
            .map(|k| -7.0 + 10.0 * f64::from(k))
            .take_while(|p| *p < length + 20.0)
            .collect();
        let track = timer.track().clone();
        let mut laps = Vec::new();
        for (k, p) in progress.iter().enumerate() {
            laps.extend(timer.observe(k as f64, track.point_at(*p).0));
        }
        assert_eq!(laps.len(), 1);
        // Standing from -7 m at 10 m/s: the line at progress L.
        assert!(
            (laps[0].time() - (length + 7.0) / 10.0).abs() < 1e-3,
            "{laps:?}"
        );
    }

    #[test]
    fn leaving_the_track_invalidates_only_that_lap() {
        let track = brandwood();
        let length = track.length();
        let wide = track.width() / 2.0 + RaceRules::default().track_limit_margin + 0.5;
        let mut timer = LapTimer::new(track, RaceRules::default());
        let off = move |p: f64| {
            if p > length * 1.4 && p < length * 1.45 {
                wide
            } else {
                0.0
            }
        };
        let laps = drive(&mut timer, &at_speed(-20.0, 40.0, 3.2 * length / 40.0), off);
        let valid: Vec<bool> = laps.iter().map(Lap::is_valid).collect();
        assert_eq!(valid, [true, false, true]);
        assert!(matches!(laps[1].faults[0], LapFault::LeftTrack { .. }));
        assert!(laps[1].faults[0].to_string().starts_with("left the track"));
    }

    #[test]
    fn a_jump_past_checkpoints_is_invalid() {
        let track = brandwood();
        let length = track.length();
        let mut timer = LapTimer::new(track, RaceRules::default());
        let mut progress: Vec<f64> = at_speed(-20.0, 30.0, (length * 0.1 + 20.0) / 30.0);
        progress.extend(at_speed(length * 0.45, 30.0, length * 0.6 / 30.0));
        let laps = drive(&mut timer, &progress, |_| 0.0);
        assert_eq!(laps.len(), 1);
        assert!(
            matches!(laps[0].faults[0], LapFault::Jumped { .. }),
            "{laps:?}"
        );
    }

    #[test]
    fn reversing_over_the_line_ends_no_lap_and_keeps_the_lap_running() {
        let track = brandwood();
        let length = track.length();
        let mut timer = LapTimer::new(track, RaceRules::default());
        // From the grid over the line, back behind it, over it again, and
        // on round: one lap, the standing one, timed from the start.
        let mut progress = at_speed(-10.0, 5.0, 4.0);
        progress.extend(at_speed(10.0, -5.0, 4.0));
        progress.extend(at_speed(-10.0, 30.0, (length + 20.0) / 30.0));
        let laps = drive(&mut timer, &progress, |_| 0.0);
        assert_eq!(laps.len(), 1, "{laps:?}");
        assert_eq!(laps[0].start, 0.0);
        assert!(laps[0].is_valid(), "{laps:?}");
        // Pushed back over the line at the end of lap 1 and forward again:
        // the second crossing forward does not end lap 2.
        let before = timer.laps().len();
        let track = timer.track().clone();
        let t = 1000.0;
        for (k, p) in [length + 15.0, length - 3.0, length + 3.0, length + 10.0]
            .iter()
            .enumerate()
        {
            timer.observe(t + k as f64, track.point_at(*p).0);
        }
        assert_eq!(timer.laps().len(), before);
    }

    #[test]
    fn reversing_past_a_checkpoint_and_driving_on_keeps_the_lap_valid() {
        let track = brandwood();
        let length = track.length();
        let mut timer = LapTimer::new(track, RaceRules::default());
        let spin = length * 0.5;
        let mut progress = at_speed(-10.0, 30.0, (spin + 10.0) / 30.0);
        progress.extend(at_speed(spin, -5.0, 80.0 / 5.0));
        progress.extend(at_speed(spin - 80.0, 30.0, (length - spin + 120.0) / 30.0));
        let laps = drive(&mut timer, &progress, |_| 0.0);
        assert_eq!(laps.len(), 1);
        assert!(laps[0].is_valid(), "{laps:?}");
    }
}
