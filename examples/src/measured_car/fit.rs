//! The fitted build: three values of the estimated Jeep identified on the
//! slowly increasing steer alone, each by bisection on the one figure it
//! moves most, in turn until they settle. Everything the other runs show
//! is then a prediction.

use skidpad_core::{CarDefinition, Result, SteeringCompliance};

use super::drive::{Manoeuvre, drive};
use super::metrics::{METRICS, figures};

/// The values the fit identifies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fitted {
    /// The steering's compliance, N·m of steering torque per radian the
    /// road wheels give way (the understeer gradient's figure).
    pub steering_stiffness: f64,
    /// A factor on both axles' roll-centre heights (the roll gradient's
    /// figure): the estimate places them from the axles' layout, and the
    /// body rolls by the weight's height above the axis through them.
    pub roll_centre_scale: f64,
    /// A factor on both tires' peak friction, as a `.tir` file's LMUX and
    /// LMUY would be (the maximum lateral acceleration's figure).
    pub friction_scale: f64,
}

/// The compliance's lag is not identified (the slow steer cannot show
/// it): the fitted build gives way within the substep, its only lag the
/// tires' own relaxation.
const LAG: f64 = 0.0;

impl Fitted {
    /// `def` with these values.
    #[must_use]
    pub fn apply(&self, def: &CarDefinition) -> CarDefinition {
        let mut car = def.clone();
        car.name = format!(
            "{} (fitted on sis)",
            def.name.trim_end_matches(", estimated")
        );
        car.steering.compliance = Some(SteeringCompliance {
            stiffness: self.steering_stiffness,
            lag: LAG,
        });
        for axle in [&mut car.suspension.front, &mut car.suspension.rear] {
            axle.roll_centre_height *= self.roll_centre_scale;
        }
        for tire in [&mut car.tires.front, &mut car.tires.rear] {
            tire.pdx1 *= self.friction_scale;
            tire.pdx2 *= self.friction_scale;
            tire.pdy1 *= self.friction_scale;
            tire.pdy2 *= self.friction_scale;
        }
        car
    }
}

/// The published sis figure at `index` of [`METRICS`].
fn target(index: usize) -> f64 {
    METRICS[index].published
}

/// The sis figure at `index` for `fitted` applied to `def`.
fn sis_figure(def: &CarDefinition, fitted: &Fitted, index: usize) -> Result<f64> {
    let recording = drive(&fitted.apply(def), Manoeuvre::Sis)?;
    Ok(figures(Manoeuvre::Sis, &recording)[index])
}

/// Bisection for the `x` in [lo, hi] where `f(x)` crosses `goal`;
/// `rising` says whether f grows with x.
fn bisect(
    mut lo: f64,
    mut hi: f64,
    goal: f64,
    rising: bool,
    mut f: impl FnMut(f64) -> Result<f64>,
) -> Result<f64> {
    for _ in 0..24 {
        let mid = 0.5 * (lo + hi);
        if (f(mid)? < goal) == rising {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(0.5 * (lo + hi))
}

/// Identifies the three values on the slowly increasing steer: the roll
/// centres' height for the roll gradient (index 4), the friction for the
/// maximum lateral acceleration (3) and the steering's stiffness for the
/// understeer gradient (2), three rounds in turn.
///
/// # Errors
/// A trial definition is refused or its simulation fails.
pub fn fit_on_sis(def: &CarDefinition) -> Result<Fitted> {
    let mut fitted = Fitted {
        steering_stiffness: 1.0e5,
        roll_centre_scale: 1.0,
        friction_scale: 1.0,
    };
    for _ in 0..3 {
        // Higher roll centres leave the body less to roll about.
        fitted.roll_centre_scale = bisect(0.0, 2.0, target(4), false, |x| {
            sis_figure(
                def,
                &Fitted {
                    roll_centre_scale: x,
                    ..fitted
                },
                4,
            )
        })?;
        fitted.friction_scale = bisect(0.5, 1.5, target(3), true, |x| {
            sis_figure(
                def,
                &Fitted {
                    friction_scale: x,
                    ..fitted
                },
                3,
            )
        })?;
        // Understeer grows as the stiffness falls: bisect on its
        // logarithm over 10² to 10⁶ N·m/rad.
        let log = bisect(2.0, 6.0, target(2), false, |x| {
            sis_figure(
                def,
                &Fitted {
                    steering_stiffness: 10f64.powf(x),
                    ..fitted
                },
                2,
            )
        })?;
        fitted.steering_stiffness = 10f64.powf(log);
    }
    Ok(fitted)
}
