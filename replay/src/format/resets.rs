//! The resets section (id 10, required): the game's `World::reset_car`
//! calls, so a player puts each car down where the recording did before
//! the same step. Written only when a car was reset, so a replay without
//! resets is byte for byte what it was before the section existed; a
//! reader that predates it refuses a file that has one (an unknown
//! required section) instead of playing it without the resets.
//!
//! Payload: u32 count (at least 1), then per reset, in rising (step, car)
//! order: u32 car index, u64 step (before which the car was reset), and
//! the pose as f64 x, y, yaw, speed (44 bytes).

use skidpad_core::InitialPose;

use super::bytes::{Reader, Writer};
use crate::Result;
use crate::replay::{CarReset, CarTrack};

const RECORD_BYTES: usize = 4 + 8 + 4 * 8;

/// True when some car was reset: the section is written then only.
pub(super) fn has_resets(cars: &[CarTrack]) -> bool {
    cars.iter().any(|c| !c.resets.is_empty())
}

pub(super) fn encode_resets(cars: &[CarTrack]) -> Writer {
    let mut all: Vec<(u64, usize, InitialPose)> = cars
        .iter()
        .enumerate()
        .flat_map(|(car, t)| t.resets.iter().map(move |r| (r.step, car, r.pose)))
        .collect();
    all.sort_by_key(|&(step, car, _)| (step, car));
    let mut w = Writer::default();
    w.len32(all.len(), "resets");
    for (step, car, pose) in all {
        w.len32(car, "reset car");
        w.u64(step);
        for v in [pose.x, pose.y, pose.yaw, pose.speed] {
            w.f64(v);
        }
    }
    w
}

/// Per car, its resets: at least one in all, in rising (step, car) order
/// without repeats, each of a car of the replay at a step it played
/// (`spans`, the steps `start..end` each car took part in), with a pose
/// the core accepts.
pub(super) fn decode_resets(mut r: Reader<'_>, spans: &[(u64, u64)]) -> Result<Vec<Vec<CarReset>>> {
    let n = r.count(RECORD_BYTES, "resets")?;
    if n == 0 {
        return Err(r.error("a resets section with no reset: not canonical"));
    }
    let mut out = vec![Vec::new(); spans.len()];
    let mut last: Option<(u64, usize)> = None;
    for _ in 0..n {
        let car = r.u32()? as usize;
        let step = r.u64()?;
        let pose = InitialPose {
            x: r.f64()?,
            y: r.f64()?,
            yaw: r.f64()?,
            speed: r.f64()?,
        };
        if last.is_some_and(|l| (step, car) <= l) {
            return Err(r.error(format!("reset of car {car} at step {step} out of order")));
        }
        let Some(&(start, end)) = spans.get(car) else {
            return Err(r.error(format!("reset of car {car} of {}", spans.len())));
        };
        if !(start..end).contains(&step) {
            return Err(r.error(format!(
                "reset of car {car} before step {step}, which the car did not play (it played steps {start}..{end})"
            )));
        }
        let pose = pose
            .validated()
            .map_err(|e| r.error(format!("reset of car {car} at step {step}: {e}")))?;
        out[car].push(CarReset { step, pose });
        last = Some((step, car));
    }
    r.finish()?;
    Ok(out)
}
