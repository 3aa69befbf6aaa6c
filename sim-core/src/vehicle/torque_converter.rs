//! The torque converter a definition may put in place of the clutch (an
//! automatic box's fluid coupling), and the constants derived from it.

use serde::{Deserialize, Serialize};

use crate::Result;
use crate::error::check;
use crate::vehicle::definition::{DriveLayout, EngineDefinition, in_range, invalid};

/// A hydrodynamic torque converter between engine and gearbox, in place of
/// the clutch: the pump (engine side) absorbs a torque that grows with the
/// square of its speed, and the turbine (gearbox side) passes it on,
/// multiplied while the turbine runs well below the pump. It never locks
/// (a lock-up clutch is not modelled) and has no pedal; the car creeps in
/// gear at idle, as cars with automatic boxes do.
///
/// Its characteristic, with speed ratio ν = turbine / pump:
/// - pump torque k·ω_pump²·φ(ν), k set by the stall point (the engine's
///   full-throttle torque at `stall_rpm` with the turbine held), φ = 1 up
///   to the coupling point ν_c and falling linearly to 0 at ν = 1;
/// - torque ratio from `stall_torque_ratio` at ν = 0 linearly down to 1 at
///   ν_c, and 1 beyond;
/// - overrun (turbine faster, the car driving the engine): the same with
///   the roles swapped and ratio 1 (the stator freewheels).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorqueConverterDefinition {
    /// Engine speed at which the converter, its turbine held still,
    /// absorbs the engine's full-throttle torque: the stall speed, rpm.
    pub stall_rpm: f64,
    /// Turbine torque over pump torque with the turbine still.
    pub stall_torque_ratio: f64,
    /// Speed ratio (turbine over pump) from which the converter couples:
    /// no more multiplication, and the torque falls to nothing as the
    /// turbine reaches the pump's speed.
    pub coupling_speed_ratio: f64,
}

impl TorqueConverterDefinition {
    /// Refuses values outside their ranges, naming the field.
    pub(crate) fn validate(&self, engine: &EngineDefinition, drive: DriveLayout) -> Result<()> {
        if drive == DriveLayout::Awd {
            return Err(invalid(
                "torque_converter",
                "needs a front- or rear-drive layout (four-wheel drive through a converter is not modelled)",
            ));
        }
        check(
            "torque_converter.stall_rpm",
            self.stall_rpm,
            self.stall_rpm > engine.idle_rpm && self.stall_rpm < engine.limiter_rpm,
            "must lie between idle_rpm and limiter_rpm",
        )?;
        in_range(
            "torque_converter.stall_torque_ratio",
            self.stall_torque_ratio,
            1.0,
            4.0,
        )?;
        in_range(
            "torque_converter.coupling_speed_ratio",
            self.coupling_speed_ratio,
            0.5,
            0.98,
        )
    }
}

/// What the substep needs of a converter, derived once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ConverterConstants {
    /// k: pump torque per (rad/s)² below the coupling point, N·m·s².
    pub pump_coefficient: f64,
    pub stall_torque_ratio: f64,
    pub coupling_speed_ratio: f64,
}

impl ConverterConstants {
    /// `stall_torque` is the engine's full-throttle torque at the stall
    /// speed, N·m.
    pub(crate) fn new(def: &TorqueConverterDefinition, stall_torque: f64) -> Self {
        let stall_omega = def.stall_rpm * core::f64::consts::PI / 30.0;
        ConverterConstants {
            pump_coefficient: stall_torque / (stall_omega * stall_omega),
            stall_torque_ratio: def.stall_torque_ratio,
            coupling_speed_ratio: def.coupling_speed_ratio,
        }
    }
}
