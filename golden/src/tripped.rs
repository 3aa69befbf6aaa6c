//! The tripped scenario's world: a game's own ground (carried in the
//! replay, section 11) with a 0.2 m kerbstone and a 1.2 m wall, and two
//! hatchbacks sliding sideways, wheels not turning, as cars that have
//! spun: one at 16 m/s into the kerb, which trips it over (VALIDATION.md,
//! "Sideways crashes"), one at 12 m/s into the wall, which pushes it back
//! without rolling it (the wall meets the body's side, not its roof).

use std::sync::Arc;

use skidpad_core::glam::DVec3;
use skidpad_core::{
    GroundSource, InitialPose, MeshSource, World, WorldConfig, preset, set_snapshot_float,
};

/// The kerb's face, along y = this, m; the kerb's top is beyond it.
const KERB_Y: f64 = 5.0;
/// The kerb's height, m: a high kerbstone.
const KERB_HEIGHT: f64 = 0.2;
/// The wall's face, along y = this, m; the wall's top is beyond it.
const WALL_Y: f64 = -25.0;
/// The wall's height, m: a track's barrier.
const WALL_HEIGHT: f64 = 1.2;
/// Half the ground's length along x, m.
const HALF_LENGTH: f64 = 40.0;

/// The ground: a floor from the wall to the kerb, each a vertical face
/// and a flat top 20 m deep.
pub(crate) fn ground() -> GroundSource {
    let v = DVec3::new;
    let (l, far) = (HALF_LENGTH, 20.0);
    let vertices = vec![
        // Floor.
        v(-l, WALL_Y, 0.0),
        v(l, WALL_Y, 0.0),
        v(l, KERB_Y, 0.0),
        v(-l, KERB_Y, 0.0),
        // Kerb: face top edge, then the far edge of its top.
        v(-l, KERB_Y, KERB_HEIGHT),
        v(l, KERB_Y, KERB_HEIGHT),
        v(l, KERB_Y + far, KERB_HEIGHT),
        v(-l, KERB_Y + far, KERB_HEIGHT),
        // Wall: face top edge, then the far edge of its top.
        v(-l, WALL_Y, WALL_HEIGHT),
        v(l, WALL_Y, WALL_HEIGHT),
        v(l, WALL_Y - far, WALL_HEIGHT),
        v(-l, WALL_Y - far, WALL_HEIGHT),
    ];
    // Each face a quad of two triangles, counter-clockwise from above or
    // from the side it faces: the floor, the kerb's face (towards −y) and
    // top, the wall's face (towards +y) and top.
    let quad = |a: u32, b: u32, c: u32, d: u32| [[a, b, c], [a, c, d]];
    let triangles = [
        quad(0, 1, 2, 3),
        quad(3, 2, 5, 4),
        quad(4, 5, 6, 7),
        quad(1, 0, 8, 9),
        quad(8, 11, 10, 9),
    ]
    .concat();
    GroundSource::Mesh(MeshSource {
        vertices,
        triangles,
        surfaces: None,
    })
}

/// The two sliding cars on [`ground`].
pub(crate) fn world() -> World {
    let mut world = World::new(WorldConfig::default()).expect("default config");
    let built = ground().build().expect("the tripped scenario's ground");
    world.set_ground(Arc::clone(&built)).expect("ground");
    let hatchback = preset("fwd_hatchback").expect("preset");
    // Wheels 4 m short of the kerb and of the wall, heading along x.
    for (y, lateral_speed) in [(0.0, 16.0), (WALL_Y + 5.0, -12.0)] {
        let pose = InitialPose {
            x: 0.0,
            y,
            yaw: 0.0,
            speed: 0.0,
        };
        let car = world.add_car(&hatchback, pose).expect("car");
        let mut snapshot = world.snapshot(car).expect("snapshot");
        set_snapshot_float(&mut snapshot, "velocity.y", lateral_speed).expect("velocity.y");
        world.restore(car, &snapshot).expect("a sliding car");
    }
    world
}
