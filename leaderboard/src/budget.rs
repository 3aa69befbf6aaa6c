//! A board's work budget, checked at the door: a board ranks one car's
//! laps, so a replay of a big field or of hours of racing has no business
//! reaching a worker. The upload's header alone (counts, read without
//! decoding the body) decides, in well under a millisecond, and the
//! refusal names the limit; the SDK's own decode limits, far above these,
//! still bound whatever passes.

use skidpad_replay::ReplayHeader;

/// What one run on this service may cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardBudget {
    /// Most cars in the replay: the ranked car and rivals beside it.
    pub max_cars: u32,
    /// Most steps (60 a second at the usual rate).
    pub max_steps: u64,
    /// Most car-steps (cars × steps): the re-simulation's work.
    pub max_car_steps: u64,
}

impl Default for BoardBudget {
    /// Eight cars (the demo's six and room for two), 30 minutes at 60 Hz,
    /// and 500 000 car-steps: a few seconds of one core, where the SDK's
    /// decode limits allow minutes.
    fn default() -> Self {
        BoardBudget {
            max_cars: 8,
            max_steps: 30 * 60 * 60,
            max_car_steps: 500_000,
        }
    }
}

impl BoardBudget {
    /// Why `header` is over the budget (naming the limit and the option
    /// that sets it), or `None` when it fits.
    #[must_use]
    pub fn refusal(&self, header: &ReplayHeader) -> Option<String> {
        let cars = u64::from(header.car_count);
        let steps = header.step_count;
        if header.car_count > self.max_cars {
            return Some(format!(
                "the replay has {cars} cars; this board accepts at most {} (--max-cars)",
                self.max_cars
            ));
        }
        if steps > self.max_steps {
            return Some(format!(
                "the replay has {steps} steps; this board accepts at most {} (--max-steps)",
                self.max_steps
            ));
        }
        let work = cars.saturating_mul(steps);
        (work > self.max_car_steps).then(|| {
            format!(
                "the replay is {work} car-steps ({cars} cars × {steps} steps); this board re-simulates at most {} (--max-car-steps)",
                self.max_car_steps
            )
        })
    }
}
