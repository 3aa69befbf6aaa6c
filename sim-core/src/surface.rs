//! The surface table: what each wheel drives on, and the named presets.
//!
//! A surface scales tire force (grip), adds rolling resistance (a torque
//! against wheel spin, proportional to load) and ploughing drag (a force
//! against the contact patch's ground velocity, proportional to load).

use serde::{Deserialize, Serialize};

use crate::{CoreError, Result};

/// Most surfaces a table may hold; ids fit in 4 bits.
pub const MAX_SURFACES: usize = 16;

/// Index into a world's [`SurfaceTable`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SurfaceId(pub u8);

impl SurfaceId {
    /// Dry asphalt in the preset table.
    pub const DRY_ASPHALT: SurfaceId = SurfaceId(0);
    /// Wet asphalt in the preset table.
    pub const WET_ASPHALT: SurfaceId = SurfaceId(1);
    /// Gravel in the preset table.
    pub const GRAVEL: SurfaceId = SurfaceId(2);
    /// Grass in the preset table.
    pub const GRASS: SurfaceId = SurfaceId(3);
    /// Sand in the preset table.
    pub const SAND: SurfaceId = SurfaceId(4);
    /// Packed snow in the preset table.
    pub const SNOW: SurfaceId = SurfaceId(5);
    /// Ice in the preset table.
    pub const ICE: SurfaceId = SurfaceId(6);
    /// Painted kerb in the preset table.
    pub const KERB: SurfaceId = SurfaceId(7);
}

/// One surface's properties.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Surface {
    /// Human-readable name, unique within a table.
    pub name: String,
    /// Multiplier on tire force (1 = the tire's own data, measured on dry
    /// asphalt).
    pub grip: f64,
    /// Rolling-resistance coefficient: resisting torque = coefficient ×
    /// load × wheel radius.
    pub rolling_resistance: f64,
    /// Ploughing drag in s/m: force = coefficient × load × ground speed of
    /// the contact patch, against its motion. Zero on sealed roads.
    pub ploughing: f64,
}

/// The surfaces of one world, indexed by [`SurfaceId`]. In JSON it is the
/// array of surfaces; deserialising validates it as [`SurfaceTable::new`]
/// does, so no table that `new` refuses can be built from JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Vec<Surface>", into = "Vec<Surface>")]
pub struct SurfaceTable {
    surfaces: Vec<Surface>,
}

impl TryFrom<Vec<Surface>> for SurfaceTable {
    type Error = CoreError;

    fn try_from(surfaces: Vec<Surface>) -> Result<Self> {
        SurfaceTable::new(surfaces)
    }
}

impl From<SurfaceTable> for Vec<Surface> {
    fn from(table: SurfaceTable) -> Self {
        table.surfaces
    }
}

impl SurfaceTable {
    /// A table from explicit surfaces; at most [`MAX_SURFACES`], each with
    /// finite, non-negative values and a positive grip.
    pub fn new(surfaces: Vec<Surface>) -> Result<Self> {
        if surfaces.is_empty() || surfaces.len() > MAX_SURFACES {
            return Err(CoreError::InvalidSurfaceTable(format!(
                "must hold 1..={MAX_SURFACES} surfaces, got {}",
                surfaces.len()
            )));
        }
        for (i, s) in surfaces.iter().enumerate() {
            let bad = |what: &str, v: f64| {
                CoreError::InvalidSurfaceTable(format!("surface {i} (`{}`): {what} {v}", s.name))
            };
            if !(s.grip.is_finite() && s.grip > 0.0 && s.grip <= 3.0) {
                return Err(bad("grip must be in (0, 3], got", s.grip));
            }
            if !(s.rolling_resistance.is_finite() && (0.0..=0.5).contains(&s.rolling_resistance)) {
                return Err(bad(
                    "rolling_resistance must be in [0, 0.5], got",
                    s.rolling_resistance,
                ));
            }
            if !(s.ploughing.is_finite() && (0.0..=1.0).contains(&s.ploughing)) {
                return Err(bad("ploughing must be in [0, 1] s/m, got", s.ploughing));
            }
            if surfaces[..i].iter().any(|o| o.name == s.name) {
                return Err(CoreError::InvalidSurfaceTable(format!(
                    "surface name `{}` appears twice",
                    s.name
                )));
            }
        }
        Ok(SurfaceTable { surfaces })
    }

    /// The preset table; ids match the constants on [`SurfaceId`].
    #[must_use]
    pub fn presets() -> Self {
        // Grip figures are typical peak-friction ratios relative to dry
        // asphalt; rolling resistance and ploughing are typical passenger
        // tire values on each surface.
        let s = |name: &str, grip, rolling_resistance, ploughing| Surface {
            name: name.to_owned(),
            grip,
            rolling_resistance,
            ploughing,
        };
        SurfaceTable {
            surfaces: vec![
                s("dry_asphalt", 1.0, 0.012, 0.0),
                s("wet_asphalt", 0.7, 0.014, 0.0),
                s("gravel", 0.6, 0.03, 0.01),
                s("grass", 0.45, 0.05, 0.02),
                s("sand", 0.5, 0.15, 0.06),
                s("snow", 0.3, 0.04, 0.01),
                s("ice", 0.1, 0.01, 0.0),
                s("kerb", 0.9, 0.015, 0.0),
            ],
        }
    }

    /// Looks an id up, with an error for ids outside the table.
    pub fn get(&self, id: SurfaceId) -> Result<&Surface> {
        self.surfaces
            .get(usize::from(id.0))
            .ok_or(CoreError::UnknownSurface {
                id: id.0,
                count: self.surfaces.len(),
            })
    }

    /// The surface for an id that was validated when it was set; an id
    /// outside the table (impossible through the public API) reads as the
    /// first surface instead of failing inside a step.
    pub(crate) fn get_checked(&self, id: SurfaceId) -> &Surface {
        self.surfaces
            .get(usize::from(id.0))
            .unwrap_or(&self.surfaces[0])
    }

    /// The id of the surface with this name, if any.
    #[must_use]
    pub fn id_of(&self, name: &str) -> Option<SurfaceId> {
        self.surfaces
            .iter()
            .position(|s| s.name == name)
            // The table holds at most 16 entries, so the index fits a u8.
            .map(|i| SurfaceId(i as u8))
    }

    /// All surfaces in id order.
    #[must_use]
    pub fn surfaces(&self) -> &[Surface] {
        &self.surfaces
    }
}

impl Default for SurfaceTable {
    fn default() -> Self {
        Self::presets()
    }
}
