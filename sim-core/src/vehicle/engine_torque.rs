//! The engine's torque as its definition gives it: the full-throttle
//! curve, and how a part-open throttle meters the air (`ThrottleBody`).
//! The engine model scales the curve by the throttle's filling; the
//! curve also sizes a torque converter.

use serde::{Deserialize, Serialize};

use crate::Result;
use crate::error::check;
use crate::vehicle::definition::EngineDefinition;

/// How the throttle meters the engine's air. Absent, the engine gives
/// throttle × its full-throttle torque at every speed. With it, a
/// throttle opened a fraction θ passes all the air the engine draws up to
/// θ × `free_flow_rpm`; faster, the flow through the part-open plate is
/// the limit (it chokes), the cylinders fill in proportion to 1/rpm, and
/// so does the torque: θ·free_flow_rpm/rpm of the full-throttle torque.
/// At a light throttle a real engine's torque falls with its speed in this
/// way, which no pedal map alone can give.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThrottleBody {
    /// Engine speed up to which the wide-open throttle passes all the air
    /// the engine draws, rpm; at least the limiter's speed (the
    /// full-throttle curve already holds the engine's own breathing).
    pub free_flow_rpm: f64,
}

impl ThrottleBody {
    /// Refuses a free-flow speed below the limiter or beyond reason.
    pub(crate) fn validate(&self, engine: &EngineDefinition) -> Result<()> {
        check(
            "engine.throttle_body.free_flow_rpm",
            self.free_flow_rpm,
            self.free_flow_rpm >= engine.limiter_rpm
                && self.free_flow_rpm <= 100.0 * engine.limiter_rpm,
            "must lie between limiter_rpm and 100 times it",
        )
    }

    /// The share of the full-throttle torque the engine gives at
    /// `throttle` (0 … 1) and `rpm`.
    pub(crate) fn filling(&self, throttle: f64, rpm: f64) -> f64 {
        let free = throttle * self.free_flow_rpm;
        if throttle <= 0.0 {
            0.0
        } else if rpm <= free {
            1.0
        } else {
            free / rpm
        }
    }
}

impl EngineDefinition {
    /// Full-throttle torque at `rpm`, N·m: linear between the curve's
    /// points, held at the first below it and the last above it.
    #[must_use]
    pub fn full_throttle_torque(&self, rpm: f64) -> f64 {
        let curve = &self.torque_curve;
        let first = curve[0];
        if rpm <= first[0] {
            return first[1];
        }
        for pair in curve.windows(2) {
            let ([r0, t0], [r1, t1]) = (pair[0], pair[1]);
            if rpm <= r1 {
                return t0 + (t1 - t0) * (rpm - r0) / (r1 - r0);
            }
        }
        curve[curve.len() - 1][1]
    }

    /// The torque the throttle lets the engine give at `rpm`, before
    /// engine braking and the idle governor, N·m.
    #[must_use]
    pub fn throttled_torque(&self, throttle: f64, rpm: f64) -> f64 {
        match &self.throttle_body {
            None => throttle * self.full_throttle_torque(rpm),
            Some(body) => body.filling(throttle, rpm) * self.full_throttle_torque(rpm),
        }
    }
}
