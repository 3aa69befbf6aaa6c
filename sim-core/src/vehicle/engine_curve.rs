//! The engine's full-throttle torque, read off its curve: what the engine
//! model scales by the throttle, and what sizes a torque converter.

use crate::vehicle::definition::EngineDefinition;

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
}
