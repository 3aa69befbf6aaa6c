//! What a game sets per car besides its input: the surface under each
//! wheel, the ground slope under the car (for a host that answers them
//! itself) and its level of detail. Each is validated first and changes
//! nothing on error.

use super::World;
use crate::error::Result;
use crate::ground::GroundSlope;
use crate::ids::{CarId, Wheel};
use crate::lod::LodSetting;
use crate::surface::SurfaceId;

impl World {
    /// Sets the surface under all four wheels.
    pub fn set_surface(&mut self, id: CarId, surface: SurfaceId) -> Result<()> {
        self.config.surfaces.get(surface)?;
        self.car_mut(id)?.state.surfaces = [surface; 4];
        Ok(())
    }

    /// Sets the surface under one wheel.
    pub fn set_wheel_surface(&mut self, id: CarId, wheel: Wheel, surface: SurfaceId) -> Result<()> {
        self.config.surfaces.get(surface)?;
        // Setting what the wheel has changes nothing (a replay's player
        // sets every wheel every step): no telemetry to compute first.
        if self.entry(id)?.state.surfaces[wheel.index()] == surface {
            return Ok(());
        }
        self.car_mut(id)?.state.surfaces[wheel.index()] = surface;
        Ok(())
    }

    /// The surface under each wheel.
    pub fn wheel_surfaces(&self, id: CarId) -> Result<[SurfaceId; 4]> {
        Ok(self.entry(id)?.state.surfaces)
    }

    /// Sets the ground slope under the car.
    pub fn set_ground_slope(&mut self, id: CarId, slope: GroundSlope) -> Result<()> {
        let slope = slope.validated()?;
        self.car_mut(id)?.state.slope = slope;
        Ok(())
    }

    /// The ground slope under the car.
    pub fn ground_slope(&self, id: CarId) -> Result<GroundSlope> {
        Ok(self.entry(id)?.state.slope)
    }

    /// Switches the car's model and substep rate. Pose, velocities, wheel
    /// speeds and the engaged gear carry over.
    pub fn set_lod(&mut self, id: CarId, lod: LodSetting) -> Result<()> {
        let lod = lod.validated()?;
        // As for surfaces: the player sets every car's level every step.
        if self.entry(id)?.state.lod == lod {
            return Ok(());
        }
        self.car_mut(id)?.state.lod = lod;
        Ok(())
    }

    /// The car's level of detail.
    pub fn lod(&self, id: CarId) -> Result<LodSetting> {
        Ok(self.entry(id)?.state.lod)
    }

    /// Substeps the car takes for a host step of `dt`.
    pub fn substeps_for(&self, id: CarId, dt: f64) -> Result<u32> {
        Ok(self.entry(id)?.substeps(dt))
    }
}
