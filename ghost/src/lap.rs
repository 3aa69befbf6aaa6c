//! Racing against a ghost on a track: the live time gap and split times.
//!
//! Positions are measured as distance along the track's centre line from
//! where the ghost's lap starts (its frame 0), so both features keep working
//! across the lap line, where the track's own distance wraps to zero.

use skidpad_core::Track;
use skidpad_core::glam::DVec2;

use crate::Ghost;

/// How far before the start line (m) a player is still taken to be
/// approaching it rather than finishing the lap.
const MAX_BEFORE_LINE: f64 = 50.0;

/// How far past the ghost's last frame (m) its time is extrapolated.
const MAX_PAST_END: f64 = 5.0;

/// A ghost lap measured along a track.
///
/// ```
/// use skidpad_ghost::{GhostRecorder, LapReference};
/// # use std::sync::Arc;
/// # use skidpad_core::{CarId, InitialPose, Track, World, WorldConfig, preset};
/// # fn race() -> Result<(World, CarId), Box<dyn std::error::Error>> {
/// #     let track = Arc::new(Track::builtin("brandwood")?);
/// #     let mut world = World::new(WorldConfig::default())?;
/// #     let car = world.add_car(&preset("rwd_sports")?, InitialPose { speed: 10.0, ..InitialPose::default() })?;
/// #     world.set_driver(car, Some(track))?;
/// #     Ok((world, car))
/// # }
/// let (mut world, car) = race()?;
/// let mut recorder = GhostRecorder::new(car);
/// for _ in 0..600 {
///     world.step(1.0 / 60.0)?;
///     recorder.after_step(&world)?;
/// }
/// let track = Track::builtin("brandwood")?;
/// let reference = LapReference::new(&recorder.finish()?, &track);
/// // The ghost reached 100 m of the track at some time; a live car at its
/// // own pose and lap time gets its gap to the ghost (positive: behind).
/// assert!(reference.time_at(100.0).is_some());
/// let pose = world.pose(car)?;
/// let gap = reference.gap(&track, pose.position.x, pose.position.y, 10.0).expect("on the ghost's path");
/// assert!(gap.abs() < 0.05, "the same run: no gap, got {gap}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct LapReference {
    /// Track distance of the ghost's frame 0, m.
    start: f64,
    lap_length: f64,
    /// Frame times.
    times: Vec<f32>,
    /// The ghost's speed at frame 0, m/s.
    start_speed: f64,
    /// The ghost's speed at its last frame, m/s.
    end_speed: f64,
    /// Furthest distance from the start reached by each frame, m: never
    /// decreasing, so a spin does not make distance → time ambiguous.
    reached: Vec<f64>,
}

/// A checkpoint passed by the player.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SplitEvent {
    /// Index into the tracker's checkpoints.
    pub checkpoint: usize,
    /// The player's time since the lap started, s.
    pub player_time: f64,
    /// The ghost's time at the same checkpoint, if the ghost reached it.
    pub ghost_time: Option<f32>,
}

impl SplitEvent {
    /// Player minus ghost, s: positive means the player is slower.
    #[must_use]
    pub fn delta(&self) -> Option<f64> {
        self.ghost_time.map(|g| self.player_time - f64::from(g))
    }
}

/// Signed track-distance difference from `a` to `b`, wrapped to half a lap.
fn wrapped_delta(a: f64, b: f64, lap: f64) -> f64 {
    let d = (b - a).rem_euclid(lap);
    if d > lap / 2.0 { d - lap } else { d }
}

impl LapReference {
    /// Measures every frame of `ghost` along `track`.
    #[must_use]
    pub fn new(ghost: &Ghost, track: &Track) -> Self {
        let lap_length = track.length();
        let locate = |x: f32, y: f32| track.locate(point(f64::from(x), f64::from(y))).distance;
        let frames = ghost.frames();
        let start = locate(frames[0].pose.x, frames[0].pose.y);
        let mut previous = start;
        let mut travelled = 0.0;
        let mut furthest = 0.0_f64;
        let mut reached = Vec::with_capacity(frames.len());
        for f in frames {
            let s = locate(f.pose.x, f.pose.y);
            travelled += wrapped_delta(previous, s, lap_length);
            previous = s;
            furthest = furthest.max(travelled);
            reached.push(furthest);
        }
        LapReference {
            start,
            lap_length,
            times: frames.iter().map(|f| f.t).collect(),
            start_speed: f64::from(frames[0].pose.speed),
            end_speed: f64::from(frames[frames.len() - 1].pose.speed),
            reached,
        }
    }

    /// Length of the track's lap, m.
    #[must_use]
    pub fn lap_length(&self) -> f64 {
        self.lap_length
    }

    /// Furthest distance the ghost covers from its start, m.
    #[must_use]
    pub fn covered(&self) -> f64 {
        self.reached[self.reached.len() - 1]
    }

    /// Distance of a position along the track from the ghost's start line,
    /// in [0, lap length).
    #[must_use]
    pub fn distance_from_start(&self, track: &Track, x: f64, y: f64) -> f64 {
        let s = track.locate(point(x, y)).distance;
        (s - self.start).rem_euclid(self.lap_length)
    }

    /// When the ghost first reached `distance` metres from its start, by
    /// linear interpolation between frames. Up to `MAX_PAST_END` beyond its
    /// last frame (a lap ghost cut at the line may stop a few centimetres
    /// short of it) the time is extrapolated at its final speed; None
    /// further out.
    #[must_use]
    pub fn time_at(&self, distance: f64) -> Option<f32> {
        let covered = self.covered();
        if distance > covered && distance - covered <= MAX_PAST_END && self.end_speed > 0.0 {
            let end = f64::from(self.times[self.times.len() - 1]);
            return Some((end + (distance - covered) / self.end_speed) as f32);
        }
        if !(distance.is_finite() && (0.0..=covered).contains(&distance)) {
            return None;
        }
        let i = self.reached.partition_point(|&d| d < distance);
        if i == 0 {
            return Some(self.times[0]);
        }
        let (d0, d1) = (self.reached[i - 1], self.reached[i]);
        let (t0, t1) = (f64::from(self.times[i - 1]), f64::from(self.times[i]));
        let u = (distance - d0) / (d1 - d0);
        Some((t0 + (t1 - t0) * u) as f32)
    }

    /// The time gap to the ghost at the player's position, s: the player's
    /// lap time minus the ghost's time at the same distance. Positive means
    /// the player is behind. Near the lap line, where a distance could mean
    /// this lap or the next, the reading closest to the player's time wins.
    /// None when the ghost never reached the player's distance.
    #[must_use]
    pub fn gap(&self, track: &Track, x: f64, y: f64, lap_time: f64) -> Option<f64> {
        let base = self.distance_from_start(track, x, y);
        // A player still short of the start line (distance just below a
        // lap) may be at a small negative distance: the ghost's time there
        // is extrapolated back at its starting speed.
        let before_line = base - self.lap_length;
        let early = (self.start_speed > 0.0 && -before_line < MAX_BEFORE_LINE)
            .then(|| before_line / self.start_speed);
        (0..)
            .map(|lap| base + f64::from(lap) * self.lap_length)
            .take_while(|&d| d <= self.covered() + MAX_PAST_END)
            .filter_map(|d| self.time_at(d).map(f64::from))
            .chain(early)
            .map(|ghost| lap_time - ghost)
            .min_by(|a, b| a.abs().total_cmp(&b.abs()))
    }

    /// The ghost's time at each checkpoint (metres from its start line).
    #[must_use]
    pub fn split_times(&self, checkpoints: &[f64]) -> Vec<Option<f32>> {
        checkpoints.iter().map(|&d| self.time_at(d)).collect()
    }
}

/// Tracks a live player through the checkpoints of a lap, lap after lap.
#[derive(Clone, Debug)]
pub struct SplitTracker {
    /// Checkpoint distances from the start line, increasing, in (0, lap].
    checkpoints: Vec<f64>,
    ghost_times: Vec<Option<f32>>,
    next: usize,
    lap_start_time: f64,
    /// The previous update: distance from the start line and time.
    last: Option<(f64, f64)>,
}

impl SplitTracker {
    /// A tracker whose first lap starts at `start_time` (a monotonic clock,
    /// s). Checkpoints are metres from the start line; the lap line itself
    /// is the checkpoint at the lap length. Unsorted or out-of-lap values
    /// are dropped.
    #[must_use]
    pub fn new(reference: &LapReference, checkpoints: &[f64], start_time: f64) -> Self {
        let mut checkpoints: Vec<f64> = checkpoints
            .iter()
            .copied()
            .filter(|d| d.is_finite() && *d > 0.0 && *d <= reference.lap_length)
            .collect();
        checkpoints.sort_by(f64::total_cmp);
        checkpoints.dedup();
        SplitTracker {
            ghost_times: reference.split_times(&checkpoints),
            checkpoints,
            next: 0,
            lap_start_time: start_time,
            last: None,
        }
    }

    /// The checkpoints in use.
    #[must_use]
    pub fn checkpoints(&self) -> &[f64] {
        &self.checkpoints
    }

    /// Feeds the player's position at monotonic time `time`; returns the
    /// checkpoints passed since the previous call (usually none or one).
    pub fn update(
        &mut self,
        reference: &LapReference,
        track: &Track,
        x: f64,
        y: f64,
        time: f64,
    ) -> Vec<SplitEvent> {
        let lap = reference.lap_length;
        let now = reference.distance_from_start(track, x, y);
        let mut events = Vec::new();
        let Some((before, then)) = self.last.replace((now, time)) else {
            return events;
        };
        let moved = wrapped_delta(before, now, lap);
        if moved <= 0.0 {
            return events;
        }
        // The segment from `before` to `before + moved` may cross the lap
        // line; checkpoints are tested on that unwrapped segment.
        let end = before + moved;
        let at = |d: f64| then + (time - then) * (d - before) / moved;
        while self.next < self.checkpoints.len() {
            let c = self.checkpoints[self.next];
            if c <= before || c > end {
                break;
            }
            events.push(SplitEvent {
                checkpoint: self.next,
                player_time: at(c) - self.lap_start_time,
                ghost_time: self.ghost_times[self.next],
            });
            self.next += 1;
        }
        if end >= lap {
            // Crossed the lap line: a new lap starts at the crossing.
            self.lap_start_time = at(lap);
            self.next = 0;
            let wrapped_end = end - lap;
            while self.next < self.checkpoints.len() && self.checkpoints[self.next] <= wrapped_end {
                let c = self.checkpoints[self.next];
                events.push(SplitEvent {
                    checkpoint: self.next,
                    player_time: at(c + lap) - self.lap_start_time,
                    ghost_time: self.ghost_times[self.next],
                });
                self.next += 1;
            }
        }
        events
    }
}

fn point(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}
