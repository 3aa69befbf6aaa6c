//! A run on a level baked from a Bevy mesh verifies from the file alone:
//! the replay carries the baked triangles, and the verifier (which never
//! saw the game's mesh) plays it with no desync to the same final hash.

use std::time::Duration;

use bevy_app::{App, TaskPoolPlugin};
use bevy_math::Quat;
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use bevy_transform::TransformPlugin;
use bevy_transform::components::{GlobalTransform, Transform};
use skidpad_bevy::{
    CarControls, CarSpawn, SkidpadPlugin, SkidpadWorld, bake_ground, finish_recording,
    start_recording,
};
use skidpad_core::{CarInput, InitialPose, SurfaceId, World, WorldConfig, preset};
use skidpad_replay::{Limits, NoHooks, RecorderOptions, encode_replay, verify};

const SIDE: u32 = 21;
const SPACING: f32 = 10.0;

/// A level as a Bevy mesh gives it: a 200 m square grid in Bevy's axes (y
/// up), a hill rising across it, counter-clockwise from above; gravel on
/// the far half.
fn level_mesh() -> (Vec<[f32; 3]>, Vec<u32>, Vec<SurfaceId>) {
    let half = (SIDE - 1) as f32 * SPACING / 2.0;
    let mut positions = Vec::new();
    for row in 0..SIDE {
        for column in 0..SIDE {
            let x = column as f32 * SPACING - half;
            let z = row as f32 * SPACING - half;
            let height = 2.0 * (1.0 - (x / half).powi(2)).max(0.0);
            positions.push([x, height, z]);
        }
    }
    let (mut indices, mut surfaces) = (Vec::new(), Vec::new());
    for row in 0..SIDE - 1 {
        for column in 0..SIDE - 1 {
            let a = row * SIDE + column;
            let (b, c, d) = (a + 1, a + SIDE, a + SIDE + 1);
            // Seen from +y, with z toward the viewer: a → c → b is
            // counter-clockwise.
            indices.extend([a, c, b, b, c, d]);
            let surface = if column >= SIDE / 2 {
                SurfaceId::GRAVEL
            } else {
                SurfaceId::DRY_ASPHALT
            };
            surfaces.extend([surface, surface]);
        }
    }
    (positions, indices, surfaces)
}

#[test]
fn a_run_on_a_baked_level_verifies_from_the_file_alone() {
    let (positions, indices, surfaces) = level_mesh();
    // The level entity stands 3 m up and is turned a little.
    let placement = GlobalTransform::from(
        Transform::from_xyz(0.0, 3.0, 0.0).with_rotation(Quat::from_rotation_y(0.1)),
    );
    let baked = bake_ground(&positions, &indices, &placement, Some(surfaces)).unwrap();
    let mut world = World::new(WorldConfig::default()).unwrap();
    world.set_ground(baked.ground.clone()).unwrap();
    let mut app = App::new();
    app.add_plugins((TaskPoolPlugin::default(), TimePlugin, TransformPlugin))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / 60.0,
        )))
        .insert_resource(SkidpadWorld(world))
        .add_plugins(SkidpadPlugin::default());
    let pose = InitialPose {
        x: -60.0,
        y: 5.0,
        yaw: 0.0,
        speed: 5.0,
    };
    let throttle = CarControls(CarInput {
        throttle: 0.6,
        steer: 0.05,
        ..CarInput::default()
    });
    let car = app
        .world_mut()
        .spawn((CarSpawn::new(preset("rwd_sports").unwrap(), pose), throttle))
        .id();
    let options = RecorderOptions {
        ground: Some(baked.source.clone()),
        ..RecorderOptions::default()
    };
    start_recording(app.world_mut(), options).unwrap();
    for _ in 0..600 {
        app.update();
    }
    // The car drove over the hill, on the baked triangles.
    let height = app.world().get::<Transform>(car).unwrap().translation.y;
    assert!(
        height > 3.0,
        "the car rides on the level 3 m up: y = {height}"
    );
    let world = app.world().resource::<SkidpadWorld>();
    let (steps, hash) = (world.step_count(), world.world_hash());
    assert!(steps >= 590);
    let bytes = encode_replay(&finish_recording(app.world_mut()).unwrap()).unwrap();
    // Nothing of the game's mesh goes to the verifier: only the bytes.
    drop((positions, indices, baked));
    let report =
        verify(&bytes, NoHooks, &Limits::default()).expect("verifies with the carried ground");
    assert!(report.is_valid(), "{:?}", report.first_desync);
    assert_eq!(report.steps, steps);
    assert_eq!(report.final_hash, hash);
}
