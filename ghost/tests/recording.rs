//! GhostRecorder timing: a frame's time is the end of the step it follows;
//! restart makes the current pose frame 0; `every` thins the samples.

mod common;

use common::{DT, ai_world, track};
use skidpad_core::CarId;
use skidpad_ghost::{GhostError, GhostRecorder, GhostRecorderOptions, pose_of};

#[test]
fn frames_are_stamped_at_the_end_of_their_step_and_finish_starts_at_zero() {
    let track = track();
    let (mut world, car) = ai_world("fwd_hatchback", &track);
    let mut recorder = GhostRecorder::new(car);
    for _ in 0..5 {
        world.step(DT).unwrap();
        recorder.after_step(&world).unwrap();
    }
    let raw: Vec<f32> = recorder.frames().iter().map(|f| f.t).collect();
    let expected: Vec<f32> = (1..=5).map(|k| (k as f64 * DT) as f32).collect();
    assert_eq!(raw, expected);
    let ghost = recorder.finish().unwrap();
    assert_eq!(ghost.start_time(), 0.0);
    assert_eq!(ghost.frames()[4].t, raw[4] - raw[0]);
    assert_eq!(ghost.frames()[4].pose, pose_of(&world, car).unwrap());
}

#[test]
fn after_restart_frame_k_is_the_pose_k_steps_into_the_lap() {
    let track = track();
    let (mut world, car) = ai_world("rwd_sports", &track);
    let mut recorder = GhostRecorder::new(car);
    for _ in 0..37 {
        world.step(DT).unwrap();
        recorder.after_step(&world).unwrap();
    }
    let crossing = pose_of(&world, car).unwrap();
    recorder.restart();
    assert_eq!(recorder.frames().len(), 1);
    assert_eq!(recorder.frames()[0].t, 0.0);
    assert_eq!(recorder.frames()[0].pose, crossing);
    let mut truth = Vec::new();
    for _ in 0..120 {
        world.step(DT).unwrap();
        recorder.after_step(&world).unwrap();
        truth.push(pose_of(&world, car).unwrap());
    }
    let ghost = recorder.finish().unwrap();
    for (k, pose) in truth.iter().enumerate() {
        let frame = ghost.frames()[k + 1];
        assert_eq!(frame.pose, *pose);
        assert_eq!(
            frame.t,
            ((k + 1) as f64 * DT) as f32,
            "t = k·dt exactly at step {}",
            k + 1
        );
    }
}

#[test]
fn every_keeps_one_sample_in_k() {
    let track = track();
    let (mut world, car) = ai_world("fwd_hatchback", &track);
    let mut recorder = GhostRecorder::with_options(car, GhostRecorderOptions { every: 3 }).unwrap();
    for _ in 0..30 {
        world.step(DT).unwrap();
        recorder.after_step(&world).unwrap();
    }
    let times: Vec<f32> = recorder.frames().iter().map(|f| f.t).collect();
    let expected: Vec<f32> = (1..=10).map(|k| (3.0 * k as f64 * DT) as f32).collect();
    assert_eq!(times, expected);
    recorder.restart();
    for _ in 0..6 {
        world.step(DT).unwrap();
        recorder.after_step(&world).unwrap();
    }
    let times: Vec<f32> = recorder.frames().iter().map(|f| f.t).collect();
    assert_eq!(times, vec![0.0, (3.0 * DT) as f32, (6.0 * DT) as f32]);
}

#[test]
// `sample` is the deprecated form that takes a timestep: its checks stay.
#[allow(deprecated)]
fn bad_arguments_are_errors() {
    let track = track();
    let (mut world, car) = ai_world("fwd_hatchback", &track);
    assert!(GhostRecorder::with_options(car, GhostRecorderOptions { every: 0 }).is_err());
    let mut recorder = GhostRecorder::new(car);
    assert!(
        matches!(
            recorder.after_step(&world),
            Err(GhostError::InvalidArgument { what: "world", .. })
        ),
        "a world that has not stepped has no step to record"
    );
    for dt in [f64::NAN, 0.0, -1.0, f64::INFINITY] {
        assert!(matches!(
            recorder.sample(&world, dt),
            Err(GhostError::InvalidArgument { .. })
        ));
    }
    world.step(DT).unwrap();
    let mut stranger = GhostRecorder::new(CarId::from_raw(9));
    assert!(matches!(
        stranger.after_step(&world),
        Err(GhostError::World(_))
    ));
    assert_eq!(recorder.finish().unwrap_err(), GhostError::Empty);
}

#[test]
fn going_back_to_a_mark_and_on_again_records_what_an_unbroken_run_records() {
    let track = track();
    let (mut world, car) = ai_world("fwd_hatchback", &track);
    let options = GhostRecorderOptions { every: 3 };
    let mut recorder = GhostRecorder::with_options(car, options).unwrap();
    for _ in 0..40 {
        world.step(DT).unwrap();
        recorder.after_step(&world).unwrap();
    }
    let (at_mark, mark) = (world.clone(), recorder.mark());
    let unbroken = {
        let (mut world, mut recorder) = (world.clone(), recorder.clone());
        for _ in 0..50 {
            world.step(DT).unwrap();
            recorder.after_step(&world).unwrap();
        }
        recorder.finish().unwrap()
    };
    // Somewhere else for a while (the player brakes, a run abandoned),
    // then back.
    world.set_driver(car, None).unwrap();
    for _ in 0..70 {
        world
            .set_input(
                car,
                skidpad_core::CarInput {
                    brake: 1.0,
                    ..Default::default()
                },
            )
            .unwrap();
        world.step(DT).unwrap();
        recorder.after_step(&world).unwrap();
    }
    recorder.go_back(&mark).unwrap();
    let mut world = at_mark;
    for _ in 0..50 {
        world.step(DT).unwrap();
        recorder.after_step(&world).unwrap();
    }
    assert_eq!(recorder.finish().unwrap(), unbroken);

    // A mark from before a restart is no place to go back to.
    recorder.restart();
    assert!(matches!(
        recorder.go_back(&mark),
        Err(GhostError::InvalidArgument {
            what: "ghost mark",
            ..
        })
    ));
}
