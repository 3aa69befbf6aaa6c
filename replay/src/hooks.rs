//! `ReplayHooks`: how a game takes part in playback.

use skidpad_core::{CarId, World};

/// Game logic during playback (SPEC §5). Every method has a default that
/// does nothing, for a game with no logic of its own.
pub trait ReplayHooks {
    /// Runs before each step, after the recorded inputs, surfaces and level
    /// of detail are written: re-apply game rules here (ground slopes,
    /// resets).
    fn before_step(&mut self, _step: u64, _world: &mut World) {}

    /// Runs after each step the player simulates (playing on or
    /// re-simulating during a seek), once the keyframe there, if any, has
    /// been checked; `step` is the number of steps played. A verifier reads
    /// the world here to compute results the replay must not be trusted
    /// for, such as lap times.
    fn after_step(&mut self, _step: u64, _world: &World) {}

    /// Runs once, as the player is made and before it restores keyframe 0,
    /// with the playback world's id of each replay car in playback order:
    /// hooks that follow a car by its replay index look its id up here.
    fn on_start(&mut self, _cars: &[CarId]) {}

    /// Runs whenever the player restores a keyframe or cached point (at the
    /// start, on a seek, on a re-sync), with the game state bytes recorded
    /// for that step.
    fn on_restore(&mut self, _step: u64, _state: &[u8]) {}

    /// The game's state now, in the same bytes the recorder's
    /// `keyframe_state` produces. It lets the player cache points between
    /// keyframes for fast seeks. Return `None` if the game cannot save its
    /// state: seeks then restore from keyframes only. The default (a game
    /// without state) returns empty bytes.
    fn save_state(&mut self, _step: u64) -> Option<Vec<u8>> {
        Some(Vec::new())
    }
}

/// Hooks for a game with no logic of its own.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoHooks;

impl ReplayHooks for NoHooks {}

/// Hooks behind a reference or a box are hooks: the player can borrow a
/// game's hooks (`&mut game`) or hold a chosen one (`Box<dyn ReplayHooks>`).
macro_rules! forward_hooks {
    ($($ty:ty),*) => {$(
        impl<H: ReplayHooks + ?Sized> ReplayHooks for $ty {
            fn before_step(&mut self, step: u64, world: &mut World) {
                (**self).before_step(step, world);
            }

            fn after_step(&mut self, step: u64, world: &World) {
                (**self).after_step(step, world);
            }

            fn on_start(&mut self, cars: &[CarId]) {
                (**self).on_start(cars);
            }

            fn on_restore(&mut self, step: u64, state: &[u8]) {
                (**self).on_restore(step, state);
            }

            fn save_state(&mut self, step: u64) -> Option<Vec<u8>> {
                (**self).save_state(step)
            }
        }
    )*};
}

forward_hooks!(&mut H, Box<H>);
