//! Quantities derived once from a validated definition: strut mount points,
//! static loads and the low-speed slip floor. Derived here so that the
//! per-substep code only reads numbers.

use glam::DVec3;

use crate::ids::Wheel;
use crate::vehicle::definition::{CarDefinition, ClutchDefinition, STANDARD_GRAVITY};
use crate::vehicle::tire::{PeakSlips, TireParameters};
use crate::vehicle::torque_converter::ConverterConstants;

/// Lowest speed used as the slip denominator, m/s. Below it slip is computed
/// against this floor, turning the tire into a stiff damper that holds the
/// car rather than a division by a vanishing speed.
pub(crate) const MIN_SLIP_SPEED: f64 = 0.5;

/// Explicit integration of a damper c on a mass m is stable while c·h/m < 2.
/// At low speed the four tires act on the body as a damper of about
/// 4·K/floor (K the stiffest slip stiffness), so the floor grows with the
/// substep h to keep c·h/m at 1/SLIP_FLOOR_MARGIN, well inside that bound.
const SLIP_FLOOR_MARGIN: f64 = 1.5;

/// The deflections are clamped to this many relaxation lengths (|κ'| ≤ 1
/// and |tan α'| ≤ 6): far past the force peak, it keeps a wheel spinning
/// on the spot, or a car sliding sideways at rest, from winding the state
/// up without bound.
const MAX_SLIP_X: f64 = 1.0;
const MAX_SLIP_Y: f64 = 6.0;

/// What the wheel update reads of the definition every substep, with its
/// reciprocals taken once here rather than divided per substep.
#[derive(Clone, Debug)]
pub(crate) struct WheelConstants {
    pub tire: TireParameters,
    /// Whether the tire has any term of the full curves (a real file's
    /// shifts and load- or sign-dependent curvature); without them the
    /// wheel evaluates the lighter symmetric curves, to the same bits.
    pub full_curves: bool,
    /// Whether the tire has side-dependent lateral terms, so that the
    /// axle's left and right tires (one the other's mirror image) differ.
    pub sided: bool,
    pub radius: f64,
    pub inv_radius: f64,
    /// The wheel's own spin inertia, kg·m².
    pub inertia: f64,
    /// 1/σ of the relaxation lengths (along, across), 1/m.
    pub inv_relaxation: [f64; 2],
    /// Largest contact-patch deflection (along, across), m.
    pub deflection_limit: [f64; 2],
    /// Slip ratio and lateral slip (tan α) of peak force at static load:
    /// combined
    /// slip's scales, and (the ratio) the target of ABS and traction
    /// control.
    pub peaks: PeakSlips,
    /// Pneumatic trail at zero slip angle, m, and how fast it fades: the
    /// trail is gone at twice the peak lateral slip, so 1/(2·tan α_peak).
    pub trail: f64,
    pub trail_fade: f64,
    /// Low-speed damping (along, across), N·s/m: critical damping of the
    /// tire's deflection spring against the wheel's share of the car's
    /// mass. Faded out with speed by the wheel model; it keeps a car at
    /// rest from oscillating on its tires.
    pub damping: [f64; 2],
    /// ABS: the slip ratio magnitude braking may not exceed (None: off).
    pub abs_slip: Option<f64>,
    /// Traction control: the slip ratio driving may not exceed (None: off).
    pub tc_slip: Option<f64>,
}

impl WheelConstants {
    fn new(
        def: &CarDefinition,
        wheel: Wheel,
        peaks: PeakSlips,
        damping: [f64; 2],
        slip_limits: &SlipLimits,
    ) -> Self {
        let i = wheel.index();
        let front = wheel.is_front();
        // A definition gives the tire as mounted on the left.
        let tire = if wheel.is_left() {
            def.tires.get(front).clone()
        } else {
            def.tires.get(front).mirrored()
        };
        let w = def.wheels.get(front);
        WheelConstants {
            radius: w.radius,
            inv_radius: 1.0 / w.radius,
            inertia: w.inertia,
            inv_relaxation: [1.0 / tire.relaxation_x, 1.0 / tire.relaxation_y],
            deflection_limit: [
                MAX_SLIP_X * tire.relaxation_x,
                MAX_SLIP_Y * tire.relaxation_y,
            ],
            trail: tire.pneumatic_trail,
            trail_fade: 1.0 / (2.0 * peaks.alpha),
            peaks,
            damping,
            abs_slip: slip_limits.abs[i],
            tc_slip: slip_limits.tc[i],
            full_curves: tire.has_full_curves(),
            sided: tire.has_sided_terms(),
            tire,
        }
    }
}

/// Per-wheel geometry in the body frame (origin at the centre of mass).
#[derive(Clone, Copy, Debug)]
pub(crate) struct WheelGeometry {
    /// Strut top, body frame.
    pub mount: DVec3,
    /// Spring free length plus wheel radius: how far the ray reaches.
    pub ray_length: f64,
}

/// Everything derived from a definition.
#[derive(Clone, Debug)]
pub(crate) struct CarParams {
    pub wheels: [WheelGeometry; 4],
    pub inertia: DVec3,
    pub inv_inertia: DVec3,
    /// Slip-floor growth per second of substep: floor = max(MIN, h × this).
    pub slip_floor_per_second: f64,
    /// Static load per wheel on flat ground, N.
    pub static_wheel_load: [f64; 4],
    /// Linear understeer gradient, rad per m/s² of lateral acceleration,
    /// from static loads, cornering stiffnesses and pneumatic trails: the
    /// stability control's reference.
    pub understeer: f64,
    /// Load-weighted peak friction coefficient at static load.
    pub peak_friction: f64,
    /// The clutch in use (the definition's, or the default for its engine).
    pub clutch: ClutchDefinition,
    /// The torque converter in the clutch's place, if the car has one.
    pub converter: Option<ConverterConstants>,
    /// Spin inertia of each wheel, kg·m².
    pub wheel_inertia: [f64; 4],
    /// Steady-state lateral load transfer per axle (front, rear), N per
    /// m/s² of lateral acceleration: the single-track model's estimate of
    /// what the full model's roll does. Each axle takes the share of the
    /// roll moment m·h·a_y that its roll stiffness (springs and anti-roll
    /// bar, roll axis at the ground) carries, over its track.
    pub lateral_transfer: [f64; 2],
    /// What each wheel's update reads.
    pub wheel_constants: [WheelConstants; 4],
}

impl CarParams {
    pub(crate) fn new(def: &CarDefinition) -> Self {
        let c = &def.chassis;
        let rear_x = c.cg_to_front_axle - c.wheelbase;
        let mut stiffest = 0.0_f64;
        let wheels = Wheel::ALL.map(|w| {
            let front = w.is_front();
            let s = def.suspension.get(front);
            let radius = def.wheels.get(front).radius;
            let load = def.static_axle_load(front) / 2.0;
            let compression = load / s.spring_rate;
            // Place the mount so that the static strut force holds the
            // centre of mass exactly at cg_height: the car spawns at rest.
            let ray_length = s.rest_length + radius;
            let mount_z = ray_length - compression - c.cg_height;
            let x = if front { c.cg_to_front_axle } else { rear_x };
            let half_track = c.track.get(front) / 2.0;
            let y = if w.is_left() { half_track } else { -half_track };
            let tire = def.tires.get(front);
            stiffest = stiffest
                .max(tire.slip_stiffness(load))
                .max(tire.cornering_stiffness(load));
            WheelGeometry {
                mount: DVec3::new(x, y, mount_z),
                ray_length,
            }
        });
        let inertia = DVec3::from_array(c.inertia);
        let axle = |front: bool| {
            let load = def.static_axle_load(front);
            let tire = def.tires.get(front);
            let per_wheel = load / 2.0;
            (
                load,
                tire.peak_slip(per_wheel),
                2.0 * tire.cornering_stiffness(per_wheel),
                2.0 * tire.peak_fx(per_wheel),
            )
        };
        let (load_f, slip_f, corner_f, peak_f) = axle(true);
        let (load_r, slip_r, corner_r, peak_r) = axle(false);
        let peak_slip = [slip_f, slip_r];
        let peak_lateral_slip = [true, false].map(|front| {
            let load = def.static_axle_load(front) / 2.0;
            def.tires.get(front).peak_lateral_slip(load)
        });
        let tire_damping = [true, false].map(|front| {
            let tire = def.tires.get(front);
            let load = def.static_axle_load(front) / 2.0;
            let mass = load / STANDARD_GRAVITY;
            let critical =
                |stiffness: f64, relaxation: f64| 2.0 * (stiffness / relaxation * mass).sqrt();
            [
                critical(tire.slip_stiffness(load), tire.relaxation_x),
                critical(tire.cornering_stiffness(load), tire.relaxation_y),
            ]
        });
        let slip_limits = SlipLimits::new(def, &peak_slip);
        let wheel_constants = Wheel::ALL.map(|w| {
            let axle = usize::from(!w.is_front());
            let peaks = PeakSlips::new(peak_slip[axle], peak_lateral_slip[axle]);
            WheelConstants::new(def, w, peaks, tire_damping[axle], &slip_limits)
        });
        CarParams {
            wheels,
            inertia,
            inv_inertia: DVec3::ONE / inertia,
            slip_floor_per_second: SLIP_FLOOR_MARGIN * 4.0 * stiffest / c.mass,
            static_wheel_load: Wheel::ALL.map(|w| def.static_axle_load(w.is_front()) / 2.0),
            understeer: {
                // The linear single-track car with each axle's lateral
                // force acting its pneumatic trail behind the axle.
                let (t_f, t_r) = (
                    def.tires.front.pneumatic_trail,
                    def.tires.rear.pneumatic_trail,
                );
                let a = c.cg_to_front_axle;
                let b = c.wheelbase - a;
                c.mass / (c.wheelbase + t_r - t_f) * ((b + t_r) / corner_f - (a - t_f) / corner_r)
            },
            peak_friction: (peak_f + peak_r) / (load_f + load_r),
            clutch: def
                .clutch
                .clone()
                .unwrap_or_else(|| ClutchDefinition::default_for(&def.engine)),
            converter: def.torque_converter.as_ref().map(|converter| {
                ConverterConstants::new(
                    converter,
                    def.engine.full_throttle_torque(converter.stall_rpm),
                )
            }),
            wheel_inertia: Wheel::ALL.map(|w| def.wheels.get(w.is_front()).inertia),
            wheel_constants,
            lateral_transfer: {
                // Roll stiffness of an axle, N·m/rad: each spring deflects
                // ±t/2·φ, the bar by the compression difference t·φ.
                let roll = |front: bool| {
                    let s = def.suspension.get(front);
                    let t = c.track.get(front);
                    t * t * (s.spring_rate / 2.0 + s.anti_roll_rate)
                };
                let total = roll(true) + roll(false);
                // The springs share the moment of the weight about the
                // roll axis (through both roll centres) by roll stiffness;
                // each axle's links carry its share of the mass at its own
                // roll centre's height. Without roll centres: all springs.
                let centre = |front: bool| def.suspension.get(front).roll_centre_height;
                let a = c.cg_to_front_axle;
                let axis_height = centre(true) + (centre(false) - centre(true)) * a / c.wheelbase;
                [true, false].map(|front| {
                    let share = if front { c.wheelbase - a } else { a } / c.wheelbase;
                    (roll(front) / total * c.mass * (c.cg_height - axis_height)
                        + c.mass * share * centre(front))
                        / c.track.get(front)
                })
            },
        }
    }

    /// The slip-speed floor for a substep of `h` seconds.
    pub(crate) fn slip_floor(&self, h: f64) -> f64 {
        MIN_SLIP_SPEED.max(h * self.slip_floor_per_second)
    }
}

/// Slip limits per wheel for ABS and traction control.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SlipLimits {
    pub abs: [Option<f64>; 4],
    pub tc: [Option<f64>; 4],
}

impl SlipLimits {
    fn new(def: &CarDefinition, peak_slip: &[f64; 2]) -> Self {
        let target = |w: Wheel| peak_slip[usize::from(!w.is_front())];
        let a = &def.assists;
        SlipLimits {
            abs: Wheel::ALL.map(|w| a.abs.then(|| target(w))),
            tc: Wheel::ALL.map(|w| a.traction_control.then(|| target(w))),
        }
    }
}
