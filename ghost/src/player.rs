//! `GhostPlayer`: poses at any time by interpolation; `GhostSet`: several
//! ghosts on one clock.

use crate::orientation::wrap_angle;
use crate::{Ghost, GhostError, GhostPose, Result};

/// How many frames a forward lookup walks before it falls back to a binary
/// search; sequential playback moves one or two frames per call.
const FORWARD_WALK: usize = 8;

/// Plays a ghost back.
///
/// ```
/// use skidpad_ghost::{GhostPlayer, GhostRecorder};
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
/// for _ in 0..60 {
///     world.step(1.0 / 60.0)?;
///     recorder.after_step(&world)?;
/// }
/// let mut player = GhostPlayer::new(recorder.finish()?);
/// // Between two frames the pose is interpolated; at a frame it is exact.
/// let end = player.pose_at(1.0)?;
/// assert_eq!(end.x, world.pose(car)?.position.x as f32);
/// let mid = player.pose_at(0.5 + 1.0 / 120.0)?;
/// assert!(mid.x < end.x);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct GhostPlayer {
    ghost: Ghost,
    /// Frame times, apart from the frames so that searches touch little
    /// memory.
    times: Vec<f32>,
    /// Per frame pair, the shorter-arc change of yaw, pitch and roll.
    angle_steps: Vec<[f32; 3]>,
    /// Index of the frame at or before the last lookup's time.
    cursor: usize,
}

impl GhostPlayer {
    /// A player positioned at the ghost's start.
    #[must_use]
    pub fn new(ghost: Ghost) -> Self {
        let frames = ghost.frames();
        let times = frames.iter().map(|f| f.t).collect();
        let angle_steps = frames
            .windows(2)
            .map(|w| {
                let (p, q) = (&w[0].pose, &w[1].pose);
                [
                    wrap_angle(q.yaw - p.yaw),
                    wrap_angle(q.pitch - p.pitch),
                    wrap_angle(q.roll - p.roll),
                ]
            })
            .collect();
        GhostPlayer {
            ghost,
            times,
            angle_steps,
            cursor: 0,
        }
    }

    /// The ghost being played.
    #[must_use]
    pub fn ghost(&self) -> &Ghost {
        &self.ghost
    }

    /// The pose at time `t` (clamped to the ghost), interpolated linearly;
    /// angles take the shorter arc across ±π. Returns an error only for a
    /// NaN time.
    pub fn pose_at(&mut self, t: f32) -> Result<GhostPose> {
        let mut pose = GhostPose::default();
        self.pose_at_into(t, &mut pose)?;
        Ok(pose)
    }

    /// As [`pose_at`](Self::pose_at), writing into `out` without allocating.
    pub fn pose_at_into(&mut self, t: f32, out: &mut GhostPose) -> Result<()> {
        if t.is_nan() {
            return Err(GhostError::InvalidArgument {
                what: "time",
                reason: "NaN".into(),
            });
        }
        let t = t.clamp(self.ghost.start_time(), self.ghost.end_time());
        let i = self.locate(t);
        let frames = self.ghost.frames();
        let a = &frames[i];
        let Some(b) = frames.get(i + 1) else {
            *out = a.pose;
            return Ok(());
        };
        let u = (t - a.t) / (b.t - a.t);
        let lerp = |x: f32, y: f32| x + (y - x) * u;
        let (p, q) = (&a.pose, &b.pose);
        // The same arithmetic as `lerp_angle`, with the shorter-arc step
        // of each angle computed once per frame pair in `new`.
        let [dyaw, dpitch, droll] = self.angle_steps[i];
        *out = GhostPose {
            x: lerp(p.x, q.x),
            y: lerp(p.y, q.y),
            z: lerp(p.z, q.z),
            yaw: wrap_angle(p.yaw + dyaw * u),
            pitch: wrap_angle(p.pitch + dpitch * u),
            roll: wrap_angle(p.roll + droll * u),
            steer: lerp(p.steer, q.steer),
            speed: lerp(p.speed, q.speed),
        };
        Ok(())
    }

    /// Index of the last frame with time ≤ t (t already clamped).
    ///
    /// Forward from the cursor it walks a few frames, which is all that
    /// sequential playback needs (O(1)). Anything else is a binary search
    /// over the frame times, narrowed first around the index that uniform
    /// sampling would put `t` at, so random lookups stay near O(1) too.
    fn locate(&mut self, t: f32) -> usize {
        let times = &self.times;
        let last = times.len() - 1;
        let mut i = self.cursor.min(last);
        if times[i] <= t {
            let stop = (i + FORWARD_WALK).min(last);
            while i < stop && times[i + 1] <= t {
                i += 1;
            }
            if i < last && times[i + 1] <= t {
                i = search(times, t);
            }
        } else {
            i = search(times, t);
        }
        self.cursor = i;
        i
    }
}

/// Binary search for the last index with `times[i] ≤ t` (t within range).
/// The bracket starts at the index uniform sampling predicts and doubles
/// until it holds `t`, then halves.
fn search(times: &[f32], t: f32) -> usize {
    let last = times.len() - 1;
    let span = times[last] - times[0];
    let guess = if span > 0.0 {
        (((t - times[0]) / span) * last as f32) as usize
    } else {
        0
    }
    .min(last);
    let (mut lo, mut hi) = (guess, guess + 1);
    let mut step = 1;
    while lo > 0 && times[lo] > t {
        hi = lo;
        lo = lo.saturating_sub(step);
        step *= 2;
    }
    while hi <= last && times[hi] <= t {
        lo = hi;
        hi = (hi + step).min(last + 1);
        step *= 2;
    }
    // Now times[lo] ≤ t (or lo = 0) and times[hi] > t (or hi = len).
    lo + times[lo..hi].partition_point(|&x| x <= t).saturating_sub(1)
}

/// Several ghosts played on one clock.
#[derive(Clone, Debug, Default)]
pub struct GhostSet {
    players: Vec<GhostPlayer>,
    poses: Vec<GhostPose>,
    /// Seconds on the shared clock.
    time: f64,
}

impl GhostSet {
    /// An empty set at time zero.
    #[must_use]
    pub fn new() -> Self {
        GhostSet::default()
    }

    /// Adds a ghost; returns its index.
    pub fn add(&mut self, ghost: Ghost) -> usize {
        self.players.push(GhostPlayer::new(ghost));
        self.poses.push(GhostPose::default());
        self.players.len() - 1
    }

    /// Number of ghosts.
    #[must_use]
    pub fn len(&self) -> usize {
        self.players.len()
    }

    /// True when the set holds no ghost.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.players.is_empty()
    }

    /// The shared clock, s.
    #[must_use]
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Sets the clock (a seek), then updates every pose.
    pub fn set_time(&mut self, t: f64) -> Result<&[GhostPose]> {
        if !t.is_finite() {
            return Err(GhostError::InvalidArgument {
                what: "time",
                reason: format!("must be finite, got {t}"),
            });
        }
        self.time = t;
        for (player, pose) in self.players.iter_mut().zip(&mut self.poses) {
            player.pose_at_into(t as f32, pose)?;
        }
        Ok(&self.poses)
    }

    /// Moves the clock by `dt` and updates every pose.
    pub fn advance(&mut self, dt: f64) -> Result<&[GhostPose]> {
        self.set_time(self.time + dt)
    }

    /// The poses at the current clock, by ghost index.
    #[must_use]
    pub fn poses(&self) -> &[GhostPose] {
        &self.poses
    }
}
