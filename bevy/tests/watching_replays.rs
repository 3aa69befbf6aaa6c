//! A replay watched through `ReplayPlayback`: one entity per recorded car,
//! drawn where an independent `ReplayPlayer` puts the car at the playhead
//! (interpolated between the steps around it), forwards at real time,
//! backwards at three times, and fast to the end, with no desync.

mod common;

use std::sync::Arc;

use bevy_app::App;
use bevy_transform::components::Transform;
use common::{frames_of, headless_app, plain_race};
use skidpad_bevy::{ReplayCar, ReplayPlayback, bevy_rotation, bevy_translation};
use skidpad_replay::{NoHooks, Replay, ReplayPlayer, create_replay_world, decode_replay};

/// Where an independent player draws car `index` at `position`.
fn expected(
    replay: &Arc<Replay>,
    player: &mut ReplayPlayer<'static, NoHooks>,
    index: usize,
    position: f64,
) -> Transform {
    let n = position.floor() as u64;
    player.seek(n).unwrap();
    let id = player.car_id(index).unwrap();
    let a = player.world().pose(id).unwrap();
    let b = if n < replay.header.step_count {
        player.advance().unwrap();
        player.world().pose(id).unwrap()
    } else {
        a
    };
    let u = (position - n as f64) as f32;
    Transform::from_translation(bevy_translation(a.position).lerp(bevy_translation(b.position), u))
        .with_rotation(bevy_rotation(a.orientation).slerp(bevy_rotation(b.orientation), u))
}

#[test]
fn a_replay_plays_forwards_backwards_and_to_the_end() {
    let (bytes, _) = plain_race(600);
    let replay = Arc::new(decode_replay(&bytes).unwrap());
    let mut reference = ReplayPlayer::new(
        create_replay_world(&replay).unwrap(),
        replay.clone(),
        NoHooks,
    )
    .unwrap();
    let mut app = headless_app(frames_of(144.0));
    app.insert_resource(
        ReplayPlayback::new(create_replay_world(&replay).unwrap(), replay.clone()).unwrap(),
    );
    app.update();
    let mut compared = 0;
    let mut check = |app: &mut App| {
        let position = app.world().resource::<ReplayPlayback>().position();
        let mut cars = app.world_mut().query::<(&ReplayCar, &Transform)>();
        let drawn: Vec<(ReplayCar, Transform)> =
            cars.iter(app.world()).map(|(c, t)| (*c, *t)).collect();
        assert_eq!(drawn.len(), 3);
        for (car, transform) in drawn {
            assert!(car.present);
            let want = expected(&replay, &mut reference, car.index, position);
            assert!(
                (transform.translation - want.translation).length() < 1e-4,
                "car {} at step {position}",
                car.index
            );
            assert!(
                transform.rotation.dot(want.rotation).abs() > 1.0 - 1e-6,
                "car {} at step {position}: {} vs {}",
                car.index,
                transform.rotation,
                want.rotation
            );
            compared += 1;
        }
        position
    };
    let mut last = 0.0;
    for _ in 0..200 {
        app.update();
        let position = check(&mut app);
        assert!(position > last, "forwards");
        last = position;
    }
    assert!(
        (last - 200.0 * 60.0 / 144.0).abs() < 0.5,
        "real time: {last} steps after 200 frames"
    );
    app.world_mut().resource_mut::<ReplayPlayback>().speed = -3.0;
    for _ in 0..50 {
        app.update();
        let position = check(&mut app);
        assert!(position < last, "backwards");
        last = position;
    }
    app.world_mut().resource_mut::<ReplayPlayback>().speed = 50.0;
    for _ in 0..30 {
        app.update();
    }
    let end = check(&mut app);
    assert_eq!(end, 600.0, "stopped at the end");
    assert_eq!(app.world().resource::<ReplayPlayback>().desyncs(), 0);
    assert!(compared > 700);

    // Put away, the replay takes its cars with it.
    app.world_mut().remove_resource::<ReplayPlayback>();
    app.update();
    assert_eq!(
        app.world_mut()
            .query::<&ReplayCar>()
            .iter(app.world())
            .count(),
        0
    );
}
