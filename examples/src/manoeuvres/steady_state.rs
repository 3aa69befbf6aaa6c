//! ISO 4138 steady-state circular driving (constant radius and constant
//! speed) and the linear single-track theory of the understeer gradient.

use skidpad_core::{CarDefinition, Result};

use super::rollover::RollWatch;
use super::{G, Rig, Stepping, drive};

/// The lateral accelerations (g) of the ISO 4138 runs.
pub const LATERAL_G: [f64; 5] = [0.1, 0.15, 0.2, 0.25, 0.3];

/// Lateral accelerations of the comparison with linear theory, g: low
/// enough that the lateral load transfer barely bends the curve.
pub const LINEAR_G: [f64; 3] = [0.05, 0.1, 0.15];

/// Lateral accelerations of the constant-speed test, g: ISO 4138 steps
/// by at most 0.5 m/s² (0.05 g is 0.49).
pub const SPEED_TEST_G: [f64; 5] = [0.1, 0.15, 0.2, 0.25, 0.3];

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
/// angle δ − L/R in degrees), signed positive left, from both directions.
#[derive(Clone, Debug, Default)]
pub struct CircleRun {
    /// One point per speed.
    pub points: Vec<(f64, f64)>,
}

impl CircleRun {
    /// The understeer gradient, deg/g: the least-squares slope dδ/da_y of
    /// each direction's samples, averaged over the directions. Each
    /// direction is fitted on its own: a locking differential shifts δ by
    /// a constant that changes sign with the direction, which a line
    /// through both would read as slope.
    #[must_use]
    pub fn gradient(&self) -> f64 {
        let slope = |left: bool| {
            let points: Vec<(f64, f64)> = self
                .points
                .iter()
                .filter(|(a, _)| (*a > 0.0) == left)
                .map(|&(a, d)| (a.abs(), d.abs()))
                .collect();
            let n = points.len() as f64;
            let (sx, sy) = points
                .iter()
                .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
            let (mx, my) = (sx / n, sy / n);
            let (mut sxy, mut sxx) = (0.0, 0.0);
            for (x, y) in &points {
                sxy += (x - mx) * (y - my);
                sxx += (x - mx) * (x - mx);
            }
            (n > 1.0).then(|| sxy / sxx)
        };
        match (slope(true), slope(false)) {
            (Some(l), Some(r)) => 0.5 * (l + r),
            (Some(one), None) | (None, Some(one)) => one,
            (None, None) => f64::NAN,
        }
    }
}

/// Both directions, as ISO 4138 asks: left-hand circles (+1), then
/// right-hand ones (−1) from a fresh start. The samples are signed, so a
/// car that turns alike both ways puts them on one line through zero.
const DIRECTIONS: [f64; 2] = [1.0, -1.0];

/// ISO 4138 constant-radius test on a 40 m circle, both ways: a
/// closed-loop driver holds the radius while the speed is held at each of
/// `lateral_g` in turn; at each, after settling, the steer angle and the
/// lateral acceleration are averaged. Returns the samples (the gradient is
/// their slope).
pub fn constant_radius(
    def: &CarDefinition,
    stepping: Stepping,
    lateral_g: &[f64],
) -> Result<CircleRun> {
    const RADIUS: f64 = 40.0;
    let first = (lateral_g[0] * G * RADIUS).sqrt();
    let mut run = CircleRun::default();
    for direction in DIRECTIONS {
        let mut circle = CircleDriver::new(def, stepping, first)?;
        for &g in lateral_g {
            run.points
                .push(circle.hold(RADIUS, (g * G * RADIUS).sqrt(), direction)?);
        }
    }
    Ok(run)
}

/// ISO 4138 constant-speed test, both ways: at `speed` (m/s) the driver
/// holds circles of the radii that give each of `lateral_g` in turn
/// (largest radius first, each starting tangent to the car's path).
/// Returns the samples.
pub fn constant_speed(
    def: &CarDefinition,
    stepping: Stepping,
    speed: f64,
    lateral_g: &[f64],
) -> Result<CircleRun> {
    let mut run = CircleRun::default();
    for direction in DIRECTIONS {
        let mut circle = CircleDriver::new(def, stepping, speed)?;
        for &g in lateral_g {
            run.points
                .push(circle.hold(speed * speed / (g * G), speed, direction)?);
        }
    }
    Ok(run)
}

/// A closed-loop driver on circles: kinematic feedforward plus feedback on
/// heading and radius for the steer, PI on speed for the throttle.
pub(super) struct CircleDriver {
    rig: Rig,
    stepping: Stepping,
    max_angle: f64,
    wheelbase: f64,
    throttle_integral: f64,
    /// The body's roll and the wheels' lift over every step driven.
    pub(super) roll: RollWatch,
}

impl CircleDriver {
    pub(super) fn new(def: &CarDefinition, stepping: Stepping, speed: f64) -> Result<CircleDriver> {
        Ok(CircleDriver {
            rig: Rig::new(def, stepping, speed)?,
            stepping,
            max_angle: def.steering.max_angle,
            wheelbase: def.chassis.wheelbase,
            throttle_integral: 0.0,
            roll: RollWatch::default(),
        })
    }

    /// Drives a circle of `radius` tangent to the car's path at `speed`,
    /// to the left (`direction` +1) or the right (−1); after settling,
    /// returns the averaged (lateral acceleration in g, dynamic steer angle
    /// δ − L/R in degrees), both signed positive left.
    pub(super) fn hold(&mut self, radius: f64, speed: f64, direction: f64) -> Result<(f64, f64)> {
        const SETTLE: f64 = 6.0;
        const AVERAGE: f64 = 2.0;
        let start = self.rig.world.pose(self.rig.car)?;
        // The centre lies `radius` to the turning side of the car.
        let centre = (
            start.position.x - direction * radius * start.yaw.sin(),
            start.position.y + direction * radius * start.yaw.cos(),
        );
        let steps = ((SETTLE + AVERAGE) * self.stepping.host_hz) as usize;
        let average_from = (SETTLE * self.stepping.host_hz) as usize;
        let (mut sum_delta, mut sum_ay, mut n) = (0.0, 0.0, 0.0);
        for k in 0..steps {
            let pose = self.rig.world.pose(self.rig.car)?;
            let (dx, dy) = (pose.position.x - centre.0, pose.position.y - centre.1);
            let distance = (dx * dx + dy * dy).sqrt();
            // Heading of the circle's tangent here, in the direction of
            // travel (counter-clockwise for a left turn).
            let tangent = (direction * dx).atan2(-direction * dy);
            let heading_error = wrap(tangent - pose.yaw);
            let radius_error = distance - radius;
            let delta =
                direction * (self.wheelbase / radius + 0.08 * radius_error) + 1.2 * heading_error;
            let steer = (-delta / self.max_angle).clamp(-1.0, 1.0);
            let speed_error = speed - pose.speed;
            self.throttle_integral =
                (self.throttle_integral + speed_error * self.rig.dt).clamp(-2.0, 2.0);
            let throttle = (0.5 * speed_error + 0.4 * self.throttle_integral).clamp(0.0, 1.0);
            self.rig.step(drive(throttle, 0.0, steer))?;
            self.roll.watch(&self.rig)?;
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

pub(super) fn wrap(a: f64) -> f64 {
    let mut a = a % (2.0 * core::f64::consts::PI);
    if a > core::f64::consts::PI {
        a -= 2.0 * core::f64::consts::PI;
    } else if a < -core::f64::consts::PI {
        a += 2.0 * core::f64::consts::PI;
    }
    a
}
