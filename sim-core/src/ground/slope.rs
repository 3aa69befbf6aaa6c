//! A per-car ground slope: tilts gravity in that car's ground frame
//! (SPEC §4.2).
//!
//! Tilting gravity instead of the ground lets a game model hills and
//! banking per car on any ground, the plane included, without a mesh.

use glam::DVec3;

use crate::norm::Norm;
use crate::{CoreError, Result};

/// Steepest grade accepted, as rise over run (100 % = 45°).
pub const MAX_GRADE: f64 = 1.0;

/// A car's ground slope. Grade is rise over run along world +x (positive:
/// the ground climbs towards +x); cross slope is rise over run along world
/// +y (positive: the ground climbs towards +y).
///
/// ```
/// use skidpad_core::{CarInput, GroundSlope, InitialPose, World, WorldConfig, preset};
///
/// // Two cars side by side at full throttle; one on a 15 % climb.
/// let mut world = World::new(WorldConfig::default())?;
/// let def = preset("rwd_sports")?;
/// let flat = world.add_car(&def, InitialPose::default())?;
/// let climbing = world.add_car(&def, InitialPose { y: 10.0, ..InitialPose::default() })?;
/// world.set_ground_slope(climbing, GroundSlope { grade: 0.15, cross_slope: 0.0 })?;
/// let full = CarInput { throttle: 1.0, ..CarInput::default() };
/// for car in [flat, climbing] {
///     world.set_input(car, full)?;
/// }
/// for _ in 0..180 {
///     world.step(1.0 / 60.0)?;
/// }
/// assert!(world.pose(climbing)?.position.x < world.pose(flat)?.position.x, "the hill holds it back");
/// # Ok::<(), skidpad_core::CoreError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GroundSlope {
    /// Rise over run along world +x.
    pub grade: f64,
    /// Rise over run along world +y.
    pub cross_slope: f64,
}

impl GroundSlope {
    /// Flat ground.
    pub const FLAT: GroundSlope = GroundSlope {
        grade: 0.0,
        cross_slope: 0.0,
    };

    /// Checks that both components are finite and at most [`MAX_GRADE`] in
    /// size, and canonicalizes negative zero.
    pub fn validated(self) -> Result<GroundSlope> {
        for (what, v) in [("grade", self.grade), ("cross_slope", self.cross_slope)] {
            if !(v.is_finite() && v.abs() <= MAX_GRADE) {
                return Err(CoreError::InvalidArgument {
                    what: "ground slope",
                    reason: format!("{what} must be finite and within ±{MAX_GRADE}, got {v}"),
                });
            }
        }
        Ok(GroundSlope {
            grade: self.grade + 0.0,
            cross_slope: self.cross_slope + 0.0,
        })
    }

    /// Gravity in the car's ground frame, where the ground is z = 0.
    ///
    /// The slope's surface normal in an untilted world is (−gx, −gy, 1)
    /// normalized; gravity points against the true vertical, so in the
    /// ground frame it gains the components that pull the car downhill.
    #[must_use]
    pub fn gravity(self, g: f64) -> DVec3 {
        let n = DVec3::new(-self.grade, -self.cross_slope, 1.0);
        let inv_len = 1.0 / n.norm();
        // In the ground frame the true "down" is −n expressed with the
        // plane's normal as +z: rotate so that n maps to z. For small and
        // moderate slopes this is the vector below, exact for either axis
        // alone and consistent (unit length) for both together.
        DVec3::new(
            -self.grade * g * inv_len,
            -self.cross_slope * g * inv_len,
            -g * inv_len,
        )
    }
}
