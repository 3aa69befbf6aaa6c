//! The single-track (bicycle) model used for level of detail.
//!
//! The body is planar: x, y, yaw and their rates. Pitch and roll are held at
//! zero and the centre of mass at its static height. Axle loads are static
//! plus aero lift plus longitudinal load transfer, estimated from the
//! previous pass of this same substep (one fixed-point iteration, no state).
//! Each wheel keeps its own spin, surface and torques, but both wheels of an
//! axle share the axle's kinematics; the lateral load transfer of the full
//! model is ignored.

use glam::{DQuat, DVec3};

use crate::aero;
use crate::car_params::CarParams;
use crate::definition::CarDefinition;
use crate::drivetrain;
use crate::full_model::Environment;
use crate::ids::Wheel;
use crate::pose::yaw_pitch_roll;
use crate::state::{CarState, StepOutputs, WheelOutput};
use crate::steering;
use crate::wheel::{WheelContact, WheelResult, ploughing_force, step_wheel};

/// Advances the car by one substep of `h` seconds.
pub(crate) fn substep(
    def: &CarDefinition,
    params: &CarParams,
    env: &Environment<'_>,
    state: &mut CarState,
    out: &mut StepOutputs,
    h: f64,
) {
    let c = &def.chassis;
    let mass = c.mass;
    let a = c.cg_to_front_axle;
    let b = c.wheelbase - a;
    let (yaw, _, _) = yaw_pitch_roll(state.orientation);
    let (sin_yaw, cos_yaw) = (libm::sin(yaw), libm::cos(yaw));
    let v = state.velocity;
    let vx = v.x * cos_yaw + v.y * sin_yaw;
    let vy = -v.x * sin_yaw + v.y * cos_yaw;
    let r = state.angular_velocity.z;
    let gravity = state.slope.gravity(env.gravity);
    let gx = gravity.x * cos_yaw + gravity.y * sin_yaw;
    let gy = -gravity.x * sin_yaw + gravity.y * cos_yaw;
    let weight = -gravity.z * mass;

    let steer = steering::wheel_angles(def, state.input.steer);
    let torques = drivetrain::torques(def, &state.input, &state.wheel_omega, &mut state.gear);
    let slip_floor = params.slip_floor(h);
    let aero = aero::forces(def, env.air_density, (vx * vx + vy * vy).sqrt(), vx);
    let static_front = weight * b / c.wheelbase - aero.lift_front;
    let static_rear = weight * a / c.wheelbase - aero.lift_rear;

    // Wheel kinematics in the body frame.
    let axle_velocity = |w: Wheel| {
        if w.is_front() {
            (vx, vy + a * r)
        } else {
            (vx, vy - b * r)
        }
    };
    let run = |transfer: f64, commit: bool, state: &mut CarState, out: &mut StepOutputs| {
        let mut body_force = (0.0, 0.0);
        let mut yaw_moment = 0.0;
        for w in Wheel::ALL {
            let i = w.index();
            let front = w.is_front();
            let axle_load = if front {
                static_front - transfer
            } else {
                static_rear + transfer
            };
            let (bx, by) = axle_velocity(w);
            let (sin_d, cos_d) = (libm::sin(steer[i]), libm::cos(steer[i]));
            let wheel_def = def.wheels.get(front);
            let contact = WheelContact {
                tire: def.tires.get(front),
                surface: env
                    .surfaces
                    .get(state.surfaces[i])
                    .unwrap_or(&env.surfaces.surfaces()[0]),
                load: (axle_load / 2.0).max(0.0),
                vx: bx * cos_d + by * sin_d,
                vy: -bx * sin_d + by * cos_d,
                radius: wheel_def.radius,
                inertia: wheel_def.inertia,
                drive_torque: torques.drive[i],
                brake_torque: torques.brake[i],
                slip_floor,
            };
            let result: WheelResult = step_wheel(&contact, state.wheel_omega[i], h);
            let (px, py) = ploughing_force(&contact);
            let (fx, fy) = (result.fx + px, result.fy + py);
            let (fbx, fby) = (fx * cos_d - fy * sin_d, fx * sin_d + fy * cos_d);
            body_force.0 += fbx;
            body_force.1 += fby;
            let x = if front { a } else { -b };
            let y = c.track.get(front) / 2.0 * if w.is_left() { 1.0 } else { -1.0 };
            yaw_moment += x * fby - y * fbx;
            if commit {
                state.wheel_omega[i] = result.omega;
                out.wheels[i] = WheelOutput {
                    load: contact.load,
                    slip_ratio: result.slip_ratio,
                    slip_angle: result.slip_angle,
                    fx: result.fx,
                    fy: result.fy,
                    travel: params.static_wheel_load[i] / def.suspension.get(front).spring_rate,
                    contact: true,
                    steer: steer[i],
                };
            }
        }
        (body_force, yaw_moment)
    };

    // First pass with static loads estimates the longitudinal acceleration;
    // the committed pass uses the load transfer it implies.
    let ((fx_estimate, _), _) = run(0.0, false, &mut state.clone(), out);
    let transfer = (fx_estimate * c.cg_height / c.wheelbase).clamp(-static_front, static_rear);
    let ((fx_body, fy_body), yaw_moment) = run(transfer, true, state, out);

    let speed = (vx * vx + vy * vy).sqrt();
    let (drag_x, drag_y) = if speed > 0.0 {
        (-aero.drag * vx / speed, -aero.drag * vy / speed)
    } else {
        (0.0, 0.0)
    };
    let ax = (fx_body + drag_x) / mass + gx;
    let ay = (fy_body + drag_y) / mass + gy;
    let new_r = r + yaw_moment / params.inertia.z * h;
    let new_vx = vx + (ax + r * vy) * h;
    let new_vy = vy + (ay - r * vx) * h;
    let new_yaw = yaw + new_r * h;
    let (sin_n, cos_n) = (libm::sin(new_yaw), libm::cos(new_yaw));
    state.velocity = DVec3::new(
        new_vx * cos_n - new_vy * sin_n,
        new_vx * sin_n + new_vy * cos_n,
        0.0,
    );
    state.position.x += state.velocity.x * h;
    state.position.y += state.velocity.y * h;
    state.position.z = c.cg_height;
    state.orientation = DQuat::from_rotation_z(new_yaw);
    state.angular_velocity = DVec3::new(0.0, 0.0, new_r);

    out.acceleration = DVec3::new(ax, ay, 0.0);
    out.engine_rpm = torques.engine_rpm;
    out.engine_torque = torques.engine_torque;
    out.drag = aero.drag;
    out.lift_front = aero.lift_front;
    out.lift_rear = aero.lift_rear;
}
