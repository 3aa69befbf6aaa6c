//! Engine → clutch (or torque converter) → gearbox → differentials →
//! wheels, plus brakes. The gear is chosen once per host step
//! ([`select_gear`]); both vehicle models call [`torques`] before their
//! wheels' spin update and [`after_wheels`] after it, once per substep.

pub(crate) mod brakes;
pub(crate) mod clutch;
pub(crate) mod converter;
pub(crate) mod differential;
pub(crate) mod engine;
pub(crate) mod gearbox;

use crate::state::car_state::CarState;
use crate::vehicle::car_params::CarParams;
use crate::vehicle::definition::{CarDefinition, DriveLayout};

/// What the drivetrain hands to the wheels for one substep, and what
/// [`after_wheels`] needs to finish it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WheelTorques {
    /// Drive torque per wheel, N·m, positive forward.
    pub drive: [f64; 4],
    /// Friction torque magnitude per wheel (brake, handbrake), N·m.
    pub brake: [f64; 4],
    /// Inertia added to each wheel's spin for the substep (the engine's,
    /// reflected through a locked clutch), kg·m².
    pub extra_inertia: [f64; 4],
    /// How much the drive at the wheels falls per rad/s the carrier (the
    /// driven wheels' mean) speeds up, N·m·s, per axle (front, rear): a
    /// torque converter's, which [`converter_settle`] takes implicitly.
    pub carrier_damping: [f64; 2],
    /// Engine speed, rpm.
    pub engine_rpm: f64,
    /// Engine output torque, N·m (negative while engine braking).
    pub engine_torque: f64,
    /// Torque through the clutch (a converter's turbine torque), N·m.
    pub clutch_torque: f64,
    /// Torque the clutch (a converter's pump) loads the engine with, N·m.
    pub engine_load: f64,
    /// How much that load grows per rad/s of engine speed, N·m·s: the
    /// engine's update takes it implicitly.
    pub engine_load_slope: f64,
    /// Overall ratio of the engaged gear (0 in neutral).
    pub ratio: f64,
    /// What the clutch could pass this substep, N·m.
    pub clutch_capacity: f64,
    /// Gearbox input speed at the substep's start, rad/s.
    pub shaft_omega: f64,
}

/// Picks the gear for the coming host step (a shift opens the clutch; it
/// takes up the new ratio by slipping); `ground_speed` is the car's speed
/// along its heading, m/s.
pub(crate) fn select_gear(def: &CarDefinition, state: &mut CarState, ground_speed: f64) {
    let carrier_omega = differential::input_speed(def, &state.wheel_omega);
    let gear = gearbox::select_gear(def, &state.input, state.gear, carrier_omega, ground_speed);
    if gear != state.gear {
        state.clutch_locked = false;
        state.gear = gear;
    }
}

/// Computes this substep's torques (`h` seconds) in the host step's gear
/// (`ratio`) with its brake torques. A slipping clutch that would bring the
/// engine to the gearbox input's speed within the substep locks first.
pub(crate) fn torques(
    def: &CarDefinition,
    params: &CarParams,
    state: &mut CarState,
    ratio: f64,
    brake: [f64; 4],
    h: f64,
) -> WheelTorques {
    let input = state.input;
    let carrier_omega = differential::input_speed(def, &state.wheel_omega);
    let shaft = carrier_omega * ratio;
    let engine_torque = engine::output_torque(def, state.engine_omega, input.throttle);
    if let Some(constants) = params.converter.as_ref().filter(|_| ratio != 0.0) {
        // A converter never locks; it has no pedal.
        state.clutch_locked = false;
        let through = converter::torques(constants, state.engine_omega, shaft);
        let mut drive = [0.0; 4];
        differential::split(
            def,
            through.turbine * ratio * def.gearbox.efficiency,
            &mut drive,
        );
        // The turbine turns at ratio × the carrier's speed, and the wheels
        // get ratio × efficiency × its torque.
        let damping = -through.turbine_slope * ratio * ratio * def.gearbox.efficiency;
        let mut carrier_damping = [0.0; 2];
        carrier_damping[usize::from(def.drive == DriveLayout::Rwd)] = damping;
        return WheelTorques {
            drive,
            brake,
            extra_inertia: [0.0; 4],
            carrier_damping,
            engine_rpm: state.engine_omega * engine::RAD_PER_S_TO_RPM,
            engine_torque,
            clutch_torque: through.turbine,
            engine_load: through.pump,
            engine_load_slope: through.pump_slope,
            ratio,
            clutch_capacity: 0.0,
            shaft_omega: shaft,
        };
    }
    let capacity = clutch::capacity(params, input.clutch, state.engine_omega, shaft, ratio);
    if capacity <= 0.0 {
        state.clutch_locked = false;
    } else if !state.clutch_locked
        && shaft >= 0.0
        && clutch::catches_within(
            state.engine_omega,
            shaft,
            engine_torque,
            clutch::slipping_torque(capacity, state.engine_omega, shaft, engine_torque),
            def.engine.inertia,
            h,
        )
    {
        // Locked from the substep's start: the wheels get the engine's
        // torque through a rigid coupling, not the capacity for a whole
        // substep after the speeds have met.
        state.engine_omega = shaft;
        state.clutch_locked = true;
    }
    let driven = def.drive.driven_wheels();
    let mut extra_inertia = [0.0; 4];
    let clutch_torque = if state.clutch_locked {
        let reflected = def.engine.inertia * ratio * ratio / driven.len() as f64;
        for &i in driven {
            extra_inertia[i] = reflected;
        }
        engine_torque
    } else {
        clutch::slipping_torque(capacity, state.engine_omega, shaft, engine_torque)
    };
    let at_wheels = clutch_torque * ratio * def.gearbox.efficiency;
    let mut drive = [0.0; 4];
    differential::split(def, at_wheels, &mut drive);
    WheelTorques {
        drive,
        brake,
        extra_inertia,
        carrier_damping: [0.0; 2],
        engine_rpm: state.engine_omega * engine::RAD_PER_S_TO_RPM,
        engine_torque,
        clutch_torque,
        engine_load: clutch_torque,
        engine_load_slope: 0.0,
        ratio,
        clutch_capacity: capacity,
        shaft_omega: shaft,
    }
}

/// The spins of an axle's two wheels after their explicit updates
/// (`spun`, from `before`, each moving `h_over_inertia` rad/s per N·m),
/// with a torque converter's drive taken implicitly in their mean speed,
/// the carrier's, which is all the converter sees. Its torque falls by
/// `carrier_damping` per rad/s the carrier gains; near equal speeds that
/// is hundreds of N·m per rad/s, and taken explicitly against a spinning
/// wheel's inertia it diverged within a second. Solving the linearised
/// step for the carrier (Sherman–Morrison: one share per wheel) damps only
/// the mean; the wheels' difference, which an open differential leaves to
/// them, is untouched. Unchanged on an axle without a converter's drive.
pub(crate) fn converter_settle(
    t: &WheelTorques,
    front: bool,
    spun: [f64; 2],
    before: [f64; 2],
    h_over_inertia: [f64; 2],
) -> [f64; 2] {
    let damping = t.carrier_damping[usize::from(!front)];
    if damping == 0.0 {
        return spun;
    }
    // Each wheel takes half the drive and is half the carrier's speed.
    let share = 0.5;
    let explicit = share * ((spun[0] - before[0]) + (spun[1] - before[1]));
    let gained =
        explicit / (1.0 + damping * share * share * (h_over_inertia[0] + h_over_inertia[1]));
    [0, 1].map(|j| spun[j] - share * h_over_inertia[j] * damping * gained)
}

/// Finishes the substep after the wheels' spin update (which settled each
/// axle's differential, `differential::settle_axle`): couples the axles
/// through an AWD centre differential, then moves the engine and locks or
/// releases the clutch.
pub(crate) fn after_wheels(
    def: &CarDefinition,
    params: &CarParams,
    state: &mut CarState,
    t: &WheelTorques,
    h: f64,
) {
    // The differentials see each wheel with what turns with it (the
    // engine too, through a locked clutch).
    let inertia: [f64; 4] = core::array::from_fn(|i| params.wheel_inertia[i] + t.extra_inertia[i]);
    differential::couple_centre(def, &t.drive, &inertia, &mut state.wheel_omega, h);
    let shaft = differential::input_speed(def, &state.wheel_omega) * t.ratio;
    let inertia = def.engine.inertia;
    if state.clutch_locked {
        // The torque the clutch had to pass to keep the engine with the
        // driveline: the engine's own torque less what accelerated it.
        let needed = t.engine_torque - inertia * (shaft - state.engine_omega) / h;
        if needed.abs() <= t.clutch_capacity {
            state.engine_omega = shaft;
            return;
        }
        state.clutch_locked = false;
        let slip = t.clutch_capacity * needed.signum();
        state.engine_omega += h * (t.engine_torque - slip) / inertia;
        return;
    }
    // Against the input speed at the substep's start: the wheels' update
    // moves the shaft too, and a shaft that overtook a steady engine
    // within the substep has met it as surely as an engine that caught up.
    let before = state.engine_omega - t.shaft_omega;
    // An engine does not run backwards. A converter's load is taken
    // implicitly in the engine's speed (its slope; 0 for a clutch).
    state.engine_omega = (state.engine_omega
        + h * (t.engine_torque - t.engine_load) / (inertia + h * t.engine_load_slope))
        .max(0.0);
    let after = state.engine_omega - shaft;
    // The speeds met (or crossed) while the clutch could hold: lock (never
    // onto a driveline turning the engine backwards).
    if t.clutch_capacity > 0.0 && shaft >= 0.0 && before * after <= 0.0 {
        state.engine_omega = shaft;
        state.clutch_locked = true;
    }
}

#[cfg(test)]
mod tests {
    use glam::{DQuat, DVec3};

    use super::*;
    use crate::ground::GroundSlope;
    use crate::input::CarInput;
    use crate::lod::LodSetting;
    use crate::surface::SurfaceId;
    use crate::vehicle::presets::preset;

    const H: f64 = 1.0 / 120.0;

    /// The rear-drive car rolling in first gear at full throttle, wheels at
    /// 12 rad/s, the clutch slipping with the engine `gap` rad/s above the
    /// gearbox input: (definition, parameters, overall ratio, input speed,
    /// state).
    fn rolling_in_first(gap: f64) -> (CarDefinition, CarParams, f64, f64, CarState) {
        let def = preset("rwd_sports").unwrap();
        let params = CarParams::new(&def);
        let ratio = def.gearbox.ratios[0] * def.gearbox.final_drive;
        let shaft = 12.0 * ratio;
        let state = CarState {
            position: DVec3::ZERO,
            orientation: DQuat::IDENTITY,
            velocity: DVec3::new(4.0, 0.0, 0.0),
            angular_velocity: DVec3::ZERO,
            wheel_omega: [12.0; 4],
            gear: 1,
            elapsed: 0.0,
            input: CarInput {
                throttle: 1.0,
                ..CarInput::default()
            },
            lod: LodSetting::default(),
            surfaces: [SurfaceId::DRY_ASPHALT; 4],
            slope: GroundSlope::FLAT,
            tire_deflection: [[0.0; 2]; 4],
            engine_omega: shaft + gap,
            steer_give: 0.0,
            axle_lateral_force: [0.0; 2],
            clutch_locked: false,
        };
        (def, params, ratio, shaft, state)
    }

    #[test]
    fn a_clutch_that_would_close_the_gap_within_the_substep_locks_first() {
        // Off the throttle, the shaft 1 rad/s below an engine at about
        // 1 400 rpm: the capacity and the engine's braking would carry it
        // past the shaft in a fraction of the substep.
        let (def, params, ratio, shaft, mut state) = rolling_in_first(1.0);
        state.input.throttle = 0.0;
        let t = torques(&def, &params, &mut state, ratio, [0.0; 4], H);
        assert!(state.clutch_locked);
        assert_eq!(state.engine_omega, shaft);
        assert_eq!(t.clutch_torque, t.engine_torque);
        assert!(t.extra_inertia[2] > 0.0 && t.extra_inertia[0] == 0.0);
        // Far apart, it slips at its capacity.
        let (.., mut state) = rolling_in_first(100.0);
        let t = torques(&def, &params, &mut state, ratio, [0.0; 4], H);
        assert!(!state.clutch_locked);
        assert_eq!(t.clutch_torque, t.clutch_capacity);
    }

    #[test]
    fn a_shaft_that_overtakes_the_engine_in_the_wheels_update_locks_the_clutch() {
        // The engine 2 rad/s above the shaft and slipping (a gap the
        // engine alone does not close), then the wheels' update carries
        // the shaft 5 rad/s past the engine: the speeds met, so the clutch
        // locks. Compared against the shaft after the update alone, the
        // gap had the same sign before and after and the clutch slipped on
        // with its capacity reversed.
        let (def, params, ratio, shaft, mut state) = rolling_in_first(2.0);
        let mut t = torques(&def, &params, &mut state, ratio, [0.0; 4], H);
        assert!(
            !state.clutch_locked,
            "the engine alone does not close the gap"
        );
        // The engine's torque equal to the capacity: the engine holds its
        // speed through the substep.
        t.engine_torque = t.clutch_capacity;
        let faster = (shaft + 7.0) / ratio;
        state.wheel_omega[2] = faster;
        state.wheel_omega[3] = faster;
        after_wheels(&def, &params, &mut state, &t, H);
        assert!(state.clutch_locked);
        assert!((state.engine_omega - (shaft + 7.0)).abs() < 1e-9);
    }
}
