//! One car in a world: its definition, derived parameters, state, optional
//! AI driver and last telemetry, and how a host step is split into
//! substeps of the chosen model.

use std::sync::OnceLock;

use glam::{DQuat, DVec2, DVec3};

use crate::ground::{Ground, GroundHint, GroundRay, GroundSlope};
use crate::ids::CarId;
use crate::input::CarInput;
use crate::lod::{Lod, LodSetting, substep_count};
use crate::model::body_contact::{self, BodyHit};
use crate::model::full_model;
use crate::model::outputs::StepOutputs;
use crate::model::single_track;
use crate::model::substep::{Environment, HostStep, SubstepContext};
use crate::pose::planar_heading;
use crate::state::car_state::{CarState, MAX_POSITION};
use crate::surface::{SurfaceId, SurfaceTable};
use crate::track::driver::AiDriver;
use crate::track::traffic::TrafficCar;
use crate::vehicle::body::BodyBox;
use crate::vehicle::car_params::CarParams;
use crate::vehicle::definition::CarDefinition;
use crate::world::telemetry::{self, CHANNEL_COUNT};
use crate::{CoreError, Result};

/// Where and how a car starts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InitialPose {
    /// World x of the centre of mass, m.
    pub x: f64,
    /// World y of the centre of mass, m.
    pub y: f64,
    /// Heading, rad (ISO: positive turns left from +x).
    pub yaw: f64,
    /// Forward speed, m/s; the wheels start rolling at this speed.
    pub speed: f64,
}

impl InitialPose {
    /// Largest |x| and |y| accepted, m: a tenth of the state's position
    /// bound, so a car placed anywhere can drive for hours before its state
    /// would leave its bounds.
    pub const MAX_POSITION: f64 = MAX_POSITION / 10.0;
    /// Largest |speed| accepted, m/s (3 600 km/h). From it the body speed
    /// stays a tenth of the state's bound and the wheels' spin (speed over
    /// a radius of at least 5 cm) a fifth of theirs, so the first steps
    /// run instead of being rolled back.
    pub const MAX_SPEED: f64 = 1_000.0;
    /// Largest |yaw| accepted, rad.
    pub const MAX_YAW: f64 = 1e7;

    /// The pose itself when every field is finite and within its bound
    /// ([`MAX_POSITION`](Self::MAX_POSITION) and the others); an error
    /// naming the field otherwise.
    pub fn validated(self) -> Result<Self> {
        for (what, v, max) in [
            ("x", self.x, Self::MAX_POSITION),
            ("y", self.y, Self::MAX_POSITION),
            ("yaw", self.yaw, Self::MAX_YAW),
            ("speed", self.speed, Self::MAX_SPEED),
        ] {
            if !v.is_finite() || v.abs() > max {
                return Err(CoreError::InvalidArgument {
                    what: "initial pose",
                    reason: format!("{what} must be finite and within ±{max}, got {v}"),
                });
            }
        }
        Ok(self)
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Car {
    pub id: CarId,
    pub def: CarDefinition,
    pub params: CarParams,
    /// The body's box, for contact.
    pub body: BodyBox,
    /// Where the body touched the ground in the last step, if it did.
    pub ground_hit: Option<BodyHit>,
    /// What each strut's last ray hit, for the ground's hinted cast: a
    /// cache, not state (every hint gives the same answers), so snapshots
    /// leave it out.
    ground_hints: [GroundHint; 4],
    /// First 8 bytes of blake3 over the definition's canonical JSON; ties
    /// snapshots to the definition they were made with.
    pub fingerprint: [u8; 8],
    pub state: CarState,
    pub outputs: StepOutputs,
    pub driver: Option<AiDriver>,
    /// The pose of a reset made since the last step
    /// ([`World::reset_car`](crate::World::reset_car)), for that step's
    /// record: a replay plays the reset again before the step.
    pub pending_reset: Option<InitialPose>,
    /// How long the car has been stuck, s, for a driver that resets it
    /// (`DriverStyle::resets_after`); not part of the state, since a
    /// playback world has no driver and the replay holds the resets.
    pub stuck_for: f64,
    /// Telemetry of the current state and outputs, computed on first read:
    /// a game reads it for the few cars it shows, so the step does not pay
    /// for every car's. Emptied whenever the step changes the state.
    telemetry: OnceLock<[f64; CHANNEL_COUNT]>,
    /// The input the last step ran with, kept when a game sets the next
    /// input before anything read the telemetry, so that a later read
    /// still describes the last step without computing it at every
    /// `set_input` (a replay's playback sets every car's input every step).
    stepped_input: Option<CarInput>,
}

impl Car {
    pub(crate) fn new(
        id: CarId,
        def: &CarDefinition,
        pose: InitialPose,
        ground: &dyn Ground,
    ) -> Result<Car> {
        def.validate()?;
        let pose = pose.validated()?;
        let params = CarParams::new(def);
        let json = serde_json::to_vec(def).map_err(|e| CoreError::Parse {
            what: "car definition",
            message: e.to_string(),
        })?;
        let mut fingerprint = [0u8; 8];
        fingerprint.copy_from_slice(&blake3::hash(&json).as_bytes()[..8]);
        let state = initial_state(def, pose, ground)?;
        let car = Car {
            id,
            def: def.clone(),
            params,
            body: BodyBox::of(def),
            ground_hit: None,
            ground_hints: [GroundHint::EMPTY; 4],
            fingerprint,
            state,
            outputs: StepOutputs::default(),
            driver: None,
            pending_reset: None,
            stuck_for: 0.0,
            telemetry: OnceLock::new(),
            stepped_input: None,
        };
        Ok(car)
    }

    /// The car as other drivers see it (`traffic.rs`).
    pub(crate) fn traffic_view(&self) -> TrafficCar {
        let s = &self.state;
        TrafficCar {
            id: self.id,
            position: DVec2::new(s.position.x, s.position.y),
            velocity: DVec2::new(s.velocity.x, s.velocity.y),
            heading: planar_heading(s.orientation),
            half_length: self.body.half.x,
            half_width: self.body.half.y,
            on_track: self
                .driver
                .as_ref()
                .map(|d| d.track().locate(DVec2::new(s.position.x, s.position.y))),
        }
    }

    /// Substeps per host step for `dt`: max(1, round(dt · rate)).
    pub(crate) fn substeps(&self, dt: f64) -> u32 {
        substep_count(dt, self.state.lod.rate(self.def.substep_rate))
    }

    /// One host step: the driver writes the input, then the model runs
    /// its substeps. `traffic` is the world's snapshot of every car and
    /// this car's entry in it, when some driver races traffic.
    pub(crate) fn step(
        &mut self,
        dt: f64,
        env: &Environment<'_>,
        traffic: Option<(&TrafficCar, &[TrafficCar])>,
    ) {
        if let Some(driver) = &self.driver {
            // A driver's output comes from a finite state, so it is finite;
            // if it were not, the previous input stays.
            if let Ok(input) = driver
                .drive(&self.def, &self.state, traffic)
                .sanitized(self.def.top_gear())
            {
                self.state.input = input;
            }
        }
        let level = self.state.lod.level;
        self.ground_hit = None;
        self.outputs.gear_before = Some(self.state.gear);
        if level == Lod::Frozen {
            return;
        }
        let n = self.substeps(dt);
        let h = dt / f64::from(n);
        let host = HostStep::begin(
            &self.def,
            &self.params,
            &mut self.state,
            env,
            (level, h),
            &mut self.ground_hints,
        );
        let ctx = SubstepContext {
            def: &self.def,
            params: &self.params,
            env,
            host: &host,
            h,
        };
        for k in 0..n {
            // Outputs feed only telemetry, which is read after the step:
            // only the last substep writes them.
            let out = (k + 1 == n).then_some(&mut self.outputs);
            match level {
                Lod::Full => {
                    full_model::substep(&ctx, &mut self.state, &mut self.ground_hints, out);
                }
                Lod::SingleTrack => single_track::substep(&ctx, &mut self.state, out),
                Lod::Frozen => {}
            }
        }
        if level == Lod::Full {
            // The single-track model rides the ground; only the full
            // model's body can roll onto it or strike a barrier.
            self.ground_hit = body_contact::resolve(
                &self.body,
                self.def.chassis.mass,
                &self.params,
                &mut self.state,
                env,
            );
        }
        self.state.elapsed += dt;
    }

    /// The telemetry of the car as it is (computed now if no read since the
    /// state last changed).
    pub(crate) fn telemetry(&self, surfaces: &SurfaceTable) -> &[f64; CHANNEL_COUNT] {
        self.telemetry.get_or_init(|| {
            let mut values = [0.0; CHANNEL_COUNT];
            match self.stepped_input {
                Some(input) => {
                    let stepped = CarState {
                        input,
                        ..self.state.clone()
                    };
                    telemetry::write(
                        (&self.def, &self.params),
                        &stepped,
                        &self.outputs,
                        surfaces,
                        &mut values,
                    );
                }
                None => telemetry::write(
                    (&self.def, &self.params),
                    &self.state,
                    &self.outputs,
                    surfaces,
                    &mut values,
                ),
            }
            values
        })
    }

    /// Sets the input the next step runs with (already sanitised); the
    /// telemetry keeps describing the last step.
    pub(crate) fn set_input(&mut self, input: CarInput) {
        if self.telemetry.get().is_none() && self.stepped_input.is_none() {
            self.stepped_input = Some(self.state.input);
        }
        self.state.input = input;
    }

    /// Puts the car down at `pose` as a new car of its definition would be
    /// (at rest or rolling at `pose.speed`, in first gear, engine at idle),
    /// keeping what the game set on it: its input, level of detail and
    /// driver, and its clock. Nothing changes on error.
    pub(crate) fn reset(&mut self, pose: InitialPose, ground: &dyn Ground) -> Result<()> {
        let fresh = initial_state(&self.def, pose.validated()?, ground)?;
        let kept = (self.state.input, self.state.lod, self.state.elapsed);
        self.state = fresh;
        (self.state.input, self.state.lod, self.state.elapsed) = kept;
        self.ground_hit = None;
        self.ground_hints = [GroundHint::EMPTY; 4];
        self.outputs = StepOutputs::default();
        self.pending_reset = Some(pose);
        self.stuck_for = 0.0;
        self.state_changed();
        Ok(())
    }

    /// Marks the telemetry stale after the state or outputs changed.
    pub(crate) fn state_changed(&mut self) {
        self.telemetry.take();
        self.stepped_input = None;
    }
}

/// The state of a car of `def` just put down at `pose` (already
/// validated) on `ground`: level with it, at rest or rolling at
/// `pose.speed`, first gear, engine at idle. `Car::new` and `Car::reset`
/// share it.
fn initial_state(def: &CarDefinition, pose: InitialPose, ground: &dyn Ground) -> Result<CarState> {
    let (position, orientation) = placed_on(ground, def, pose)?;
    let wheel_omega = [0, 1, 2, 3].map(|i| pose.speed / def.wheels.get(i < 2).radius + 0.0);
    Ok(CarState {
        position,
        orientation,
        velocity: orientation * DVec3::new(pose.speed, 0.0, 0.0) + DVec3::ZERO,
        angular_velocity: DVec3::ZERO,
        wheel_omega,
        gear: 1,
        elapsed: 0.0,
        input: CarInput::default(),
        lod: LodSetting::default(),
        surfaces: [SurfaceId::DRY_ASPHALT; 4],
        slope: GroundSlope::FLAT,
        tire_deflection: [[0.0; 2]; 4],
        engine_omega: def.engine.idle_rpm * core::f64::consts::PI / 30.0,
        steer_give: 0.0,
        axle_lateral_force: [0.0; 2],
        clutch_locked: false,
    })
}

/// How high above the origin a new car looks down for the ground, m: above
/// any ground a built-in accepts (it reaches as far below the origin).
const PLACEMENT_HEIGHT: f64 = 2e8;

/// The centre of mass and orientation of a car put down at `pose` on the
/// highest ground under (x, y): level with the ground's normal there, its
/// centre of mass `cg_height` above the surface along that normal.
fn placed_on(
    ground: &dyn Ground,
    def: &CarDefinition,
    pose: InitialPose,
) -> Result<(DVec3, DQuat)> {
    let ray = GroundRay {
        origin: DVec3::new(pose.x, pose.y, PLACEMENT_HEIGHT),
        direction: -DVec3::Z,
        max_distance: 2.0 * PLACEMENT_HEIGHT,
    };
    let hit = ground
        .cast_ray(&ray)
        .ok_or_else(|| CoreError::InvalidArgument {
            what: "initial pose",
            reason: format!(
                "there is no ground under ({}, {}) on the {}",
                pose.x,
                pose.y,
                ground.describe()
            ),
        })?;
    let yaw = DQuat::from_rotation_z(pose.yaw);
    let cg = def.chassis.cg_height;
    if hit.normal == DVec3::Z {
        // Level ground: written as before grounds existed, so the plane's
        // cars start with the same bits (the `+ 0` canonicalises −0).
        let position = DVec3::new(pose.x, pose.y, hit.point.z + cg) + DVec3::ZERO;
        return Ok((position, yaw));
    }
    let tilt = DQuat::from_rotation_arc(DVec3::Z, hit.normal);
    let position = DVec3::new(pose.x, pose.y, hit.point.z) + hit.normal * cg;
    Ok((position, (tilt * yaw).normalize()))
}

/// A car taken out of a world by [`World::remove_car`](crate::World::remove_car): its definition,
/// state, driver and settings, opaque until
/// [`World::reinstate_car`](crate::World::reinstate_car) puts it back.
#[derive(Clone, Debug)]
pub struct RemovedCar {
    pub(crate) car: Car,
}

impl RemovedCar {
    /// The id the car had, and gets back when reinstated.
    #[must_use]
    pub fn id(&self) -> CarId {
        self.car.id
    }

    /// The car's definition.
    #[must_use]
    pub fn definition(&self) -> &CarDefinition {
        &self.car.def
    }
}
