//! The automatic box's shift schedule as the definition gives it: the
//! shift points at full throttle, and optionally at a light throttle
//! (`LightThrottleShifts`), with the schedule between them. The gear
//! choice itself is the model's (`model::drivetrain::gearbox`).

use serde::{Deserialize, Serialize};

use crate::Result;
use crate::error::check;
use crate::vehicle::definition::invalid;
use crate::vehicle::definition::{EngineDefinition, GearboxDefinition};

/// Where an automatic box shifts with the throttle nearly closed. A real
/// box's governor reads the throttle: it shifts up early when cruising and
/// holds a gear to high engine speed under full throttle. With these
/// points the schedule moves linearly with the pedal from them (closed) to
/// the gearbox's `upshift_rpm` and `downshift_rpm` (wide open), so a
/// lifted foot brings an upshift and a pressed one a kickdown, as in a
/// real car. Absent, the box shifts at the same points whatever the
/// throttle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LightThrottleShifts {
    /// Shift up above this engine speed with the throttle closed, rpm; at
    /// most the full-throttle `upshift_rpm`.
    pub upshift_rpm: f64,
    /// Shift down below this engine speed with the throttle closed, rpm;
    /// at most the full-throttle `downshift_rpm`.
    pub downshift_rpm: f64,
}

impl GearboxDefinition {
    /// The engine speeds, rpm, above which the box shifts up and below
    /// which it shifts down at `throttle` (the driver's pedal, 0 … 1).
    pub(crate) fn shift_points(&self, throttle: f64) -> (f64, f64) {
        match &self.light_throttle {
            None => (self.upshift_rpm, self.downshift_rpm),
            Some(light) => (
                light.upshift_rpm + (self.upshift_rpm - light.upshift_rpm) * throttle,
                light.downshift_rpm + (self.downshift_rpm - light.downshift_rpm) * throttle,
            ),
        }
    }

    /// Refuses shift points outside the engine's range, a downshift at or
    /// above its upshift, and a schedule that would hunt.
    pub(crate) fn validate_schedule(&self, engine: &EngineDefinition) -> Result<()> {
        check_points("gearbox", self.upshift_rpm, self.downshift_rpm, engine)?;
        self.check_no_hunting("gearbox", self.upshift_rpm, self.downshift_rpm)?;
        let Some(light) = &self.light_throttle else {
            return Ok(());
        };
        check_points(
            "gearbox.light_throttle",
            light.upshift_rpm,
            light.downshift_rpm,
            engine,
        )?;
        check(
            "gearbox.light_throttle.upshift_rpm",
            light.upshift_rpm,
            light.upshift_rpm <= self.upshift_rpm,
            "must be at most gearbox.upshift_rpm",
        )?;
        check(
            "gearbox.light_throttle.downshift_rpm",
            light.downshift_rpm,
            light.downshift_rpm <= self.downshift_rpm,
            "must be at most gearbox.downshift_rpm",
        )?;
        // Both points move linearly with the throttle, so the margin after
        // an upshift (upshift × ratio step − downshift) is linear in it too:
        // positive at both ends, it is positive at every throttle between.
        self.check_no_hunting(
            "gearbox.light_throttle",
            light.upshift_rpm,
            light.downshift_rpm,
        )
    }

    /// Just after an upshift the engine must run above the downshift point,
    /// or the schedule would shift straight back down.
    fn check_no_hunting(&self, prefix: &str, upshift_rpm: f64, downshift_rpm: f64) -> Result<()> {
        for i in 1..self.ratios.len() {
            let after = upshift_rpm * self.ratios[i] / self.ratios[i - 1];
            if after <= downshift_rpm {
                return Err(invalid(
                    format!("{prefix}.downshift_rpm"),
                    format!(
                        "must be below {after:.0} rpm, the speed just after shifting from gear {i} to {}, or the gearbox would hunt",
                        i + 1
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// One pair of shift points lies inside the engine's range, the downshift
/// below the upshift.
fn check_points(
    prefix: &str,
    upshift_rpm: f64,
    downshift_rpm: f64,
    engine: &EngineDefinition,
) -> Result<()> {
    check(
        &format!("{prefix}.upshift_rpm"),
        upshift_rpm,
        upshift_rpm > engine.idle_rpm && upshift_rpm <= engine.limiter_rpm,
        "must lie between idle_rpm and limiter_rpm",
    )?;
    check(
        &format!("{prefix}.downshift_rpm"),
        downshift_rpm,
        downshift_rpm >= engine.idle_rpm && downshift_rpm < upshift_rpm,
        "must be at least idle_rpm and below upshift_rpm",
    )
}
