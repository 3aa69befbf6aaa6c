//! What the wheels stand on: the [`Ground`] trait, which the vehicle models
//! query with rays, and the built-in grounds (SPEC §4.2).
//!
//! The four-wheel model casts one ray per strut, from the wheel mount
//! along the body's down axis; the single-track model casts one straight
//! down under its centre of mass once per host step. A hit gives the point,
//! the surface normal and, when the ground knows it, the surface there.
//!
//! **Architecture Invariant:** a ground is read-only while a world steps
//! and answers from its own data alone, so the answer to a ray depends on
//! nothing but the ray's bits. That is what keeps cars independent within
//! a step (they may be stepped in parallel) and replays re-playable: a
//! replay names its ground by [`Ground::fingerprint`].
//!
//! Built in: [`FlatGround`] (the plane z = 0, the default), [`Heightfield`]
//! and [`TriangleMesh`] (with a bounding-volume hierarchy). Their narrow
//! phase is one ray–triangle test (`triangle.rs`) in plain `+ − × ÷` and
//! `sqrt`, so it gives the same bits on every target.

mod footprint;
mod height_bound;
mod heightfield;
mod lone;
mod mesh;
mod slope;
mod source;
mod triangle;

use std::fmt;

use glam::{DVec2, DVec3};

pub use heightfield::{Heightfield, MAX_HEIGHTFIELD_SAMPLES};
pub use mesh::{MAX_MESH_COORDINATE, MAX_MESH_TRIANGLES, TriangleMesh};
pub use slope::{GroundSlope, MAX_GRADE};
pub use source::{GroundSource, HeightfieldSource, MeshSource};

use crate::surface::SurfaceId;

/// A ray cast into the ground: from `origin` along the unit `direction`.
///
/// A wheel that has sunk below the surface must still find it, so a
/// ground searches the segment `t ∈ [−max_distance, max_distance]`
/// (points `origin + t·direction`) and reports the surface the ray enters
/// from above with the smallest `t`, which is negative when the origin lies
/// under it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundRay {
    /// Where the ray starts (a wheel mount), m, world frame.
    pub origin: DVec3,
    /// Unit direction (the body's down axis for a strut).
    pub direction: DVec3,
    /// How far the ray reaches, m (a strut's length: wheel radius plus
    /// suspension travel).
    pub max_distance: f64,
}

impl GroundRay {
    /// The point at parameter `t` along the ray.
    #[must_use]
    pub fn at(&self, t: f64) -> DVec3 {
        self.origin + self.direction * t
    }
}

/// Where a ray met the ground.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundHit {
    /// Ray parameter of the hit, m along the ray (negative: the origin is
    /// under the surface).
    pub distance: f64,
    /// The hit point, world frame.
    pub point: DVec3,
    /// Unit surface normal, pointing out of the ground.
    pub normal: DVec3,
    /// The surface there, when the ground assigns surfaces; `None` leaves
    /// the wheel's surface as the game set it.
    pub surface: Option<SurfaceId>,
}

/// A ground the cars drive on. Implement it to drive on a game's own
/// collision world (see `examples/`); the built-in grounds are
/// [`FlatGround`], [`Heightfield`] and [`TriangleMesh`].
///
/// Implementations must be deterministic: the same ray (same bits) gives
/// the same hit (same bits) on every call and every target. Use `libm` or
/// plain arithmetic, never std's float functions, and break ties between
/// equal distances by a fixed order (the built-ins use the triangle index).
pub trait Ground: fmt::Debug + Send + Sync {
    /// The surface the ray enters from above with the smallest parameter
    /// in `[−max_distance, max_distance]` (see [`GroundRay`]), or `None`.
    fn cast_ray(&self, ray: &GroundRay) -> Option<GroundHit>;

    /// [`cast_ray`](Self::cast_ray)'s answer, bit for bit, given a hint of
    /// the caller's own: a ground may keep in it what the caller's last
    /// ray hit (a wheel stands on the same triangle step after step) to
    /// answer the next one without a search, and update it. The answer
    /// must not depend on the hint, whatever it holds (empty, stale,
    /// another ground's), so a hint is never part of a simulation's state.
    /// The default ignores it.
    fn cast_ray_hinted(&self, ray: &GroundRay, hint: &mut GroundHint) -> Option<GroundHit> {
        let _ = hint;
        self.cast_ray(ray)
    }

    /// blake3 of the ground's canonical description: two grounds with the
    /// same fingerprint answer every ray alike. Replays store it, so a
    /// replay is never played on a ground it was not recorded on.
    fn fingerprint(&self) -> [u8; 32];

    /// An upper bound of the ground's height over the x–y rectangle
    /// `[min, max]`, if the ground can give one cheaply: no point of the
    /// ground with x–y in the rectangle lies above it. A car whose body
    /// is well above the bound skips the rays of its corners, so a bound
    /// that is too low would let bodies sink into the ground; `None`
    /// (the default) means every ray is cast.
    fn highest_within(&self, min: DVec2, max: DVec2) -> Option<f64> {
        let _ = (min, max);
        None
    }

    /// Whether every point of the ground with x–y in `[min, max]` lies
    /// below height `z`, if the ground can tell cheaply (false when it
    /// cannot). Bodies skip the rays of their corners on it, under the
    /// same promise as [`highest_within`](Self::highest_within), which
    /// the default asks.
    fn lies_below(&self, min: DVec2, max: DVec2, z: f64) -> bool {
        self.highest_within(min, max).is_some_and(|top| top < z)
    }

    /// Whether the ground lies at least `margin` below the convex hull of
    /// `points` (a car's body box, by its eight corners), if the ground
    /// can tell cheaply (false when it cannot): then no ray between two
    /// points of the hull meets it. The default asks
    /// [`lies_below`](Self::lies_below) about the points' box.
    fn lies_under_hull(&self, points: &[DVec3], margin: f64) -> bool {
        let Some(first) = points.first() else {
            return false;
        };
        let (min, max) = points
            .iter()
            .fold((*first, *first), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
        let pad = DVec2::splat(margin);
        self.lies_below(min.truncate() - pad, max.truncate() + pad, min.z - margin)
    }

    /// The largest surface id any hit can carry, if the ground assigns
    /// surfaces; a world refuses a ground whose ids its table lacks.
    fn max_surface_id(&self) -> Option<SurfaceId> {
        None
    }

    /// A short human-readable description for error messages ("plane",
    /// "heightfield 64×64", …).
    fn describe(&self) -> String;
}

/// What a caller's last ray hit, as its ground chose to remember it (see
/// [`Ground::cast_ray_hinted`]); starts empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroundHint(pub(crate) u32);

impl GroundHint {
    /// A hint that holds nothing.
    pub const EMPTY: GroundHint = GroundHint(u32::MAX);
}

impl Default for GroundHint {
    fn default() -> Self {
        GroundHint::EMPTY
    }
}

/// The plane z = 0, solid below: the default ground and today's
/// behaviour bit for bit. A ray's hit is found in closed form, and a ray
/// starting below the plane reports it however deep (a half-space has no
/// underside).
///
/// ```
/// use skidpad_core::glam::DVec3;
/// use skidpad_core::{FlatGround, Ground, GroundRay};
///
/// // A strut 0.5 m above the plane, pointing down, reaching 0.8 m.
/// let ray = GroundRay { origin: DVec3::new(3.0, 4.0, 0.5), direction: DVec3::NEG_Z, max_distance: 0.8 };
/// let hit = FlatGround.cast_ray(&ray).expect("the plane is 0.5 m below");
/// assert_eq!((hit.distance, hit.point.z, hit.normal), (0.5, 0.0, DVec3::Z));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlatGround;

impl FlatGround {
    /// The plane's fingerprint: blake3 of `b"skidpad plane z=0"`.
    #[must_use]
    pub fn plane_fingerprint() -> [u8; 32] {
        *blake3::hash(b"skidpad plane z=0").as_bytes()
    }
}

impl Ground for FlatGround {
    fn cast_ray(&self, ray: &GroundRay) -> Option<GroundHit> {
        // A ray that points up, or nearly along the plane, cannot stand a
        // wheel on it: a body tipped past horizontal has no strut on the
        // ground.
        let down = -ray.direction.z;
        if down <= 1e-3 {
            return None;
        }
        let distance = ray.origin.z * (1.0 / down);
        (distance < ray.max_distance).then(|| GroundHit {
            distance,
            point: ray.at(distance),
            normal: DVec3::Z,
            surface: None,
        })
    }

    fn fingerprint(&self) -> [u8; 32] {
        FlatGround::plane_fingerprint()
    }

    fn highest_within(&self, _min: DVec2, _max: DVec2) -> Option<f64> {
        Some(0.0)
    }

    fn describe(&self) -> String {
        "plane z = 0".into()
    }
}

/// Feeds a ground's canonical description to blake3: a kind tag, then
/// little-endian fields. Shared by the built-in grounds' fingerprints.
pub(crate) struct FingerprintWriter(blake3::Hasher);

impl FingerprintWriter {
    pub(crate) fn new(kind: &str) -> Self {
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"skidpad ground ");
        hasher.update(kind.as_bytes());
        FingerprintWriter(hasher)
    }

    pub(crate) fn u64(&mut self, v: u64) -> &mut Self {
        self.0.update(&v.to_le_bytes());
        self
    }

    pub(crate) fn f64(&mut self, v: f64) -> &mut Self {
        // Canonical zero: −0 and +0 answer every ray alike.
        self.0.update(&(v + 0.0).to_bits().to_le_bytes());
        self
    }

    pub(crate) fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.0.update(v);
        self
    }

    pub(crate) fn finish(&self) -> [u8; 32] {
        *self.0.finalize().as_bytes()
    }
}
