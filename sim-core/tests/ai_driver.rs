//! SPEC §4.4: the AI driver laps the built-in track with every preset
//! without leaving it.

use std::sync::Arc;

use skidpad_core::{Track, World, WorldConfig, preset, preset_names};

#[test]
fn every_preset_laps_the_track_without_leaving_it() {
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    for name in preset_names() {
        let mut world = World::new(WorldConfig::default()).unwrap();
        let car = world
            .add_car(
                &preset(name).unwrap(),
                skidpad_core::race::pose_along(&track, 0.0, 0.0, 0.0),
            )
            .unwrap();
        world.set_driver(car, Some(track.clone())).unwrap();

        let dt = 1.0 / 60.0;
        let mut travelled = 0.0;
        let mut last = 0.0;
        let mut worst_offset: f64 = 0.0;
        // One full lap plus a little, within a generous time limit.
        while travelled < track.length() + 50.0 {
            world.step(dt).unwrap();
            let here = track.locate(world.pose(car).unwrap().position.truncate());
            let mut delta = here.distance - last;
            if delta < -track.length() / 2.0 {
                delta += track.length();
            }
            assert!(delta > -1.0, "{name} drove backwards at {}", here.distance);
            travelled += delta;
            last = here.distance;
            worst_offset = worst_offset.max(here.offset.abs());
            assert!(
                world.step_count() < 60 * 150,
                "{name} did not finish a lap in 150 s"
            );
        }
        // The centre of mass stays inside the track edges, with a margin
        // for half the car's width.
        let limit = track.width() / 2.0 - 0.8;
        assert!(
            worst_offset < limit,
            "{name} strayed {worst_offset:.2} m from the centre line"
        );
        let lap_time = world.step_count() as f64 * dt;
        assert!(
            lap_time > 40.0,
            "{name}: a {lap_time:.1} s lap of 1.6 km is not physical"
        );
    }
}
