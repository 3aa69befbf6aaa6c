//! The straight acceleration run: NHTSA drove the Jeep from rest to about
//! 17 m/s over 63 s at about 10 % throttle, through its automatic box.
//! The data README lists the part-throttle engine map among what is not
//! published. The Jeep's definition meters its air through a throttle
//! body (`ThrottleBody`: at a light throttle the torque falls as 1/rpm
//! above the speed the part-open plate can feed), but how far the
//! measured pedal fraction opens that plate is not known. So it is one
//! value fitted here, a gain (`throttle = gain × pedal`), on the first part
//! of the run; the rest of the run is a prediction. The car drives through
//! its definition's torque converter, which multiplies the torque at
//! launch.
//!
//! The car shifts on its definition's schedule: the Jeep's gives its box
//! light-throttle points (`GearboxDefinition::light_throttle`, estimates
//! in the `.md`), because the real box (an AW4) upshifts early at a light
//! throttle, where the full-throttle points alone would hold each gear to
//! 4 400 rpm.

use skidpad_core::{CarDefinition, CarInput, InitialPose, Result, ShiftMode, World, WorldConfig};

use super::drive::SAMPLE_HZ;
use super::trace::Trace;

/// The end of the part the throttle gain is fitted on, s of the run's clock:
/// the speed there is matched; everything after it is predicted.
pub const THROTTLE_FIT_UNTIL_S: f64 = 25.0;

/// The predicted speed trace's RMS difference, as a share of the measured
/// speed range over the predicted part (the data README's rule for
/// traces), at most.
pub const ACCELERATION_TRACE_LIMIT: f64 = 0.15;

/// The run sampled at [`SAMPLE_HZ`]: time on the run's clock (s), pedal
/// (throttle fraction), longitudinal acceleration (m/s²) and speed (m/s).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Acceleration {
    pub time: Vec<f64>,
    pub pedal: Vec<f64>,
    pub ax: Vec<f64>,
    pub speed: Vec<f64>,
}

impl Acceleration {
    /// The measured run, resampled where every channel has data (from the
    /// first speed sample, 0.1 m/s, to the last).
    ///
    /// # Panics
    /// Never for the files kept in the repository (a test reads them).
    #[must_use]
    pub fn measured() -> Acceleration {
        let [pedal, ax, speed] = [
            include_str!("../../data/jeep-cherokee/accel_throttle_exp.csv"),
            include_str!("../../data/jeep-cherokee/accel_ax_exp.csv"),
            include_str!("../../data/jeep-cherokee/accel_speed_exp.csv"),
        ]
        .map(|csv| Trace::parse(csv).expect("the kept data files read"));
        let start = pedal.start().max(ax.start()).max(speed.start());
        let end = pedal.end().min(ax.end()).min(speed.end());
        let count = ((end - start) * SAMPLE_HZ).floor() as usize + 1;
        let time: Vec<f64> = (0..count).map(|i| start + i as f64 / SAMPLE_HZ).collect();
        Acceleration {
            pedal: time.iter().map(|&t| pedal.at(t)).collect(),
            ax: time.iter().map(|&t| ax.at(t)).collect(),
            speed: time.iter().map(|&t| speed.at(t)).collect(),
            time,
        }
    }

    /// The speed at `t` on the run's clock (the sample at or before it).
    #[must_use]
    pub fn speed_at(&self, t: f64) -> f64 {
        let i = self.time.partition_point(|&s| s <= t).max(1) - 1;
        self.speed[i]
    }

    /// RMS difference of `simulated`'s speed from this run's over the
    /// predicted part (after [`THROTTLE_FIT_UNTIL_S`]), as a share of the
    /// measured speed range there.
    #[must_use]
    pub fn predicted_speed_error(&self, simulated: &Acceleration) -> f64 {
        let part: Vec<usize> = (0..self.time.len().min(simulated.speed.len()))
            .filter(|&i| self.time[i] > THROTTLE_FIT_UNTIL_S)
            .collect();
        let (lo, hi) = part.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &i| {
            (lo.min(self.speed[i]), hi.max(self.speed[i]))
        });
        let square_sum: f64 = part
            .iter()
            .map(|&i| (simulated.speed[i] - self.speed[i]).powi(2))
            .sum();
        (square_sum / part.len() as f64).sqrt() / (hi - lo)
    }
}

/// Drives `def` through the run's measured pedal from its first measured
/// speed, the automatic box in drive on the definition's schedule, the
/// core's throttle `gain × pedal`.
///
/// # Errors
/// The definition is refused, or the simulation fails.
pub fn drive_acceleration(def: &CarDefinition, gain: f64) -> Result<Acceleration> {
    let measured = Acceleration::measured();
    let mut car = def.clone();
    car.gearbox.mode = ShiftMode::Automatic;
    let mut world = World::new(WorldConfig::default())?;
    let id = world.add_car(
        &car,
        InitialPose {
            speed: measured.speed[0],
            ..InitialPose::default()
        },
    )?;
    let dt = 1.0 / SAMPLE_HZ;
    let mut out = Acceleration::default();
    for (&t, &pedal) in measured.time.iter().zip(&measured.pedal) {
        let input = CarInput {
            throttle: (gain * pedal).clamp(0.0, 1.0),
            // 0: drive, for an automatic box (SPEC §4.1).
            gear: 0.0,
            ..CarInput::default()
        };
        world.set_input(id, input)?;
        world.step(dt)?;
        out.time.push(t);
        out.pedal.push(pedal);
        out.ax.push(world.channel(id, "ax")?);
        out.speed.push(world.channel(id, "speed")?);
    }
    Ok(out)
}

/// The pedal-to-throttle gain that gives the measured speed at
/// [`THROTTLE_FIT_UNTIL_S`], by bisection over 0.1 to 10 (the speed there
/// grows with it).
///
/// # Errors
/// A trial run fails.
pub fn fit_throttle_gain(def: &CarDefinition) -> Result<f64> {
    let measured = Acceleration::measured();
    let goal = measured.speed_at(THROTTLE_FIT_UNTIL_S);
    // On the gain's logarithm: it may lie anywhere in two decades.
    let (mut lo, mut hi) = (-1.0_f64, 1.0_f64);
    for _ in 0..20 {
        let mid = 0.5 * (lo + hi);
        let run = drive_acceleration(def, 10f64.powf(mid))?;
        if run.speed_at(THROTTLE_FIT_UNTIL_S) < goal {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(10f64.powf(0.5 * (lo + hi)))
}
