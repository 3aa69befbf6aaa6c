//! The plain structs that cross the boundary by value (inputs, poses, a
//! hash, limits), each with a fixed C layout, and their conversions to the
//! core's own types. A host may allocate them anywhere.

use skidpad_core::{CarInput, CarPose, InitialPose};
use skidpad_ghost::GhostPose;
use skidpad_replay::Limits;

/// A blake3 hash (a world's, a replay's last keyframe's), 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SkidpadHash {
    /// The hash's bytes; printed as hex, byte 0 first.
    pub bytes: [u8; 32],
}

/// A driver's controls for one car (the core's `CarInput`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SkidpadInput {
    /// −1 full left lock … +1 full right lock (positive **right**, as a
    /// stick reports it; everything the simulation reports is positive left).
    pub steer: f64,
    /// Accelerator pedal, 0…1.
    pub throttle: f64,
    /// Brake pedal, 0…1.
    pub brake: f64,
    /// Handbrake lever, 0…1.
    pub handbrake: f64,
    /// Clutch pedal, 0 engaged … 1 open.
    pub clutch: f64,
    /// Requested gear: negative reverse, 0 neutral (manual) or drive
    /// (automatic), positive a gear.
    pub gear: f64,
}

impl From<SkidpadInput> for CarInput {
    fn from(i: SkidpadInput) -> Self {
        CarInput {
            steer: i.steer,
            throttle: i.throttle,
            brake: i.brake,
            handbrake: i.handbrake,
            clutch: i.clutch,
            gear: i.gear,
        }
    }
}

impl From<CarInput> for SkidpadInput {
    fn from(i: CarInput) -> Self {
        SkidpadInput {
            steer: i.steer,
            throttle: i.throttle,
            brake: i.brake,
            handbrake: i.handbrake,
            clutch: i.clutch,
            gear: i.gear,
        }
    }
}

/// Where a car is put down: on the ground below (x, y), heading `yaw`
/// (rad, 0 along +x, positive left), rolling forwards at `speed` (m/s).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SkidpadStartPose {
    /// World x, m.
    pub x: f64,
    /// World y, m.
    pub y: f64,
    /// Heading, rad.
    pub yaw: f64,
    /// Forward speed, m/s.
    pub speed: f64,
}

impl From<SkidpadStartPose> for InitialPose {
    fn from(p: SkidpadStartPose) -> Self {
        InitialPose {
            x: p.x,
            y: p.y,
            yaw: p.yaw,
            speed: p.speed,
        }
    }
}

/// A car's body in the world after a step (z up, ISO 8855 angles).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SkidpadPose {
    /// Centre of mass, m.
    pub x: f64,
    /// Centre of mass, m.
    pub y: f64,
    /// Centre of mass, m.
    pub z: f64,
    /// Body-to-world rotation as a unit quaternion (x, y, z, w).
    pub qx: f64,
    /// See `qx`.
    pub qy: f64,
    /// See `qx`.
    pub qz: f64,
    /// See `qx`.
    pub qw: f64,
    /// Rotation about world z, rad (positive: nose left).
    pub yaw: f64,
    /// Rotation about the yawed y axis, rad (positive: nose down).
    pub pitch: f64,
    /// Rotation about the body x axis, rad (positive: right side down).
    pub roll: f64,
    /// Mean road-wheel angle of the front wheels, rad (positive: left).
    pub steer_angle: f64,
    /// Speed over ground, m/s.
    pub speed: f64,
}

impl From<CarPose> for SkidpadPose {
    fn from(p: CarPose) -> Self {
        SkidpadPose {
            x: p.position.x,
            y: p.position.y,
            z: p.position.z,
            qx: p.orientation.x,
            qy: p.orientation.y,
            qz: p.orientation.z,
            qw: p.orientation.w,
            yaw: p.yaw,
            pitch: p.pitch,
            roll: p.roll,
            steer_angle: p.steer_angle,
            speed: p.speed,
        }
    }
}

/// A ghost car's pose (f32, as ghosts store it).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SkidpadGhostPose {
    /// Centre of mass, m.
    pub x: f32,
    /// Centre of mass, m.
    pub y: f32,
    /// Centre of mass, m.
    pub z: f32,
    /// Rotation about world z, rad.
    pub yaw: f32,
    /// Rotation about the yawed y axis, rad.
    pub pitch: f32,
    /// Rotation about the body x axis, rad.
    pub roll: f32,
    /// Front road-wheel angle, rad (positive: left).
    pub steer: f32,
    /// Speed over ground, m/s.
    pub speed: f32,
}

impl From<GhostPose> for SkidpadGhostPose {
    fn from(p: GhostPose) -> Self {
        SkidpadGhostPose {
            x: p.x,
            y: p.y,
            z: p.z,
            yaw: p.yaw,
            pitch: p.pitch,
            roll: p.roll,
            steer: p.steer,
            speed: p.speed,
        }
    }
}

/// What a decoder or verifier accepts from a file it did not write
/// (`skidpad_limits_default` fills in the defaults a leaderboard uses).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkidpadLimits {
    /// Most recorded cars.
    pub max_cars: u32,
    /// Most model substeps one car takes in one step.
    pub max_substeps_per_step: u32,
    /// Most recorded steps.
    pub max_steps: u64,
    /// Most model substeps over all cars and steps: the CPU budget.
    pub max_car_substeps: u64,
    /// Most game-state bytes over all keyframes.
    pub max_keyframe_state_bytes: u64,
    /// Most metadata bytes.
    pub max_metadata_bytes: u64,
    /// Most bytes the decoder may hold at once.
    pub max_decoded_bytes: u64,
}

impl From<Limits> for SkidpadLimits {
    fn from(l: Limits) -> Self {
        SkidpadLimits {
            max_cars: l.max_cars,
            max_substeps_per_step: l.max_substeps_per_step,
            max_steps: l.max_steps,
            max_car_substeps: l.max_car_substeps,
            max_keyframe_state_bytes: l.max_keyframe_state_bytes,
            max_metadata_bytes: l.max_metadata_bytes,
            max_decoded_bytes: l.max_decoded_bytes,
        }
    }
}

impl From<SkidpadLimits> for Limits {
    fn from(l: SkidpadLimits) -> Self {
        Limits {
            max_cars: l.max_cars,
            max_substeps_per_step: l.max_substeps_per_step,
            max_steps: l.max_steps,
            max_car_substeps: l.max_car_substeps,
            max_keyframe_state_bytes: l.max_keyframe_state_bytes,
            max_metadata_bytes: l.max_metadata_bytes,
            max_decoded_bytes: l.max_decoded_bytes,
        }
    }
}
