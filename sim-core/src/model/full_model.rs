//! The four-wheel model: a 6-DOF rigid chassis on four raycast struts.
//!
//! One substep: ray-cast each strut into the ground, compute
//! spring, damper, bump-stop and anti-roll forces, run each wheel (tire
//! forces and spin, see `wheel.rs`), add gravity and aero, then integrate
//! the body with semi-implicit Euler: velocities first, then position and
//! orientation from the new velocities. Angular motion is integrated in the
//! body frame: the torques explicitly, the gyroscopic term ω × Iω with the
//! angular momentum's magnitude held (`gyroscopic_step`). Wheels are
//! processed in
//! index order, so the force sums have a fixed grouping (SPEC §3.3).

use glam::{DMat3, DQuat, DVec3};

use crate::ground::{GroundHint, GroundRay};
use crate::ids::Wheel;
use crate::model::aero;
use crate::model::assists;
use crate::model::drivetrain::{self, WheelTorques, differential};
use crate::model::outputs::{AssistActivity, StepOutputs, WheelOutput};
use crate::model::steering::{self, SteerGeometry};
use crate::model::substep::SubstepContext;
use crate::model::wheel::{self, Spun, WheelContact, WheelSlip, ploughing_force};
use crate::norm::{Norm, unit_quat};
use crate::state::car_state::CarState;
use crate::surface::SurfaceId;
use crate::vehicle::definition::CarDefinition;

/// What every wheel's spin update in a substep shares.
struct WheelRun<'a> {
    ctx: &'a SubstepContext<'a>,
    torques: &'a WheelTorques,
    hits: &'a [Option<StrutHit>; 4],
    travel: [f64; 4],
    /// The host step's steer angles with the axles' roll steer added.
    steer: &'a SteerGeometry,
    omega_world: DVec3,
    forward: DVec3,
    left: DVec3,
    up: DVec3,
}

impl<'a> WheelRun<'a> {
    /// Wheel `i`'s spin update, up to its final speed.
    // Not inlined: inlined at its two call sites the substep took 3.6 %
    // more instructions (callgrind, `car_step_cpu full`).
    #[inline(never)]
    fn run(&self, i: usize, state: &CarState) -> WheelPass<'a> {
        let SubstepContext {
            def,
            params,
            env,
            host,
            h,
        } = *self.ctx;
        let (hits, travel, omega_world) = (self.hits, self.travel, self.omega_world);
        let (forward, left, up) = (self.forward, self.left, self.up);
        let steer = self.steer;
        let susp = def.suspension.get(i < 2);
        let mut contact = WheelContact::for_wheel(
            params,
            env.surfaces,
            state,
            self.torques,
            i,
            host.slip_floor,
        );
        let ground = hits[i].map(|hit| {
            let arm = hit.point - state.position;
            let point_velocity = state.velocity + omega_world.cross(arm);
            // Positive while the strut shortens (body moving toward the
            // ground).
            let compression_rate = -point_velocity.dot(up);
            let damping = if compression_rate > 0.0 {
                susp.bump_damping
            } else {
                susp.rebound_damping
            };
            let other = travel[i ^ 1];
            let mut strut = susp.spring_rate * hit.compression
                + damping * compression_rate
                + susp.anti_roll_rate * (hit.compression - other);
            if hit.compression > susp.max_travel {
                strut += susp.bump_stop_rate * (hit.compression - susp.max_travel);
            }
            let strut = strut.max(0.0);

            // Tire frame on the ground: heading is the steered wheel's
            // forward axis projected onto the ground's tangent plane at the
            // hit.
            let (sin_d, cos_d) = (steer.sin[i], steer.cos[i]);
            let wheel_forward = forward * cos_d + left * sin_d;
            let frame = TireFrame::at(hit.normal, wheel_forward);
            contact.load = strut * frame.up_along_normal(up);
            if susp.roll_centre_height != 0.0 {
                contact.load = (contact.load + link_load_transfer(def, state, i)).max(0.0);
            }
            contact.vx = point_velocity.dot(frame.heading);
            contact.vy = point_velocity.dot(frame.lateral);
            StrutContact {
                arm,
                strut,
                frame,
                compression: hit.compression,
            }
        });
        let slip = WheelSlip::new(&contact, state.wheel_omega[i], h);
        let tire = wheel::tire_force(&contact, &slip);
        let (omega, spun) = wheel::spin(&contact, &slip, &tire, state.wheel_omega[i], h);
        WheelPass {
            contact,
            slip,
            spun,
            omega,
            ground,
        }
    }
}

/// The body-frame angular velocity after the gyroscopic term acts for `h`
/// on a body of principal inertias `inertia` spinning at `w`: the explicit
/// step ω − h·I⁻¹(ω × Iω), rescaled so the angular momentum keeps its
/// magnitude |Iω|, which torque-free motion conserves. The explicit step
/// alone lengthens Iω by √(1 + h²|ω × Iω|²/|Iω|²) every substep: a car
/// tumbling after a crash spun itself up from about 60 to over 1 500 rad/s
/// in free flight at 300 Hz, until the state check stopped it. With |Iω|
/// held, |ω| can never exceed |Iω| over the smallest inertia. (An implicit
/// step, Catto's, is stable too, but lost 4 % of the momentum of a
/// 6 rad/s tumble in 3 s; this loses none.)
fn gyroscopic_step(inertia: DVec3, inv_inertia: DVec3, w: DVec3, h: f64) -> DVec3 {
    let momentum = inertia * w;
    let turned = w - inv_inertia * w.cross(momentum) * h;
    let length = (inertia * turned).norm();
    if length > 0.0 {
        turned * (momentum.norm() / length)
    } else {
        turned
    }
}

/// The load an axle's links add to wheel `i` (negative: take from it):
/// the axle's lateral force of the last substep, acting the roll centre's
/// height below where the links pass it to the body, is a moment only the
/// tires' loads can answer, so the outer wheel gains and the inner loses
/// force × height / track.
fn link_load_transfer(def: &CarDefinition, state: &CarState, i: usize) -> f64 {
    let front = i < 2;
    let moment = state.axle_lateral_force[usize::from(!front)]
        * def.suspension.get(front).roll_centre_height;
    // A force to the left loads the right wheels (odd indices).
    let side = if i % 2 == 1 { 1.0 } else { -1.0 };
    side * moment / def.chassis.track.get(front)
}

/// One wheel's substep between its spin update and its forces on the body.
#[derive(Clone, Copy, Debug)]
struct WheelPass<'a> {
    contact: WheelContact<'a>,
    slip: WheelSlip,
    spun: Spun,
    /// The spin before the differentials act, rad/s.
    omega: f64,
    /// None while the wheel is in the air.
    ground: Option<StrutContact>,
}

/// A wheel's strut on the ground this substep.
#[derive(Clone, Copy, Debug)]
struct StrutContact {
    /// From the centre of mass to the contact point, world frame, m.
    arm: DVec3,
    /// Strut force along the body's up axis, N.
    strut: f64,
    frame: TireFrame,
    compression: f64,
}

/// A strut whose ray reached the ground.
#[derive(Clone, Copy, Debug)]
struct StrutHit {
    point: DVec3,
    normal: DVec3,
    surface: Option<SurfaceId>,
    compression: f64,
}

/// Advances the car by one substep of `ctx.h` seconds; writes the
/// telemetry outputs when given them (the host step's last substep).
pub(crate) fn substep(
    ctx: &SubstepContext<'_>,
    state: &mut CarState,
    hints: &mut [GroundHint; 4],
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
    let rot = state.orientation;
    // One matrix per substep: cheaper than rotating each vector by the
    // quaternion, and its columns are the body axes.
    let m = DMat3::from_quat(rot);
    let (forward, left, up) = (m.x_axis, m.y_axis, m.z_axis);
    let omega_world = m * state.angular_velocity;
    let mass = def.chassis.mass;
    let forward_speed = state.velocity.dot(forward);
    let mut torques = drivetrain::torques(def, params, state, host.ratio, host.brake, h);
    let yaw = || assists::YawState {
        forward_speed,
        lateral_speed: state.velocity.dot(left),
        yaw_rate: state.angular_velocity.z,
        steer_angle: steer.centre,
        grip: assists::mean_grip(env.surfaces, &state.surfaces),
    };
    let esc = assists::add_stability_brakes(def, params, yaw, &mut torques.brake);
    let mut assists_activity = AssistActivity::default();

    // Ray-cast each strut along the body's down axis into the ground.
    let hits: [Option<StrutHit>; 4] = Wheel::ALL.map(|w| {
        let geometry = &params.wheels[w.index()];
        let ray = GroundRay {
            origin: state.position + m * geometry.mount,
            direction: -up,
            max_distance: geometry.ray_length,
        };
        let hit = env.cast_ray_hinted(&ray, &mut hints[w.index()])?;
        let compression = geometry.ray_length - hit.distance;
        (compression > 0.0).then_some(StrutHit {
            point: hit.point,
            normal: hit.normal,
            surface: hit.surface,
            compression,
        })
    });
    let travel = hits.map(|hit| hit.map_or(0.0, |h| h.compression));
    let rolled = steer.roll_steered(def, &travel);
    let steer = rolled.as_ref().unwrap_or(steer);

    let speed = state.velocity.norm();
    let aero = aero::forces(def, env.air_density, speed, forward_speed);
    let mut force = host.gravity * mass;
    let mut torque = DVec3::ZERO;
    if speed > 0.0 {
        force -= state.velocity * (aero.drag / speed);
    }
    // Lift acts along the body's up axis at each axle: the force is the
    // sum, and the moment of a force along up at x along forward is
    // x·(forward × up)·lift = −x·lift·left.
    let front_x = def.chassis.cg_to_front_axle;
    let rear_x = front_x - def.chassis.wheelbase;
    force += up * (aero.lift_front + aero.lift_rear);
    torque -= left * (front_x * aero.lift_front + rear_x * aero.lift_rear);

    for (i, hit) in hits.iter().enumerate() {
        if let Some(surface) = hit.and_then(|hit| hit.surface) {
            // The ground knows what lies under this wheel.
            state.surfaces[i] = surface;
        }
    }
    let wheels = WheelRun {
        ctx,
        torques: &torques,
        hits: &hits,
        travel,
        steer,
        omega_world,
        forward,
        left,
        up,
    };
    // Axle by axle: both wheels' spin updates, then the differential
    // settles their speeds against the tires' stiffness
    // (`differential::settle_axle`), then the forces at the settled speeds
    // act on the body.
    let mut kingpin = 0.0;
    for (front, l, r) in [(true, 0, 1), (false, 2, 3)] {
        let roll_centre = def.suspension.get(front).roll_centre_height;
        let mut axle_lateral_force = 0.0;
        // Two bindings, not an array: each pass is written where it stays.
        let left_pass = wheels.run(l, state);
        let right_pass = wheels.run(r, state);
        let h_over_inertia = [
            left_pass.spun.h_over_inertia,
            right_pass.spun.h_over_inertia,
        ];
        let spun = drivetrain::converter_settle(
            &torques,
            front,
            [left_pass.omega, right_pass.omega],
            [state.wheel_omega[l], state.wheel_omega[r]],
            h_over_inertia,
        );
        let settled =
            differential::settle_axle(def, front, &torques.drive, spun, h_over_inertia, h);
        for (j, (i, pass)) in [(l, &left_pass), (r, &right_pass)].into_iter().enumerate() {
            let result = pass.spun.at_omega(&pass.contact, &pass.slip, settled[j], h);
            state.wheel_omega[i] = result.omega;
            if out.is_some() {
                assists_activity.add(&result);
            }
            let Some(ground) = &pass.ground else {
                // Airborne: the wheel only spun up or down under its
                // torques, and its unloaded tire springs back.
                state.tire_deflection[i] = [0.0; 2];
                if let Some(out) = out.as_deref_mut() {
                    out.wheels[i] = WheelOutput::airborne(&pass.contact, &result, steer.angle[i]);
                }
                continue;
            };
            state.tire_deflection[i] = result.deflection;
            if front {
                kingpin += steering::kingpin_moment(&def.steering.feel, result.fy, result.mz);
            }
            let (plough_x, plough_y) = ploughing_force(&pass.contact);
            let frame = &ground.frame;
            let f = up * ground.strut
                + frame.heading * (result.fx + plough_x)
                + frame.lateral * (result.fy + plough_y);
            force += f;
            // The aligning moment acts about the ground's normal.
            torque += ground.arm.cross(f) + frame.normal * result.mz;
            if roll_centre != 0.0 {
                // The links hand the force's part across the body to it at
                // the roll centre, `roll_centre` above the contact: moving
                // it up the body's up axis adds (up·rc) × (left·across) =
                // −forward·rc·across.
                let across = (frame.heading * (result.fx + plough_x)
                    + frame.lateral * (result.fy + plough_y))
                    .dot(left);
                torque -= forward * (roll_centre * across);
                axle_lateral_force += across;
            }
            if let Some(out) = out.as_deref_mut() {
                // As the strut's force took it, from the state at the
                // substep's start (the body has not moved yet).
                let point_velocity = state.velocity + omega_world.cross(ground.arm);
                out.wheels[i] = WheelOutput {
                    travel_rate: -point_velocity.dot(up),
                    normal: frame.normal,
                    ..WheelOutput::in_contact(
                        &pass.contact,
                        &result,
                        ground.compression,
                        steer.angle[i],
                    )
                };
            }
        }
        if roll_centre != 0.0 {
            state.axle_lateral_force[usize::from(!front)] = axle_lateral_force;
        }
    }

    drivetrain::after_wheels(def, params, state, &torques, h);
    if def.steering.compliance.is_some() {
        state.steer_give = steering::settle_give(&def.steering, state.steer_give, kingpin, h);
    }

    // Semi-implicit Euler on the body.
    let acceleration = force / mass;
    state.velocity += acceleration * h;
    state.position += state.velocity * h;
    let to_body = m.transpose();
    let body_torque = to_body * torque;
    let w = gyroscopic_step(
        params.inertia,
        params.inv_inertia,
        state.angular_velocity,
        h,
    );
    state.angular_velocity = w + params.inv_inertia * body_torque * h;
    let w = state.angular_velocity;
    let spin = DQuat::from_xyzw(w.x, w.y, w.z, 0.0);
    let q = rot + rot * spin * (0.5 * h);
    state.orientation = unit_quat(q);

    if let Some(out) = out {
        out.acceleration = to_body * acceleration;
        out.set_drivetrain_and_aero(&torques, &aero);
        out.set_assists(assists_activity, esc);
    }
}

/// The tire's axes on the ground at a strut's hit.
#[derive(Clone, Copy, Debug)]
struct TireFrame {
    heading: DVec3,
    lateral: DVec3,
    normal: DVec3,
}

impl TireFrame {
    /// Heading: `wheel_forward` projected onto the plane normal to
    /// `normal`; lateral: normal × heading. On level ground (normal
    /// exactly +z, the plane and every flat triangle) the projection is
    /// the forward axis with its z dropped, computed as such so the plane
    /// keeps the bits it had before grounds existed.
    fn at(normal: DVec3, wheel_forward: DVec3) -> TireFrame {
        if normal == DVec3::Z {
            let heading = DVec3::new(wheel_forward.x, wheel_forward.y, 0.0).unit_or(DVec3::ZERO);
            return TireFrame {
                heading,
                lateral: DVec3::new(-heading.y, heading.x, 0.0),
                normal,
            };
        }
        let heading = (wheel_forward - normal * wheel_forward.dot(normal)).unit_or(DVec3::ZERO);
        TireFrame {
            heading,
            lateral: normal.cross(heading),
            normal,
        }
    }

    /// The share of a force along the body's `up` that presses the tire
    /// onto the ground.
    fn up_along_normal(&self, up: DVec3) -> f64 {
        if self.normal == DVec3::Z {
            up.z
        } else {
            up.dot(self.normal)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INERTIA: DVec3 = DVec3::new(500.0, 2000.0, 2200.0);
    const H: f64 = 1.0 / 300.0;

    fn energy(w: DVec3) -> f64 {
        0.5 * w.dot(INERTIA * w)
    }

    /// `steps` substeps of free flight from `w`; returns the last spin and
    /// the largest energy on the way.
    fn tumble(mut w: DVec3, steps: usize) -> (DVec3, f64) {
        let mut most = energy(w);
        for _ in 0..steps {
            w = gyroscopic_step(INERTIA, 1.0 / INERTIA, w, H);
            most = most.max(energy(w));
        }
        (w, most)
    }

    #[test]
    fn a_tumbling_body_keeps_its_angular_momentum_and_does_not_spin_up() {
        // A car's principal inertias spun off every axis at 58 rad/s (where
        // the explicit update ran away), 30 s of free flight at 300 Hz.
        let w0 = DVec3::new(40.0, 30.0, 30.0);
        let (w, most) = tumble(w0, 9000);
        let (l0, l) = ((INERTIA * w0).length(), (INERTIA * w).length());
        assert!((l / l0 - 1.0).abs() < 1e-12, "{l} against {l0}");
        assert!(w.length() <= l0 / INERTIA.min_element(), "{w}");
        assert!(most <= energy(w0) * (1.0 + 1e-9), "{most}");
        // At a rate a rolling car reaches, 3 s lose under 2 % of the energy.
        let w0 = DVec3::new(4.0, 3.0, 3.0);
        let (w, _) = tumble(w0, 900);
        assert!(energy(w) > 0.98 * energy(w0), "{w}");
    }

    #[test]
    fn a_spin_about_a_principal_axis_is_kept() {
        let w = DVec3::new(0.0, 0.0, 3.0);
        assert_eq!(gyroscopic_step(INERTIA, 1.0 / INERTIA, w, H), w);
        assert_eq!(
            gyroscopic_step(INERTIA, 1.0 / INERTIA, DVec3::ZERO, H),
            DVec3::ZERO
        );
    }
}
