//! Rollback with GGRS (`bevy_ggrs`): what of skidpad a rollback session
//! must save and restore each frame, and the checksum it compares. The
//! world is saved whole (a clone: every car's state, the step count, the
//! last step's records), the cars' components by copy, the race timing
//! by clone; the checksum is the first 8 bytes of skidpad's blake3 world
//! hash, which is the same on every platform (Bevy's own hashing is not
//! portable). Run the plugin in `GgrsSchedule`
//! (`SkidpadPlugin::default().in_schedule(GgrsSchedule)`), put the cars in
//! the world before the session starts ([`join_spawned_cars`]) and mark
//! their entities `Rollback`.
//!
//! Recordings, ghost trails and replay playback are not rolled back:
//! record the confirmed race (from a session's confirmed inputs) instead.
//!
//! [`join_spawned_cars`]: crate::join_spawned_cars

use bevy_app::App;
use bevy_ggrs::RollbackApp;

use crate::cars::{CarControls, CarMotion};
use crate::plugin::SkidpadWorld;
use crate::race::SkidpadRace;

/// Registers skidpad's state with a GGRS rollback app.
pub trait SkidpadRollback {
    /// Saves and restores the world, the race timing and the cars'
    /// motion and controls with every rollback frame, and checksums the
    /// world by its hash ([`world_checksum`]).
    fn skidpad_rollback(&mut self) -> &mut Self;
}

impl SkidpadRollback for App {
    fn skidpad_rollback(&mut self) -> &mut Self {
        self.rollback_resource_with_clone::<SkidpadWorld>()
            .rollback_resource_with_clone::<SkidpadRace>()
            .rollback_component_with_copy::<CarMotion>()
            .rollback_component_with_copy::<CarControls>()
            .checksum_resource::<SkidpadWorld>(world_checksum)
    }
}

/// The world's checksum for GGRS: the first 8 bytes of its blake3 world
/// hash, little-endian.
#[must_use]
pub fn world_checksum(world: &SkidpadWorld) -> u64 {
    let hash = world.world_hash();
    u64::from_le_bytes(hash[..8].try_into().expect("a 32-byte hash"))
}
