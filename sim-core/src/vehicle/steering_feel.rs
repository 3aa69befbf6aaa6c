//! How the steering feels in the driver's hands: the geometry that turns
//! the front tires' forces into a torque on the hand wheel. It feeds the
//! `rack_force` and `hand_wheel_torque` telemetry channels only, never the
//! simulation. A power assist (optional) splits the hand-wheel torque
//! between the assist and the driver's hands.

use serde::{Deserialize, Serialize};

/// The steering as the driver's hands feel it: the geometry that turns
/// the front tires' forces into a torque on the hand wheel (the
/// `rack_force` and `hand_wheel_torque` channels, what a force-feedback
/// wheel plays).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SteeringFeel {
    /// Hand-wheel angle at full lock, rad: with `max_angle` it sets the
    /// steering ratio (450°, two and a half turns lock to lock, by
    /// default).
    pub hand_wheel_lock: f64,
    /// Caster trail: how far behind the steering axis the contact patch
    /// lies, m. The tire's lateral force acts through it.
    pub mechanical_trail: f64,
    /// Steering arm: from the steering axis to the track-rod joint, m.
    pub steering_arm: f64,
    /// Power assistance, if the car has it: absent, the driver holds the
    /// whole hand-wheel torque (the presets have none, so their
    /// definitions and every replay recorded with them stay as they are).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assist: Option<PowerAssist>,
}

/// Speed-sensitive power steering: the assist takes a share of the
/// hand-wheel torque that is largest when parking and fades with speed,
/// up to the most its motor or pump gives. What is left is what the
/// driver holds (the `driver_torque` channel, what a force-feedback wheel
/// plays); a hydraulic rack and an electric column behave alike at this
/// level of detail.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerAssist {
    /// Assist torque per unit of driver torque at standstill: 3 leaves
    /// the driver a quarter of the torque when parking.
    pub boost: f64,
    /// Speed at which the boost has fallen to half, m/s.
    pub fade_speed: f64,
    /// The most torque the assist adds at the hand wheel, N·m; past it the
    /// driver holds the rest (the steering goes heavy, as a real one does
    /// when its pump or motor saturates).
    pub max_torque: f64,
}

impl PowerAssist {
    /// The torque the assist takes of `hand_wheel` N·m at `speed` m/s,
    /// signed as `hand_wheel`: the driver holds `hand_wheel` less this.
    #[must_use]
    pub fn assist_torque(&self, hand_wheel: f64, speed: f64) -> f64 {
        let fade = speed / self.fade_speed;
        let boost = self.boost / (1.0 + fade * fade);
        // driver + assist = hand wheel, assist = boost × driver.
        let wanted = hand_wheel * boost / (1.0 + boost);
        wanted.clamp(-self.max_torque, self.max_torque)
    }
}

impl Default for SteeringFeel {
    fn default() -> Self {
        SteeringFeel {
            hand_wheel_lock: 450.0 * std::f64::consts::PI / 180.0,
            mechanical_trail: 0.02,
            steering_arm: 0.12,
            assist: None,
        }
    }
}
