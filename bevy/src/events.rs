//! What happens to cars besides laps: contacts come out as messages
//! after each step (for sparks, sounds, damage), and a game resets a car
//! by writing a [`ResetCar`] message (a reset key, a car stuck in a
//! gravel trap). A reset is recorded in the replay as the reset it is, and
//! the race layer voids the lap it happened in.

use bevy_ecs::prelude::*;
use skidpad_core::{CarId, Contact, InitialPose};

use crate::cars::CarRegistry;
use crate::plugin::SkidpadWorld;

/// Two cars touched in the last step, or a car's body touched the ground
/// (a barrier, a roll). Every step of a contact that lasts is reported.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct CarContact {
    /// The first car's entity (the lower id, or the car on the ground).
    pub first: Option<Entity>,
    /// The other car's entity; `None` for the ground (or a car whose
    /// entity is gone).
    pub second: Option<Entity>,
    /// The contact as the core reports it: cars, point, normal, depth,
    /// impulse.
    pub contact: Contact,
}

/// Write this to put a car back at `pose` (level with the ground there,
/// at rest or rolling at the pose's speed) before the next step.
///
/// ```
/// use bevy_ecs::prelude::*;
/// use bevy_input::{ButtonInput, keyboard::KeyCode};
/// use skidpad_bevy::{CarMotion, ResetCar, SkidpadRace};
/// use skidpad_core::InitialPose;
///
/// /// R puts every car back on the track's centre line, facing along it.
/// fn reset_key(
///     keys: Res<ButtonInput<KeyCode>>,
///     race: Res<SkidpadRace>,
///     cars: Query<(Entity, &CarMotion)>,
///     mut resets: MessageWriter<ResetCar>,
/// ) {
///     if keys.just_pressed(KeyCode::KeyR) {
///         for (entity, motion) in &cars {
///             let (point, yaw) = race.track().rejoin_point(motion.pose.position.truncate());
///             let pose = InitialPose { x: point.x, y: point.y, yaw, speed: 0.0 };
///             resets.write(ResetCar { entity, pose });
///         }
///     }
/// }
/// # let mut app = bevy_app::App::new();
/// # app.add_systems(bevy_app::Update, reset_key);
/// ```
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct ResetCar {
    /// The car's entity.
    pub entity: Entity,
    /// Where it goes.
    pub pose: InitialPose,
}

/// Resets asked for since the last step, applied before the next one.
pub(crate) fn apply_resets(
    mut resets: MessageReader<ResetCar>,
    registry: Res<CarRegistry>,
    mut world: ResMut<SkidpadWorld>,
) -> Result {
    for reset in resets.read() {
        if let Some(car) = registry.car(reset.entity) {
            world.reset_car(car, reset.pose)?;
        }
    }
    Ok(())
}

/// The last step's contacts, once per step the world took.
pub(crate) fn report_contacts(
    world: Res<SkidpadWorld>,
    registry: Res<CarRegistry>,
    mut reported: Local<u64>,
    mut contacts: MessageWriter<CarContact>,
) {
    if world.step_count() == *reported {
        return;
    }
    *reported = world.step_count();
    let entity = |car: Option<CarId>| car.and_then(|c| registry.entity(c));
    for contact in world.contacts() {
        contacts.write(CarContact {
            first: entity(Some(contact.first)),
            second: entity(contact.second),
            contact: *contact,
        });
    }
}
