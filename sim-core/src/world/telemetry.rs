//! Telemetry: named channels per car, filled after every step.
//!
//! [`CHANNELS`] lists every channel with its unit, description,
//! interpolation mode and group; a car's values are a `[f64]` in that
//! order. Names are a published contract: new channels are appended,
//! existing names never change meaning. `CHANNELS.md` at the repository's
//! root is generated from the list (a test keeps it equal).

use glam::DVec3;

use crate::model::outputs::StepOutputs;
use crate::model::steering::kingpin_moment;
use crate::pose::yaw_pitch_roll;
use crate::state::car_state::CarState;
use crate::surface::SurfaceTable;
use crate::vehicle::car_params::CarParams;
use crate::vehicle::definition::CarDefinition;
use crate::world::chassis_channels;

/// How a channel is drawn between two samples (seed 001's modes): a
/// viewer or a network client interpolating a channel must use its mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Interpolation {
    /// Straight line between the samples.
    Lerp,
    /// An angle that wraps at ±π: along the shorter way round.
    LerpAngle,
    /// Held at the earlier sample until the next (gears, ids, flags).
    Discrete,
}

impl Interpolation {
    /// The mode's name as seed 001 and the JS package write it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Interpolation::Lerp => "lerp",
            Interpolation::LerpAngle => "lerpAngle",
            Interpolation::Discrete => "discrete",
        }
    }
}

/// One telemetry channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Channel {
    /// Stable snake_case name.
    pub name: &'static str,
    /// SI unit (`1` for dimensionless, `id`/`bool` for codes).
    pub unit: &'static str,
    /// What it measures and its sign convention.
    pub description: &'static str,
    /// How to draw it between samples.
    pub interpolation: Interpolation,
    /// The group a chart lists it under (`motion`, `wheel fl`, …).
    pub group: &'static str,
}

/// Channels per wheel.
const WHEEL_CHANNELS: usize = 12;
/// Channels before the per-wheel block.
const CAR_CHANNELS: usize = 36;
/// Channels after the per-wheel block (appended later, so no name moved).
const STEERING_CHANNELS: usize = 4;
/// The body in 3D, world frame (appended after the steering block).
const BODY_CHANNELS: usize = 10;
/// More drivetrain channels.
const ENGINE_CHANNELS: usize = 2;
/// More channels per wheel (appended as their own block).
const WHEEL_GRIP_CHANNELS: usize = 6;
/// Channels per axle.
const AXLE_CHANNELS: usize = 4;
/// Suspension, camber, contact-patch and torque channels per wheel.
const WHEEL_CHASSIS_CHANNELS: usize = 13;
/// More channels per axle.
const AXLE_CHASSIS_CHANNELS: usize = 6;
/// The shift event, gearbox speed, clutch slip and drive torque.
const DRIVELINE_CHANNELS: usize = 4;
/// The power assist's share of the hand-wheel torque and the driver's.
const ASSIST_CHANNELS: usize = 2;
/// Where the blocks after the steering block begin.
const BODY_START: usize = CAR_CHANNELS + 4 * WHEEL_CHANNELS + STEERING_CHANNELS;
const ENGINE_START: usize = BODY_START + BODY_CHANNELS;
const WHEEL_GRIP_START: usize = ENGINE_START + ENGINE_CHANNELS;
const AXLE_START: usize = WHEEL_GRIP_START + 4 * WHEEL_GRIP_CHANNELS;
const WHEEL_CHASSIS_START: usize = AXLE_START + 2 * AXLE_CHANNELS;
const AXLE_CHASSIS_START: usize = WHEEL_CHASSIS_START + 4 * WHEEL_CHASSIS_CHANNELS;
const DRIVELINE_START: usize = AXLE_CHASSIS_START + 2 * AXLE_CHASSIS_CHANNELS;
const ASSIST_START: usize = DRIVELINE_START + DRIVELINE_CHANNELS;
/// Number of channels.
pub const CHANNEL_COUNT: usize = ASSIST_START + ASSIST_CHANNELS;
/// Slip ratio at or below which a braked wheel counts as locked.
const LOCKED_SLIP: f64 = -0.95;

macro_rules! channel {
    ($group:expr, $mode:ident, $name:expr, $unit:literal, $description:expr) => {
        Channel {
            name: $name,
            unit: $unit,
            description: $description,
            interpolation: Interpolation::$mode,
            group: $group,
        }
    };
}

macro_rules! channel_table {
    (wheels: $($w:literal),*; axles: $($a:literal),*) => {
        [
            channel!("time", Lerp, "time", "s", "simulated time this car has been stepped"),
            channel!("position", Lerp, "x", "m", "centre of mass, world x"),
            channel!("position", Lerp, "y", "m", "centre of mass, world y"),
            channel!("position", Lerp, "z", "m", "centre of mass, world z"),
            channel!("orientation", LerpAngle, "yaw", "rad", "heading about world z, positive left"),
            channel!("orientation", Lerp, "pitch", "rad", "pitch, positive nose down"),
            channel!("orientation", LerpAngle, "roll", "rad", "roll, positive right side down"),
            channel!("motion", Lerp, "vx", "m/s", "velocity along the body x axis"),
            channel!("motion", Lerp, "vy", "m/s", "velocity along the body y axis"),
            channel!("motion", Lerp, "vz", "m/s", "velocity along the body z axis"),
            channel!("motion", Lerp, "speed", "m/s", "speed over ground"),
            channel!("motion", Lerp, "roll_rate", "rad/s", "angular velocity about body x"),
            channel!("motion", Lerp, "pitch_rate", "rad/s", "angular velocity about body y"),
            channel!("motion", Lerp, "yaw_rate", "rad/s", "angular velocity about body z, positive left"),
            channel!("motion", Lerp, "ax", "m/s²", "acceleration along body x"),
            channel!("motion", Lerp, "ay", "m/s²", "acceleration along body y"),
            channel!("motion", Lerp, "az", "m/s²", "acceleration along body z"),
            channel!("motion", LerpAngle, "body_slip", "rad", "angle of the velocity from the body x axis"),
            channel!("inputs", Lerp, "input_steer", "1", "steer input, -1 full left … +1 full right"),
            channel!("inputs", Lerp, "input_throttle", "1", "throttle pedal"),
            channel!("inputs", Lerp, "input_brake", "1", "brake pedal"),
            channel!("inputs", Lerp, "input_handbrake", "1", "handbrake lever"),
            channel!("inputs", Lerp, "input_clutch", "1", "clutch pedal, 1 fully open"),
            channel!("inputs", Discrete, "input_gear", "1", "requested gear"),
            channel!("drivetrain", Lerp, "engine_rpm", "rpm", "engine speed"),
            channel!("drivetrain", Lerp, "engine_torque", "N·m", "engine output torque, negative when engine braking"),
            channel!("drivetrain", Lerp, "clutch_torque", "N·m", "torque through the clutch (a torque converter's turbine torque)"),
            channel!("drivetrain", Discrete, "gear", "1", "engaged gear, -1 reverse, 0 neutral"),
            channel!("steering", Lerp, "steer_angle", "rad", "mean front road-wheel angle, positive left"),
            channel!("simulation", Discrete, "lod", "id", "level of detail: 0 full, 1 single-track, 2 frozen"),
            channel!("aero", Lerp, "aero_drag", "N", "aerodynamic drag"),
            channel!("aero", Lerp, "aero_lift_front", "N", "lift at the front axle, negative is downforce"),
            channel!("aero", Lerp, "aero_lift_rear", "N", "lift at the rear axle, negative is downforce"),
            channel!("assists", Lerp, "abs_active", "1", "largest share of brake torque ABS released on any wheel"),
            channel!("assists", Lerp, "tc_active", "1", "largest share of drive torque traction control cut on any wheel"),
            channel!("assists", Lerp, "esc_active", "1", "stability control's brake torque as a share of its maximum"),
            $(
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_speed"), "m/s", "rim speed ω·R"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_omega"), "rad/s", "wheel spin"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_load"), "N", "tire normal load"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_slip_ratio"), "1", "longitudinal slip ratio"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_slip_angle"), "rad", "slip angle, positive when the lateral force points left"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_fx"), "N", "tire force along the wheel heading"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_fy"), "N", "tire force to the wheel's left"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_travel"), "m", "suspension compression"),
                channel!(concat!("wheel ", $w), Discrete, concat!("wheel_", $w, "_contact"), "bool", "1 while the strut touches the ground"),
                channel!(concat!("wheel ", $w), Discrete, concat!("wheel_", $w, "_surface"), "id", "surface id under the wheel"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_steer"), "rad", "road-wheel steer angle, positive left"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_mz"), "N·m", "tire aligning moment about the vertical, positive turning the wheel left"),
            )*
            channel!("steering", Lerp, "rack_force", "N", "force the front tires put on the steering rack, positive pushing the steering right (the steer input's sign)"),
            channel!("steering", Lerp, "hand_wheel_torque", "N·m", "torque the front tires put on the hand wheel, positive turning it right: what a force-feedback wheel plays"),
            channel!("steering", Lerp, "hand_wheel_angle", "rad", "hand-wheel angle the steer input asks for (input times the hand wheel's lock), positive left"),
            channel!("steering", Lerp, "steer_give", "rad", "road-wheel angle the steering's compliance has given way under the steering torque, positive left (0 for a rigid steering)"),
            channel!("body 3d", Lerp, "orientation_w", "1", "orientation quaternion, scalar part (interpolate the four parts, then normalise)"),
            channel!("body 3d", Lerp, "orientation_x", "1", "orientation quaternion, x part"),
            channel!("body 3d", Lerp, "orientation_y", "1", "orientation quaternion, y part"),
            channel!("body 3d", Lerp, "orientation_z", "1", "orientation quaternion, z part"),
            channel!("body 3d", Lerp, "world_vx", "m/s", "centre-of-mass velocity, world x"),
            channel!("body 3d", Lerp, "world_vy", "m/s", "centre-of-mass velocity, world y"),
            channel!("body 3d", Lerp, "world_vz", "m/s", "centre-of-mass velocity, world z"),
            channel!("body 3d", Lerp, "world_ax", "m/s²", "centre-of-mass acceleration, world x"),
            channel!("body 3d", Lerp, "world_ay", "m/s²", "centre-of-mass acceleration, world y"),
            channel!("body 3d", Lerp, "world_az", "m/s²", "centre-of-mass acceleration, world z"),
            channel!("drivetrain", Lerp, "engine_power", "W", "engine output power, torque times engine speed (negative when engine braking)"),
            channel!("drivetrain", Discrete, "rev_limiter", "bool", "1 while the engine is at or above its rev limiter (a sound event: the limiter's stutter)"),
            $(
                channel!(concat!("wheel ", $w), Discrete, concat!("wheel_", $w, "_locked"), "bool", "1 while the wheel is on the ground with a slip ratio at or below -0.95 (locked under braking)"),
                channel!(concat!("wheel ", $w), Discrete, concat!("wheel_", $w, "_surface_grip"), "1", "grip factor of the surface under the wheel (the surface table's `grip`)"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_peak_fx"), "N", "largest force along the heading the tire can make at this load on this surface"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_peak_fy"), "N", "largest lateral force the tire can make at this load on this surface"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_grip_usage"), "1", "share of the friction ellipse in use, √((fx/peak_fx)² + (fy/peak_fy)²): 1 at the limit (0 off the ground)"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_deflection_lat"), "m", "tire carcass deflection to the wheel's left (the relaxation-length state)"),
            )*
            channel!("axle front", Lerp, "axle_front_load_transfer", "N", "lateral load transfer, half of left minus right tire load"),
            channel!("axle front", Lerp, "axle_front_slip_angle", "rad", "mean slip angle of the axle's tires on the ground"),
            channel!("axle front", Lerp, "axle_front_fx", "N", "sum of the axle's tire forces along their headings"),
            channel!("axle front", Lerp, "axle_front_fy", "N", "sum of the axle's lateral tire forces"),
            channel!("axle rear", Lerp, "axle_rear_load_transfer", "N", "lateral load transfer, half of left minus right tire load"),
            channel!("axle rear", Lerp, "axle_rear_slip_angle", "rad", "mean slip angle of the axle's tires on the ground"),
            channel!("axle rear", Lerp, "axle_rear_fx", "N", "sum of the axle's tire forces along their headings"),
            channel!("axle rear", Lerp, "axle_rear_fy", "N", "sum of the axle's lateral tire forces"),
            $(
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_travel_rate"), "m/s", "suspension compression rate, positive compressing: the damper's speed (0 in the single-track model, whose struts hold their static travel)"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_spring_force"), "N", "spring force along the strut, the spring rate times the travel"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_bump_stop_force"), "N", "bump stop's force along the strut, past the suspension's travel"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_damper_force"), "N", "damper force along the strut, positive resisting compression: bump or rebound damping times the travel rate"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_anti_roll_force"), "N", "anti-roll bar's force on this strut: its rate times this strut's travel less the other side's"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_camber"), "rad", "inclination of the wheel to the ground's normal at the contact, positive with the top leaning out of the car: the body's attitude alone, since the suspension has no camber geometry and the tire model no camber thrust (0 off the ground and in the single-track model, which does not roll)"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_patch_vx"), "m/s", "contact patch's ground speed along the wheel's heading (0 off the ground)"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_patch_vy"), "m/s", "contact patch's ground speed to the wheel's left (0 off the ground)"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_slip_speed"), "m/s", "speed the tread slides over the ground, |(ω·R − patch_vx, patch_vy)|: what tire squeal follows (0 off the ground)"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_deflection_long"), "m", "tire carcass deflection along the heading (the relaxation-length state)"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_slip_usage"), "1", "combined slip over the tire's peak slips, |(κ/κ_peak, tan α/tan α_peak)|: 1 where the force peaks, above it the tire slides (0 off the ground)"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_drive_torque"), "N·m", "drive torque on the wheel after traction control"),
                channel!(concat!("wheel ", $w), Lerp, concat!("wheel_", $w, "_brake_torque"), "N·m", "brake torque on the wheel after ABS: what the brake can hold (a wheel at rest takes only what keeps it there)"),
            )*
            $(
                channel!(concat!("axle ", $a), Lerp, concat!("axle_", $a, "_load"), "N", "sum of the axle's tire loads"),
                channel!(concat!("axle ", $a), Lerp, concat!("axle_", $a, "_slip_ratio"), "1", "mean slip ratio of the axle's tires on the ground"),
                channel!(concat!("axle ", $a), Lerp, concat!("axle_", $a, "_mz"), "N·m", "sum of the axle's aligning moments"),
                channel!(concat!("axle ", $a), Lerp, concat!("axle_", $a, "_roll"), "rad", "suspension roll at the axle, atan((right travel − left travel) / track), positive right side down"),
                channel!(concat!("axle ", $a), Lerp, concat!("axle_", $a, "_heave"), "m", "mean suspension travel of the axle's struts"),
                channel!(concat!("axle ", $a), Lerp, concat!("axle_", $a, "_grip_usage"), "1", "the larger grip usage of the axle's two tires"),
            )*
            channel!("drivetrain", Discrete, "shift", "1", "a gear change this step, the new gear less the old (positive up), else 0: the shift's sound event"),
            channel!("drivetrain", Lerp, "gearbox_rpm", "rpm", "gearbox input speed: the driven wheels' mean spin through the engaged gear's ratio (0 in neutral)"),
            channel!("drivetrain", Lerp, "clutch_slip", "rpm", "engine speed less the gearbox input's (0 while the clutch holds)"),
            channel!("drivetrain", Lerp, "drive_torque", "N·m", "sum of the drive torques on the wheels after traction control"),
            channel!("steering", Lerp, "assist_torque", "N·m", "the power assist's share of the hand-wheel torque, signed as it (0 without an assist)"),
            channel!("steering", Lerp, "driver_torque", "N·m", "the hand-wheel torque less the assist's share: what the driver holds and a force-feedback wheel plays (the hand-wheel torque itself without an assist)"),
        ]
    };
}

/// Every channel, in value order.
pub static CHANNELS: [Channel; CHANNEL_COUNT] = TABLE;

/// The table as a constant, for [`ChannelId::named`] to search at compile
/// time (a `const fn` cannot read a static).
const TABLE: [Channel; CHANNEL_COUNT] =
    channel_table!(wheels: "fl", "fr", "rl", "rr"; axles: "front", "rear");

/// A telemetry channel by its place in [`CHANNELS`]: a name checked once
/// (at compile time, for the constants in [`channels`](crate::channels)),
/// read without looking the name up again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChannelId(u16);

impl ChannelId {
    /// The channel named `name`, if there is one.
    #[must_use]
    pub const fn named(name: &str) -> Option<ChannelId> {
        let mut i = 0;
        while i < CHANNEL_COUNT {
            if same_str(TABLE[i].name, name) {
                return Some(ChannelId(i as u16));
            }
            i += 1;
        }
        None
    }

    /// The channel named `name`; in a constant an unknown name fails the
    /// build, elsewhere it panics (use [`named`](Self::named) for names
    /// read at run time).
    #[must_use]
    pub const fn of(name: &str) -> ChannelId {
        match ChannelId::named(name) {
            Some(id) => id,
            None => panic!("no telemetry channel has that name (see CHANNELS.md)"),
        }
    }

    /// Its index into a car's values (`World::telemetry`).
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Its name, unit, description, interpolation and group.
    #[must_use]
    pub fn channel(self) -> &'static Channel {
        &CHANNELS[self.index()]
    }
}

const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Index of the channel with this name.
#[must_use]
pub fn channel_index(name: &str) -> Option<usize> {
    CHANNELS.iter().position(|c| c.name == name)
}

/// Fills `out` (length [`CHANNEL_COUNT`]) from a state, its last outputs
/// and the world's surfaces.
pub(crate) fn write(
    (def, params): (&CarDefinition, &CarParams),
    s: &CarState,
    o: &StepOutputs,
    surfaces: &SurfaceTable,
    out: &mut [f64],
) {
    let (yaw, pitch, roll) = yaw_pitch_roll(s.orientation);
    let body_velocity: DVec3 = s.orientation.inverse() * s.velocity;
    let w = s.angular_velocity;
    let i = s.input;
    let body_slip = if body_velocity.x.abs() + body_velocity.y.abs() > 1e-3 {
        libm::atan2(body_velocity.y, body_velocity.x)
    } else {
        0.0
    };
    let car = [
        s.elapsed,
        s.position.x,
        s.position.y,
        s.position.z,
        yaw,
        pitch,
        roll,
        body_velocity.x,
        body_velocity.y,
        body_velocity.z,
        s.velocity.length(),
        w.x,
        w.y,
        w.z,
        o.acceleration.x,
        o.acceleration.y,
        o.acceleration.z,
        body_slip,
        i.steer,
        i.throttle,
        i.brake,
        i.handbrake,
        i.clutch,
        i.gear,
        o.engine_rpm,
        o.engine_torque,
        o.clutch_torque,
        f64::from(s.gear),
        (o.wheels[0].steer + o.wheels[1].steer) / 2.0,
        f64::from(s.lod.level.code()),
        o.drag,
        o.lift_front,
        o.lift_rear,
        o.abs_active,
        o.tc_active,
        o.esc_active,
    ];
    out[..CAR_CHANNELS].copy_from_slice(&car);
    for (k, wheel) in o.wheels.iter().enumerate() {
        let radius = def.wheels.get(k < 2).radius;
        let values = [
            s.wheel_omega[k] * radius,
            s.wheel_omega[k],
            wheel.load,
            wheel.slip_ratio,
            wheel.slip_angle(),
            wheel.fx,
            wheel.fy,
            wheel.travel,
            if wheel.contact { 1.0 } else { 0.0 },
            f64::from(s.surfaces[k].0),
            wheel.steer,
            wheel.mz,
        ];
        let start = CAR_CHANNELS + k * WHEEL_CHANNELS;
        out[start..start + WHEEL_CHANNELS].copy_from_slice(&values);
    }
    let (rack_force, hand_wheel_torque) = steering_feel(def, o);
    let hand_wheel_angle = -i.steer * def.steering.feel.hand_wheel_lock;
    out[BODY_START - STEERING_CHANNELS..BODY_START].copy_from_slice(&[
        rack_force,
        hand_wheel_torque,
        hand_wheel_angle,
        s.steer_give,
    ]);
    let q = s.orientation;
    let world_acceleration = s.orientation * o.acceleration;
    out[BODY_START..ENGINE_START].copy_from_slice(&[
        q.w,
        q.x,
        q.y,
        q.z,
        s.velocity.x,
        s.velocity.y,
        s.velocity.z,
        world_acceleration.x,
        world_acceleration.y,
        world_acceleration.z,
    ]);
    let engine_omega = o.engine_rpm * std::f64::consts::TAU / 60.0;
    out[ENGINE_START..WHEEL_GRIP_START].copy_from_slice(&[
        o.engine_torque * engine_omega,
        if o.engine_rpm >= def.engine.limiter_rpm {
            1.0
        } else {
            0.0
        },
    ]);
    for (k, wheel) in o.wheels.iter().enumerate() {
        let grip = surfaces.get_checked(s.surfaces[k]).grip;
        let tire = def.tires.get(k < 2);
        let (peak_x, peak_y) = if wheel.contact {
            (
                tire.peak_fx(wheel.load) * grip,
                tire.peak_fy(wheel.load) * grip,
            )
        } else {
            (0.0, 0.0)
        };
        let usage = if peak_x > 0.0 && peak_y > 0.0 {
            libm::hypot(wheel.fx / peak_x, wheel.fy / peak_y)
        } else {
            0.0
        };
        let locked = wheel.contact && wheel.slip_ratio <= LOCKED_SLIP;
        let start = WHEEL_GRIP_START + k * WHEEL_GRIP_CHANNELS;
        out[start..start + WHEEL_GRIP_CHANNELS].copy_from_slice(&[
            if locked { 1.0 } else { 0.0 },
            grip,
            peak_x,
            peak_y,
            usage,
            s.tire_deflection[k][1],
        ]);
    }
    for (axle, pair) in o.wheels.chunks_exact(2).enumerate() {
        let (sum, on_ground) = pair
            .iter()
            .filter(|w| w.contact)
            .fold((0.0, 0u32), |(sum, n), w| (sum + w.slip_angle(), n + 1));
        let slip = if on_ground == 0 {
            0.0
        } else {
            sum / f64::from(on_ground)
        };
        let start = AXLE_START + axle * AXLE_CHANNELS;
        out[start..start + AXLE_CHANNELS].copy_from_slice(&[
            (pair[0].load - pair[1].load) / 2.0,
            slip,
            pair[0].fx + pair[1].fx,
            pair[0].fy + pair[1].fy,
        ]);
    }
    for k in 0..4 {
        let start = WHEEL_CHASSIS_START + k * WHEEL_CHASSIS_CHANNELS;
        out[start..start + WHEEL_CHASSIS_CHANNELS]
            .copy_from_slice(&chassis_channels::wheel(def, params, s, o, k));
    }
    for (axle, front) in [true, false].into_iter().enumerate() {
        let usage = |k: usize| out[WHEEL_GRIP_START + k * WHEEL_GRIP_CHANNELS + 4];
        let values = chassis_channels::axle(def, o, front, [usage(2 * axle), usage(2 * axle + 1)]);
        let start = AXLE_CHASSIS_START + axle * AXLE_CHASSIS_CHANNELS;
        out[start..start + AXLE_CHASSIS_CHANNELS].copy_from_slice(&values);
    }
    out[DRIVELINE_START..ASSIST_START].copy_from_slice(&chassis_channels::driveline(def, s, o));
    let assist = def.steering.feel.assist.map_or(0.0, |a| {
        a.assist_torque(hand_wheel_torque, s.velocity.length())
    });
    out[ASSIST_START..].copy_from_slice(&[assist, hand_wheel_torque - assist]);
}

/// The front tires' pull on the steering: each front wheel's moment about
/// its steering axis (the aligning moment, and the lateral force acting a
/// caster trail behind the axis), through the steering arms to the rack,
/// and through the steering ratio to the hand wheel (no friction; a power assist's
/// share is taken off after, in the `driver_torque` channel). Signed as the steer input (positive right), so in a left
/// turn, where the tires pull the wheels back towards straight, both are
/// positive: the self-centring a driver feels, which fades as the front
/// tires pass their peak slip and the aligning moment falls ("going
/// light").
fn steering_feel(def: &CarDefinition, o: &StepOutputs) -> (f64, f64) {
    let feel = &def.steering.feel;
    // About the vertical, positive turning the wheel left: the aligning
    // moment as it is, and a force to the left acting behind the axis
    // turns the wheel right.
    let kingpin: f64 = o.wheels[..2]
        .iter()
        .map(|w| kingpin_moment(feel, w.fy, w.mz))
        .sum();
    let rack_force = -kingpin / feel.steering_arm;
    // Virtual work: the hand wheel turns `ratio` times the road wheels.
    let ratio = def.steering.ratio();
    (rack_force, -kingpin / ratio)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_snake_case() {
        for (k, c) in CHANNELS.iter().enumerate() {
            assert!(
                c.name
                    .chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')
            );
            assert_eq!(channel_index(c.name), Some(k), "duplicate {}", c.name);
            assert!(!c.unit.is_empty() && !c.description.is_empty());
        }
        assert_eq!(CHANNELS[CAR_CHANNELS].name, "wheel_fl_speed");
        assert_eq!(
            CHANNELS[CAR_CHANNELS + 4 * WHEEL_CHANNELS - 1].name,
            "wheel_rr_mz"
        );
        assert_eq!(CHANNELS[BODY_START - 1].name, "steer_give");
        assert_eq!(CHANNELS[WHEEL_GRIP_START].name, "wheel_fl_locked");
        assert_eq!(CHANNELS[AXLE_START - 1].name, "wheel_rr_deflection_lat");
        assert_eq!(CHANNELS[WHEEL_CHASSIS_START - 1].name, "axle_rear_fy");
        assert_eq!(CHANNELS[WHEEL_CHASSIS_START].name, "wheel_fl_travel_rate");
        assert_eq!(
            CHANNELS[AXLE_CHASSIS_START - 1].name,
            "wheel_rr_brake_torque"
        );
        assert_eq!(CHANNELS[AXLE_CHASSIS_START].name, "axle_front_load");
        assert_eq!(CHANNELS[DRIVELINE_START - 1].name, "axle_rear_grip_usage");
        assert_eq!(CHANNELS[ASSIST_START - 1].name, "drive_torque");
        assert_eq!(CHANNELS[CHANNEL_COUNT - 1].name, "driver_torque");
    }
}
