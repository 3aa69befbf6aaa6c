//! `GhostPlayer`: poses at any time by interpolation; `GhostSet`: several
//! ghosts on one clock.

use crate::orientation::lerp_angle;
use crate::{Ghost, GhostError, GhostPose, Result};

/// How many frames a forward lookup walks before it falls back to a binary
/// search; sequential playback moves one or two frames per call.
const FORWARD_WALK: usize = 8;

/// Plays a ghost back.
#[derive(Clone, Debug)]
pub struct GhostPlayer {
    ghost: Ghost,
    /// Index of the frame at or before the last lookup's time.
    cursor: usize,
}

impl GhostPlayer {
    /// A player positioned at the ghost's start.
    #[must_use]
    pub fn new(ghost: Ghost) -> Self {
        GhostPlayer { ghost, cursor: 0 }
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
        *out = GhostPose {
            x: lerp(p.x, q.x),
            y: lerp(p.y, q.y),
            z: lerp(p.z, q.z),
            yaw: lerp_angle(p.yaw, q.yaw, u),
            pitch: lerp_angle(p.pitch, q.pitch, u),
            roll: lerp_angle(p.roll, q.roll, u),
            steer: lerp(p.steer, q.steer),
            speed: lerp(p.speed, q.speed),
        };
        Ok(())
    }

    /// Index of the last frame with time ≤ t (t already clamped). Walks
    /// forward from the cursor for sequential playback; otherwise binary
    /// searches.
    fn locate(&mut self, t: f32) -> usize {
        let frames = self.ghost.frames();
        let mut i = self.cursor.min(frames.len() - 1);
        if frames[i].t <= t {
            let mut walked = 0;
            while i + 1 < frames.len() && frames[i + 1].t <= t {
                i += 1;
                walked += 1;
                if walked == FORWARD_WALK {
                    i += frames[i..].partition_point(|f| f.t <= t) - 1;
                    break;
                }
            }
        } else {
            i = frames[..i].partition_point(|f| f.t <= t).saturating_sub(1);
        }
        self.cursor = i;
        i
    }
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
