//! The rewinds section (id 13, required): the player's rewinds, so a
//! verifier can say how many a run used and what they took back. Written
//! only when the player rewound, so a run lived straight through is byte
//! for byte what it was before the section existed; a reader that
//! predates it refuses a file that has one (an unknown required section)
//! rather than report a rewound run as a clean one.
//!
//! Payload: u32 count (at least 1), then per step rewound to, in rising
//! step order: u64 step, u32 rewinds, u64 abandoned steps, f64 abandoned
//! seconds (28 bytes).

use skidpad_core::MAX_TIMESTEP;

use super::bytes::{Reader, Writer};
use crate::Result;
use crate::replay::Rewind;

const RECORD_BYTES: usize = 8 + 4 + 8 + 8;

pub(super) fn encode_rewinds(rewinds: &[Rewind]) -> Writer {
    let mut w = Writer::default();
    w.len32(rewinds.len(), "rewinds");
    for r in rewinds {
        w.u64(r.at);
        w.u32(r.count);
        w.u64(r.steps);
        w.f64(r.seconds);
    }
    w
}

/// The rewinds of a recording of `step_count` steps: at least one record,
/// steps rising without repeats and within the recording, each with at
/// least one rewind, at least one abandoned step per rewind, and abandoned
/// seconds that steps of at most [`MAX_TIMESTEP`] could add up to.
pub(super) fn decode_rewinds(mut r: Reader<'_>, step_count: u64) -> Result<Vec<Rewind>> {
    let n = r.count(RECORD_BYTES, "rewinds")?;
    if n == 0 {
        return Err(r.error("a rewinds section with no rewind: not canonical"));
    }
    let mut out: Vec<Rewind> = Vec::with_capacity(n);
    for _ in 0..n {
        let rewind = Rewind {
            at: r.u64()?,
            count: r.u32()?,
            steps: r.u64()?,
            seconds: r.f64()?,
        };
        if out.last().is_some_and(|last| rewind.at <= last.at) {
            return Err(r.error(format!("rewinds to step {} out of order", rewind.at)));
        }
        if rewind.at > step_count {
            return Err(r.error(format!(
                "a rewind to step {}, past the recording's {step_count} steps",
                rewind.at
            )));
        }
        if rewind.count == 0 || rewind.steps < u64::from(rewind.count) {
            return Err(r.error(format!(
                "{} rewinds to step {} abandoning {} steps: each abandons at least one",
                rewind.count, rewind.at, rewind.steps
            )));
        }
        let most = rewind.steps as f64 * MAX_TIMESTEP;
        if !(rewind.seconds > 0.0 && rewind.seconds <= most) {
            return Err(r.error(format!(
                "rewinds to step {} abandoning {} steps and {} s",
                rewind.at, rewind.steps, rewind.seconds
            )));
        }
        out.push(rewind);
    }
    r.finish()?;
    Ok(out)
}
