//! Work budgets for replays from strangers.
//!
//! A replay file is small, but what it declares (cars, steps, substeps per
//! step, keyframes) can cost a server hours of CPU and gigabytes of memory.
//! [`Limits`] bounds that work. The decoder checks each bound as soon as the
//! numbers it needs are read, before anything proportional to them is
//! allocated or simulated; the player checks a replay built in memory the
//! same way. A replay over a bound is refused with
//! [`ReplayError::LimitExceeded`], naming the limit and the value.

use skidpad_core::{CarDefinition, LodSetting, MAX_SUBSTEP_RATE, SNAPSHOT_LEN};

use crate::replay::{Replay, ReplayHeader};
use crate::runs::Runs;
use crate::{ReplayError, Result};

/// Bounds on what one replay may cost to decode and re-simulate.
///
/// The defaults fit a one-hour race of 20 cars at 60 Hz with a 1 kHz
/// substep rate, over three times the presets' (4.3 M car-steps, 73 M
/// car-substeps),
/// and cost at most a few minutes of one core and [`Limits::DEFAULT_DECODED_BYTES`] of
/// memory. A game loading its own long recordings can raise them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most recorded cars.
    pub max_cars: u32,
    /// Most recorded steps.
    pub max_steps: u64,
    /// Most model substeps one car takes in one step (dt × substep rate).
    pub max_substeps_per_step: u32,
    /// Most model substeps over all cars and steps: the CPU budget.
    pub max_car_substeps: u64,
    /// Most game-state bytes over all keyframes.
    pub max_keyframe_state_bytes: u64,
    /// Most metadata bytes (keys plus values).
    pub max_metadata_bytes: u64,
    /// Most bytes the decoder may hold at once: the decompressed file, the
    /// inflated sections and the decoded replay, estimated from declared
    /// sizes before any of them is allocated.
    pub max_decoded_bytes: u64,
}

impl Limits {
    /// Default memory budget of the decoder, bytes (256 MiB).
    pub const DEFAULT_DECODED_BYTES: u64 = 256 << 20;

    /// The defaults (see the type's docs).
    pub const DEFAULT: Limits = Limits {
        max_cars: 64,
        // 19.4 hours at 60 Hz.
        max_steps: 1 << 22,
        // 60 Hz steps at the core's top rate of 10 kHz are 167.
        max_substeps_per_step: 256,
        // About 134 M: one to three minutes of one core.
        max_car_substeps: 1 << 27,
        max_keyframe_state_bytes: 16 << 20,
        // A carried track definition (ReplayHeader::TRACK_DEFINITION_KEY)
        // of 4096 control points with every profile is about 300 KB.
        max_metadata_bytes: 512 << 10,
        max_decoded_bytes: Limits::DEFAULT_DECODED_BYTES,
    };

    /// No bound beyond what the format and the address space impose; for
    /// replays the game recorded itself.
    pub const UNLIMITED: Limits = Limits {
        max_cars: u32::MAX,
        max_steps: u64::MAX,
        max_substeps_per_step: u32::MAX,
        max_car_substeps: u64::MAX,
        max_keyframe_state_bytes: u64::MAX,
        max_metadata_bytes: u64::MAX,
        max_decoded_bytes: u64::MAX,
    };

    /// Refuses a header over the header-level bounds: no cars, too many
    /// cars or steps, too much metadata.
    pub fn check_header(&self, header: &ReplayHeader) -> Result<()> {
        if header.car_count == 0 {
            return Err(ReplayError::NoCars);
        }
        self.check_cars(u64::from(header.car_count))?;
        exceeds("steps", header.step_count, self.max_steps)?;
        let metadata = header
            .metadata
            .iter()
            .map(|(k, v)| (k.len() + v.len()) as u64)
            .fold(0_u64, u64::saturating_add);
        exceeds("metadata bytes", metadata, self.max_metadata_bytes)
    }

    /// Refuses more cars than the bound (a stream's cars grow as they
    /// arrive).
    pub(crate) fn check_cars(&self, cars: u64) -> Result<()> {
        exceeds("cars", cars, u64::from(self.max_cars))
    }

    /// Refuses a replay held in memory whose work is over a bound; the
    /// player calls this before it plays anything. `rates[i]` is the
    /// substep rate of the definition car i will be played with.
    pub fn check_replay(&self, replay: &Replay, rates: &[f64]) -> Result<()> {
        self.check_header(&replay.header)?;
        let lods: Vec<_> = replay.cars.iter().map(|c| &c.lod).collect();
        self.check_work(&Work::of(&replay.dt, &lods, rates))?;
        let state = replay
            .keyframes
            .iter()
            .map(|k| k.game_state.len() as u64)
            .fold(0_u64, u64::saturating_add);
        exceeds("keyframe state bytes", state, self.max_keyframe_state_bytes)
    }

    /// Refuses simulation work over the substep bounds.
    pub fn check_work(&self, work: &Work) -> Result<()> {
        exceeds(
            "substeps per step",
            u64::from(work.max_substeps_per_step),
            u64::from(self.max_substeps_per_step),
        )?;
        exceeds("car-substeps", work.car_substeps, self.max_car_substeps)
    }

    /// Refuses more than `max_steps` steps (a stream's running total).
    pub(crate) fn check_steps(&self, steps: u64) -> Result<()> {
        exceeds("steps", steps, self.max_steps)
    }

    /// Refuses a decoder that would hold more than `max_decoded_bytes`.
    pub fn check_memory(&self, bytes: u64) -> Result<()> {
        exceeds("decoded bytes", bytes, self.max_decoded_bytes)
    }

    /// Refuses more keyframe state than `max_keyframe_state_bytes`.
    pub fn check_keyframe_state(&self, bytes: u64) -> Result<()> {
        exceeds("keyframe state bytes", bytes, self.max_keyframe_state_bytes)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

fn exceeds(limit: &'static str, value: u64, max: u64) -> Result<()> {
    if value > max {
        return Err(ReplayError::LimitExceeded { limit, value, max });
    }
    Ok(())
}

/// The simulation work a replay declares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Largest substep count of one car in one step.
    pub max_substeps_per_step: u32,
    /// Substeps over all cars and steps (saturating).
    pub car_substeps: u64,
}

impl Work {
    /// This work followed by `more` (a stream's running total).
    #[must_use]
    pub(crate) fn then(self, more: Work) -> Work {
        Work {
            max_substeps_per_step: self.max_substeps_per_step.max(more.max_substeps_per_step),
            car_substeps: self.car_substeps.saturating_add(more.car_substeps),
        }
    }

    /// The work of playing `dt` with each car's level-of-detail runs;
    /// `rates[i]` is car i's definition substep rate. Costs one pass over
    /// the runs, not over the steps.
    #[must_use]
    pub fn of(dt: &Runs<f64>, lods: &[&Runs<LodSetting>], rates: &[f64]) -> Work {
        let mut work = Work::default();
        for (lod, &rate) in lods.iter().zip(rates) {
            let mut dts = dt.runs().peekable();
            let mut levels = lod.runs().peekable();
            // Walk both run lists together, one overlap at a time.
            while let (Some(&(dn, d)), Some(&(ln, l))) = (dts.peek(), levels.peek()) {
                let n = dn.min(ln);
                let per_step = l.substeps(d, rate);
                work.max_substeps_per_step = work.max_substeps_per_step.max(per_step);
                work.car_substeps = work
                    .car_substeps
                    .saturating_add(n.saturating_mul(u64::from(per_step)));
                advance(&mut dts, dn, n);
                advance(&mut levels, ln, n);
            }
        }
        work
    }
}

/// Consumes `n` steps of the run at the front of `runs` (of `length`).
fn advance<T: Copy, I: Iterator<Item = (u64, T)>>(
    runs: &mut std::iter::Peekable<I>,
    length: u64,
    n: u64,
) {
    if n == length {
        runs.next();
    } else if let Some(front) = runs.peek_mut() {
        front.0 -= n;
    }
}

/// Each car's definition substep rate; without embedded definitions the
/// core's top rate, so the bound holds whatever world plays it.
pub(crate) fn definition_rates(definitions: &[CarDefinition], cars: usize) -> Vec<f64> {
    (0..cars)
        .map(|i| {
            definitions
                .get(i)
                .map_or(MAX_SUBSTEP_RATE, |d| d.substep_rate)
        })
        .collect()
}

/// Decoded size of one keyframe of `cars` cars, bytes: the snapshots, their
/// hashes, the world hash and the vectors' own headers.
pub(crate) fn keyframe_bytes(cars: u64) -> u64 {
    const VEC: u64 = 24;
    cars.saturating_mul(SNAPSHOT_LEN as u64 + 32 + VEC)
        .saturating_add(8 + 32 + 2 * VEC)
}
