//! What one substep of either vehicle model reads besides the car's state:
//! the definition and its derived parameters, the world's settings, what
//! is computed once per host step, and the substep's length. Both models
//! take one `SubstepContext`, so a new input reaches both in one place.

use glam::DVec3;

use crate::ground::{FlatGround, Ground, GroundHint, GroundHit, GroundRay};
use crate::lod::Lod;
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
    pub ground: &'a dyn Ground,
    /// The ground is the plane z = 0 (its fingerprint says so): its rays
    /// are answered by `FlatGround` directly, inlined, not through the
    /// trait object.
    pub flat: bool,
}

impl Environment<'_> {
    /// The ground's answer to `ray`.
    pub(crate) fn cast_ray(&self, ray: &GroundRay) -> Option<GroundHit> {
        if self.flat {
            FlatGround.cast_ray(ray)
        } else {
            self.ground.cast_ray(ray)
        }
    }

    /// The same answer, through the ground's hinted cast (`hint` is the
    /// caller's: one per strut).
    pub(crate) fn cast_ray_hinted(
        &self,
        ray: &GroundRay,
        hint: &mut GroundHint,
    ) -> Option<GroundHit> {
        if self.flat {
            FlatGround.cast_ray(ray)
        } else {
            self.ground.cast_ray_hinted(ray, hint)
        }
    }
}

/// How far above and below its centre of mass a single-track car looks
/// for the ground once per host step, m. Further than any car climbs or
/// falls in one host step on a drivable ground.
pub(crate) const SINGLE_TRACK_GROUND_REACH: f64 = 20.0;

/// What stays constant over one host step, computed once before its
/// substeps: the input's steer geometry and brake torques, the
/// slope-tilted gravity, the gear, the slip floor and (single-track) the
/// ground below. The gearbox decides
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
    /// Single-track only: the ground straight below the centre of mass at
    /// the step's start (the model is planar, on this ground's tangent
    /// plane for the whole host step).
    pub ground_below: Option<GroundHit>,
}

impl HostStep {
    /// Selects the gear for this host step (a shift opens the clutch) and
    /// computes what the substeps share; `h` is the substep length, and
    /// the single-track ray below uses the first of the car's hints.
    pub(crate) fn begin(
        def: &CarDefinition,
        params: &CarParams,
        state: &mut CarState,
        env: &Environment<'_>,
        (level, h): (Lod, f64),
        hints: &mut [GroundHint; 4],
    ) -> Self {
        let forward_speed = state.velocity.dot(state.orientation * DVec3::X);
        drivetrain::select_gear(def, state, forward_speed);
        let ground_below = (level == Lod::SingleTrack)
            .then(|| {
                env.cast_ray_hinted(
                    &GroundRay {
                        origin: state.position,
                        direction: -DVec3::Z,
                        max_distance: SINGLE_TRACK_GROUND_REACH,
                    },
                    &mut hints[0],
                )
            })
            .flatten();
        let mut slope = state.slope;
        if let Some(hit) = ground_below {
            if let Some(surface) = hit.surface {
                state.surfaces = [surface; 4];
            }
            if hit.normal != DVec3::Z {
                // The planar model runs in the ground's tangent plane: its
                // tilt joins the game's slope as gravity's downhill pull.
                slope.grade -= hit.normal.x / hit.normal.z;
                slope.cross_slope -= hit.normal.y / hit.normal.z;
            }
        }
        HostStep {
            steer: SteerGeometry::new(def, state.input.steer),
            gravity: slope.gravity(env.gravity),
            ground_below,
            brake: drivetrain::brakes::friction_torques(def, &state.input),
            ratio: drivetrain::gearbox::overall_ratio(def, state.gear),
            slip_floor: params.slip_floor(h),
        }
    }
}

impl HostStep {
    /// This host step as a substep of a car with a compliant steering
    /// sees it: the front wheels turned by the give in `state`. A rigid
    /// steering gives None, and the substep reads the host step as it is.
    pub(crate) fn with_steer_give(&self, def: &CarDefinition, state: &CarState) -> Option<Self> {
        def.steering.compliance.map(|_| HostStep {
            steer: self.steer.given(state.steer_give),
            ..*self
        })
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
