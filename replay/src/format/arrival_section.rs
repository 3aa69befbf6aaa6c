//! The arrivals section (id 12, required): cars that joined the recording
//! after it began, each with the step it arrived before and its state
//! then. Written only when a car arrived, so a replay without arrivals is
//! byte for byte what it was before the section existed; a reader that
//! predates it refuses a file that has one (an unknown required section)
//! instead of playing the race without the late cars.
//!
//! Payload: u32 count (at least 1), then per arrival, by strictly rising
//! car index: u32 car index, u64 step `a` (1 ≤ a ≤ s), and the car's
//! `World::snapshot` as it arrived (`SNAPSHOT_LEN` bytes).

use skidpad_core::SNAPSHOT_LEN;

use super::bytes::{Reader, Writer};
use super::keyframes::per_car_records;
use crate::Result;
use crate::replay::{CarArrival, CarTrack, ReplayHeader};

const RECORD_BYTES: usize = 4 + 8 + SNAPSHOT_LEN;

/// True when some car arrived late: the section is written then only.
pub(super) fn has_arrivals(cars: &[CarTrack]) -> bool {
    cars.iter().any(|c| c.arrival.is_some())
}

pub(super) fn encode_arrivals(cars: &[CarTrack]) -> Writer {
    let arrived: Vec<(usize, &CarArrival)> = cars
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.arrival.as_ref().map(|a| (i, a)))
        .collect();
    let mut w = Writer::default();
    w.len32(arrived.len(), "arrivals");
    for (car, arrival) in arrived {
        w.len32(car, "arrived car");
        w.u64(arrival.step);
        w.bytes(&arrival.snapshot);
    }
    w
}

/// Per car, its arrival: at least one in all, cars in strictly rising
/// order, each of a car of the replay at a step from 1 to the last.
pub(super) fn decode_arrivals(
    r: Reader<'_>,
    header: &ReplayHeader,
) -> Result<Vec<Option<CarArrival>>> {
    per_car_records(
        r,
        header,
        RECORD_BYTES,
        ("arrivals", "arrived"),
        |r, car| {
            let step = r.u64()?;
            if step == 0 || step > header.step_count {
                return Err(r.error(format!(
                "car {car} arrives at step {step}, outside 1..={} (a car there from the start has no arrival)",
                header.step_count
            )));
            }
            let snapshot = r.take(SNAPSHOT_LEN)?.to_vec();
            Ok(CarArrival { step, snapshot })
        },
    )
}
