//! The impulse of one contact, shared by car-to-car contact and the body
//! against the ground: stop the approach along the normal (keeping a share
//! of it as bounce), then Coulomb friction against the sliding velocity.

use crate::norm::Norm;
use glam::DVec3;

/// The impulse that the second body (the car, against the ground)
/// receives, and its normal part, N·s. `relative` is the second body's
/// velocity at the contact point minus the first's; `n` points from the
/// first to the second; `inverse_mass(dir)` is the pair's inverse mass to
/// an impulse along `dir`, inertia included.
pub(crate) fn contact_impulse(
    relative: DVec3,
    n: DVec3,
    restitution: f64,
    friction: f64,
    inverse_mass: impl Fn(DVec3) -> f64,
) -> (DVec3, f64) {
    let closing = relative.dot(n);
    let normal_impulse = if closing < 0.0 {
        -(1.0 + restitution) * closing / inverse_mass(n)
    } else {
        0.0
    };
    let mut impulse = n * normal_impulse;
    if let Some(t) = (relative - n * closing).try_unit() {
        let limit = friction * normal_impulse;
        impulse += t * (-relative.dot(t) / inverse_mass(t)).clamp(-limit, limit);
    }
    (impulse, normal_impulse)
}
