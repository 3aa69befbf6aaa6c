//! Transforms follow the cars: snapped to the last step by default,
//! between the last two steps with `PoseInterpolation`, ahead of the last
//! with `PoseExtrapolation`, by the fixed clock's overstep; propagation
//! runs after the sync, so `GlobalTransform` agrees in the same frame.

mod common;

use bevy_ecs::prelude::*;
use bevy_time::{Fixed, Time};
use bevy_transform::components::{GlobalTransform, Transform};
use common::{car_ids, race_app, run_until};
use skidpad_bevy::{
    CarMotion, CarRegistry, PoseExtrapolation, PoseInterpolation, bevy_translation,
};

#[test]
fn transforms_snap_interpolate_or_extrapolate_by_the_overstep() {
    // 144 frames a second over 60 steps: most frames fall between steps.
    let mut app = race_app(144.0, 10_000);
    run_until(&mut app, 1);
    let ids = car_ids(&mut app);
    let registry = app.world().resource::<CarRegistry>();
    let [snapped, between, ahead] = [0, 1, 2].map(|k| registry.entity(ids[k]).unwrap());
    app.world_mut()
        .entity_mut(between)
        .insert(PoseInterpolation);
    app.world_mut().entity_mut(ahead).insert(PoseExtrapolation);
    let mut fractions_seen = 0;
    for _ in 0..300 {
        app.update();
        let fraction = app.world().resource::<Time<Fixed>>().overstep_fraction();
        let read = |e: Entity| {
            let entity = app.world().entity(e);
            let motion = *entity.get::<CarMotion>().unwrap();
            let transform = *entity.get::<Transform>().unwrap();
            let global = *entity.get::<GlobalTransform>().unwrap();
            assert!(
                (global.translation() - transform.translation).length() < 1e-6,
                "propagated this frame"
            );
            (
                bevy_translation(motion.previous.position),
                bevy_translation(motion.pose.position),
                transform.translation,
            )
        };
        let (_, now, drawn) = read(snapped);
        assert_eq!(drawn, now);
        let (before, now, drawn) = read(between);
        assert!((drawn - before.lerp(now, fraction)).length() < 1e-4);
        let (before, now, drawn) = read(ahead);
        assert!((drawn - (now + (now - before) * fraction)).length() < 1e-4);
        if fraction > 0.1 && fraction < 0.9 && (now - before).length() > 0.01 {
            fractions_seen += 1;
        }
    }
    assert!(
        fractions_seen > 100,
        "frames between moving steps: {fractions_seen}"
    );
}
