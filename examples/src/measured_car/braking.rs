//! The straight braking runs: NHTSA braked the Jeep from about 23 m/s
//! with about 61 N (`brakeMod`) and about 100 N (`brakeSev`) on the pedal.
//! The model has no pedal force, only a brake input from 0 to 1, so the
//! brake gain (input per newton of pedal) is fitted on the moderate run's
//! deceleration and the severe run is a prediction.

use skidpad_core::{CarDefinition, CarInput, InitialPose, Result, World, WorldConfig};

use super::drive::SAMPLE_HZ;
use super::trace::Trace;

/// One of the two braking runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BrakeRun {
    /// About 61 N on the pedal.
    Moderate,
    /// About 100 N.
    Severe,
}

impl BrakeRun {
    /// The data's name for the run.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            BrakeRun::Moderate => "brakeMod",
            BrakeRun::Severe => "brakeSev",
        }
    }

    fn files(self) -> [&'static str; 3] {
        match self {
            BrakeRun::Moderate => [
                include_str!("../../data/jeep-cherokee/brakeMod_pedal_exp.csv"),
                include_str!("../../data/jeep-cherokee/brakeMod_ax_exp.csv"),
                include_str!("../../data/jeep-cherokee/brakeMod_speed_exp.csv"),
            ],
            BrakeRun::Severe => [
                include_str!("../../data/jeep-cherokee/brakeSev_pedal_exp.csv"),
                include_str!("../../data/jeep-cherokee/brakeSev_ax_exp.csv"),
                include_str!("../../data/jeep-cherokee/brakeSev_speed_exp.csv"),
            ],
        }
    }

    /// The measured run, resampled where every channel has data.
    ///
    /// # Panics
    /// Never for the files kept in the repository (a test reads them).
    #[must_use]
    pub fn measured(self) -> Braking {
        let [pedal, decel, speed] = self
            .files()
            .map(|csv| Trace::parse(csv).expect("the kept data files read"));
        let start = pedal.start().max(decel.start()).max(speed.start());
        let end = pedal.end().min(decel.end()).min(speed.end());
        let count = ((end - start) * SAMPLE_HZ).floor() as usize + 1;
        let time = |i: usize| start + i as f64 / SAMPLE_HZ;
        Braking {
            start,
            pedal: (0..count).map(|i| pedal.at(time(i))).collect(),
            deceleration: (0..count).map(|i| -decel.at(time(i))).collect(),
            speed: (0..count).map(|i| speed.at(time(i))).collect(),
        }
    }
}

/// A braking run sampled at [`SAMPLE_HZ`]: pedal force (N), deceleration
/// (m/s², positive slowing) and speed (m/s).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Braking {
    pub start: f64,
    pub pedal: Vec<f64>,
    pub deceleration: Vec<f64>,
    pub speed: Vec<f64>,
}

impl Braking {
    /// The mean deceleration while the pedal is held: samples whose pedal
    /// force is within 20 % of the run's largest and whose speed is above
    /// 3 m/s (the last metres, where the car pitches back as it stops, are
    /// left out).
    #[must_use]
    pub fn held_deceleration(&self, pedal: &[f64]) -> f64 {
        let most = pedal.iter().fold(0.0_f64, |m, &p| m.max(p));
        let (sum, n) = (0..self.deceleration.len())
            .filter(|&i| pedal[i] >= 0.8 * most && self.speed[i] > 3.0)
            .fold((0.0, 0.0), |(s, n), i| (s + self.deceleration[i], n + 1.0));
        sum / n
    }
}

/// Drives `def` through `run`'s measured pedal force, throttle closed,
/// from the measured speed, the brake input being the pedal force times
/// `gain` (per newton).
///
/// # Errors
/// The definition is refused, or the simulation fails.
pub fn drive_braking(def: &CarDefinition, run: BrakeRun, gain: f64) -> Result<Braking> {
    let measured = run.measured();
    let mut world = World::new(WorldConfig::default())?;
    let id = world.add_car(
        def,
        InitialPose {
            speed: measured.speed[0],
            ..InitialPose::default()
        },
    )?;
    let dt = 1.0 / SAMPLE_HZ;
    let mut out = Braking {
        start: measured.start,
        ..Braking::default()
    };
    for &pedal in &measured.pedal {
        let input = CarInput {
            brake: (pedal * gain).clamp(0.0, 1.0),
            gear: 1.0,
            ..CarInput::default()
        };
        world.set_input(id, input)?;
        world.step(dt)?;
        out.pedal.push(pedal);
        out.deceleration.push(-world.channel(id, "ax")?);
        out.speed.push(world.channel(id, "speed")?);
    }
    Ok(out)
}

/// The brake gain (input per newton of pedal) that gives the moderate
/// run's held deceleration, by bisection.
///
/// # Errors
/// A trial run fails.
pub fn fit_brake_gain(def: &CarDefinition) -> Result<f64> {
    let measured = BrakeRun::Moderate.measured();
    let goal = measured.held_deceleration(&measured.pedal);
    let (mut lo, mut hi) = (0.0, 0.02);
    for _ in 0..30 {
        let mid = 0.5 * (lo + hi);
        let run = drive_braking(def, BrakeRun::Moderate, mid)?;
        if run.held_deceleration(&measured.pedal) < goal {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(0.5 * (lo + hi))
}
