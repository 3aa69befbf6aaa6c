//! A real car against its measurements: NHTSA's 1997 Jeep Cherokee
//! (`examples/data/jeep-cherokee/`), defined from published specifications
//! and estimates (`examples/data/jeep_cherokee_1997.json`, each value's
//! source in the `.md` beside it), driven open loop through the measured
//! hand-wheel traces of four handling runs and compared on the data
//! README's 17 figures and on the traces, with the tolerances set before
//! the first run.
//!
//! `cargo run --release -p skidpad-examples --example nhtsa_jeep` prints
//! the tables in `VALIDATION.md`; `tests/jeep_against_nhtsa.rs` checks the
//! harness (the metric code reads the published figures back from the
//! measured files) and holds the scores.

mod acceleration;
mod braking;
mod drive;
mod fit;
mod metrics;
mod trace;

pub use acceleration::{
    ACCELERATION_TRACE_LIMIT, Acceleration, THROTTLE_FIT_UNTIL_S, drive_acceleration,
    fit_throttle_gain,
};
pub use braking::{BrakeRun, Braking, drive_braking, fit_brake_gain};
pub use drive::{Manoeuvre, SAMPLE_HZ, drive, drive_at};
pub use fit::{Fitted, fit_on_sis};
pub use metrics::{METRICS, Metric, TRACES, Tolerance, figures, steady_speed, trace_error};
pub use trace::{Channel, Recording, Trace};

use skidpad_core::{CarDefinition, Result};

/// The estimated build: nothing fitted.
///
/// # Errors
/// Never for the kept file (a test reads it).
pub fn jeep_estimated() -> Result<CarDefinition> {
    CarDefinition::from_json(include_str!("../data/jeep_cherokee_1997.json"))
}

/// The values `fit_on_sis` identifies for the estimated build (the
/// `nhtsa_jeep` example runs the fit again and says when these are stale).
pub const FITTED: Fitted = Fitted {
    steering_stiffness: 3368.6,
    roll_centre_scale: 0.87788,
    friction_scale: 0.85432,
};

/// The fitted build: the estimated one with [`FITTED`]'s three values.
///
/// # Errors
/// Never for the kept file (a test reads it).
pub fn jeep_fitted() -> Result<CarDefinition> {
    Ok(FITTED.apply(&jeep_estimated()?))
}

/// One figure of one build: the simulated value against the published
/// one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Compared {
    pub metric: Metric,
    pub value: f64,
    pub pass: bool,
}

/// One trace comparison: RMS difference over the measured range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceCompared {
    pub manoeuvre: Manoeuvre,
    pub channel: &'static str,
    pub error: f64,
    pub limit: f64,
}

/// A braking run's held deceleration, simulated against measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BrakeCompared {
    pub run: BrakeRun,
    /// m/s².
    pub measured: f64,
    pub value: f64,
    /// False for the run the gain was fitted on.
    pub predicted: bool,
}

/// How far a predicted held deceleration may be from the measured one,
/// as the steady step values: ±10 %, set before the first run.
pub const BRAKING_TOLERANCE: f64 = 0.10;

impl BrakeCompared {
    /// Within [`BRAKING_TOLERANCE`].
    #[must_use]
    pub fn pass(&self) -> bool {
        (self.value - self.measured).abs() <= BRAKING_TOLERANCE * self.measured
    }
}

/// The acceleration run: the pedal-to-throttle gain fitted on its first
/// part and the rest predicted.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AccelerationCompared {
    /// `throttle = gain × pedal`, fitted on the speed at
    /// [`THROTTLE_FIT_UNTIL_S`].
    pub gain: f64,
    /// Simulated and measured speed there, m/s.
    pub fitted_speed: f64,
    pub measured_fitted_speed: f64,
    /// Simulated and measured speed at the run's end, m/s.
    pub final_speed: f64,
    pub measured_final_speed: f64,
    /// The predicted part's speed trace: RMS difference over the measured
    /// range ([`Acceleration::predicted_speed_error`]).
    pub predicted_error: f64,
}

impl AccelerationCompared {
    /// Within [`ACCELERATION_TRACE_LIMIT`].
    #[must_use]
    pub fn pass(&self) -> bool {
        self.predicted_error <= ACCELERATION_TRACE_LIMIT
    }
}

/// A build's comparison with the measurements.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scorecard {
    pub figures: Vec<Compared>,
    pub traces: Vec<TraceCompared>,
    /// The brake gain fitted on `brakeMod`, brake input per newton of
    /// pedal.
    pub brake_gain: f64,
    pub braking: Vec<BrakeCompared>,
    pub acceleration: AccelerationCompared,
}

impl Scorecard {
    /// Figures within tolerance, of 17.
    #[must_use]
    pub fn passed(&self) -> usize {
        self.figures.iter().filter(|c| c.pass).count()
    }

    /// Traces within their limit.
    #[must_use]
    pub fn traces_passed(&self) -> usize {
        self.traces.iter().filter(|t| t.error <= t.limit).count()
    }
}

/// Drives `def` through the four handling runs, the two braking runs (the
/// brake gain fitted on `brakeMod`) and the acceleration run (the
/// pedal-to-throttle gain fitted on its first part) and compares it.
///
/// # Errors
/// The definition is refused, or the simulation fails.
pub fn score(def: &CarDefinition) -> Result<Scorecard> {
    let mut card = Scorecard::default();
    for manoeuvre in Manoeuvre::ALL {
        let simulated = drive(def, manoeuvre)?;
        let measured = manoeuvre.measured();
        let values = figures(manoeuvre, &simulated);
        let metrics = METRICS.iter().filter(|m| m.manoeuvre == manoeuvre);
        for (metric, value) in metrics.zip(values) {
            card.figures.push(Compared {
                metric: *metric,
                value,
                pass: metric.tolerance.accepts(value, metric.published),
            });
        }
        for (channel, name, limit) in TRACES {
            card.traces.push(TraceCompared {
                manoeuvre,
                channel: name,
                error: trace_error(&simulated, &measured, channel),
                limit,
            });
        }
    }
    card.brake_gain = fit_brake_gain(def)?;
    for run in [BrakeRun::Moderate, BrakeRun::Severe] {
        let measured = run.measured();
        let simulated = drive_braking(def, run, card.brake_gain)?;
        card.braking.push(BrakeCompared {
            run,
            measured: measured.held_deceleration(&measured.pedal),
            value: simulated.held_deceleration(&measured.pedal),
            predicted: run == BrakeRun::Severe,
        });
    }
    let gain = fit_throttle_gain(def)?;
    let measured = Acceleration::measured();
    let simulated = drive_acceleration(def, gain)?;
    let last = |run: &Acceleration| run.speed.last().copied().unwrap_or(0.0);
    card.acceleration = AccelerationCompared {
        gain,
        fitted_speed: simulated.speed_at(THROTTLE_FIT_UNTIL_S),
        measured_fitted_speed: measured.speed_at(THROTTLE_FIT_UNTIL_S),
        final_speed: last(&simulated),
        measured_final_speed: last(&measured),
        predicted_error: measured.predicted_speed_error(&simulated),
    };
    Ok(card)
}
