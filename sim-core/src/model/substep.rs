//! What one substep of either vehicle model reads besides the car's state:
//! the definition and its derived parameters, the world's settings, what
//! is computed once per host step, and the substep's length. Both models
//! take one `SubstepContext`, so a new input reaches both in one place.

use glam::DVec3;

use crate::model::steering::SteerGeometry;
use crate::state::car_state::CarState;
use crate::surface::SurfaceTable;
use crate::vehicle::car_params::CarParams;
use crate::vehicle::definition::CarDefinition;

/// World quantities every model reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Environment<'a> {
    pub gravity: f64,
    pub air_density: f64,
    pub surfaces: &'a SurfaceTable,
}

/// What stays constant over one host step, computed once before its
/// substeps: the input's steer geometry and the slope-tilted gravity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HostStep {
    pub steer: SteerGeometry,
    /// Gravity in the car's ground frame, m/s².
    pub gravity: DVec3,
}

impl HostStep {
    pub(crate) fn new(def: &CarDefinition, state: &CarState, env: &Environment<'_>) -> Self {
        HostStep {
            steer: SteerGeometry::new(def, state.input.steer),
            gravity: state.slope.gravity(env.gravity),
        }
    }
}

/// Everything a substep reads but does not change.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SubstepContext<'a> {
    pub def: &'a CarDefinition,
    pub params: &'a CarParams,
    pub env: &'a Environment<'a>,
    pub host: &'a HostStep,
    /// Substep length, s.
    pub h: f64,
}
