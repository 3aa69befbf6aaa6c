//! `--max-*` flags: the work budgets a replay from a stranger may use
//! (`skidpad_replay::Limits`), defaulting to the library's.

use clap::Args;
use skidpad_replay::Limits;

const D: Limits = Limits::DEFAULT;

/// Work budgets for re-simulating replays; the defaults suit a leaderboard
/// server, raise them for long recordings you trust.
#[derive(Args, Clone, Copy, Debug)]
pub struct LimitArgs {
    /// Most recorded cars.
    #[arg(long, value_name = "N", default_value_t = D.max_cars)]
    pub max_cars: u32,
    /// Most recorded steps (the default is 19.4 h at 60 Hz).
    #[arg(long, value_name = "N", default_value_t = D.max_steps)]
    pub max_steps: u64,
    /// Most model substeps of one car in one step.
    #[arg(long, value_name = "N", default_value_t = D.max_substeps_per_step)]
    pub max_substeps_per_step: u32,
    /// Most model substeps over all cars and steps (the CPU budget).
    #[arg(long, value_name = "N", default_value_t = D.max_car_substeps)]
    pub max_car_substeps: u64,
    /// Most game-state bytes over all keyframes.
    #[arg(long, value_name = "BYTES", default_value_t = D.max_keyframe_state_bytes)]
    pub max_keyframe_state_bytes: u64,
    /// Most metadata bytes (keys plus values).
    #[arg(long, value_name = "BYTES", default_value_t = D.max_metadata_bytes)]
    pub max_metadata_bytes: u64,
    /// Most bytes the decoder may hold at once.
    #[arg(long, value_name = "BYTES", default_value_t = D.max_decoded_bytes)]
    pub max_decoded_bytes: u64,
}

impl LimitArgs {
    /// The limits the flags give.
    #[must_use]
    pub fn limits(&self) -> Limits {
        Limits {
            max_cars: self.max_cars,
            max_steps: self.max_steps,
            max_substeps_per_step: self.max_substeps_per_step,
            max_car_substeps: self.max_car_substeps,
            max_keyframe_state_bytes: self.max_keyframe_state_bytes,
            max_metadata_bytes: self.max_metadata_bytes,
            max_decoded_bytes: self.max_decoded_bytes,
        }
    }
}
