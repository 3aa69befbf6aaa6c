//! Clips: a stretch of a replay as a replay of its own, to share a pass or
//! a crash without the whole race. The replay is played to the clip's
//! first step and recorded from there (its world at that step is the
//! clip's first keyframe, every car's state included), so a clip plays
//! and verifies bit for bit on its own, with the original's metadata; a
//! car that joined the original during the clip joins the clip there.

use crate::player::{PlayerOptions, ReplayPlayer};
use crate::recorder::{RecorderOptions, ReplayRecorder};
use crate::replay::{Replay, ReplayHeader};
use crate::{Limits, NoHooks, ReplayError, Result, create_replay_world};

/// Steps `from_step` to `to_step` (steps after step 0; `0 ≤ from < to ≤`
/// the replay's step count) of `replay` as a replay of their own, played
/// within `limits`. The game's own keyframe state is not carried (a clip
/// is played without game logic), nor are embedded ghosts.
pub fn clip_replay(
    replay: &Replay,
    from_step: u64,
    to_step: u64,
    limits: &Limits,
) -> Result<Replay> {
    let steps = replay.header.step_count;
    if from_step >= to_step || to_step > steps {
        return Err(ReplayError::InvalidArgument {
            what: "clip",
            reason: format!(
                "steps {from_step} to {to_step} are not a stretch of this replay's 0 to {steps}"
            ),
        });
    }
    let options = PlayerOptions {
        cache_budget: 0,
        limits: *limits,
        ..PlayerOptions::default()
    };
    let mut player =
        ReplayPlayer::with_options(create_replay_world(replay)?, replay, NoHooks, options)?;
    while player.step() < from_step {
        advance(&mut player)?;
    }
    // The recorder names the ground itself and refuses the key from the
    // game's metadata.
    let metadata = replay
        .header
        .metadata
        .iter()
        .filter(|(k, _)| k != ReplayHeader::GROUND_KEY)
        .cloned()
        .collect();
    let mut recorder = ReplayRecorder::new(
        player.world(),
        RecorderOptions {
            keyframe_every: replay.header.keyframe_every.max(1),
            metadata,
            ..RecorderOptions::default()
        },
    )?;
    while player.step() < to_step {
        advance(&mut player)?;
        let step = player.step();
        let dt = replay.dt.at(step - 1).unwrap_or(0.0);
        // The cars arriving at this step joined the player's world after
        // the step was played: the clip records them arriving there.
        let arrived: Vec<_> = (replay.cars.iter().enumerate())
            .filter(|(_, track)| track.arrival.as_ref().is_some_and(|a| a.step == step))
            .filter_map(|(i, _)| player.car_id(i))
            .collect();
        recorder.capture_with_arrivals(player.world(), dt, &arrived)?;
    }
    recorder.finish(player.world())
}

/// One step of the original; a replay that ends before its declared step
/// count is an error, not an endless wait.
fn advance(player: &mut ReplayPlayer<'_, NoHooks>) -> Result<()> {
    if player.advance()? {
        return Ok(());
    }
    Err(ReplayError::InvalidArgument {
        what: "clip",
        reason: format!(
            "the replay ended at step {}, before the clip did",
            player.step()
        ),
    })
}
