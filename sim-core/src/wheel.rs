//! One wheel for one substep: slip, tyre forces (with the surface and a
//! friction ellipse), rolling resistance, and the spin update.
//!
//! Wheel spin is the stiffest mode of a car: at 1 kHz an explicit update of
//! a light wheel against the tyre's slip stiffness diverges. The spin is
//! therefore integrated semi-implicitly, with the tyre force linearised in
//! ω (backward Euler on the wheel, explicit on the body), which is stable
//! for any substep. Brake and rolling-resistance torques are friction: they
//! may stop the wheel but never reverse it, so a braked car at rest neither
//! creeps nor jitters in its wheels.

use crate::surface::Surface;
use crate::tire::TireParameters;

/// The wheel's inputs for one substep.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WheelContact<'a> {
    pub tire: &'a TireParameters,
    pub surface: &'a Surface,
    /// Normal load, N (0 when airborne).
    pub load: f64,
    /// Contact-patch ground velocity along the wheel's heading, m/s.
    pub vx: f64,
    /// Contact-patch ground velocity to the wheel's left, m/s.
    pub vy: f64,
    pub radius: f64,
    pub inertia: f64,
    pub drive_torque: f64,
    pub brake_torque: f64,
    /// Slip-speed floor for this substep, m/s.
    pub slip_floor: f64,
    /// ABS: the slip ratio magnitude braking may not exceed (None: off).
    pub abs_slip: Option<f64>,
    /// Traction control: the slip ratio driving may not exceed (None: off).
    pub tc_slip: Option<f64>,
}

/// What the substep produced for this wheel.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct WheelResult {
    pub omega: f64,
    /// Force on the car along the wheel heading, N.
    pub fx: f64,
    /// Force on the car to the wheel's left, N.
    pub fy: f64,
    pub slip_ratio: f64,
    pub slip_angle: f64,
    /// Fraction of the brake torque ABS released (0 … 1).
    pub abs_release: f64,
    /// Fraction of the drive torque traction control cut (0 … 1).
    pub tc_cut: f64,
}

/// Advances the wheel's spin by `h` and returns the forces on the car.
pub(crate) fn step_wheel(c: &WheelContact<'_>, omega: f64, h: f64) -> WheelResult {
    let denom = c.vx.abs().max(c.slip_floor);
    let slip_ratio = (omega * c.radius - c.vx) / denom;
    let slip_angle = -libm::atan(c.vy / denom);
    let grip = c.surface.grip;
    let tire = c.tire.at_load(c.load);
    let (fx_pure, dfx_dkappa) = tire.longitudinal(slip_ratio);
    let fy_pure = tire.lateral(slip_angle);
    let (peak_x, peak_y) = (tire.peak_x, tire.peak_y);

    // Friction ellipse: pure-slip forces are each below their peak, but
    // together they may not exceed it.
    let usage = if c.load > 0.0 {
        let ux = fx_pure / peak_x;
        let uy = fy_pure / peak_y;
        (ux * ux + uy * uy).sqrt()
    } else {
        0.0
    };
    let scale = grip * if usage > 1.0 { 1.0 / usage } else { 1.0 };
    let fx = fx_pure * scale;
    let fy = fy_pure * scale;
    let dfx_domega = (dfx_dkappa * scale).max(0.0) * c.radius / denom;

    let rolling = c.surface.rolling_resistance * c.load.max(0.0) * c.radius;
    let friction = c.brake_torque + rolling;
    let effective_inertia = c.inertia + h * c.radius * dfx_domega;
    let free = omega + h * (c.drive_torque - c.radius * fx) / effective_inertia;
    let stop = h * friction / effective_inertia;
    let mut new_omega = if free.abs() <= stop {
        0.0
    } else {
        free - stop * free.signum()
    };
    let (mut abs_release, mut tc_cut) = (0.0, 0.0);
    // The assists act on the spin update: ABS gives back brake torque and
    // traction control takes away drive torque, each only as much as keeps
    // the slip at its limit. They can only reduce the torque the driver
    // asked for, so they never spin a wheel beyond what no torque would.
    if let Some(limit) = c.abs_slip
        && c.brake_torque > 0.0
        && c.vx != 0.0
    {
        // The spin at which |slip| equals the limit, on the braking side.
        let edge = (c.vx - limit * denom * c.vx.signum()) / c.radius;
        let rolling_stop = h * rolling / effective_inertia;
        let unbraked = if free.abs() <= rolling_stop {
            0.0
        } else {
            free - rolling_stop * free.signum()
        };
        let relaxed = if c.vx > 0.0 {
            new_omega.max(edge.min(unbraked))
        } else {
            new_omega.min(edge.max(unbraked))
        };
        if relaxed != new_omega {
            // Brake torque given back, as a share of the pedal's.
            let given_back = (relaxed - new_omega).abs() * effective_inertia / h;
            abs_release = (given_back / c.brake_torque).min(1.0);
            new_omega = relaxed;
        }
    }
    if let Some(limit) = c.tc_slip
        && c.drive_torque != 0.0
    {
        let edge = (c.vx + limit * denom * c.drive_torque.signum()) / c.radius;
        let undriven = new_omega - h * c.drive_torque / effective_inertia;
        let held = if c.drive_torque > 0.0 {
            new_omega.min(edge.max(undriven))
        } else {
            new_omega.max(edge.min(undriven))
        };
        if held != new_omega {
            let cut = (new_omega - held).abs() * effective_inertia / h;
            tc_cut = (cut / c.drive_torque.abs()).min(1.0);
            new_omega = held;
        }
    }
    let limit = peak_x * grip;
    let fx_applied = (fx + dfx_domega * (new_omega - omega)).clamp(-limit, limit);
    WheelResult {
        omega: new_omega + 0.0,
        fx: fx_applied,
        fy,
        slip_ratio,
        slip_angle,
        abs_release,
        tc_cut,
    }
}

/// Ploughing drag on the contact patch, as (along heading, to the left), N.
pub(crate) fn ploughing_force(c: &WheelContact<'_>) -> (f64, f64) {
    let k = c.surface.ploughing * c.load.max(0.0);
    (-k * c.vx, -k * c.vy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::SurfaceTable;

    fn contact<'a>(t: &'a TireParameters, s: &'a Surface) -> WheelContact<'a> {
        WheelContact {
            tire: t,
            surface: s,
            load: 3500.0,
            vx: 0.0,
            vy: 0.0,
            radius: 0.3,
            inertia: 1.0,
            drive_torque: 0.0,
            brake_torque: 0.0,
            slip_floor: 0.5,
            abs_slip: None,
            tc_slip: None,
        }
    }

    #[test]
    fn braked_wheel_at_rest_stays_exactly_at_rest() {
        let presets = crate::presets::preset("fwd_hatchback").unwrap();
        let table = SurfaceTable::presets();
        let mut c = contact(&presets.tires.front, &table.surfaces()[0]);
        c.brake_torque = 500.0;
        c.drive_torque = 100.0;
        let r = step_wheel(&c, 0.0, 0.001);
        assert_eq!(r.omega, 0.0);
        assert_eq!(r.fx, 0.0);
    }

    #[test]
    fn spin_update_is_stable_with_huge_substeps() {
        let presets = crate::presets::preset("fwd_hatchback").unwrap();
        let table = SurfaceTable::presets();
        let mut c = contact(&presets.tires.front, &table.surfaces()[0]);
        c.vx = 20.0;
        // Start far from free rolling and take a large step: the implicit
        // update must land near free rolling, not overshoot wildly.
        let mut omega = 0.0;
        for _ in 0..50 {
            omega = step_wheel(&c, omega, 0.02).omega;
        }
        assert!((omega * 0.3 - 20.0).abs() < 0.1, "{omega}");
    }
}
