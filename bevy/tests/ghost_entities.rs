//! Ghosts: a car's `GhostTrail` keeps its run frame by frame from its
//! pose before the first step, and a `GhostCar` entity started later
//! retraces that run on the simulation's clock, where the car was the same
//! number of steps after its start.

mod common;

use bevy_time::TimeUpdateStrategy;
use bevy_transform::components::Transform;
use common::headless_app;
use skidpad_bevy::{
    CarControls, CarMotion, CarSpawn, GhostCar, GhostTrail, SkidpadWorld, bevy_translation,
};
use skidpad_core::{CarInput, InitialPose, preset};

const STEPS: usize = 300;

#[test]
fn a_trails_ghost_retraces_the_run() {
    // One step per frame exactly: no overstep between the two.
    let mut app = headless_app(TimeUpdateStrategy::FixedTimesteps(1));
    let controls = CarControls(CarInput {
        throttle: 0.7,
        steer: 0.2,
        ..CarInput::default()
    });
    let pose = InitialPose {
        speed: 8.0,
        ..InitialPose::default()
    };
    let car = app
        .world_mut()
        .spawn((
            CarSpawn::new(preset("rwd_sports").unwrap(), pose),
            controls,
            GhostTrail::default(),
        ))
        .id();
    let mut driven = Vec::new();
    while app.world().resource::<SkidpadWorld>().step_count() < STEPS as u64 {
        app.update();
        // Bevy's first frame may run no fixed step: the car joins later.
        let Some(motion) = app.world().get::<CarMotion>(car) else {
            continue;
        };
        if driven.is_empty() {
            driven.push(motion.previous.position);
        }
        driven.push(motion.pose.position);
    }
    assert_eq!(
        driven.len(),
        STEPS + 1,
        "the pose before the first step, then one per step"
    );
    let ghost = app.world().get::<GhostTrail>(car).unwrap().ghost().unwrap();
    assert_eq!(ghost.frames().len(), STEPS + 1);
    let end = ghost.frames()[STEPS].pose;
    assert_eq!(
        (end.x, end.y),
        (driven[STEPS].x as f32, driven[STEPS].y as f32)
    );

    // The ghost from the step now on: k steps later it is where the car
    // was k steps after its start.
    let start = app.world().resource::<SkidpadWorld>().step_count();
    let drawn = app.world_mut().spawn(GhostCar::new(ghost, start)).id();
    for (k, &position) in driven.iter().enumerate().take(201).skip(1) {
        app.update();
        let at = app.world().get::<Transform>(drawn).unwrap().translation;
        let was = bevy_translation(position);
        assert!(
            (at - was).length() < 1e-3,
            "step {k}: ghost at {at}, the car was at {was}"
        );
    }
}
