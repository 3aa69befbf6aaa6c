//! Car-to-car contact: after every car has stepped, bodies that overlap
//! are pushed apart by one impulse per pair, with restitution and Coulomb
//! friction, and separated by most of their overlap.
//!
//! Each body is its [`BodyBox`] seen from above: an oriented rectangle in
//! the ground plane (the box's heading, its tilt ignored) plus the height
//! interval of the box's centre. Cars are upright nearly always, and a 2D
//! separating-axis test on four axes is exact for them and cheap; the
//! contact normal is horizontal.
//!
//! **Architecture Invariant:** pairs are visited in one fixed order (by id,
//! first car then second), serially, after the cars have stepped (in
//! parallel or not): a contact's bits never depend on threads. A frozen
//! car takes no part (it is not simulated).
//!
//! The pass runs once per host step, so two cars closing faster than a
//! body's width per host step (over 100 m/s at 60 Hz) can pass through
//! each other.

use glam::{DMat3, DVec2, DVec3};

use crate::ids::CarId;
use crate::lod::Lod;
use crate::model::impulse::contact_impulse;
use crate::norm::Norm;
use crate::vehicle::body::BodyBox;
use crate::world::car::Car;

/// Share of the closing speed along the normal that the bodies keep.
pub const CONTACT_RESTITUTION: f64 = 0.3;
/// Coulomb friction between two bodies.
pub const CONTACT_FRICTION: f64 = 0.6;
/// Share of the overlap beyond [`SLOP`] removed per host step: less than
/// one, so bodies resting on each other do not jitter.
const CORRECTION: f64 = 0.8;
/// Overlap left alone, m.
const SLOP: f64 = 0.005;

/// One contact in the last step: two cars, or a car's body and the
/// ground (a rolled car, a barrier, a scraping floor).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// The car with the lower id (or the car that hit the ground).
    pub first: CarId,
    /// The other car; `None` for the ground.
    pub second: Option<CarId>,
    /// Where they touch, world frame, m: for two cars, in the ground
    /// plane where the boxes overlap, at the height of the two centres of
    /// mass (within the boxes' vertical overlap); for the ground, the
    /// body's deepest corner.
    pub point: DVec3,
    /// Unit normal from the first car towards the second (horizontal), or
    /// the ground's surface normal.
    pub normal: DVec3,
    /// How far they overlapped along the normal, m.
    pub depth: f64,
    /// Normal impulse, N·s: what the second car received (the first the
    /// opposite), or the ground gave the car over all its corners; zero
    /// when they were already separating.
    pub impulse: f64,
}

/// A body seen from above.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Footprint {
    /// Centre of the box, world frame.
    centre: DVec3,
    /// Height of the centre of mass, world frame, m.
    mass_centre_z: f64,
    forward: DVec2,
    left: DVec2,
    half: DVec3,
    /// Radius of the rectangle's circumscribed circle, m.
    reach: f64,
}

impl Footprint {
    fn of(car: &Car) -> Option<Footprint> {
        if car.state.lod.level == Lod::Frozen {
            return None;
        }
        let m = DMat3::from_quat(car.state.orientation);
        let BodyBox { centre, half } = car.body;
        let heading = DVec2::new(m.x_axis.x, m.x_axis.y);
        // A car standing on its nose has no heading from above; any fixed
        // one keeps the answer deterministic.
        let forward = heading.try_unit().unwrap_or(DVec2::X);
        Some(Footprint {
            centre: car.state.position + m * centre,
            mass_centre_z: car.state.position.z,
            forward,
            left: forward.perp(),
            half,
            reach: (half.x * half.x + half.y * half.y).sqrt(),
        })
    }

    /// The half-width of the rectangle along `axis`.
    fn extent(&self, axis: DVec2) -> f64 {
        self.half.x * self.forward.dot(axis).abs() + self.half.y * self.left.dot(axis).abs()
    }

    fn corners(&self) -> [DVec2; 4] {
        let c = self.centre.truncate();
        let (f, l) = (self.forward * self.half.x, self.left * self.half.y);
        [c + f + l, c + f - l, c - f - l, c - f + l]
    }
}

/// Where two footprints overlap: the normal from `a` to `b`, the depth
/// and the contact point.
struct Overlap {
    normal: DVec2,
    depth: f64,
    point: DVec3,
}

fn overlap(a: &Footprint, b: &Footprint) -> Option<Overlap> {
    let d = b.centre.truncate() - a.centre.truncate();
    let reach = a.reach + b.reach;
    if d.length_squared() > reach * reach {
        return None;
    }
    let (a_lo, a_hi) = (a.centre.z - a.half.z, a.centre.z + a.half.z);
    let (b_lo, b_hi) = (b.centre.z - b.half.z, b.centre.z + b.half.z);
    if a_hi < b_lo || b_hi < a_lo {
        return None;
    }
    // Separating axes: the four edge normals. The shallowest overlap is
    // the contact normal; the first axis wins a tie.
    let axes = [a.forward, a.left, b.forward, b.left];
    let mut best = (f64::INFINITY, 0, 1.0);
    for (k, axis) in axes.into_iter().enumerate() {
        let along = d.dot(axis);
        let depth = a.extent(axis) + b.extent(axis) - along.abs();
        if depth <= 0.0 {
            return None;
        }
        if depth < best.0 {
            best = (depth, k, if along < 0.0 { -1.0 } else { 1.0 });
        }
    }
    let (depth, k, sign) = best;
    let normal = axes[k] * sign;
    // The incident corner: the other body's corner deepest inside the body
    // whose face the normal is; corners level with it (an edge lying flat
    // on the face) are averaged, so two cars side by side touch at the
    // middle of the shared stretch.
    let (corners, toward) = if k < 2 {
        (b.corners(), -normal)
    } else {
        (a.corners(), normal)
    };
    let deepest = corners
        .iter()
        .map(|c| c.dot(toward))
        .fold(f64::MIN, f64::max);
    let tolerance = 1e-9 * (1.0 + deepest.abs());
    let (mut sum, mut count) = (DVec2::ZERO, 0.0);
    for c in corners {
        if c.dot(toward) >= deepest - tolerance {
            sum += c;
            count += 1.0;
        }
    }
    // Halfway between the incident corner and the face it passed.
    let incident = sum / count;
    let point = incident - toward * (depth / 2.0);
    // The box is the whole body, roof included, but what meets in a crash
    // is the bumpers', sills' and doors' structure, built at about the
    // height of the centres of mass so that a hit pushes a car rather
    // than rolls it. Struck at the box's middle (0.2 to 0.3 m above the
    // centre of mass), a standing car took a roll rate that rolled a
    // kart over at 20 m/s and a saloon past 30°, which FMVSS 214's 54 km/h
    // side impacts do not show. The height is kept inside the overlap, so
    // a car landing on another's roof is still pushed there.
    let z = ((a.mass_centre_z + b.mass_centre_z) / 2.0).clamp(a_lo.max(b_lo), a_hi.min(b_hi));
    Some(Overlap {
        normal,
        depth,
        point: point.extend(z),
    })
}

/// The world-frame inverse inertia of `car` applied to `v`.
fn inverse_inertia(car: &Car, m: &DMat3, v: DVec3) -> DVec3 {
    *m * (car.params.inv_inertia * (m.transpose() * v))
}

/// Applies the pair's impulse and separation; returns the normal impulse.
fn push_apart(a: &mut Car, b: &mut Car, hit: &Overlap) -> f64 {
    let n = hit.normal.extend(0.0);
    let (ima, imb) = (1.0 / a.def.chassis.mass, 1.0 / b.def.chassis.mass);
    let (ma, mb) = (
        DMat3::from_quat(a.state.orientation),
        DMat3::from_quat(b.state.orientation),
    );
    let (ra, rb) = (hit.point - a.state.position, hit.point - b.state.position);
    let velocity_at = |car: &Car, m: &DMat3, r: DVec3| {
        car.state.velocity + (*m * car.state.angular_velocity).cross(r)
    };
    let relative = velocity_at(b, &mb, rb) - velocity_at(a, &ma, ra);
    // The inverse mass the pair shows to an impulse along `dir`.
    let inverse_mass = |dir: DVec3| {
        ima + imb
            + dir.dot(inverse_inertia(a, &ma, ra.cross(dir)).cross(ra))
            + dir.dot(inverse_inertia(b, &mb, rb.cross(dir)).cross(rb))
    };
    let (impulse, normal_impulse) = contact_impulse(
        relative,
        n,
        CONTACT_RESTITUTION,
        CONTACT_FRICTION,
        inverse_mass,
    );
    a.state.velocity -= impulse * ima;
    b.state.velocity += impulse * imb;
    // Angular velocity is kept in the body frame.
    a.state.angular_velocity -= a.params.inv_inertia * (ma.transpose() * ra.cross(impulse));
    b.state.angular_velocity += b.params.inv_inertia * (mb.transpose() * rb.cross(impulse));
    let share = (hit.depth - SLOP).max(0.0) * CORRECTION / (ima + imb);
    a.state.position -= n * (share * ima);
    b.state.position += n * (share * imb);
    normal_impulse
}

/// Finds and resolves every contact between the cars, pairs in id order,
/// and appends them to `contacts`. `footprints` is scratch.
pub(crate) fn resolve(
    cars: &mut [Car],
    footprints: &mut Vec<Option<Footprint>>,
    contacts: &mut Vec<Contact>,
) {
    footprints.clear();
    footprints.extend(cars.iter().map(Footprint::of));
    for i in 0..cars.len() {
        for j in i + 1..cars.len() {
            let (Some(a), Some(b)) = (&footprints[i], &footprints[j]) else {
                continue;
            };
            let Some(hit) = overlap(a, b) else {
                continue;
            };
            let (low, high) = cars.split_at_mut(j);
            let (first, second) = (&mut low[i], &mut high[0]);
            let impulse = push_apart(first, second, &hit);
            contacts.push(Contact {
                first: first.id,
                second: Some(second.id),
                point: hit.point,
                normal: hit.normal.extend(0.0),
                depth: hit.depth,
                impulse,
            });
            // Both moved: later pairs see where they are now.
            footprints[i] = Footprint::of(first);
            footprints[j] = Footprint::of(second);
        }
    }
}
