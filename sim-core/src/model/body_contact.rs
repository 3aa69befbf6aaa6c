//! The body against the ground: a rolled car lies on its roof, a car
//! thrown at a barrier bounces off it, a bottomed-out floor scrapes.
//! Once per host step, after the substeps, for the four-wheel model.
//!
//! Each corner of the body's box is tested with a ray from the box's
//! centre to the corner: a surface the ray enters before reaching the
//! corner means the corner is inside the ground (or a wall), by the rest
//! of the ray's length along the surface normal. Each such corner, in a
//! fixed order, gets an impulse that stops its motion into the surface
//! (with a little bounce) and Coulomb friction along it; then the body is
//! moved out by most of the deepest overlap. A wall that holds both ends
//! of a vertical edge gets one impulse for the edge, at its middle: the
//! box's roof corner is not where a car's side meets a wall (since
//! simulation version 12; before, a barrier pushing at roof height rolled
//! cars over it at 5 m/s).

use glam::{DMat3, DVec2, DVec3};

use crate::ground::GroundRay;
use crate::model::impulse::contact_impulse;
use crate::model::substep::Environment;
use crate::state::car_state::CarState;
use crate::vehicle::body::BodyBox;
use crate::vehicle::car_params::CarParams;

/// Share of the speed into the surface the body keeps.
const RESTITUTION: f64 = 0.1;
/// Coulomb friction of the body on the ground (steel and plastic on
/// asphalt or a barrier).
const FRICTION: f64 = 0.5;
/// Share of the deepest overlap beyond [`SLOP`] removed per host step.
const CORRECTION: f64 = 0.8;
/// Overlap left alone, m.
const SLOP: f64 = 0.005;
/// A surface whose normal's vertical part is below this is a wall.
const WALL_NORMAL_Z: f64 = 0.5;
/// Clearance kept around a ground's height bound, m: far above the
/// rounding of a hit point and the ray–triangle test's edge tolerance.
const BOUND_MARGIN: f64 = 1e-3;

/// The deepest corner of a body that touched the ground in a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BodyHit {
    pub point: DVec3,
    /// Unit surface normal there.
    pub normal: DVec3,
    pub depth: f64,
    /// Sum of the normal impulses over the corners, N·s.
    pub impulse: f64,
}

/// Resolves the body's corners against the ground; returns the deepest
/// touching corner, if any.
pub(crate) fn resolve(
    body: &BodyBox,
    mass: f64,
    params: &CarParams,
    state: &mut CarState,
    env: &Environment<'_>,
) -> Option<BodyHit> {
    let m = DMat3::from_quat(state.orientation);
    let centre = state.position + m * body.centre;
    // The box's half extent along each world axis.
    let extent = |row: usize| {
        m.x_axis[row].abs() * body.half.x
            + m.y_axis[row].abs() * body.half.y
            + m.z_axis[row].abs() * body.half.z
    };
    // A box above all the ground under it touches nothing: skip the eight
    // rays (the common case by far).
    let clear = if env.flat {
        centre.z > extent(2)
    } else {
        // The box itself (eight corners) against the ground's planes: on
        // a hill the box's axis-aligned bounds would reach below the road
        // the tilted body rides parallel to.
        let corners: [DVec3; 8] = std::array::from_fn(|k| {
            let sign = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
            centre + m * (body.half * DVec3::new(sign(1), sign(2), sign(4)))
        });
        env.ground.lies_under_hull(&corners, BOUND_MARGIN)
    };
    if clear {
        return None;
    }
    // The corners inside the ground, found before any impulse (the rays
    // read positions only, which the impulses do not move).
    let mut touching: [Option<(DVec3, f64)>; 8] = [None; 8];
    let mut corners = [DVec3::ZERO; 8];
    for (k, slot) in touching.iter_mut().enumerate() {
        let sign = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
        let offset = m * (body.half * DVec3::new(sign(1), sign(2), sign(4)));
        let corner = centre + offset;
        corners[k] = corner;
        // The upper corners' rays, and on gentle ground the lower ones',
        // run through air: skip them too.
        if !env.flat && above_ground(env, centre.min(corner), centre.max(corner)) {
            continue;
        }
        let reach = offset.length();
        let direction = offset / reach;
        let Some(hit) = env.cast_ray(&GroundRay {
            origin: centre,
            direction,
            max_distance: reach,
        }) else {
            continue;
        };
        // A surface behind the centre is not between it and the corner.
        if hit.distance < 0.0 {
            continue;
        }
        let depth = (reach - hit.distance) * -direction.dot(hit.normal);
        if depth > 0.0 {
            *slot = Some((hit.normal, depth));
        }
    }
    let mut deepest: Option<BodyHit> = None;
    let mut total = 0.0;
    for k in 0..8 {
        let Some((n, depth)) = touching[k] else {
            continue;
        };
        // A wall that both ends of one of the box's vertical edges are in
        // meets the whole side, not its roof's corner: it pushes the body
        // where its side structure is, halfway up the edge (as the
        // car-to-car impulse acts at the centres of mass's height), once
        // for the edge. A lower obstacle that only the bottom corner
        // reaches still pushes there, below the centre of mass, and can
        // trip the car. The edge's bottom corner (z bit clear) and top
        // one; the bottom one's normal decides, so both agree.
        let (bottom, top) = (k & 3, k | 4);
        let whole_edge = match (touching[bottom], touching[top]) {
            (Some((low, _)), Some((high, _))) => low.z.abs() < WALL_NORMAL_Z && low.dot(high) > 0.9,
            _ => false,
        };
        if whole_edge && k == top {
            continue;
        }
        let at = if whole_edge {
            (corners[bottom] + corners[top]) * 0.5
        } else {
            corners[k]
        };
        let r = at - state.position;
        let inverse_inertia = |v: DVec3| m * (params.inv_inertia * (m.transpose() * v));
        let inverse_mass =
            |dir: DVec3| 1.0 / mass + dir.dot(inverse_inertia(r.cross(dir)).cross(r));
        let velocity = state.velocity + (m * state.angular_velocity).cross(r);
        let (impulse, normal_impulse) =
            contact_impulse(velocity, n, RESTITUTION, FRICTION, inverse_mass);
        state.velocity += impulse / mass;
        state.angular_velocity += params.inv_inertia * (m.transpose() * r.cross(impulse));
        total += normal_impulse;
        // The edge is reported by its deeper corner.
        let (point, depth) = match touching[top] {
            Some((_, d)) if whole_edge && d > depth => (corners[top], d),
            _ => (corners[k], depth),
        };
        if deepest.is_none_or(|d| depth > d.depth) {
            deepest = Some(BodyHit {
                point,
                normal: n,
                depth,
                impulse: 0.0,
            });
        }
    }
    let mut hit = deepest?;
    state.position += hit.normal * ((hit.depth - SLOP).max(0.0) * CORRECTION);
    hit.impulse = total;
    Some(hit)
}

/// Whether the ground lies below the world box `[min, max]` by more than
/// [`BOUND_MARGIN`], by the ground's height bound over its footprint. A
/// ray from the box's centre to a corner that hits the ground at a
/// positive parameter meets it inside the box, so when this holds the
/// ray can only miss or hit behind its origin, both of which the caller
/// skips: leaving it out changes no answer.
fn above_ground(env: &Environment<'_>, min: DVec3, max: DVec3) -> bool {
    let pad = DVec2::splat(BOUND_MARGIN);
    env.ground.lies_below(
        min.truncate() - pad,
        max.truncate() + pad,
        min.z - BOUND_MARGIN,
    )
}
