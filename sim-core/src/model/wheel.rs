//! One wheel for one substep: transient slip (relaxation lengths), tire
//! forces (combined slip, with the surface's grip) and aligning moment,
//! rolling resistance, and the spin update.
//!
//! **Combined slip** is the resultant-slip (similarity) method of
//! `TireAtLoad::combined`, and the aligning moment comes from a pneumatic
//! trail that shrinks as the tire slides.
//!
//! **Transient slip.** The tire's contact patch carries a deflection state
//! per direction (Pacejka, *Tire and Vehicle Dynamics*, ch. 7, the
//! first-order relaxation model): along the heading
//! du/dt = (ωR − vx) − |vx|·u/σx, across it dv/dt = −vy − |vx|·v/σy, and
//! the tire works at slip κ' = u/σx and lateral slip tan α' = v/σy. At
//! speed these lag the kinematic slips by σ/|vx|; at rest the deflection is
//! a spring of stiffness C/σ, which is what holds a braked car on a grade
//! without creeping. Each update is backward Euler (unconditionally stable
//! for any substep). Below `LOW_SPEED` a damping force on the slip
//! velocity, fading out with speed, keeps the car from ringing on those
//! springs at rest.
//!
//! **Spin.** Wheel spin is the stiffest mode of a car: even at 1 kHz an explicit
//! update of a light wheel against the tire's slip stiffness diverges. The
//! spin is therefore integrated semi-implicitly, with the tire force
//! linearised in ω through the deflection update (backward Euler on the
//! wheel, explicit on the body), which is stable for any substep. Brake and
//! rolling-resistance torques are friction: they may stop the wheel but
//! never reverse it.

use crate::model::drivetrain::WheelTorques;
use crate::state::car_state::CarState;
use crate::surface::{Surface, SurfaceTable};
use crate::vehicle::car_params::{CarParams, WheelConstants};

/// Below this speed (m/s) the tire's low-speed damping fades in.
const LOW_SPEED: f64 = 3.0;

/// The wheel's inputs for one substep.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WheelContact<'a> {
    /// What the definition fixes for this wheel.
    pub constants: &'a WheelConstants,
    pub surface: &'a Surface,
    /// Normal load, N (0 when airborne).
    pub load: f64,
    /// Contact-patch ground velocity along the wheel's heading, m/s.
    pub vx: f64,
    /// Contact-patch ground velocity to the wheel's left, m/s.
    pub vy: f64,
    /// Spin inertia with what turns with the wheel this substep, kg·m².
    pub inertia: f64,
    pub drive_torque: f64,
    pub brake_torque: f64,
    /// Slip-speed floor for the kinematic slip the assists read, m/s.
    pub slip_floor: f64,
    /// Contact-patch deflection at the start of the substep (along, across),
    /// m.
    pub deflection: [f64; 2],
}

impl<'a> WheelContact<'a> {
    /// Wheel `i`'s contact for this substep from the car and the
    /// drivetrain's torques; the vehicle model fills in `load`, `vx` and
    /// `vy` from its own kinematics.
    pub(crate) fn for_wheel(
        params: &'a CarParams,
        surfaces: &'a SurfaceTable,
        state: &CarState,
        torques: &WheelTorques,
        i: usize,
        slip_floor: f64,
    ) -> Self {
        let constants = &params.wheel_constants[i];
        WheelContact {
            constants,
            surface: surfaces.get_checked(state.surfaces[i]),
            load: 0.0,
            vx: 0.0,
            vy: 0.0,
            inertia: constants.inertia + torques.extra_inertia[i],
            drive_torque: torques.drive[i],
            brake_torque: torques.brake[i],
            slip_floor,
            deflection: state.tire_deflection[i],
        }
    }
}

/// What the substep produced for this wheel.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct WheelResult {
    pub omega: f64,
    /// Force on the car along the wheel heading, N.
    pub fx: f64,
    /// Force on the car to the wheel's left, N.
    pub fy: f64,
    /// The transient slip ratio κ' the tire worked at.
    pub slip_ratio: f64,
    /// The transient lateral slip tan α' the tire worked at.
    pub lateral_slip: f64,
    /// Fraction of the brake torque ABS released (0 … 1).
    pub abs_release: f64,
    /// Fraction of the drive torque traction control cut (0 … 1).
    pub tc_cut: f64,
    /// Contact-patch deflection at the end of the substep, m.
    pub deflection: [f64; 2],
    /// Aligning moment about the vertical axis, N·m (positive turns the
    /// wheel left).
    pub mz: f64,
}

/// Advances a lone wheel's spin and tire deflection by `h` and returns the
/// forces on the car: the wheel's slips, its tire at its own load, then the
/// spin update, with no differential acting. The vehicle models run these
/// parts themselves so the axles' differentials can act between them.
#[cfg(test)]
pub(crate) fn step_wheel(c: &WheelContact<'_>, omega: f64, h: f64) -> WheelResult {
    let slip = WheelSlip::new(c, omega, h);
    let force = tire_force(c, &slip);
    let (new_omega, spun) = spin(c, &slip, &force, omega, h);
    spun.at_omega(c, &slip, new_omega, h)
}

/// The wheel's tire at its own load and slips.
#[inline(always)]
pub(crate) fn tire_force(c: &WheelContact<'_>, slip: &WheelSlip) -> TireForce {
    tire_forces_at(c.constants, c.load, slip.slip_ratio, slip.lateral_slip)
}

/// The combined-slip forces of a wheel's tire at load `fz`, slip ratio
/// `kappa` and lateral slip `alpha`, on the lighter symmetric curves when
/// the tire has no term of the full ones (the same bits either way).
#[inline(always)]
pub(crate) fn tire_forces_at(k: &WheelConstants, fz: f64, kappa: f64, alpha: f64) -> TireForce {
    let ((fx, fy, dfx_dkappa), peak_x, peak_y) = if k.full_curves {
        let tire = k.tire.at_load(fz);
        let forces = tire.combined_at(kappa, alpha, &k.peaks);
        (forces, tire.peak_x, tire.peak_y)
    } else {
        let tire = k.tire.symmetric_at_load(fz);
        let forces = tire.combined_at(kappa, alpha, &k.peaks);
        (forces, tire.peak_x, tire.peak_y)
    };
    TireForce {
        fx,
        fy,
        dfx_dkappa,
        peak_x,
        peak_y,
    }
}

/// The slips a wheel works at this substep, from its contact-patch
/// deflection (transient slip) before the tire is evaluated.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WheelSlip {
    /// Backward Euler's factor on the longitudinal deflection update.
    gain_x: f64,
    /// Lateral deflection at the end of the substep, m.
    lateral_deflection: f64,
    /// The transient slip ratio κ' the tire works at.
    pub slip_ratio: f64,
    /// The transient lateral slip tan α' the tire works at.
    pub lateral_slip: f64,
}

impl WheelSlip {
    #[inline(always)]
    pub(crate) fn new(c: &WheelContact<'_>, omega: f64, h: f64) -> Self {
        let k = c.constants;
        let [inv_sigma_x, inv_sigma_y] = k.inv_relaxation;
        let speed = c.vx.abs();
        // Backward Euler of du/dt = s − |vx|·u/σ: u' = (u + h·s)·gain.
        let gain_x = 1.0 / (1.0 + h * speed * inv_sigma_x);
        let gain_y = 1.0 / (1.0 + h * speed * inv_sigma_y);
        let lateral_deflection =
            clamp((c.deflection[1] - h * c.vy) * gain_y, k.deflection_limit[1]);
        let mut slip = WheelSlip {
            gain_x,
            lateral_deflection,
            slip_ratio: 0.0,
            // The lateral slip tan α' the tire curve takes (no arc
            // tangent: see the tire module's conventions).
            lateral_slip: lateral_deflection * inv_sigma_y,
        };
        slip.slip_ratio = slip.deflection_x(c, omega, h) * inv_sigma_x;
        slip
    }

    /// The longitudinal deflection at the end of the substep if the wheel
    /// spins at `spin`.
    #[inline(always)]
    fn deflection_x(&self, c: &WheelContact<'_>, spin: f64, h: f64) -> f64 {
        let k = c.constants;
        clamp(
            (c.deflection[0] + h * (spin * k.radius - c.vx)) * self.gain_x,
            k.deflection_limit[0],
        )
    }
}

/// The tire's side of one wheel's substep, before the surface's grip:
/// forces at the wheel's slips, the slope the spin update linearises, and
/// the peaks the forces are held to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TireForce {
    pub fx: f64,
    pub fy: f64,
    /// ∂Fx/∂κ at the wheel's slip.
    pub dfx_dkappa: f64,
    pub peak_x: f64,
    pub peak_y: f64,
}

/// The spin update of one wheel given its slips and its tire's forces:
/// low-speed damping, aligning moment, brake and rolling friction, ABS and
/// traction control. Returns the new spin and what fixes the result at it
/// (or at the speed a differential settles on instead).
#[inline(always)]
pub(crate) fn spin(
    c: &WheelContact<'_>,
    slip: &WheelSlip,
    tire: &TireForce,
    omega: f64,
    h: f64,
) -> (f64, Spun) {
    let k = c.constants;
    let inv_sigma_x = k.inv_relaxation[0];
    let radius = k.radius;
    let speed = c.vx.abs();
    let gain_x = slip.gain_x;
    // The kinematic slip, for the assists (they act on what the wheel
    // does now, not on the lagging tire).
    let denom = speed.max(c.slip_floor);
    let (slip_ratio, lateral_slip) = (slip.slip_ratio, slip.lateral_slip);
    let grip = c.surface.grip;
    let (fx_tire, fy_tire, dfx_dkappa) = (tire.fx, tire.fy, tire.dfx_dkappa);
    let (peak_x, peak_y) = (tire.peak_x * grip, tire.peak_y * grip);
    // Low-speed damping on the slip velocities, fading out by LOW_SPEED.
    let fade = if c.load > 0.0 {
        (1.0 - speed * (1.0 / LOW_SPEED)).max(0.0)
    } else {
        0.0
    };
    let (damp_x, damp_y) = (k.damping[0] * fade, k.damping[1] * fade);
    let fx = fx_tire * grip + damp_x * (omega * radius - c.vx);
    let fy = clamp(fy_tire * grip - damp_y * c.vy, peak_y);
    // dFx/dω through the deflection update, plus the damping.
    let dfx_domega =
        (dfx_dkappa * grip).max(0.0) * h * radius * gain_x * inv_sigma_x + damp_x * radius;
    // Aligning moment: the lateral force acts a pneumatic trail behind the
    // contact centre; the trail shrinks to nothing as the tire slides.
    let trail = k.trail * (1.0 - lateral_slip.abs() * k.trail_fade).max(0.0);
    let mz = -trail * fy_tire * grip;

    let rolling = c.surface.rolling_resistance * c.load.max(0.0) * radius;
    let friction = c.brake_torque + rolling;
    // One division serves every torque-to-spin conversion below.
    let h_over_inertia = h / (c.inertia + h * radius * dfx_domega);
    let free = omega + (c.drive_torque - radius * fx) * h_over_inertia;
    let stop = friction * h_over_inertia;
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
    if let Some(limit) = k.abs_slip
        && c.brake_torque > 0.0
        && c.vx != 0.0
    {
        // The spin at which |slip| equals the limit, on the braking side.
        let edge = (c.vx - limit * denom * c.vx.signum()) * k.inv_radius;
        let rolling_stop = rolling * h_over_inertia;
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
            let given_back = (relaxed - new_omega).abs() / h_over_inertia;
            abs_release = (given_back / c.brake_torque).min(1.0);
            new_omega = relaxed;
        }
    }
    if let Some(limit) = k.tc_slip
        && c.drive_torque != 0.0
    {
        let edge = (c.vx + limit * denom * c.drive_torque.signum()) * k.inv_radius;
        let undriven = new_omega - c.drive_torque * h_over_inertia;
        let held = if c.drive_torque > 0.0 {
            new_omega.min(edge.max(undriven))
        } else {
            new_omega.max(edge.min(undriven))
        };
        if held != new_omega {
            let cut = (new_omega - held).abs() / h_over_inertia;
            tc_cut = (cut / c.drive_torque.abs()).min(1.0);
            new_omega = held;
        }
    }
    let spun = Spun {
        start_omega: omega,
        fx,
        dfx_domega,
        peak_x,
        h_over_inertia,
        result: WheelResult {
            omega: 0.0,
            fx: 0.0,
            fy,
            slip_ratio,
            lateral_slip,
            abs_release,
            tc_cut,
            deflection: [0.0, slip.lateral_deflection + 0.0],
            mz,
        },
    };
    (new_omega, spun)
}

/// A wheel's spin update before its final speed is fixed: what a
/// differential coupling the wheel to another needs to settle both speeds
/// at once, with the tire's force following the speed it settles on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spun {
    start_omega: f64,
    /// Longitudinal force at the starting spin, N.
    fx: f64,
    /// dFx/dω of the linearised tire, N·s.
    dfx_domega: f64,
    /// The longitudinal force's limit, N.
    peak_x: f64,
    /// h over the wheel's effective inertia (its own, what turns with it
    /// and the tire's stiffness against spin): the spin change per unit of
    /// torque impulse.
    pub h_over_inertia: f64,
    /// Everything but the speed-dependent fields.
    result: WheelResult,
}

impl Spun {
    /// The wheel's result when it ends the substep spinning at `omega`.
    #[inline(always)]
    pub(crate) fn at_omega(
        &self,
        c: &WheelContact<'_>,
        slip: &WheelSlip,
        omega: f64,
        h: f64,
    ) -> WheelResult {
        let mut result = self.result;
        result.omega = omega + 0.0;
        result.fx = clamp(
            self.fx + self.dfx_domega * (omega - self.start_omega),
            self.peak_x,
        );
        result.deflection[0] = slip.deflection_x(c, omega, h) + 0.0;
        result
    }
}

/// `x` limited to ±`limit` (`limit` ≥ 0). Unlike `f64::clamp` there is no
/// check that the bounds are ordered on the hot path; a NaN passes through
/// as it does there.
fn clamp(x: f64, limit: f64) -> f64 {
    if x > limit {
        limit
    } else if x < -limit {
        -limit
    } else {
        x
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
    use crate::vehicle::tire::PeakSlips;

    /// A 0.3 m wheel of 1 kg·m² on the preset's front tire, without
    /// low-speed damping or assists.
    fn constants(preset: &crate::CarDefinition) -> WheelConstants {
        let mut k = CarParams::new(preset).wheel_constants[0].clone();
        k.radius = 0.3;
        k.inv_radius = 1.0 / 0.3;
        k.inertia = 1.0;
        k.damping = [0.0; 2];
        k.abs_slip = None;
        k.tc_slip = None;
        k.peaks = PeakSlips::new(0.1, 0.15);
        k
    }

    fn contact<'a>(k: &'a WheelConstants, s: &'a Surface) -> WheelContact<'a> {
        WheelContact {
            constants: k,
            surface: s,
            load: 3500.0,
            vx: 0.0,
            vy: 0.0,
            inertia: k.inertia,
            drive_torque: 0.0,
            brake_torque: 0.0,
            slip_floor: 0.5,
            deflection: [0.0; 2],
        }
    }

    #[test]
    fn braked_wheel_at_rest_stays_exactly_at_rest() {
        let presets = crate::vehicle::presets::preset("fwd_hatchback").unwrap();
        let table = SurfaceTable::presets();
        let k = constants(&presets);
        let mut c = contact(&k, &table.surfaces()[0]);
        c.brake_torque = 500.0;
        c.drive_torque = 100.0;
        let r = step_wheel(&c, 0.0, 0.001);
        assert_eq!(r.omega, 0.0);
        assert_eq!(r.fx, 0.0);
    }

    #[test]
    fn spin_update_is_stable_with_huge_substeps() {
        let presets = crate::vehicle::presets::preset("fwd_hatchback").unwrap();
        let table = SurfaceTable::presets();
        let k = constants(&presets);
        let mut c = contact(&k, &table.surfaces()[0]);
        c.vx = 20.0;
        // Start far from free rolling and take a large step: the implicit
        // update must land near free rolling, not overshoot wildly.
        let mut omega = 0.0;
        for _ in 0..50 {
            let r = step_wheel(&c, omega, 0.02);
            omega = r.omega;
            c.deflection = r.deflection;
        }
        assert!((omega * 0.3 - 20.0).abs() < 0.1, "{omega}");
    }
}
