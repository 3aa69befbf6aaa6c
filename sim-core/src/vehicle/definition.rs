//! Car definitions: the user-facing, serde-described description of a car,
//! and its validation. Presets are JSON files of this schema (`presets/`).
//!
//! Units are SI throughout; angles in radians, engine speeds in rpm.

use serde::{Deserialize, Serialize};

use crate::error::check;
pub use crate::vehicle::engine_torque::ThrottleBody;
pub use crate::vehicle::shift_schedule::LightThrottleShifts;
pub use crate::vehicle::steering_system::{SteeringCompliance, SteeringDefinition};
use crate::vehicle::tire::TireParameters;
pub use crate::vehicle::torque_converter::TorqueConverterDefinition;
use crate::{CoreError, Result};

/// A complete car.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CarDefinition {
    /// Display name.
    pub name: String,
    /// Mass, inertia and geometry.
    pub chassis: ChassisDefinition,
    /// Struts per axle.
    pub suspension: PerAxle<SuspensionDefinition>,
    /// Wheels per axle.
    pub wheels: PerAxle<WheelDefinition>,
    /// Magic Formula tire data per axle.
    pub tires: PerAxle<TireParameters>,
    /// Steering geometry.
    pub steering: SteeringDefinition,
    /// Combustion engine.
    pub engine: EngineDefinition,
    /// Gearbox and final drive.
    pub gearbox: GearboxDefinition,
    /// The clutch; absent means `ClutchDefinition::default_for(engine)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clutch: Option<ClutchDefinition>,
    /// A torque converter in place of the clutch (an automatic box's);
    /// absent: the clutch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torque_converter: Option<TorqueConverterDefinition>,
    /// Which wheels are driven.
    pub drive: DriveLayout,
    /// The differentials; absent means open ones (and a 50/50 open centre
    /// differential for AWD).
    #[serde(default, skip_serializing_if = "is_default")]
    pub differentials: DifferentialsDefinition,
    /// Service brake and handbrake.
    pub brakes: BrakeDefinition,
    /// Aerodynamic drag and lift.
    pub aero: AeroDefinition,
    /// Substeps per second of the four-wheel model.
    pub substep_rate: f64,
    /// Driver aids; absent means all off.
    #[serde(default, skip_serializing_if = "is_default")]
    pub assists: AssistDefinition,
}

/// True for a value equal to its type's default. Sections that default are
/// left out of the canonical JSON, so a definition written before they
/// existed keeps its fingerprint (and its snapshots their bits).
pub(crate) fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// A value for each axle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerAxle<T> {
    /// Front axle.
    pub front: T,
    /// Rear axle.
    pub rear: T,
}

impl<T> PerAxle<T> {
    /// The front value for a front wheel, the rear one otherwise.
    pub fn get(&self, front: bool) -> &T {
        if front { &self.front } else { &self.rear }
    }
}

/// Sprung body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChassisDefinition {
    /// Total mass in kg.
    pub mass: f64,
    /// Principal moments of inertia about the centre of mass, kg·m²:
    /// roll (x), pitch (y), yaw (z).
    pub inertia: [f64; 3],
    /// Height of the centre of mass above the ground at static ride, m.
    pub cg_height: f64,
    /// Axle to axle, m.
    pub wheelbase: f64,
    /// Centre of mass to front axle, m (the rest of the wheelbase is behind).
    pub cg_to_front_axle: f64,
    /// Track widths, m.
    pub track: PerAxle<f64>,
}

/// One axle's struts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuspensionDefinition {
    /// Wheel-rate spring stiffness, N/m.
    pub spring_rate: f64,
    /// Damping while compressing, N·s/m.
    pub bump_damping: f64,
    /// Damping while extending, N·s/m.
    pub rebound_damping: f64,
    /// Strut length from mount to wheel centre with the spring unloaded, m.
    pub rest_length: f64,
    /// Compression at which the bump stop engages, m.
    pub max_travel: f64,
    /// Bump-stop stiffness beyond `max_travel`, N/m.
    pub bump_stop_rate: f64,
    /// Anti-roll bar stiffness, N per m of left/right travel difference.
    pub anti_roll_rate: f64,
    /// Height of the axle's roll centre above the ground at static ride,
    /// m: the point through which the suspension's links hand the tires'
    /// lateral forces to the body. Those forces then roll the body about
    /// the roll centre, not about the ground, and the part of the load
    /// transfer their height above the ground makes (axle lateral force ×
    /// height / track) reaches the tires through the links at once,
    /// without rolling the body. A solid axle's centre sits near its axle,
    /// well above the ground. 0 (absent, every preset): the forces act at
    /// the contact patches and the springs carry all the load transfer.
    #[serde(default, skip_serializing_if = "is_default")]
    pub roll_centre_height: f64,
    /// Roll steer: rad of road-wheel steer per rad of the body's roll on
    /// this axle's springs, positive where it understeers (the front
    /// wheels turn out of the turn, the rear wheels into it). A solid axle
    /// on leaf springs or trailing links steers as the body rolls, by the
    /// links' geometry, either way. The full model only. 0 (absent, every
    /// preset): the axle does not steer with roll.
    #[serde(default, skip_serializing_if = "is_default")]
    pub roll_steer: f64,
}

/// One axle's wheels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WheelDefinition {
    /// Loaded rolling radius, m.
    pub radius: f64,
    /// Spin inertia of wheel, tire and the drivetrain parts that turn with
    /// it, kg·m².
    pub inertia: f64,
}

/// Combustion engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineDefinition {
    /// Full-throttle torque curve as (rpm, N·m) points, rpm increasing;
    /// linear in between, flat beyond the ends.
    pub torque_curve: Vec<[f64; 2]>,
    /// Idle speed, rpm; the engine never runs slower while the car is driven.
    pub idle_rpm: f64,
    /// Rev limiter, rpm: no drive torque at or above it.
    pub limiter_rpm: f64,
    /// Closed-throttle braking torque at the limiter, N·m (grows linearly
    /// from zero at idle).
    pub engine_braking: f64,
    /// Spin inertia of the engine and flywheel, kg·m².
    #[serde(default = "default_engine_inertia")]
    pub inertia: f64,
    /// How a part-open throttle meters the air; absent: the torque is
    /// throttle × the full-throttle curve at every speed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle_body: Option<ThrottleBody>,
}

fn default_engine_inertia() -> f64 {
    0.15
}

/// The clutch between engine and gearbox. It engages by itself as the
/// engine (or, rolling, the gearbox side) passes from `bite_rpm` to
/// `engaged_rpm`, as an automated or centrifugal clutch does, so a car
/// pulls away from standstill without stalling; the clutch pedal opens it
/// further.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClutchDefinition {
    /// Torque the fully engaged clutch passes before it slips, N·m.
    pub max_torque: f64,
    /// Speed at which the clutch starts to take up drive, rpm.
    pub bite_rpm: f64,
    /// Speed at which it is fully engaged, rpm.
    pub engaged_rpm: f64,
}

impl ClutchDefinition {
    /// The clutch a definition without one gets: 1.5 × the engine's peak
    /// torque, biting 150 rpm above idle, engaged 1000 rpm above idle.
    #[must_use]
    pub fn default_for(engine: &EngineDefinition) -> ClutchDefinition {
        let peak = engine.torque_curve.iter().map(|p| p[1]).fold(0.0, f64::max);
        ClutchDefinition {
            max_torque: 1.5 * peak,
            bite_rpm: engine.idle_rpm + 150.0,
            engaged_rpm: engine.idle_rpm + 1000.0,
        }
    }
}

/// How gears are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShiftMode {
    /// The input's gear is the gear.
    Manual,
    /// Gear input ≥ 0 means drive: the shift schedule picks the gear.
    Automatic,
}

/// Gearbox and final drive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GearboxDefinition {
    /// Forward ratios, first gear first, decreasing.
    pub ratios: Vec<f64>,
    /// Reverse ratio, given as a positive number.
    pub reverse_ratio: f64,
    /// Final-drive ratio.
    pub final_drive: f64,
    /// Fraction of engine torque that reaches the wheels.
    pub efficiency: f64,
    /// Manual or automatic.
    pub mode: ShiftMode,
    /// Automatic: shift up at this engine speed, rpm.
    pub upshift_rpm: f64,
    /// Automatic: shift down below this engine speed, rpm.
    pub downshift_rpm: f64,
    /// Automatic: the shift points with the throttle closed; absent, the
    /// box shifts at the points above whatever the throttle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub light_throttle: Option<LightThrottleShifts>,
}

/// Driven wheels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DriveLayout {
    /// Front-wheel drive through the front differential.
    Fwd,
    /// Rear-wheel drive through the rear differential.
    Rwd,
    /// All-wheel drive: a centre differential feeds both axles'.
    Awd,
}

impl DriveLayout {
    /// Indices of the driven wheels.
    #[must_use]
    pub fn driven_wheels(self) -> &'static [usize] {
        match self {
            DriveLayout::Fwd => &[0, 1],
            DriveLayout::Rwd => &[2, 3],
            DriveLayout::Awd => &[0, 1, 2, 3],
        }
    }
}

/// How a differential lets its two outputs turn at different speeds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DifferentialKind {
    /// Equal torque to both outputs, any speed difference.
    #[default]
    Open,
    /// Both outputs turn together.
    Locked,
    /// A clutch-type limited-slip differential: the outputs turn together
    /// until the torque needed to hold them exceeds `preload` plus
    /// `lock_ratio` times the torque going through it.
    LimitedSlip {
        /// Locking torque with no drive torque, N·m.
        preload: f64,
        /// Extra locking torque per N·m through the differential (0 … 1).
        lock_ratio: f64,
    },
}

/// The centre differential of an all-wheel-drive car.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CentreDifferential {
    /// Fraction of the drive torque sent to the front axle.
    pub front_share: f64,
    /// Open, locked or limited-slip between the axles.
    pub coupling: DifferentialKind,
}

impl Default for CentreDifferential {
    fn default() -> Self {
        CentreDifferential {
            front_share: 0.5,
            coupling: DifferentialKind::Open,
        }
    }
}

/// The differentials (a FWD or RWD car uses only its driven axle's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DifferentialsDefinition {
    /// Between the front wheels.
    pub front: DifferentialKind,
    /// Between the rear wheels.
    pub rear: DifferentialKind,
    /// Between the axles (AWD only).
    pub centre: CentreDifferential,
}

/// Driver aids. Each is off unless enabled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AssistDefinition {
    /// Anti-lock brakes: each braked wheel's slip is held at the tire's
    /// peak-force slip by releasing brake torque.
    pub abs: bool,
    /// Traction control: each driven wheel's slip is held at the tire's
    /// peak-force slip by cutting that wheel's drive torque.
    pub traction_control: bool,
    /// Stability control: single wheels are braked to bring the yaw rate
    /// back toward what the steering asks for.
    pub stability_control: bool,
}

/// Brakes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrakeDefinition {
    /// Total brake torque of all four wheels at full pedal, N·m.
    pub max_torque: f64,
    /// Fraction of `max_torque` on the front axle.
    pub front_bias: f64,
    /// Handbrake torque per rear wheel at full lever, N·m.
    pub handbrake_torque: f64,
}

/// Aerodynamics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AeroDefinition {
    /// Drag coefficient × frontal area, m².
    pub drag_area: f64,
    /// Lift coefficient × area at each axle, m²; negative is downforce.
    pub lift_area: PerAxle<f64>,
}

fn positive(field: &str, v: f64) -> Result<()> {
    check(field, v, v > 0.0, "must be positive and finite")
}

fn non_negative(field: &str, v: f64) -> Result<()> {
    check(field, v, v >= 0.0, "must be non-negative and finite")
}

pub(crate) fn in_range(field: &str, v: f64, lo: f64, hi: f64) -> Result<()> {
    check(
        field,
        v,
        (lo..=hi).contains(&v),
        &format!("must be in [{lo}, {hi}]"),
    )
}

pub(crate) fn invalid(field: impl Into<String>, reason: impl Into<String>) -> CoreError {
    CoreError::InvalidDefinition {
        field: field.into(),
        reason: reason.into(),
    }
}

/// Standard gravity used for static quantities, m/s².
pub(crate) const STANDARD_GRAVITY: f64 = 9.80665;

impl CarDefinition {
    /// Static load on one axle (both wheels), N, on flat ground.
    pub(crate) fn static_axle_load(&self, front: bool) -> f64 {
        let c = &self.chassis;
        let share = if front {
            (c.wheelbase - c.cg_to_front_axle) / c.wheelbase
        } else {
            c.cg_to_front_axle / c.wheelbase
        };
        c.mass * STANDARD_GRAVITY * share
    }

    /// Parses and validates a JSON definition. Unknown or missing fields and
    /// out-of-range values give an error naming the field.
    pub fn from_json(json: &str) -> Result<CarDefinition> {
        let def: CarDefinition = serde_json::from_str(json).map_err(|e| CoreError::Parse {
            what: "car definition",
            message: e.to_string(),
        })?;
        def.validate()?;
        Ok(def)
    }

    /// The definition as pretty JSON, in the schema `from_json` reads.
    #[must_use]
    pub fn to_json(&self) -> String {
        // Serializing plain structs of numbers and strings cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// blake3 of the definition's compact JSON: what a service names the
    /// car by (a board's class lists fingerprints), so two different cars
    /// under one name are never confused. Every field counts, the name
    /// included.
    #[must_use]
    pub fn fingerprint(&self) -> [u8; 32] {
        let json = serde_json::to_string(self).unwrap_or_default();
        *blake3::hash(json.as_bytes()).as_bytes()
    }

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<()> {
        let c = &self.chassis;
        in_range("chassis.mass", c.mass, 50.0, 50_000.0)?;
        for (i, axis) in ["roll", "pitch", "yaw"].iter().enumerate() {
            positive(&format!("chassis.inertia[{i}] ({axis})"), c.inertia[i])?;
        }
        in_range("chassis.cg_height", c.cg_height, 0.05, 3.0)?;
        in_range("chassis.wheelbase", c.wheelbase, 0.5, 10.0)?;
        check(
            "chassis.cg_to_front_axle",
            c.cg_to_front_axle,
            c.cg_to_front_axle > 0.0 && c.cg_to_front_axle < c.wheelbase,
            "must lie strictly between 0 and the wheelbase",
        )?;
        in_range("chassis.track.front", c.track.front, 0.3, 4.0)?;
        in_range("chassis.track.rear", c.track.rear, 0.3, 4.0)?;

        for (axle, front) in [("front", true), ("rear", false)] {
            let s = self.suspension.get(front);
            let p = |name: &str| format!("suspension.{axle}.{name}");
            positive(&p("spring_rate"), s.spring_rate)?;
            non_negative(&p("bump_damping"), s.bump_damping)?;
            non_negative(&p("rebound_damping"), s.rebound_damping)?;
            in_range(&p("rest_length"), s.rest_length, 0.05, 2.0)?;
            check(
                &p("max_travel"),
                s.max_travel,
                s.max_travel > 0.0 && s.max_travel < s.rest_length,
                "must be positive and shorter than rest_length",
            )?;
            positive(&p("bump_stop_rate"), s.bump_stop_rate)?;
            non_negative(&p("anti_roll_rate"), s.anti_roll_rate)?;
            in_range(&p("roll_centre_height"), s.roll_centre_height, -0.5, 1.5)?;
            in_range(&p("roll_steer"), s.roll_steer, -0.5, 0.5)?;

            let w = self.wheels.get(front);
            in_range(&format!("wheels.{axle}.radius"), w.radius, 0.05, 1.5)?;
            positive(&format!("wheels.{axle}.inertia"), w.inertia)?;
            self.tires.get(front).validate(&format!("tires.{axle}"))?;

            // The car must be able to carry its static load before the bump
            // stop; otherwise it would sit on the stops at rest.
            let load = self.static_axle_load(front) / 2.0;
            let compression = load / s.spring_rate;
            if compression >= s.max_travel {
                return Err(invalid(
                    p("spring_rate"),
                    format!(
                        "is too soft: static compression {compression:.3} m reaches max_travel {} m",
                        s.max_travel
                    ),
                ));
            }
        }

        self.steering.validate()?;

        let e = &self.engine;
        if e.torque_curve.len() < 2 {
            return Err(invalid("engine.torque_curve", "needs at least 2 points"));
        }
        for (i, [rpm, torque]) in e.torque_curve.iter().copied().enumerate() {
            non_negative(&format!("engine.torque_curve[{i}][0]"), rpm)?;
            non_negative(&format!("engine.torque_curve[{i}][1]"), torque)?;
            if i > 0 && rpm <= e.torque_curve[i - 1][0] {
                return Err(invalid(
                    format!("engine.torque_curve[{i}][0]"),
                    "rpm must increase from point to point",
                ));
            }
        }
        in_range("engine.idle_rpm", e.idle_rpm, 100.0, 5_000.0)?;
        check(
            "engine.limiter_rpm",
            e.limiter_rpm,
            e.limiter_rpm > e.idle_rpm && e.limiter_rpm <= 25_000.0,
            "must exceed idle_rpm and be at most 25000",
        )?;
        non_negative("engine.engine_braking", e.engine_braking)?;
        in_range("engine.inertia", e.inertia, 0.001, 10.0)?;
        if let Some(body) = &e.throttle_body {
            body.validate(e)?;
        }
        if let Some(c) = &self.clutch {
            positive("clutch.max_torque", c.max_torque)?;
            check(
                "clutch.bite_rpm",
                c.bite_rpm,
                c.bite_rpm >= 0.0 && c.bite_rpm < e.limiter_rpm,
                "must be at least 0 and below limiter_rpm",
            )?;
            check(
                "clutch.engaged_rpm",
                c.engaged_rpm,
                c.engaged_rpm > c.bite_rpm && c.engaged_rpm <= e.limiter_rpm,
                "must lie above bite_rpm and at most limiter_rpm",
            )?;
        }

        if let Some(converter) = &self.torque_converter {
            converter.validate(e, self.drive)?;
        }

        let g = &self.gearbox;
        if g.ratios.is_empty() || g.ratios.len() > 10 {
            return Err(invalid("gearbox.ratios", "needs 1 to 10 forward gears"));
        }
        for (i, r) in g.ratios.iter().copied().enumerate() {
            positive(&format!("gearbox.ratios[{i}]"), r)?;
            if i > 0 && r >= g.ratios[i - 1] {
                return Err(invalid(
                    format!("gearbox.ratios[{i}]"),
                    "ratios must decrease from gear to gear",
                ));
            }
        }
        positive("gearbox.reverse_ratio", g.reverse_ratio)?;
        positive("gearbox.final_drive", g.final_drive)?;
        check(
            "gearbox.efficiency",
            g.efficiency,
            g.efficiency > 0.0 && g.efficiency <= 1.0,
            "must be in (0, 1]",
        )?;
        g.validate_schedule(e)?;

        let d = &self.differentials;
        for (name, kind) in [
            ("differentials.front", d.front),
            ("differentials.rear", d.rear),
            ("differentials.centre.coupling", d.centre.coupling),
        ] {
            if let DifferentialKind::LimitedSlip {
                preload,
                lock_ratio,
            } = kind
            {
                non_negative(&format!("{name}.preload"), preload)?;
                in_range(&format!("{name}.lock_ratio"), lock_ratio, 0.0, 1.0)?;
            }
        }
        in_range(
            "differentials.centre.front_share",
            d.centre.front_share,
            0.0,
            1.0,
        )?;

        let b = &self.brakes;
        non_negative("brakes.max_torque", b.max_torque)?;
        in_range("brakes.front_bias", b.front_bias, 0.0, 1.0)?;
        non_negative("brakes.handbrake_torque", b.handbrake_torque)?;

        let a = &self.aero;
        non_negative("aero.drag_area", a.drag_area)?;
        in_range("aero.lift_area.front", a.lift_area.front, -10.0, 10.0)?;
        in_range("aero.lift_area.rear", a.lift_area.rear, -10.0, 10.0)?;

        in_range(
            "substep_rate",
            self.substep_rate,
            crate::lod::MIN_SUBSTEP_RATE,
            crate::lod::MAX_SUBSTEP_RATE,
        )?;
        Ok(())
    }

    /// Largest forward gear number.
    #[must_use]
    pub fn top_gear(&self) -> i32 {
        // Validation caps the gear count at 10.
        self.gearbox.ratios.len() as i32
    }
}
