//! What one substep of either vehicle model reads besides the car's state:
//! the definition and its derived parameters, the world's settings, what
//! is computed once per host step, and the substep's length. Both models
//! take one `SubstepContext`, so a new input reaches both in one place.

use glam::DVec3;

use crate::model::drivetrain;
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
/// substeps: the input's steer geometry and brake torques, the
/// slope-tilted gravity, the gear and the slip floor. The gearbox decides
/// once per host step, as a shift controller running at the game's rate
/// would; a shift waits at most one host step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HostStep {
    pub steer: SteerGeometry,
    /// Gravity in the car's ground frame, m/s².
    pub gravity: DVec3,
    /// Brake and handbrake friction torque per wheel, N·m.
    pub brake: [f64; 4],
    /// Overall ratio of the engaged gear (0 in neutral).
    pub ratio: f64,
    /// Slip-speed floor for the substep length, m/s.
    pub slip_floor: f64,
}

impl HostStep {
    /// Selects the gear for this host step (a shift opens the clutch) and
    /// computes what the substeps share; `h` is the substep length.
    pub(crate) fn begin(
        def: &CarDefinition,
        params: &CarParams,
        state: &mut CarState,
        env: &Environment<'_>,
        h: f64,
    ) -> Self {
        let forward_speed = state.velocity.dot(state.orientation * DVec3::X);
        drivetrain::select_gear(def, state, forward_speed);
        HostStep {
            steer: SteerGeometry::new(def, state.input.steer),
            gravity: state.slope.gravity(env.gravity),
            brake: drivetrain::brakes::friction_torques(def, &state.input),
            ratio: drivetrain::gearbox::overall_ratio(def, state.gear),
            slip_floor: params.slip_floor(h),
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
