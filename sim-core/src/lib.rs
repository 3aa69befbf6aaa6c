//! skidpad-core: a deterministic vehicle-dynamics core.
//!
//! A [`World`] holds cars built from [`CarDefinition`]s (JSON, with
//! [`preset`]s). Each host [`World::step`] advances every car in id order
//! with either the four-wheel model or the single-track model, subdivided
//! into fixed substeps. Given the same calls, the state bits are the same on
//! every target (SPEC §3); [`World::world_hash`] proves it.
//!
//! ```
//! use skidpad_core::{preset, CarInput, InitialPose, World, WorldConfig};
//!
//! let mut world = World::new(WorldConfig::default()).unwrap();
//! let car = world.add_car(&preset("fwd_hatchback").unwrap(), InitialPose::default()).unwrap();
//! world.set_input(car, CarInput { throttle: 1.0, ..CarInput::default() }).unwrap();
//! for _ in 0..120 {
//!     world.step(1.0 / 60.0).unwrap();
//! }
//! assert!(world.channel(car, "speed").unwrap() > 5.0);
//! ```

// Public items are the SDK's contract; each must say what it is.
#![deny(missing_docs)]
// Nothing here needs unsafe; forbidding it keeps snapshot and hash code
// honest about what they read.
#![forbid(unsafe_code)]

mod angles;
mod error;
mod ground;
mod ids;
mod input;
mod lod;
mod math;
mod model;
mod norm;
mod pose;
pub mod race;
mod state;
mod surface;
mod track;
mod vehicle;
mod world;

/// The vector types of this crate's API (f64, `libm`, `scalar-math`).
pub use glam;

pub use angles::{lerp_angle, wrap_angle};
pub use error::{CoreError, Result};
pub use ground::{
    FlatGround, Ground, GroundHint, GroundHit, GroundRay, GroundSlope, GroundSource, Heightfield,
    HeightfieldSource, MAX_GRADE, MAX_HEIGHTFIELD_SAMPLES, MAX_MESH_COORDINATE, MAX_MESH_TRIANGLES,
    MeshSource, TriangleMesh,
};
pub use ids::{CarId, Wheel};
pub use input::{CarInput, INPUT_RESOLUTION};
pub use lod::{
    Lod, LodSetting, MAX_SUBSTEP_RATE, MIN_SUBSTEP_RATE, SINGLE_TRACK_DEFAULT_RATE, substep_count,
};
pub use pose::{CarPose, rotation_from_yaw_pitch_roll, yaw_pitch_roll};
pub use state::snapshot::{
    SNAPSHOT_LEN, combine_world_hash, hex, set_snapshot_float, snapshot_fields,
};
pub use surface::{MAX_SURFACES, Surface, SurfaceId, SurfaceTable};
pub use track::driver::{AiDriver, DriverStyle};
pub use track::ground::{BARRIER_HEIGHT, KERB_WIDTH, RUNOFF_WIDTH};
pub use track::track_definition::{MAX_SIDE_WIDTH, MAX_TRACK_CONTROL_POINTS, MAX_TRACK_FILE_BYTES};
pub use track::traffic::{Racecraft, TrafficCar};
pub use track::{
    RoadEdges, Side, Strip, SurfaceSpan, Track, TrackDefinition, TrackPosition,
    builtin_track_by_fingerprint, track_names,
};
pub use vehicle::definition::{
    AeroDefinition, AssistDefinition, BrakeDefinition, CarDefinition, CentreDifferential,
    ChassisDefinition, ClutchDefinition, DifferentialKind, DifferentialsDefinition, DriveLayout,
    EngineDefinition, GearboxDefinition, LightThrottleShifts, PerAxle, ShiftMode,
    SteeringCompliance, SteeringDefinition, SuspensionDefinition, ThrottleBody,
    TorqueConverterDefinition, WheelDefinition,
};
pub use vehicle::presets::{preset, preset_names};
pub use vehicle::steering_feel::{PowerAssist, SteeringFeel};
pub use vehicle::tir::{CurveGap, TirImport, parse_tir, tir_keys_read};
pub use vehicle::tire::{CombinedSlipCoefficients, TireAtLoad, TireParameters};
pub use world::car::InitialPose;
pub use world::car_view::CarView;
pub use world::channel_ids as channels;
pub use world::contact::{CONTACT_FRICTION, CONTACT_RESTITUTION, Contact};
pub use world::telemetry::{
    CHANNEL_COUNT, CHANNELS, Channel, ChannelId, Interpolation, channel_index,
};
pub use world::{MAX_TIMESTEP, RemovedCar, StepRecord, World, WorldConfig};

/// Bumped by hand whenever simulated bits change (SPEC §3.7); replays and
/// snapshots from another version are refused.
pub const SIMULATION_VERSION: u32 = 17;

/// The README's example runs as a doctest, so the front page cannot rot.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// This crate's version.
pub const CORE_VERSION: &str = env!("CARGO_PKG_VERSION");
