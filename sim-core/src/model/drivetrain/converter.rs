//! The torque converter's characteristic (`TorqueConverterDefinition`):
//! the torques on its pump and turbine at their speeds, and how fast they
//! change with those speeds. Near equal speeds the turbine's torque swings
//! by hundreds of N·m per rad/s, which through first gear's ratio is far
//! too stiff for an explicit step against a spinning wheel's inertia; the
//! slopes let the wheels' and the engine's updates take the converter
//! implicitly.

use crate::vehicle::torque_converter::ConverterConstants;

/// The converter's torques for one substep, N·m, and their slopes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ConverterTorques {
    /// Load on the engine (positive: the engine drives the converter).
    pub pump: f64,
    /// Drive into the gearbox (negative: the car drives the engine).
    pub turbine: f64,
    /// ∂pump/∂(pump speed), N·m per rad/s, never negative.
    pub pump_slope: f64,
    /// ∂turbine/∂(turbine speed), N·m per rad/s, never positive.
    pub turbine_slope: f64,
}

impl ConverterTorques {
    const NONE: ConverterTorques = ConverterTorques {
        pump: 0.0,
        turbine: 0.0,
        pump_slope: 0.0,
        turbine_slope: 0.0,
    };
}

/// The torques with the pump (engine) at `pump` and the turbine (gearbox
/// input) at `turbine` rad/s. A turbine turning backwards (rolling back in
/// a forward gear) counts as held: the converter works at its stall ratio,
/// and its torque does not change with the turbine's speed there (slope
/// 0), as it does not with a pump turning backwards.
pub(crate) fn torques(c: &ConverterConstants, pump: f64, turbine: f64) -> ConverterTorques {
    let mut t = characteristic(c, pump.max(0.0), turbine.max(0.0));
    if turbine < 0.0 {
        t.turbine_slope = 0.0;
    }
    if pump < 0.0 {
        t.pump_slope = 0.0;
    }
    t
}

/// [`torques`] with both speeds at least 0.
fn characteristic(c: &ConverterConstants, pump: f64, turbine: f64) -> ConverterTorques {
    let k = c.pump_coefficient;
    let coupling = c.coupling_speed_ratio;
    // Past the coupling point the torque falls linearly to 0 at equal
    // speeds: k·(fast² − fast·slow)/(1 − ν_c).
    let per_slip = k / (1.0 - coupling);
    if turbine <= pump {
        if pump == 0.0 {
            return ConverterTorques::NONE;
        }
        let ratio = turbine / pump;
        if ratio <= coupling {
            let absorbed = k * pump * pump;
            let multiplication =
                c.stall_torque_ratio + (1.0 - c.stall_torque_ratio) * ratio / coupling;
            ConverterTorques {
                pump: absorbed,
                turbine: absorbed * multiplication,
                pump_slope: 2.0 * k * pump,
                turbine_slope: absorbed * (1.0 - c.stall_torque_ratio) / (coupling * pump),
            }
        } else {
            let absorbed = per_slip * pump * (pump - turbine);
            ConverterTorques {
                pump: absorbed,
                turbine: absorbed,
                pump_slope: per_slip * (2.0 * pump - turbine),
                turbine_slope: -per_slip * pump,
            }
        }
    } else if pump <= coupling * turbine {
        // Overrun: the turbine drives the pump, with no multiplication.
        let passed = -k * turbine * turbine;
        ConverterTorques {
            pump: passed,
            turbine: passed,
            pump_slope: 0.0,
            turbine_slope: -2.0 * k * turbine,
        }
    } else {
        let passed = -per_slip * turbine * (turbine - pump);
        ConverterTorques {
            pump: passed,
            turbine: passed,
            pump_slope: per_slip * turbine,
            turbine_slope: -per_slip * (2.0 * turbine - pump),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stall 2000 rpm at 300 N·m, ratio 2, coupling from 0.85.
    fn converter() -> ConverterConstants {
        let stall = 2000.0 * core::f64::consts::PI / 30.0;
        ConverterConstants {
            pump_coefficient: 300.0 / (stall * stall),
            stall_torque_ratio: 2.0,
            coupling_speed_ratio: 0.85,
        }
    }

    #[test]
    fn at_stall_it_absorbs_the_stall_torque_and_doubles_it() {
        let stall = 2000.0 * core::f64::consts::PI / 30.0;
        let t = torques(&converter(), stall, 0.0);
        assert!((t.pump - 300.0).abs() < 1e-9, "{t:?}");
        assert!((t.turbine - 600.0).abs() < 1e-9, "{t:?}");
        // Rolling back in gear is a held turbine: the same torques, which
        // do not change with its speed there.
        let back = torques(&converter(), stall, -5.0);
        assert_eq!((back.pump, back.turbine), (t.pump, t.turbine));
        assert_eq!(back.turbine_slope, 0.0);
        // Half the speed, a quarter of the torque.
        let half = torques(&converter(), stall / 2.0, 0.0);
        assert!((half.pump - 75.0).abs() < 1e-9, "{half:?}");
    }

    #[test]
    fn multiplication_ends_at_the_coupling_point_and_the_torque_at_equal_speeds() {
        let c = converter();
        let pump = 200.0;
        let at = |ratio: f64| torques(&c, pump, ratio * pump);
        let full = c.pump_coefficient * pump * pump;
        let mid = at(0.425);
        assert!((mid.turbine / mid.pump - 1.5).abs() < 1e-12, "{mid:?}");
        assert!((at(0.85).pump - full).abs() < 1e-9);
        assert!((at(0.85).turbine - full).abs() < 1e-9);
        let near = at(0.925);
        assert!((near.pump - full / 2.0).abs() < 1e-9, "{near:?}");
        assert_eq!(near.turbine, near.pump);
        assert_eq!(at(1.0).pump, 0.0);
        // Continuous through equal speeds into overrun, and negative there.
        let over = torques(&c, pump, pump * 1.01);
        assert!(over.pump < 0.0 && over.pump > -0.1 * full, "{over:?}");
        assert_eq!(over.turbine, over.pump);
        // A stopped engine passes nothing forward.
        assert_eq!(torques(&c, 0.0, 0.0).turbine, 0.0);
    }

    #[test]
    fn the_slopes_are_the_characteristic_s_derivatives() {
        let c = converter();
        let step = 1e-4;
        // Every region: multiplying, coupling, overrun near and far.
        for (pump, turbine) in [
            (200.0, 30.0),
            (200.0, 160.0),
            (200.0, 180.0),
            (200.0, 195.0),
            (180.0, 200.0),
            (100.0, 200.0),
            // Rolling back in a forward gear: a held turbine, whose torque
            // does not follow its (negative) speed.
            (200.0, -30.0),
        ] {
            let t = torques(&c, pump, turbine);
            let d_pump = (torques(&c, pump + step, turbine).pump
                - torques(&c, pump - step, turbine).pump)
                / (2.0 * step);
            let d_turbine = (torques(&c, pump, turbine + step).turbine
                - torques(&c, pump, turbine - step).turbine)
                / (2.0 * step);
            assert!(
                (t.pump_slope - d_pump).abs() < 1e-6,
                "{pump}, {turbine}: {t:?} {d_pump}"
            );
            assert!(
                (t.turbine_slope - d_turbine).abs() < 1e-6,
                "{pump}, {turbine}: {t:?} {d_turbine}"
            );
            assert!(t.pump_slope >= 0.0 && t.turbine_slope <= 0.0, "{t:?}");
        }
    }
}
