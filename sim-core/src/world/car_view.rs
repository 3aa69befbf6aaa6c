//! One car of a world read through a typed view (`World::car`): its pose,
//! speed, inputs, definition and telemetry, without handing its id to
//! each call.

use crate::model::steering::wheel_angles;
use crate::norm::Norm;
use crate::pose::{CarPose, yaw_pitch_roll};
use crate::surface::SurfaceTable;
use crate::vehicle::definition::CarDefinition;
use crate::world::car::Car;
use crate::world::telemetry::{CHANNEL_COUNT, ChannelId, channel_index};
use crate::{CarId, CarInput, CoreError, Result};

/// A car of a world, as the last step left it (the world cannot change
/// while the view is held).
#[derive(Clone, Copy)]
pub struct CarView<'w> {
    pub(crate) id: CarId,
    pub(crate) car: &'w Car,
    pub(crate) surfaces: &'w SurfaceTable,
}

impl<'w> CarView<'w> {
    /// The car's id.
    #[must_use]
    pub fn id(&self) -> CarId {
        self.id
    }

    /// Where the car is and how it is oriented.
    #[must_use]
    pub fn pose(&self) -> CarPose {
        let s = &self.car.state;
        let (yaw, pitch, roll) = yaw_pitch_roll(s.orientation);
        let steer = wheel_angles(&self.car.def, s.input.steer);
        CarPose {
            position: s.position,
            orientation: s.orientation,
            yaw,
            pitch,
            roll,
            steer_angle: (steer[0] + steer[1]) / 2.0,
            speed: s.velocity.norm(),
        }
    }

    /// Speed over ground, m/s.
    #[must_use]
    pub fn speed(&self) -> f64 {
        self.car.state.velocity.norm()
    }

    /// The input the car ran with in the last step (after any AI driver
    /// wrote it), or the one set since.
    #[must_use]
    pub fn input(&self) -> CarInput {
        self.car.state.input
    }

    /// The car's definition.
    #[must_use]
    pub fn definition(&self) -> &'w CarDefinition {
        &self.car.def
    }

    /// One telemetry value (see [`channels`](crate::channels) for the
    /// common ones).
    #[must_use]
    pub fn channel(&self, channel: ChannelId) -> f64 {
        self.telemetry()[channel.index()]
    }

    /// One telemetry value by the channel's name; an unknown name is an
    /// error.
    pub fn channel_named(&self, name: &str) -> Result<f64> {
        let index = channel_index(name).ok_or_else(|| CoreError::UnknownName {
            kind: "telemetry channel",
            name: name.to_owned(),
            known: "see skidpad_core::CHANNELS".into(),
        })?;
        Ok(self.telemetry()[index])
    }

    /// Every channel's value, in [`CHANNELS`](crate::CHANNELS) order.
    #[must_use]
    pub fn telemetry(&self) -> &'w [f64; CHANNEL_COUNT] {
        self.car.telemetry(self.surfaces)
    }
}
