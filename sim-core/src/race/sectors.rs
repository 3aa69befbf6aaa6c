//! `SectorSplits`: when a car's lap in progress passed each of its
//! track's sector boundaries (`Track::sectors`), and the sector times of
//! the lap they end in. The lap timer owns one per car and feeds it the
//! same progress (distance raced, laps unwrapped) it times laps by.

use crate::Track;

/// The splits of one car's lap in progress.
#[derive(Clone, Debug)]
pub(crate) struct SectorSplits {
    /// The highest sector cut passed, counted over the whole race (`lap ×
    /// cuts + k`, the line being cut 0 of its lap), so a cut passed again
    /// after reversing is not news.
    cut_reached: i64,
    /// When the lap in progress passed each sector boundary so far.
    splits: Vec<f64>,
}

impl Default for SectorSplits {
    fn default() -> Self {
        SectorSplits {
            cut_reached: i64::MIN,
            splits: Vec::new(),
        }
    }
}

impl SectorSplits {
    /// The car's first observation: progress starts at or behind the line
    /// (≤ 0), and the cuts of the lap behind it are not lap 1's.
    pub(crate) fn start(&mut self) {
        self.cut_reached = 0;
    }

    /// When the lap in progress passed each sector boundary so far (race
    /// time, s).
    pub(crate) fn splits(&self) -> &[f64] {
        &self.splits
    }

    /// A new lap began: no boundary passed yet.
    pub(crate) fn clear(&mut self) {
        self.splits.clear();
    }

    /// Notes the time of each sector boundary the car passed forward for
    /// the first time between progress `p0` at `t0` and `p1` at `t1`,
    /// interpolated within the step as line crossings are; kept only while
    /// a lap is `timing`.
    pub(crate) fn pass(
        &mut self,
        track: &Track,
        (t0, p0): (f64, f64),
        (t1, p1): (f64, f64),
        timing: bool,
    ) {
        let length = track.length();
        let boundaries = track.sectors();
        let cuts = boundaries.len() as i64 + 1;
        let first_lap = (p0 / length).floor() as i64;
        let last_lap = (p1 / length).floor() as i64;
        for lap in first_lap..=last_lap {
            for (k, &boundary) in boundaries.iter().enumerate() {
                let at = lap as f64 * length + boundary;
                let index = lap * cuts + k as i64 + 1;
                if at <= p0 || at > p1 || index <= self.cut_reached {
                    continue;
                }
                self.cut_reached = index;
                if timing {
                    self.splits.push(t0 + (at - p0) / (p1 - p0) * (t1 - t0));
                }
            }
        }
    }

    /// The sector times of a lap from `start` to `end` with the splits
    /// noted in it, or none when a boundary was missed.
    pub(crate) fn times(&self, track: &Track, start: f64, end: f64) -> Vec<f64> {
        if self.splits.len() != track.sectors().len() {
            return Vec::new();
        }
        let mut times = Vec::with_capacity(self.splits.len() + 1);
        let mut from = start;
        for &split in self.splits.iter().chain([end].iter()) {
            times.push(split - from);
            from = split;
        }
        times
    }
}
