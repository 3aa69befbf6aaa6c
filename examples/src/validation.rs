//! The validation manoeuvres of SPEC §4.7, driven through the public API
//! exactly as a game would drive a car, and the theory each is checked
//! against. The theory side reads only the car definition (tire
//! coefficients, masses, geometry), never the simulation's output.
//!
//! `tests/validation.rs` asserts each result with its tolerance;
//! `cargo run --release -p skidpad-examples --example validation` prints
//! the table in `VALIDATION.md`.

use std::sync::Arc;

use skidpad_core::{
    CarDefinition, CarId, CarInput, GroundSlope, InitialPose, Lod, LodSetting, Result, Track,
    World, WorldConfig, preset,
};

/// The presets meant for roads (the kart is checked where its locked rear
/// axle and rear-only brakes do not put it outside the theory).
pub const ROAD: [&str; 3] = ["fwd_hatchback", "rwd_sports", "awd_rally"];
/// Every preset.
pub const ALL: [&str; 4] = ["fwd_hatchback", "rwd_sports", "awd_rally", "kart"];
/// The lateral accelerations (g) of the ISO 4138 runs.
pub const LATERAL_G: [f64; 5] = [0.1, 0.15, 0.2, 0.25, 0.3];
/// Lateral accelerations of the comparison with linear theory, g: low
/// enough that the lateral load transfer barely bends the curve.
pub const LINEAR_G: [f64; 3] = [0.05, 0.1, 0.15];
/// Lateral accelerations of the constant-speed test, g.
pub const SPEED_TEST_G: [f64; 3] = [0.1, 0.2, 0.3];
/// 0–100 km/h ranges (s) for production cars of each kind (hatchback
/// 8–13 s, sports car 4–7 s, rally car 3.5–6 s) and a 125 cc kart geared
/// for short tracks (which barely reaches 100 km/h).
pub const ZERO_TO_100_RANGES: [(&str, f64, f64); 4] = [
    ("fwd_hatchback", 8.0, 13.0),
    ("rwd_sports", 4.0, 7.0),
    ("awd_rally", 3.5, 6.0),
    ("kart", 8.0, 25.0),
];

/// Standard gravity, m/s².
pub const G: f64 = 9.80665;
/// 100 km/h in m/s.
pub const KMH_100: f64 = 100.0 / 3.6;

/// How a manoeuvre steps the car: model, host rate and substep rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stepping {
    /// Level of detail.
    pub lod: Lod,
    /// Host steps per second.
    pub host_hz: f64,
    /// Substeps per second (None: the definition's own rate).
    pub substep_hz: Option<f64>,
}

impl Stepping {
    /// The four-wheel model at 60 Hz with the definition's substep rate.
    pub const FULL: Stepping = Stepping {
        lod: Lod::Full,
        host_hz: 60.0,
        substep_hz: None,
    };
    /// The single-track model at 60 Hz with its default substep rate.
    pub const SINGLE_TRACK: Stepping = Stepping {
        lod: Lod::SingleTrack,
        host_hz: 60.0,
        substep_hz: None,
    };

    fn dt(self) -> f64 {
        1.0 / self.host_hz
    }

    /// The same stepping at four times the substep rate `def` gets here:
    /// the reference the default rates are checked against.
    pub fn four_times_finer(self, def: &CarDefinition) -> Stepping {
        let rate = match self.substep_hz {
            Some(rate) => rate,
            None => LodSetting::new(self.lod).rate(def.substep_rate),
        };
        Stepping {
            substep_hz: Some(4.0 * rate),
            ..self
        }
    }
}

/// One car alone on dry asphalt.
struct Rig {
    world: World,
    car: CarId,
    dt: f64,
}

impl Rig {
    fn new(def: &CarDefinition, stepping: Stepping, speed: f64) -> Result<Rig> {
        let mut world = World::new(WorldConfig::default())?;
        let pose = InitialPose {
            speed,
            ..InitialPose::default()
        };
        let car = world.add_car(def, pose)?;
        let lod = match stepping.substep_hz {
            Some(rate) => LodSetting::with_rate(stepping.lod, rate),
            None => LodSetting::new(stepping.lod),
        };
        world.set_lod(car, lod)?;
        Ok(Rig {
            world,
            car,
            dt: stepping.dt(),
        })
    }

    fn step(&mut self, input: CarInput) -> Result<()> {
        self.world.set_input(self.car, input)?;
        self.world.step(self.dt)
    }

    fn channel(&self, name: &str) -> Result<f64> {
        self.world.channel(self.car, name)
    }

    fn speed(&self) -> Result<f64> {
        self.channel("speed")
    }
}

/// Drive input: the automatic gearbox's "drive", or first gear of a
/// manual box.
fn drive(throttle: f64, brake: f64, steer: f64) -> CarInput {
    CarInput {
        steer,
        throttle,
        brake,
        gear: 1.0,
        ..CarInput::default()
    }
}

/// Seconds of full throttle from rest to 100 km/h (None if not within
/// 60 s).
pub fn zero_to_100(def: &CarDefinition, stepping: Stepping) -> Result<Option<f64>> {
    let mut rig = Rig::new(def, stepping, 0.0)?;
    let limit = (60.0 * stepping.host_hz) as usize;
    for k in 1..=limit {
        rig.step(drive(1.0, 0.0, 0.0))?;
        if rig.speed()? >= KMH_100 {
            return Ok(Some(k as f64 * rig.dt));
        }
    }
    Ok(None)
}

/// Metres from full brake application at 100 km/h to standstill.
/// `abs` turns the car's ABS on or off for the stop.
pub fn stop_from_100(def: &CarDefinition, stepping: Stepping, abs: bool) -> Result<f64> {
    let mut def = def.clone();
    def.assists.abs = abs;
    let mut rig = Rig::new(&def, stepping, KMH_100)?;
    let start = rig.world.pose(rig.car)?.position;
    let limit = (30.0 * stepping.host_hz) as usize;
    for _ in 0..limit {
        let before = rig.world.pose(rig.car)?.position;
        let v0 = rig.speed()?;
        rig.step(CarInput {
            brake: 1.0,
            ..CarInput::default()
        })?;
        let v1 = rig.speed()?;
        if v1 < 0.05 {
            // Interpolate the last step to the instant the speed reached
            // zero, so the distance does not depend on the host rate's
            // granularity.
            let after = rig.world.pose(rig.car)?.position;
            let fraction = if v0 > v1 { v0 / (v0 - v1) } else { 1.0 };
            let last = after.truncate().distance(before.truncate()) * fraction.min(1.0);
            return Ok(before.truncate().distance(start.truncate()) + last);
        }
    }
    Ok(f64::INFINITY)
}

/// The friction bound v²/(2 µ g) for a stop from 100 km/h, with µ the
/// tires' peak longitudinal friction at static load (PDX1 and PDX2, load
/// weighted over the axles), from the definition alone.
#[must_use]
pub fn friction_bound_100(def: &CarDefinition) -> f64 {
    let mu = peak_friction(def);
    KMH_100 * KMH_100 / (2.0 * mu * G)
}

/// Load-weighted peak longitudinal friction coefficient at static load.
#[must_use]
pub fn peak_friction(def: &CarDefinition) -> f64 {
    let (mut force, mut load) = (0.0, 0.0);
    for front in [true, false] {
        let fz = static_axle_load(def, front) / 2.0;
        force += 2.0 * def.tires.get(front).peak_fx(fz);
        load += 2.0 * fz;
    }
    force / load
}

/// Static load on one axle (both wheels), N.
#[must_use]
pub fn static_axle_load(def: &CarDefinition, front: bool) -> f64 {
    let c = &def.chassis;
    let behind = c.wheelbase - c.cg_to_front_axle;
    let share = if front { behind } else { c.cg_to_front_axle } / c.wheelbase;
    c.mass * G * share
}

/// Linear-theory understeer gradient, deg/g, from the definition alone:
/// a linear single-track car whose axle cornering stiffnesses C (PKY1,
/// PKY2 at static wheel load) act a pneumatic trail t behind each axle.
/// Moment balance puts F_f = m·a_y·(b + t_r)/L' and F_r = m·a_y·(a − t_f)/L'
/// (L' = L + t_r − t_f), so K = m/L'·((b + t_r)/C_f − (a − t_f)/C_r); with
/// no trail this is the textbook W_f/C_f − W_r/C_r.
#[must_use]
pub fn theory_understeer_gradient(def: &CarDefinition) -> f64 {
    let c = &def.chassis;
    let stiffness = |front: bool| {
        2.0 * def
            .tires
            .get(front)
            .cornering_stiffness(static_axle_load(def, front) / 2.0)
    };
    let (t_f, t_r) = (
        def.tires.front.pneumatic_trail,
        def.tires.rear.pneumatic_trail,
    );
    let a = c.cg_to_front_axle;
    let b = c.wheelbase - a;
    let effective = c.wheelbase + t_r - t_f;
    let per_accel =
        c.mass / effective * ((b + t_r) / stiffness(true) - (a - t_f) / stiffness(false));
    (per_accel * G).to_degrees()
}

/// Steady-state circle samples: (lateral acceleration in g, dynamic steer
/// angle δ − L/R in degrees).
#[derive(Clone, Debug, Default)]
pub struct CircleRun {
    /// One point per speed.
    pub points: Vec<(f64, f64)>,
}

impl CircleRun {
    /// Least-squares slope dδ/da_y, deg/g: the understeer gradient.
    #[must_use]
    pub fn gradient(&self) -> f64 {
        let n = self.points.len() as f64;
        let (sx, sy) = self
            .points
            .iter()
            .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
        let (mx, my) = (sx / n, sy / n);
        let (mut sxy, mut sxx) = (0.0, 0.0);
        for (x, y) in &self.points {
            sxy += (x - mx) * (y - my);
            sxx += (x - mx) * (x - mx);
        }
        sxy / sxx
    }
}

/// ISO 4138 constant-radius test on a 40 m circle: a closed-loop driver
/// holds the radius while the speed is held at each of `lateral_g` in
/// turn; at each, after settling, the steer angle and the lateral
/// acceleration are averaged. Returns the samples (the gradient is their
/// slope).
pub fn constant_radius(
    def: &CarDefinition,
    stepping: Stepping,
    lateral_g: &[f64],
) -> Result<CircleRun> {
    const RADIUS: f64 = 40.0;
    let first = (lateral_g[0] * G * RADIUS).sqrt();
    let mut circle = CircleDriver::new(def, stepping, first)?;
    let mut run = CircleRun::default();
    for &g in lateral_g {
        run.points
            .push(circle.hold(RADIUS, (g * G * RADIUS).sqrt())?);
    }
    Ok(run)
}

/// ISO 4138 constant-speed test: at `speed` (m/s) the driver holds circles
/// of the radii that give each of `lateral_g` in turn (largest radius
/// first, each starting tangent to the car's path). Returns the samples.
pub fn constant_speed(
    def: &CarDefinition,
    stepping: Stepping,
    speed: f64,
    lateral_g: &[f64],
) -> Result<CircleRun> {
    let mut circle = CircleDriver::new(def, stepping, speed)?;
    let mut run = CircleRun::default();
    for &g in lateral_g {
        run.points
            .push(circle.hold(speed * speed / (g * G), speed)?);
    }
    Ok(run)
}

/// A closed-loop driver on circles: kinematic feedforward plus feedback on
/// heading and radius for the steer, PI on speed for the throttle.
struct CircleDriver {
    rig: Rig,
    stepping: Stepping,
    max_angle: f64,
    wheelbase: f64,
    throttle_integral: f64,
}

impl CircleDriver {
    fn new(def: &CarDefinition, stepping: Stepping, speed: f64) -> Result<CircleDriver> {
        Ok(CircleDriver {
            rig: Rig::new(def, stepping, speed)?,
            stepping,
            max_angle: def.steering.max_angle,
            wheelbase: def.chassis.wheelbase,
            throttle_integral: 0.0,
        })
    }

    /// Drives a left-hand circle of `radius` tangent to the car's path at
    /// `speed`; after settling, returns the averaged (lateral acceleration
    /// in g, dynamic steer angle δ − L/R in degrees).
    fn hold(&mut self, radius: f64, speed: f64) -> Result<(f64, f64)> {
        const SETTLE: f64 = 6.0;
        const AVERAGE: f64 = 2.0;
        let start = self.rig.world.pose(self.rig.car)?;
        // The centre lies `radius` to the left of the car.
        let centre = (
            start.position.x - radius * start.yaw.sin(),
            start.position.y + radius * start.yaw.cos(),
        );
        let steps = ((SETTLE + AVERAGE) * self.stepping.host_hz) as usize;
        let average_from = (SETTLE * self.stepping.host_hz) as usize;
        let (mut sum_delta, mut sum_ay, mut n) = (0.0, 0.0, 0.0);
        for k in 0..steps {
            let pose = self.rig.world.pose(self.rig.car)?;
            let (dx, dy) = (pose.position.x - centre.0, pose.position.y - centre.1);
            let distance = (dx * dx + dy * dy).sqrt();
            // Heading of the circle's tangent (counter-clockwise) here.
            let tangent = dx.atan2(-dy);
            let heading_error = wrap(tangent - pose.yaw);
            let radius_error = distance - radius;
            let delta = self.wheelbase / radius + 1.2 * heading_error + 0.08 * radius_error;
            let steer = (-delta / self.max_angle).clamp(-1.0, 1.0);
            let speed_error = speed - pose.speed;
            self.throttle_integral =
                (self.throttle_integral + speed_error * self.rig.dt).clamp(-2.0, 2.0);
            let throttle = (0.5 * speed_error + 0.4 * self.throttle_integral).clamp(0.0, 1.0);
            self.rig.step(drive(throttle, 0.0, steer))?;
            if k >= average_from {
                let v = self.rig.speed()?;
                let r = self.rig.channel("yaw_rate")?;
                let delta_now = -steer * self.max_angle;
                // δ − L/R with R = v/r the radius actually driven.
                sum_delta += (delta_now - self.wheelbase * r / v).to_degrees();
                sum_ay += v * r / G;
                n += 1.0;
            }
        }
        Ok((sum_ay / n, sum_delta / n))
    }
}

fn wrap(a: f64) -> f64 {
    let mut a = a % (2.0 * core::f64::consts::PI);
    if a > core::f64::consts::PI {
        a -= 2.0 * core::f64::consts::PI;
    } else if a < -core::f64::consts::PI {
        a += 2.0 * core::f64::consts::PI;
    }
    a
}

/// What a transient manoeuvre did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TransientRun {
    /// Largest |body slip| seen, deg.
    pub max_body_slip_deg: f64,
    /// Largest distance of the centre of mass outside the corridor, m (0
    /// when it stayed inside).
    pub max_corridor_excess: f64,
    /// Steady lateral acceleration reached (step steer), m/s².
    pub steady_lateral: f64,
    /// Speed at the end, m/s.
    pub exit_speed: f64,
}

/// ISO 7401 step steer at 80 km/h: the steer input that gives 4 m/s² in
/// steady state (from the kinematic angle plus the understeer gradient) is
/// applied in 0.15 s and held for 4 s at constant throttle.
pub fn step_steer(
    def: &CarDefinition,
    stepping: Stepping,
    gradient_deg_per_g: f64,
) -> Result<TransientRun> {
    let speed = 80.0 / 3.6;
    let target = 4.0;
    let radius = speed * speed / target;
    let delta = def.chassis.wheelbase / radius + (gradient_deg_per_g * target / G).to_radians();
    let steer_final = (-delta / def.steering.max_angle).clamp(-1.0, 1.0);
    let mut rig = Rig::new(def, stepping, speed)?;
    // Cruise straight for 1 s to settle, holding speed.
    let mut run = TransientRun::default();
    let mut throttle = 0.0;
    let total = (5.15 * stepping.host_hz) as usize;
    let ramp_start = stepping.host_hz as usize;
    let ramp = (0.15 * stepping.host_hz).max(1.0);
    for k in 0..total {
        let steer = if k < ramp_start {
            // Hold speed before the step; freeze the throttle after it.
            throttle = ((speed - rig.speed()?) * 0.5 + 0.15).clamp(0.0, 1.0);
            0.0
        } else {
            steer_final * ((k - ramp_start) as f64 / ramp).min(1.0)
        };
        rig.step(drive(throttle, 0.0, steer))?;
        let slip = rig.channel("body_slip")?.to_degrees().abs();
        run.max_body_slip_deg = run.max_body_slip_deg.max(slip);
    }
    run.steady_lateral = rig.channel("speed")? * rig.channel("yaw_rate")?;
    run.exit_speed = rig.speed()?;
    Ok(run)
}

/// The ISO 3888-1 double lane change course: (start, end, centre line y,
/// half width) per gated section, for a car `width` wide. Sections 1, 3
/// and 5 are gated lanes; 2 and 4 are free transitions.
#[must_use]
pub fn lane_change_course(width: f64) -> [(f64, f64, f64, f64); 3] {
    let lane1 = (1.1 * width + 0.25) / 2.0;
    let lane3 = (width + 1.0) / 2.0;
    let lane5 = (1.3 * width + 0.25) / 2.0;
    // Section 3's centre is offset so that its right edge lies 1 m left of
    // lane 1's left edge (the standard's 3.5 m lateral offset between the
    // lanes' right edges, with lane 3 wider).
    let offset3 = lane1 + 1.0 + lane3;
    [
        (0.0, 15.0, 0.0, lane1),
        (45.0, 70.0, offset3, lane3),
        (95.0, 125.0, 0.0, lane5),
    ]
}

/// ISO 3888-1 double lane change entered at `speed` m/s, throttle
/// released at the entry gate and the gear held: a preview (pure-pursuit)
/// driver follows a smooth path that uses each lane's free width to
/// lengthen its transitions. Reports the largest body slip and how far the
/// car's centre strayed outside what the gated lanes allow it (each lane's
/// half width less the car's own).
pub fn double_lane_change(
    def: &CarDefinition,
    stepping: Stepping,
    speed: f64,
) -> Result<TransientRun> {
    let width = def.chassis.track.front.max(def.chassis.track.rear) + 0.2;
    let course = lane_change_course(width);
    let slack = |lane: usize| (course[lane].3 - width / 2.0).max(0.0);
    // The path keeps 70 % of each lane's slack in reserve for the
    // driver's tracking error.
    let start = -0.3 * slack(0);
    let high = course[1].2 - 0.3 * slack(1);
    let end = 0.3 * slack(2);
    // The path y(x) and its first two derivatives: two cosine steps.
    let path = |x: f64| -> (f64, f64, f64) {
        let step = |x0: f64, x1: f64| {
            let length = x1 - x0;
            let u = ((x - x0) / length).clamp(0.0, 1.0);
            let pi = core::f64::consts::PI;
            let inside = u > 0.0 && u < 1.0;
            let (s, c) = ((pi * u).sin(), (pi * u).cos());
            (
                0.5 - 0.5 * c,
                if inside { 0.5 * pi * s / length } else { 0.0 },
                if inside {
                    0.5 * pi * pi * c / (length * length)
                } else {
                    0.0
                },
            )
        };
        let (a, da, dda) = step(12.0, 50.0);
        let (b, db, ddb) = step(66.0, 100.0);
        (
            start + (high - start) * a - (high - end) * b,
            (high - start) * da - (high - end) * db,
            (high - start) * dda - (high - end) * ddb,
        )
    };
    let mut rig = Rig::new(def, stepping, speed)?;
    let max_angle = def.steering.max_angle;
    let wheelbase = def.chassis.wheelbase;
    // The driver knows the car's linear understeer (rad per m/s²).
    let understeer = theory_understeer_gradient(def).to_radians() / G;
    let mut run = TransientRun::default();
    let limit = (20.0 * stepping.host_hz) as usize;
    for _ in 0..limit {
        let pose = rig.world.pose(rig.car)?;
        if pose.position.x > 130.0 {
            break;
        }
        // Curvature feedforward read a little ahead (the car's response
        // lag), plus feedback on heading and lateral error (Stanley).
        let v = pose.speed.max(1.0);
        let (_, slope_ahead, bend_ahead) = path(pose.position.x + 0.2 * v);
        let curvature = bend_ahead / (1.0 + slope_ahead * slope_ahead).powf(1.5);
        let (y, slope, _) = path(pose.position.x);
        let heading_error = wrap(slope.atan() - pose.yaw);
        let lateral_error = y - pose.position.y;
        let delta = wheelbase * curvature
            + understeer * v * v * curvature
            + heading_error
            + (3.0 * lateral_error / v).atan();
        let steer = (-delta / max_angle).clamp(-1.0, 1.0);
        rig.step(drive(0.0, 0.0, steer))?;
        let slip = rig.channel("body_slip")?.to_degrees().abs();
        run.max_body_slip_deg = run.max_body_slip_deg.max(slip);
        let p = rig.world.pose(rig.car)?.position;
        for (x0, x1, y, half) in course {
            if (x0..=x1).contains(&p.x) {
                let allowed = (half - width / 2.0).max(0.0);
                let excess = ((p.y - y).abs() - allowed).max(0.0);
                run.max_corridor_excess = run.max_corridor_excess.max(excess);
            }
        }
    }
    run.exit_speed = rig.speed()?;
    Ok(run)
}

/// The FMVSS 126 sine-with-dwell at 80 km/h on `surface`, throttle
/// released: steer input `amplitude` × sin(2π·0.7 Hz·t) to the left, held
/// for 0.5 s at its second (right) peak, then back to zero, then straight
/// for 1.75 s. Returns (yaw rate 1 s after the steering ends ÷ peak yaw
/// rate, largest |body slip| in degrees, largest stability-control
/// activity).
pub fn sine_with_dwell(
    def: &CarDefinition,
    amplitude: f64,
    surface: skidpad_core::SurfaceId,
) -> Result<(f64, f64, f64)> {
    const FREQUENCY: f64 = 0.7;
    const DWELL: f64 = 0.5;
    let stepping = Stepping::FULL;
    let mut rig = Rig::new(def, stepping, 80.0 / 3.6)?;
    rig.world.set_surface(rig.car, surface)?;
    let period = 1.0 / FREQUENCY;
    let steering_end = period + DWELL;
    let omega = 2.0 * core::f64::consts::PI * FREQUENCY;
    let (mut peak, mut after, mut max_slip, mut max_esc) = (0.0_f64, 0.0, 0.0_f64, 0.0_f64);
    let steps = ((steering_end + 1.75) * stepping.host_hz) as usize;
    let check_step = ((steering_end + 1.0) * stepping.host_hz).round() as usize;
    for k in 0..steps {
        let t = k as f64 * rig.dt;
        let wave = if t < 0.75 * period {
            (omega * t).sin()
        } else if t < 0.75 * period + DWELL {
            -1.0
        } else if t < steering_end {
            (omega * (t - DWELL)).sin()
        } else {
            0.0
        };
        // Input −1 is full left lock: the first lobe turns left.
        rig.step(drive(0.0, 0.0, -amplitude * wave))?;
        let r = rig.channel("yaw_rate")?.abs();
        peak = peak.max(r);
        max_slip = max_slip.max(rig.channel("body_slip")?.abs().to_degrees());
        max_esc = max_esc.max(rig.channel("esc_active")?);
        if k + 1 == check_step {
            after = r;
        }
    }
    Ok((after / peak, max_slip, max_esc))
}

/// The parking cases of SPEC §4.7 for a car: (grade, on the handbrake):
/// 10, 20 and 30 % on the service brake, and 10 and 20 % on the handbrake
/// when the car has one.
#[must_use]
pub fn parked_cases(def: &CarDefinition) -> Vec<(f64, bool)> {
    let mut cases = vec![(0.1, false), (0.2, false), (0.3, false)];
    if def.brakes.handbrake_torque > 0.0 {
        cases.extend([(0.1, true), (0.2, true)]);
    }
    cases
}

/// The worst deviations of a timestep sweep from its finest setting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepRun {
    /// Understeer gradient at the finest setting, deg/g.
    pub gradient: f64,
    /// Locked and ABS stopping distances at the finest setting, m.
    pub stops: (f64, f64),
    /// Largest |K − K_finest|, deg/g.
    pub worst_gradient: f64,
    /// Largest relative stopping-distance deviation, locked and ABS.
    pub worst_stops: (f64, f64),
}

/// Host 30, 60, 120, 240 Hz × substeps 250, 500, 1000, 2000 Hz: the
/// understeer gradient and both stopping distances at every combination,
/// against host 240 Hz × substeps 2000 Hz.
pub fn timestep_sweep(def: &CarDefinition) -> Result<SweepRun> {
    let measure = |host_hz: f64, rate: f64| -> Result<(f64, f64, f64)> {
        let s = Stepping {
            lod: Lod::Full,
            host_hz,
            substep_hz: Some(rate),
        };
        Ok((
            constant_radius(def, s, &LATERAL_G)?.gradient(),
            stop_from_100(def, s, false)?,
            stop_from_100(def, s, true)?,
        ))
    };
    let (k0, locked0, abs0) = measure(240.0, 2000.0)?;
    let mut run = SweepRun {
        gradient: k0,
        stops: (locked0, abs0),
        worst_gradient: 0.0,
        worst_stops: (0.0, 0.0),
    };
    for host in [30.0, 60.0, 120.0, 240.0] {
        for rate in [250.0, 500.0, 1000.0, 2000.0] {
            let (k, locked, abs) = measure(host, rate)?;
            run.worst_gradient = run.worst_gradient.max((k - k0).abs());
            run.worst_stops.0 = run.worst_stops.0.max((locked / locked0 - 1.0).abs());
            run.worst_stops.1 = run.worst_stops.1.max((abs / abs0 - 1.0).abs());
        }
    }
    Ok(run)
}

/// The AI's lap of the built-in `brandwood` track on the plane, from its
/// start line at 15 m/s: the time until the car has covered one lap of
/// centre line, interpolated between host steps (s). `None` if it takes
/// longer than 5 minutes. Not `skidpad_ghost::LapCutter`: its lap times
/// are whole host steps (1/60 s), coarser than the differences between
/// substep rates this measures.
pub fn ai_lap(def: &CarDefinition, stepping: Stepping) -> Result<Option<f64>> {
    let track = Arc::new(Track::builtin("brandwood")?);
    let (start, direction) = track.point_at(0.0);
    let mut world = World::new(WorldConfig::default())?;
    let pose = InitialPose {
        x: start.x,
        y: start.y,
        yaw: direction.y.atan2(direction.x),
        speed: 15.0,
    };
    let car = world.add_car(def, pose)?;
    world.set_driver(car, Some(track.clone()))?;
    let lod = match stepping.substep_hz {
        Some(rate) => LodSetting::with_rate(stepping.lod, rate),
        None => LodSetting::new(stepping.lod),
    };
    world.set_lod(car, lod)?;
    let dt = stepping.dt();
    let length = track.length();
    let along = |world: &World| -> Result<f64> {
        Ok(track.locate(world.pose(car)?.position.truncate()).distance)
    };
    let (mut covered, mut last) = (0.0, along(&world)?);
    for step in 1..=(300.0 * stepping.host_hz) as u64 {
        world.step(dt)?;
        let here = along(&world)?;
        // The shorter way round between two steps' track distances.
        let moved = (here - last + 1.5 * length).rem_euclid(length) - 0.5 * length;
        last = here;
        if covered + moved >= length {
            let fraction = (length - covered) / moved;
            return Ok(Some((step as f64 - 1.0 + fraction) * dt));
        }
        covered += moved;
    }
    Ok(None)
}

/// What a parked car did over 10 s on a slope.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ParkedRun {
    /// Largest speed in the last 10 s, m/s.
    pub max_speed: f64,
    /// Distance moved over those 10 s, m.
    pub drift: f64,
}

/// Parks the car on a `grade` (rise over run) facing uphill, held by the
/// service brake or the handbrake: 2 s to settle, then 10 s measured.
pub fn parked(
    def: &CarDefinition,
    stepping: Stepping,
    grade: f64,
    handbrake: bool,
) -> Result<ParkedRun> {
    let mut rig = Rig::new(def, stepping, 0.0)?;
    rig.world.set_ground_slope(
        rig.car,
        GroundSlope {
            grade,
            cross_slope: 0.0,
        },
    )?;
    let input = CarInput {
        brake: if handbrake { 0.0 } else { 1.0 },
        handbrake: if handbrake { 1.0 } else { 0.0 },
        ..CarInput::default()
    };
    for _ in 0..(2.0 * stepping.host_hz) as usize {
        rig.step(input)?;
    }
    let start = rig.world.pose(rig.car)?.position;
    let mut run = ParkedRun::default();
    for _ in 0..(10.0 * stepping.host_hz) as usize {
        rig.step(input)?;
        run.max_speed = run.max_speed.max(rig.speed()?);
    }
    run.drift = rig.world.pose(rig.car)?.position.distance(start);
    Ok(run)
}

/// A preset by name (for the table and the tests).
pub fn car(name: &str) -> Result<CarDefinition> {
    preset(name)
}
