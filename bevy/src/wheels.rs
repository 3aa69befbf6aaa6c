//! Wheels as child entities of their car, for drawing: each follows its
//! strut's travel, its steer angle and its spin. Drawing only: nothing
//! here feeds the simulation, and the spin angle is integrated from the
//! wheel's spin rate step by step (the core keeps rates, not angles).

use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_math::Quat;
use bevy_transform::components::Transform;
use skidpad_core::glam::DVec3;
use skidpad_core::{CarDefinition, ChannelId, Wheel};

use crate::axes::bevy_translation;
use crate::cars::{CarMotion, SkidpadCar};
use crate::plugin::{SimulationRate, SkidpadWorld};

/// Put this on a car's entity and the plugin gives the car four child
/// entities with a [`CarWheel`], a `Transform` in the car's frame and a
/// `Name` (`fl`, `fr`, `rl`, `rr`): attach a wheel mesh
/// to each, its axle along the wheel's local −z (Bevy's left of the car
/// is −z), its centre at the entity's origin.
#[derive(Component, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CarWheels;

/// One drawn wheel of a car.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct CarWheel {
    /// Which wheel.
    pub wheel: Wheel,
    /// The wheel centre in the car's frame at static ride, skidpad axes,
    /// m.
    mount: DVec3,
    /// The strut's compression at static ride, m (an estimate from the
    /// axle's static load and spring: drawing only).
    static_travel: f64,
    /// Rolled angle about the axle, rad (forward roll is positive).
    pub spin: f64,
    /// Road-wheel steer angle, rad, positive left.
    pub steer: f64,
    /// Suspension compression, m.
    pub travel: f64,
    /// The world's step count the wheel was last turned to.
    step: u64,
}

const NAMES: [&str; 4] = ["fl", "fr", "rl", "rr"];

// The core's channel names, checked at compile time by `ChannelId::of`.
const OMEGA: [ChannelId; 4] = [
    ChannelId::of("wheel_fl_omega"),
    ChannelId::of("wheel_fr_omega"),
    ChannelId::of("wheel_rl_omega"),
    ChannelId::of("wheel_rr_omega"),
];
const STEER: [ChannelId; 4] = [
    ChannelId::of("wheel_fl_steer"),
    ChannelId::of("wheel_fr_steer"),
    ChannelId::of("wheel_rl_steer"),
    ChannelId::of("wheel_rr_steer"),
];
const TRAVEL: [ChannelId; 4] = [
    ChannelId::of("wheel_fl_travel"),
    ChannelId::of("wheel_fr_travel"),
    ChannelId::of("wheel_rl_travel"),
    ChannelId::of("wheel_rr_travel"),
];

impl CarWheel {
    fn of(definition: &CarDefinition, wheel: Wheel, step: u64) -> CarWheel {
        let c = &definition.chassis;
        let index = wheel as usize;
        let front = index < 2;
        let (x, track, radius, spring, behind) = if front {
            (
                c.cg_to_front_axle,
                c.track.front,
                definition.wheels.front.radius,
                definition.suspension.front.spring_rate,
                c.wheelbase - c.cg_to_front_axle,
            )
        } else {
            (
                c.cg_to_front_axle - c.wheelbase,
                c.track.rear,
                definition.wheels.rear.radius,
                definition.suspension.rear.spring_rate,
                c.cg_to_front_axle,
            )
        };
        // The axle's share of the weight: the other axle's distance to
        // the centre of mass over the wheelbase; half of it per wheel.
        let load = c.mass * 9.81 * behind / c.wheelbase / 2.0;
        let side = if index.is_multiple_of(2) { 1.0 } else { -1.0 };
        CarWheel {
            wheel,
            mount: DVec3::new(x, side * track / 2.0, radius - c.cg_height),
            static_travel: load / spring,
            spin: 0.0,
            steer: 0.0,
            travel: load / spring,
            step,
        }
    }

    /// The wheel's transform in its car's frame (Bevy's axes).
    #[must_use]
    pub fn local_transform(&self) -> Transform {
        let centre = self.mount + DVec3::Z * (self.travel - self.static_travel);
        // Steer about the car's up (Bevy +y), then roll about the axle
        // (skidpad's +y, the car's left: Bevy's −z).
        let rotation = Quat::from_rotation_y(self.steer as f32)
            * Quat::from_axis_angle(bevy_math::Vec3::NEG_Z, self.spin as f32);
        Transform::from_translation(bevy_translation(centre)).with_rotation(rotation)
    }
}

type NewCarsWithWheels = (With<CarWheels>, Added<SkidpadCar>);

/// Gives cars that ask for [`CarWheels`] their four wheel children, once
/// they are in the world.
pub(crate) fn spawn_wheels(
    mut commands: Commands,
    cars: Query<(Entity, &SkidpadCar), NewCarsWithWheels>,
    world: Res<SkidpadWorld>,
) -> Result {
    for (entity, car) in &cars {
        let definition = world.definition(car.id())?;
        for wheel in Wheel::ALL {
            let drawn = CarWheel::of(definition, wheel, world.step_count());
            commands.spawn((
                drawn,
                drawn.local_transform(),
                ChildOf(entity),
                Name::new(NAMES[wheel as usize]),
            ));
        }
    }
    Ok(())
}

/// Each drawn wheel after the step: steer, travel, and the spin rolled
/// on by the step's timestep.
pub(crate) fn turn_wheels(
    mut wheels: Query<(&ChildOf, &mut CarWheel, &mut Transform)>,
    cars: Query<(&SkidpadCar, &CarMotion)>,
    world: Res<SkidpadWorld>,
    rate: Res<SimulationRate>,
) -> Result {
    for (parent, mut drawn, mut transform) in &mut wheels {
        let Ok((car, motion)) = cars.get(parent.parent()) else {
            continue;
        };
        // Once per step the world took.
        if motion.step != world.step_count() || drawn.step == motion.step {
            continue;
        }
        drawn.step = motion.step;
        let view = world.car(car.id())?;
        let k = drawn.wheel as usize;
        drawn.spin = (drawn.spin + view.channel(OMEGA[k]) * rate.dt) % std::f64::consts::TAU;
        drawn.steer = view.channel(STEER[k]);
        drawn.travel = view.channel(TRAVEL[k]);
        *transform = drawn.local_transform();
    }
    Ok(())
}
