//! Typed identifiers of the telemetry channels a game reads most (its HUD,
//! sound and effects), beside their names: each is checked against
//! [`CHANNELS`](crate::CHANNELS) when the crate builds, so a misspelt
//! channel cannot reach a game. Any other channel: [`ChannelId::of`] in a
//! constant of the game's own, or [`ChannelId::named`] for a name read at
//! run time.

use crate::world::telemetry::ChannelId;

/// Speed over ground, m/s.
pub const SPEED: ChannelId = ChannelId::of("speed");
/// Engine speed, rpm.
pub const ENGINE_RPM: ChannelId = ChannelId::of("engine_rpm");
/// Engaged gear: -1 reverse, 0 neutral.
pub const GEAR: ChannelId = ChannelId::of("gear");
/// A gear change this step (the new gear less the old), else 0.
pub const SHIFT: ChannelId = ChannelId::of("shift");
/// 1 while the engine is at its rev limiter.
pub const REV_LIMITER: ChannelId = ChannelId::of("rev_limiter");
/// Engine output power, W.
pub const ENGINE_POWER: ChannelId = ChannelId::of("engine_power");
/// Steer input, -1 full left … +1 full right.
pub const INPUT_STEER: ChannelId = ChannelId::of("input_steer");
/// Throttle pedal, 0 … 1.
pub const INPUT_THROTTLE: ChannelId = ChannelId::of("input_throttle");
/// Brake pedal, 0 … 1.
pub const INPUT_BRAKE: ChannelId = ChannelId::of("input_brake");
/// Handbrake lever, 0 … 1.
pub const INPUT_HANDBRAKE: ChannelId = ChannelId::of("input_handbrake");
/// Mean front road-wheel angle, rad, positive left.
pub const STEER_ANGLE: ChannelId = ChannelId::of("steer_angle");
/// Yaw rate, rad/s, positive left.
pub const YAW_RATE: ChannelId = ChannelId::of("yaw_rate");
/// Angle of the velocity from the body's x axis, rad.
pub const BODY_SLIP: ChannelId = ChannelId::of("body_slip");
/// Lateral acceleration along the body's y axis, m/s².
pub const LATERAL_ACCELERATION: ChannelId = ChannelId::of("ay");
/// Longitudinal acceleration along the body's x axis, m/s².
pub const LONGITUDINAL_ACCELERATION: ChannelId = ChannelId::of("ax");
/// The torque the driver holds on the hand wheel, N·m: what a
/// force-feedback wheel plays.
pub const DRIVER_TORQUE: ChannelId = ChannelId::of("driver_torque");
/// Share of brake torque ABS released on any wheel.
pub const ABS_ACTIVE: ChannelId = ChannelId::of("abs_active");
/// Share of drive torque traction control cut on any wheel.
pub const TC_ACTIVE: ChannelId = ChannelId::of("tc_active");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_constant_names_its_channel() {
        for (id, name) in [
            (SPEED, "speed"),
            (GEAR, "gear"),
            (LATERAL_ACCELERATION, "ay"),
        ] {
            assert_eq!(id.channel().name, name);
            assert_eq!(Some(id), ChannelId::named(name));
            assert_eq!(Some(id.index()), crate::channel_index(name));
        }
        assert_eq!(ChannelId::named("sped"), None);
    }
}
