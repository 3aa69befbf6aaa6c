//! `GhostFrame`, `GhostPose` and `Ghost`, a validated track of frames.

use crate::{GhostError, Result};

/// One sample of a ghost: the pose at time `t` (SPEC §6). All f32, so a
/// frame is 36 bytes raw.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GhostFrame {
    /// Seconds from the ghost's first frame.
    pub t: f32,
    /// The pose at `t`.
    pub pose: GhostPose,
}

/// Where a ghost car is and how it looks: position of the centre of mass,
/// yaw/pitch/roll (z-y-x, ISO 8855), road-wheel steer angle and speed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GhostPose {
    /// World x, m.
    pub x: f32,
    /// World y, m.
    pub y: f32,
    /// World z, m.
    pub z: f32,
    /// Rotation about world z, rad, in (−π, π].
    pub yaw: f32,
    /// Rotation about the yawed y axis, rad (positive: nose down).
    pub pitch: f32,
    /// Rotation about the body x axis, rad.
    pub roll: f32,
    /// Front road-wheel angle, rad, ISO-signed (positive: left).
    pub steer: f32,
    /// Speed over ground, m/s.
    pub speed: f32,
}

impl GhostFrame {
    /// Field names in storage order (time first).
    pub const FIELD_NAMES: [&'static str; 9] =
        ["t", "x", "y", "z", "yaw", "pitch", "roll", "steer", "speed"];

    /// The nine fields in storage order.
    #[must_use]
    pub fn to_array(&self) -> [f32; 9] {
        let p = &self.pose;
        [
            self.t, p.x, p.y, p.z, p.yaw, p.pitch, p.roll, p.steer, p.speed,
        ]
    }

    /// A frame from the nine fields in storage order.
    #[must_use]
    pub fn from_array(v: [f32; 9]) -> Self {
        GhostFrame {
            t: v[0],
            pose: GhostPose {
                x: v[1],
                y: v[2],
                z: v[3],
                yaw: v[4],
                pitch: v[5],
                roll: v[6],
                steer: v[7],
                speed: v[8],
            },
        }
    }
}

/// A ghost: at least one frame, every value finite, times strictly rising.
#[derive(Clone, Debug, PartialEq)]
pub struct Ghost {
    frames: Vec<GhostFrame>,
}

impl Ghost {
    /// Validates and wraps frames.
    pub fn from_frames(frames: Vec<GhostFrame>) -> Result<Ghost> {
        if frames.is_empty() {
            return Err(GhostError::Empty);
        }
        for (index, frame) in frames.iter().enumerate() {
            for (field, value) in GhostFrame::FIELD_NAMES.iter().zip(frame.to_array()) {
                if !value.is_finite() {
                    return Err(GhostError::NonFiniteFrame { index, field });
                }
            }
            if index > 0 {
                let previous = frames[index - 1].t;
                if frame.t <= previous {
                    return Err(GhostError::TimeNotIncreasing {
                        index,
                        time: frame.t,
                        previous,
                    });
                }
            }
        }
        Ok(Ghost { frames })
    }

    /// The frames.
    #[must_use]
    pub fn frames(&self) -> &[GhostFrame] {
        &self.frames
    }

    /// Number of frames (at least 1).
    #[must_use]
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Always false: a ghost holds at least one frame.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Time of the first frame.
    #[must_use]
    pub fn start_time(&self) -> f32 {
        self.frames[0].t
    }

    /// Time of the last frame.
    #[must_use]
    pub fn end_time(&self) -> f32 {
        self.frames[self.frames.len() - 1].t
    }

    /// Length in seconds.
    #[must_use]
    pub fn duration(&self) -> f32 {
        self.end_time() - self.start_time()
    }
}
