//! Transient manoeuvres: ISO 7401 step steer, ISO 3888-1 double lane
//! change and the sine with dwell of stability-control tests.

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
