//! The steering as a car definition gives it: the road wheels' lock and
//! Ackermann geometry, the hand wheel's side (`SteeringFeel`), and the
//! optional compliance that lets the road wheels give way under the
//! steering torque.

use serde::{Deserialize, Serialize};

use crate::Result;
use crate::vehicle::definition::{in_range, is_default};
use crate::vehicle::steering_feel::SteeringFeel;

/// Steering geometry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SteeringDefinition {
    /// Road-wheel angle of the axle centre line at full lock, rad.
    pub max_angle: f64,
    /// 0 = parallel steer, 1 = full Ackermann geometry.
    pub ackermann: f64,
    /// What the driver's hands feel; absent means the defaults. Its
    /// hand-wheel lock sets the steering ratio. Telemetry only unless
    /// `compliance` is set: then its caster trail shapes the torque the
    /// road wheels give way under.
    #[serde(default, skip_serializing_if = "is_default")]
    pub feel: SteeringFeel,
    /// How far the road wheels give way under the steering torque (the
    /// column, rack mounts and tie rods are springs); absent: a rigid
    /// steering, the road wheels at exactly the angle the hand wheel asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compliance: Option<SteeringCompliance>,
}

/// Compliance steer: the front wheels' steering torque about their
/// steering axes (the tires' aligning moments, and their lateral forces
/// acting the caster trail behind the axes) winds the steering up, and the
/// road wheels give way by that torque over the stiffness, reaching it
/// with a first-order lag. In a turn the torque pulls the wheels back
/// towards straight, so the car needs more hand wheel for the same
/// cornering: the understeer a real car's steering adds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SteeringCompliance {
    /// Steering torque of both front wheels together per radian of
    /// road-wheel angle given way, N·m/rad.
    pub stiffness: f64,
    /// Time constant of the give, s (the column's damping and friction);
    /// 0 gives way within the substep's resolution.
    pub lag: f64,
}

impl SteeringDefinition {
    /// Refuses values outside their ranges, naming the field.
    pub(crate) fn validate(&self) -> Result<()> {
        in_range("steering.max_angle", self.max_angle, 0.05, 1.2)?;
        in_range("steering.ackermann", self.ackermann, 0.0, 1.0)?;
        let feel = &self.feel;
        in_range(
            "steering.feel.hand_wheel_lock",
            feel.hand_wheel_lock,
            0.1,
            30.0,
        )?;
        in_range(
            "steering.feel.mechanical_trail",
            feel.mechanical_trail,
            -0.1,
            0.2,
        )?;
        in_range("steering.feel.steering_arm", feel.steering_arm, 0.02, 0.5)?;
        if let Some(assist) = &feel.assist {
            in_range("steering.feel.assist.boost", assist.boost, 0.0, 20.0)?;
            in_range(
                "steering.feel.assist.fade_speed",
                assist.fade_speed,
                1.0,
                100.0,
            )?;
            in_range(
                "steering.feel.assist.max_torque",
                assist.max_torque,
                0.0,
                100.0,
            )?;
        }
        if let Some(compliance) = &self.compliance {
            in_range(
                "steering.compliance.stiffness",
                compliance.stiffness,
                100.0,
                1.0e7,
            )?;
            in_range("steering.compliance.lag", compliance.lag, 0.0, 1.0)?;
        }
        Ok(())
    }

    /// Hand-wheel angle per road-wheel angle (from the hand wheel's lock
    /// and the road wheels' `max_angle`).
    #[must_use]
    pub fn ratio(&self) -> f64 {
        self.feel.hand_wheel_lock / self.max_angle
    }

    /// The steer input (positive right, in [−1, 1]) that turns the hand
    /// wheel to `hand_wheel` rad (positive left, as road-wheel angles),
    /// clamped at the locks.
    #[must_use]
    pub fn input_for_hand_wheel(&self, hand_wheel: f64) -> f64 {
        (-hand_wheel / self.feel.hand_wheel_lock).clamp(-1.0, 1.0)
    }
}
