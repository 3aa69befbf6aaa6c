//! The single-track (bicycle) model used for level of detail.
//!
//! The body is planar: x, y, yaw and their rates. Pitch and roll are held at
//! zero and the centre of mass at its static height above the ground found
//! under it at the host step's start; that ground's tilt acts as a slope
//! (gravity's downhill pull), as the game's own slope does. Axle loads are static
//! plus aero lift plus longitudinal load transfer, estimated from the
//! tire force the drivetrain and brakes ask for (no extra state).
//! Each wheel keeps its own spin, surface, torques and ground speed (the
//! yaw rate times half the track makes the outer wheel faster, so the
//! differentials couple the wheels as in the full model). The tire is
//! evaluated once per axle, at the wheels' mean slips and mean load
//! (`axle_tire_forces`); a steady-state lateral load transfer sets each
//! wheel's share of it, and the tires' load sensitivity across the axle is
//! left out, as in any single-track model.

use glam::{DQuat, DVec3};

use crate::ids::Wheel;
use crate::math;
use crate::model::aero;
use crate::model::assists;
use crate::model::drivetrain::{self, differential};
use crate::model::outputs::{AssistActivity, StepOutputs, WheelOutput};
use crate::model::steering;
use crate::model::substep::SubstepContext;
use crate::model::wheel::{self, TireForce, WheelContact, WheelSlip, ploughing_force};
use crate::pose::yaw_pitch_roll;
use crate::state::car_state::CarState;

/// Advances the car by one substep of `ctx.h` seconds; writes the
/// telemetry outputs when given them (the host step's last substep).
pub(crate) fn substep(
    ctx: &SubstepContext<'_>,
    state: &mut CarState,
    mut out: Option<&mut StepOutputs>,
) {
    let given = ctx.host.with_steer_give(ctx.def, state);
    let given_ctx = given.as_ref().map(|host| SubstepContext { host, ..*ctx });
    let ctx = given_ctx.as_ref().unwrap_or(ctx);
    let SubstepContext {
        def,
        params,
        env,
        host,
        h,
    } = *ctx;
    let steer = &host.steer;
    let c = &def.chassis;
    let mass = c.mass;
    let a = c.cg_to_front_axle;
    let b = c.wheelbase - a;
    // The heading as the unit quaternion (0, 0, sin ψ/2, cos ψ/2): sin ψ
    // and cos ψ follow from it by products, so no angle is extracted.
    let heading = heading_quaternion(state.orientation);
    let (half_sin, half_cos) = (heading.z, heading.w);
    let sin_yaw = 2.0 * half_sin * half_cos;
    let cos_yaw = half_cos * half_cos - half_sin * half_sin;
    let v = state.velocity;
    let vx = v.x * cos_yaw + v.y * sin_yaw;
    let vy = -v.x * sin_yaw + v.y * cos_yaw;
    let r = state.angular_velocity.z;
    let gravity = host.gravity;
    let gx = gravity.x * cos_yaw + gravity.y * sin_yaw;
    let gy = -gravity.x * sin_yaw + gravity.y * cos_yaw;
    let weight = -gravity.z * mass;

    let mut torques = drivetrain::torques(def, params, state, host.ratio, host.brake, h);
    let slip_floor = host.slip_floor;
    let yaw_state = || assists::YawState {
        forward_speed: vx,
        lateral_speed: vy,
        yaw_rate: r,
        steer_angle: steer.centre,
        grip: assists::mean_grip(env.surfaces, &state.surfaces),
    };
    let esc = assists::add_stability_brakes(def, params, yaw_state, &mut torques.brake);
    let mut assists_activity = AssistActivity::default();
    let aero = aero::forces(def, env.air_density, (vx * vx + vy * vy).sqrt(), vx);
    // An axle whose lift exceeds its share of the weight (or a car whose
    // gravity points away from its ground) carries nothing, never a
    // negative load: the clamps below need ordered bounds.
    let static_front = (weight * b / c.wheelbase - aero.lift_front).max(0.0);
    let static_rear = (weight * a / c.wheelbase - aero.lift_rear).max(0.0);

    // Longitudinal load transfer from the force the drivetrain and brakes
    // ask of the tires, capped at what the tires can give: a stateless
    // estimate that needs no second tire pass.
    let against_motion = if vx < 0.0 { 1.0 } else { -1.0 };
    let asked: f64 = Wheel::ALL
        .iter()
        .map(|w| {
            let i = w.index();
            let radius = def.wheels.get(w.is_front()).radius;
            (torques.drive[i] + against_motion * torques.brake[i]) / radius
        })
        .sum();
    let grip = (def.tires.front.pdx1.max(def.tires.rear.pdx1) * weight).max(0.0);
    let transfer =
        (asked.clamp(-grip, grip) * c.cg_height / c.wheelbase).clamp(-static_front, static_rear);

    let mut fx_body = 0.0;
    let mut fy_body = 0.0;
    let mut yaw_moment = 0.0;
    let mut kingpin = 0.0;
    // Axle by axle: one tire evaluation for both wheels, their spin
    // updates, then the differential settles their speeds against the
    // tires' stiffness (`differential::settle_axle`), then the forces at
    // the settled speeds act on the body.
    for axle in [AXLE_FRONT, AXLE_REAR] {
        let front = axle[0].is_front();
        let (x, axle_load) = if front {
            (a, static_front - transfer)
        } else {
            (-b, static_rear + transfer)
        };
        // Lateral load transfer at the steady-state lateral acceleration
        // vx·r (stateless, like the longitudinal estimate): the outer wheel
        // gains what the inner loses, down to a lifted inner wheel.
        let half = (axle_load / 2.0).max(0.0);
        let shift = (params.lateral_transfer[usize::from(!front)] * vx * r).clamp(-half, half);
        let half_track = c.track.get(front) / 2.0;
        let contact = |w: Wheel| {
            let i = w.index();
            // The wheel's own ground speed, track width included: in a turn
            // the outer wheel travels faster than the inner one, which is
            // what lets a locked or limited-slip differential push back
            // against the yaw. Without it this model would handle like an
            // open differential whatever the definition says.
            let (y, load) = if w.is_left() {
                (half_track, half - shift)
            } else {
                (-half_track, half + shift)
            };
            let (bx, by) = (vx - y * r, vy + x * r);
            let (sin_d, cos_d) = (steer.sin[i], steer.cos[i]);
            let contact = WheelContact {
                load,
                vx: bx * cos_d + by * sin_d,
                vy: -bx * sin_d + by * cos_d,
                ..WheelContact::for_wheel(params, env.surfaces, state, &torques, i, slip_floor)
            };
            (
                contact,
                WheelSlip::new(&contact, state.wheel_omega[i], h),
                y,
            )
        };
        let pair = [contact(axle[0]), contact(axle[1])];
        let forces = axle_tire_forces(&pair, half);
        let [l, r] = [axle[0].index(), axle[1].index()];
        let spun = [
            wheel::spin(&pair[0].0, &pair[0].1, &forces[0], state.wheel_omega[l], h),
            wheel::spin(&pair[1].0, &pair[1].1, &forces[1], state.wheel_omega[r], h),
        ];
        let h_over_inertia = [spun[0].1.h_over_inertia, spun[1].1.h_over_inertia];
        let converted = drivetrain::converter_settle(
            &torques,
            front,
            [spun[0].0, spun[1].0],
            [state.wheel_omega[l], state.wheel_omega[r]],
            h_over_inertia,
        );
        let settled =
            differential::settle_axle(def, front, &torques.drive, converted, h_over_inertia, h);
        let mut axle_lateral_force = 0.0;
        for (j, i) in [l, r].into_iter().enumerate() {
            let (contact, slip, y) = &pair[j];
            let result = spun[j].1.at_omega(contact, slip, settled[j], h);
            state.wheel_omega[i] = result.omega;
            state.tire_deflection[i] = result.deflection;
            if out.is_some() {
                assists_activity.add(&result);
            }
            if front {
                kingpin += steering::kingpin_moment(&def.steering.feel, result.fy, result.mz);
            }
            let (sin_d, cos_d) = (steer.sin[i], steer.cos[i]);
            let (px, py) = ploughing_force(contact);
            let (fx, fy) = (result.fx + px, result.fy + py);
            let (fbx, fby) = (fx * cos_d - fy * sin_d, fx * sin_d + fy * cos_d);
            fx_body += fbx;
            fy_body += fby;
            axle_lateral_force += fby;
            yaw_moment += x * fby - y * fbx + result.mz;
            if let Some(out) = out.as_deref_mut() {
                let travel = params.static_wheel_load[i] / def.suspension.get(front).spring_rate;
                out.wheels[i] = WheelOutput::in_contact(contact, &result, travel, steer.angle[i]);
            }
        }
        // This model's loads take the links' transfer from `vx·r` (in
        // `lateral_transfer`); the force is kept for the full model, should
        // the car change to it.
        if def.suspension.get(front).roll_centre_height != 0.0 {
            state.axle_lateral_force[usize::from(!front)] = axle_lateral_force;
        }
    }

    drivetrain::after_wheels(def, params, state, &torques, h);
    if def.steering.compliance.is_some() {
        state.steer_give = steering::settle_give(&def.steering, state.steer_give, kingpin, h);
    }

    let speed = (vx * vx + vy * vy).sqrt();
    let (drag_x, drag_y) = if speed > 0.0 {
        (-aero.drag * vx / speed, -aero.drag * vy / speed)
    } else {
        (0.0, 0.0)
    };
    let ax = (fx_body + drag_x) / mass + gx;
    let ay = (fy_body + drag_y) / mass + gy;
    let new_r = r + yaw_moment / params.inertia.z * h;
    // The velocity changes by the forces alone, in the world frame. (An
    // explicit update in the turning body frame, v + (a − r × v)·h, grows
    // |v| by √(1 + (r·h)²) every substep: a car spun up to tens of rad/s
    // gained speed without end until the state check stopped it.)
    let (ax_world, ay_world) = (ax * cos_yaw - ay * sin_yaw, ax * sin_yaw + ay * cos_yaw);
    // Turn the heading by r·h: a product with the half-angle rotation,
    // renormalised so rounding cannot drift it off the unit circle.
    let (turn_sin, turn_cos) = math::sin_cos(0.5 * new_r * h);
    let z = half_sin * turn_cos + half_cos * turn_sin;
    let w = half_cos * turn_cos - half_sin * turn_sin;
    let norm = 1.0 / (z * z + w * w).sqrt();
    let (z, w) = (z * norm, w * norm);
    state.velocity = DVec3::new(v.x + ax_world * h, v.y + ay_world * h, 0.0);
    state.position.x += state.velocity.x * h;
    state.position.y += state.velocity.y * h;
    // On the ground found at the step's start; with none below (off a
    // mesh's edge) the car keeps its height rather than fall through a
    // model that has no vertical motion.
    state.position.z = match host.ground_below {
        Some(hit) => hit.point.z + c.cg_height,
        None => state.position.z,
    };
    state.orientation = DQuat::from_xyzw(0.0, 0.0, z, w);
    state.angular_velocity = DVec3::new(0.0, 0.0, new_r);

    if let Some(out) = out {
        out.acceleration = DVec3::new(ax, ay, 0.0);
        out.set_drivetrain_and_aero(&torques, &aero);
        out.set_assists(assists_activity, esc);
    }
}

const AXLE_FRONT: [Wheel; 2] = [Wheel::FrontLeft, Wheel::FrontRight];
const AXLE_REAR: [Wheel; 2] = [Wheel::RearLeft, Wheel::RearRight];

/// The tire forces of an axle's two wheels from one tire evaluation: the
/// axle's tire at the mean wheel load `half` and the wheels' mean slips,
/// each wheel's longitudinal force moved along the slope ∂Fx/∂κ to its
/// own slip ratio (so a differential that holds the wheels at different
/// slips still sees different forces), and every force scaled by the
/// wheel's share of the load (a lifted inner wheel carries none).
///
/// The wheels of an axle differ in slip by the track width over the turn
/// radius and by their steer angles, a few hundredths at most in a
/// corner, where the linearisation is close; evaluating the curve once per
/// axle instead of per wheel halves the model's dearest work. The tire's
/// load sensitivity across the axle (lateral load transfer) is left out,
/// as in any single-track model. A tire with side-dependent terms is
/// evaluated on both sides and averaged, so that the pair's conicity and
/// ply steer act on the axle as they do in the full model.
fn axle_tire_forces(wheels: &[(WheelContact<'_>, WheelSlip, f64); 2], half: f64) -> [TireForce; 2] {
    let [(left, left_slip, _), (right, right_slip, _)] = wheels;
    let kappa = 0.5 * (left_slip.slip_ratio + right_slip.slip_ratio);
    let alpha = 0.5 * (left_slip.lateral_slip + right_slip.lateral_slip);
    let TireForce {
        fx,
        fy,
        dfx_dkappa: slope,
        peak_x,
        peak_y,
    } = if left.constants.sided {
        let a = wheel::tire_forces_at(left.constants, half, kappa, alpha);
        let b = wheel::tire_forces_at(right.constants, half, kappa, alpha);
        TireForce {
            fx: 0.5 * (a.fx + b.fx),
            fy: 0.5 * (a.fy + b.fy),
            dfx_dkappa: 0.5 * (a.dfx_dkappa + b.dfx_dkappa),
            peak_x: a.peak_x,
            peak_y: a.peak_y,
        }
    } else {
        wheel::tire_forces_at(left.constants, half, kappa, alpha)
    };
    let share = if half > 0.0 {
        [left.load / half, right.load / half]
    } else {
        [0.0; 2]
    };
    let slips = [left_slip.slip_ratio, right_slip.slip_ratio];
    core::array::from_fn(|j| TireForce {
        fx: (fx + slope * (slips[j] - kappa)) * share[j],
        fy: fy * share[j],
        dfx_dkappa: slope * share[j],
        peak_x: peak_x * share[j],
        peak_y: peak_y * share[j],
    })
}

/// The car's heading as a rotation about z alone. The model keeps pitch
/// and roll at zero, so after its first substep the orientation already is
/// one; a car handed over by the full model is flattened to its yaw once.
fn heading_quaternion(q: DQuat) -> DQuat {
    if q.x == 0.0 && q.y == 0.0 {
        q
    } else {
        DQuat::from_rotation_z(yaw_pitch_roll(q).0)
    }
}
