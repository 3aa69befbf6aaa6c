//! The validation manoeuvres of SPEC §4.7, driven through the public API
//! exactly as a game would drive a car, and the theory each is checked
//! against. The theory side reads only the car definition (tire
//! coefficients, masses, geometry), never the simulation's output.
//!
//! `tests/validation_manoeuvres.rs` asserts each result with its tolerance;
//! `cargo run --release -p skidpad-examples --example validation` prints
//! the table in `VALIDATION.md`.

mod fmvss126;
mod robustness;
mod rollover;
mod steady_state;
mod straight_line;
mod transient;
mod trip;

pub use fmvss126::{
    DwellRun, Fmvss126, amplitudes, fmvss_126, phaseless_low_pass, reference_angle,
    sine_with_dwell_run, slowly_increasing_steer,
};
pub use robustness::{ParkedRun, SweepRun, ai_lap, parked, parked_cases, timestep_sweep};
pub use rollover::{
    RollWatch, circle_to_limit, fishhook, fishhook_series, peak_lateral_friction,
    static_stability_factor,
};
pub use steady_state::{
    CircleRun, LATERAL_G, LINEAR_G, SPEED_TEST_G, constant_radius, constant_speed,
    static_axle_load, theory_understeer_gradient,
};
pub use straight_line::{
    ZERO_TO_100_RANGES, friction_bound_100, peak_friction, stop_from_100, zero_to_100,
};
pub use transient::{
    Lane, LaneChange, TransientRun, double_lane_change, lane_change_course, sine_with_dwell,
    step_steer,
};
pub use trip::{
    Crash, FMVSS_214, KERB_HEIGHT, barrier_slide, kerb_trip, kerb_trip_speed, side_impact,
    slide_into_standing, trip_theory_speed,
};

use skidpad_core::{
    CarDefinition, CarId, CarInput, InitialPose, Lod, LodSetting, Result, World, WorldConfig,
    preset,
};

/// The presets meant for roads (the kart is checked where its locked rear
/// axle and rear-only brakes do not put it outside the theory).
pub const ROAD: [&str; 3] = ["fwd_hatchback", "rwd_sports", "awd_rally"];
/// Every preset.
pub const ALL: [&str; 4] = ["fwd_hatchback", "rwd_sports", "awd_rally", "kart"];

/// Standard gravity, m/s².
pub const G: f64 = 9.80665;
/// 100 km/h in m/s.
pub const KMH_100: f64 = 100.0 / 3.6;

/// How a manoeuvre steps the car: model, host rate and substep rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stepping {
    /// Level of detail.
    pub lod: Lod,
    /// Host steps per second.
    pub host_hz: f64,
    /// Substeps per second (None: the definition's own rate).
    pub substep_hz: Option<f64>,
}

impl Stepping {
    /// The four-wheel model at 60 Hz with the definition's substep rate.
    pub const FULL: Stepping = Stepping {
        lod: Lod::Full,
        host_hz: 60.0,
        substep_hz: None,
    };
    /// The single-track model at 60 Hz with its default substep rate.
    pub const SINGLE_TRACK: Stepping = Stepping {
        lod: Lod::SingleTrack,
        host_hz: 60.0,
        substep_hz: None,
    };

    fn dt(self) -> f64 {
        1.0 / self.host_hz
    }

    /// The same stepping at four times the substep rate `def` gets here:
    /// the reference the default rates are checked against.
    pub fn four_times_finer(self, def: &CarDefinition) -> Stepping {
        let rate = match self.substep_hz {
            Some(rate) => rate,
            None => LodSetting::new(self.lod).rate(def.substep_rate),
        };
        Stepping {
            substep_hz: Some(4.0 * rate),
            ..self
        }
    }
}

/// One car alone on dry asphalt.
struct Rig {
    world: World,
    car: CarId,
    dt: f64,
}

impl Rig {
    fn new(def: &CarDefinition, stepping: Stepping, speed: f64) -> Result<Rig> {
        let mut world = World::new(WorldConfig::default())?;
        let pose = InitialPose {
            speed,
            ..InitialPose::default()
        };
        let car = world.add_car(def, pose)?;
        let lod = match stepping.substep_hz {
            Some(rate) => LodSetting::with_rate(stepping.lod, rate),
            None => LodSetting::new(stepping.lod),
        };
        world.set_lod(car, lod)?;
        Ok(Rig {
            world,
            car,
            dt: stepping.dt(),
        })
    }

    fn step(&mut self, input: CarInput) -> Result<()> {
        self.world.set_input(self.car, input)?;
        self.world.step(self.dt)
    }

    fn channel(&self, name: &str) -> Result<f64> {
        self.world.channel(self.car, name)
    }

    fn speed(&self) -> Result<f64> {
        self.channel("speed")
    }
}

/// Drive input: the automatic gearbox's "drive", or first gear of a
/// manual box.
fn drive(throttle: f64, brake: f64, steer: f64) -> CarInput {
    CarInput {
        steer,
        throttle,
        brake,
        gear: 1.0,
        ..CarInput::default()
    }
}

/// A preset by name (for the table and the tests).
pub fn car(name: &str) -> Result<CarDefinition> {
    preset(name)
}
