//! Transient manoeuvres: ISO 7401 step steer, the ISO 3888-1 double lane
//! change and ISO 3888-2 obstacle avoidance, and the sine with dwell of
//! stability-control tests.

use skidpad_core::{CarDefinition, Result};

use super::steady_state::wrap;
use super::{G, Rig, Stepping, drive, theory_understeer_gradient};

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

/// One gated section of a lane-change course: from `start` to `end` m
/// along x, centred on `centre` (y, m, positive left), `half_width` m to
/// each side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lane {
    pub start: f64,
    pub end: f64,
    pub centre: f64,
    pub half_width: f64,
}

/// The two ISO 3888 courses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneChange {
    /// ISO 3888-1, the double lane change: sections of 15 m at
    /// 1.1·b + 0.25 wide, 30 m free, 25 m at 1.2·b + 0.25 offset 3.5 m to
    /// the left, 25 m free, 15 m at 1.3·b + 0.25.
    Double,
    /// ISO 3888-2, obstacle avoidance: 12 m at 1.1·b + 0.25, 13.5 m
    /// free, 11 m at b + 1 whose right edge lies 1 m left of the first
    /// lane's left edge, 12.5 m free, 12 m at 3 m; driven without throttle.
    ObstacleAvoidance,
}

impl LaneChange {
    /// The standard's name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            LaneChange::Double => "ISO 3888-1 double lane change",
            LaneChange::ObstacleAvoidance => "ISO 3888-2 obstacle avoidance",
        }
    }
}

/// The gated sections 1, 3 and 5 of `course` for a car `width` m wide
/// (b: the body's width). The lateral offset of ISO 3888-1 is read between
/// the right-hand edges of sections 1 and 3; in both standards section 5's
/// right-hand edge continues section 1's.
#[must_use]
pub fn lane_change_course(course: LaneChange, width: f64) -> [Lane; 3] {
    let lane = |start: f64, length: f64, centre: f64, full_width: f64| Lane {
        start,
        end: start + length,
        centre,
        half_width: full_width / 2.0,
    };
    let first = 1.1 * width + 0.25;
    match course {
        LaneChange::Double => {
            let middle = 1.2 * width + 0.25;
            let last = 1.3 * width + 0.25;
            [
                lane(0.0, 15.0, 0.0, first),
                lane(45.0, 25.0, -first / 2.0 + 3.5 + middle / 2.0, middle),
                lane(95.0, 15.0, (last - first) / 2.0, last),
            ]
        }
        LaneChange::ObstacleAvoidance => {
            let middle = width + 1.0;
            [
                lane(0.0, 12.0, 0.0, first),
                lane(25.5, 11.0, first / 2.0 + 1.0 + middle / 2.0, middle),
                lane(49.0, 12.0, (3.0 - first) / 2.0, 3.0),
            ]
        }
    }
}

/// An ISO 3888 course entered at `speed` m/s, throttle released at the
/// entry gate and the gear held: a preview (pure-pursuit) driver follows a
/// smooth path that uses each lane's free width to lengthen its
/// transitions. Reports the largest body slip and how far the car's centre
/// strayed outside what the gated lanes allow it (each lane's half width
/// less the car's own).
pub fn double_lane_change(
    def: &CarDefinition,
    stepping: Stepping,
    speed: f64,
    course: LaneChange,
) -> Result<TransientRun> {
    let width = def.chassis.track.front.max(def.chassis.track.rear) + 0.2;
    let lanes = lane_change_course(course, width);
    let slack = |lane: &Lane| (lane.half_width - width / 2.0).max(0.0);
    // The path keeps 70 % of each lane's slack in reserve for the
    // driver's tracking error, and leans towards the next move.
    let start = lanes[0].centre - 0.3 * slack(&lanes[0]);
    let high = lanes[1].centre - 0.3 * slack(&lanes[1]);
    let end = lanes[2].centre + 0.3 * slack(&lanes[2]);
    // The transitions start a fifth of a lane before its end and finish a
    // fifth of a lane (a third for the last) after the next one begins.
    let length = |lane: &Lane| lane.end - lane.start;
    let first_move = (
        lanes[0].end - 0.2 * length(&lanes[0]),
        lanes[1].start + 0.2 * length(&lanes[1]),
    );
    let second_move = (
        lanes[1].end - 0.16 * length(&lanes[1]),
        lanes[2].start + 0.33 * length(&lanes[2]),
    );
    let finish = lanes[2].end + 5.0;
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
        let (a, da, dda) = step(first_move.0, first_move.1);
        let (b, db, ddb) = step(second_move.0, second_move.1);
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
        if pose.position.x > finish {
            break;
        }
        // Curvature feedforward read a little ahead (the car's response
        // lag), plus feedback on heading and lateral error (Stanley).
        let v = pose.speed.max(1.0);
        let (_, slope_ahead, bend_ahead) = path(pose.position.x + 0.15 * v);
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
        for lane in &lanes {
            if (lane.start..=lane.end).contains(&p.x) {
                let allowed = (lane.half_width - width / 2.0).max(0.0);
                let excess = ((p.y - lane.centre).abs() - allowed).max(0.0);
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
