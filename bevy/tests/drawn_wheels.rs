//! Wheels drawn as children: four per car that asks, placed in the car's
//! frame (front left ahead and to the left), steering with the front
//! wheels' steer channel, rolling forward as the car drives, and carried
//! with the car by transform propagation.

mod common;

use common::{frames_of, headless_app};

use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_transform::components::{GlobalTransform, Transform};
use skidpad_bevy::{CarControls, CarSpawn, CarWheel, CarWheels, SkidpadCar, SkidpadWorld};
use skidpad_core::{CarInput, InitialPose, Wheel, preset};

#[test]
fn four_wheels_follow_steer_travel_and_spin() {
    let mut app = headless_app(frames_of(60.0));
    let definition = preset("fwd_hatchback").unwrap();
    let chassis = definition.chassis.clone();
    // Steering left (negative steer input) under throttle.
    let controls = CarControls(CarInput {
        throttle: 0.5,
        steer: -0.3,
        ..CarInput::default()
    });
    let car = app
        .world_mut()
        .spawn((
            CarSpawn::new(definition, InitialPose::default()),
            controls,
            CarWheels,
        ))
        .id();
    for _ in 0..120 {
        app.update();
    }
    let id = app.world().get::<SkidpadCar>(car).unwrap().id();
    let mut query = app
        .world_mut()
        .query::<(&ChildOf, &CarWheel, &Transform, &GlobalTransform, &Name)>();
    let wheels: Vec<_> = query
        .iter(app.world())
        .filter(|w| w.0.parent() == car)
        .map(|(_, w, t, g, n)| (*w, *t, *g, n.as_str().to_owned()))
        .collect();
    assert_eq!(wheels.len(), 4);
    let world = app.world().resource::<SkidpadWorld>();
    let view = world.car(id).unwrap();
    let car_global = *app.world().get::<GlobalTransform>(car).unwrap();
    for (wheel, local, global, name) in &wheels {
        let front = matches!(wheel.wheel, Wheel::FrontLeft | Wheel::FrontRight);
        let left = matches!(wheel.wheel, Wheel::FrontLeft | Wheel::RearLeft);
        assert_eq!(*local, wheel.local_transform(), "{name}");
        assert_eq!(
            local.translation.x > 0.0,
            front,
            "{name} ahead of the centre of mass"
        );
        assert_eq!(
            local.translation.z < 0.0,
            left,
            "{name}: Bevy's -z is the car's left"
        );
        let expected_x = if front {
            chassis.cg_to_front_axle
        } else {
            chassis.cg_to_front_axle - chassis.wheelbase
        };
        assert!(
            (f64::from(local.translation.x) - expected_x).abs() < 1e-5,
            "{name}"
        );
        let steer = view.channel_named(&format!("wheel_{name}_steer")).unwrap();
        assert_eq!(wheel.steer, steer, "{name}");
        assert_eq!(wheel.steer > 0.05, front, "{name}: front wheels steer left");
        assert!(wheel.spin != 0.0, "{name} rolled");
        let carried = car_global.transform_point(local.translation);
        assert!(
            (global.translation() - carried).length() < 1e-4,
            "{name} moves with the car"
        );
    }
}
