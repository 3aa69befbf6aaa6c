//! Time gap and split times against a ghost, across the lap line.

mod common;

use common::{DT, ai_lap, ai_world};
use skidpad_ghost::{GhostPlayer, LapReference, SplitTracker};

#[test]
fn the_ghost_driving_itself_has_zero_gap_and_zero_split_deltas() {
    let (ghost, track) = ai_lap("rwd_sports", 1);
    let reference = LapReference::new(&ghost, &track);
    assert!(
        (reference.covered() - track.length()).abs() < 40.0,
        "one lap: {}",
        reference.covered()
    );
    let checkpoints: Vec<f64> = (1..=4)
        .map(|k| track.length() * f64::from(k) / 4.0)
        .collect();
    let mut splits = SplitTracker::new(&reference, &checkpoints, 0.0);
    let mut player = GhostPlayer::new(ghost.clone());
    let mut events = Vec::new();
    let end = ghost.end_time();
    // Every frame's time, the last one exactly: a sum of f32 steps can
    // overshoot the end and skip the frame past the line, which is the
    // only one that crosses the last checkpoint.
    let frames = (f64::from(end) / DT).round() as u32;
    for k in 0..=frames {
        let t = if k == frames {
            end
        } else {
            (f64::from(k) * DT) as f32
        };
        let pose = player.pose_at(t).unwrap();
        let (x, y) = (f64::from(pose.x), f64::from(pose.y));
        if t > 0.5 && t < end - 0.5 {
            let gap = reference.gap(&track, x, y, f64::from(t)).unwrap();
            assert!(gap.abs() < 0.05, "gap {gap} at t = {t}");
        }
        events.extend(splits.update(&reference, &track, x, y, f64::from(t)));
    }
    assert_eq!(
        events.iter().map(|e| e.checkpoint).collect::<Vec<_>>(),
        vec![0, 1, 2, 3]
    );
    for e in &events {
        assert!(e.delta().unwrap().abs() < 0.05, "{e:?}");
    }
    let lap_time = events[3].player_time;
    assert!(
        (lap_time - f64::from(end)).abs() < 0.1,
        "lap {lap_time} vs ghost {end}"
    );
}

#[test]
fn a_slower_car_falls_behind_and_the_gap_stays_continuous_across_the_line() {
    let (ghost, track) = ai_lap("rwd_sports", 2);
    let reference = LapReference::new(&ghost, &track);
    let checkpoints = [
        track.length() / 3.0,
        2.0 * track.length() / 3.0,
        track.length(),
    ];
    // The hatchback is slower than the sports car the ghost recorded.
    let (mut world, car) = ai_world("fwd_hatchback", &track);
    // The same 1 s run-up as the ghost's, then the clock starts.
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    let mut splits = SplitTracker::new(&reference, &checkpoints, 0.0);
    let mut lap_start = 0.0;
    let mut events = Vec::new();
    let mut previous_gap: Option<f64> = None;
    let mut time = 0.0;
    while events.len() < 6 {
        world.step(DT).unwrap();
        time += DT;
        let p = world.pose(car).unwrap().position;
        for e in splits.update(&reference, &track, p.x, p.y, time) {
            if e.checkpoint == checkpoints.len() - 1 {
                lap_start += e.player_time;
                previous_gap = None; // a new lap: the gap restarts from zero
            }
            events.push(e);
        }
        let lap_time = time - lap_start;
        if let Some(gap) = reference.gap(&track, p.x, p.y, lap_time) {
            if let Some(before) = previous_gap {
                assert!(
                    (gap - before).abs() < 0.5,
                    "gap jumped {before} -> {gap} at {time:.2} s"
                );
            }
            previous_gap = Some(gap);
        }
        assert!(time < 400.0, "two laps did not finish");
    }
    let order: Vec<usize> = events.iter().map(|e| e.checkpoint).collect();
    assert_eq!(order, vec![0, 1, 2, 0, 1, 2]);
    // The first checkpoint already shows the slower car behind, and the
    // deficit grows through the lap.
    let deltas: Vec<f64> = events.iter().map(|e| e.delta().unwrap()).collect();
    assert!(deltas[0] > 0.0 && deltas[2] > deltas[0], "{deltas:?}");
    // Lap 2's split times count from the lap line, not from the race start.
    assert!(events[3].player_time < events[2].player_time);
}

#[test]
fn backing_over_the_line_and_driving_on_ends_no_lap() {
    use std::sync::Arc;

    use skidpad_core::race::{GridLayout, grid_pose};
    use skidpad_core::{CarId, CarInput, Track, World, WorldConfig, preset};
    use skidpad_ghost::LapCutter;

    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = World::new(WorldConfig::default()).unwrap();
    let on_the_line = GridLayout {
        first_row: 0.0,
        ..GridLayout::default()
    };
    let car = world
        .add_car(
            &preset("rwd_sports").unwrap(),
            grid_pose(&track, 0, &on_the_line),
        )
        .unwrap();
    let mut cutter = LapCutter::new(car, track.clone(), &world).unwrap();
    let drive = |world: &mut World, cutter: &mut LapCutter, input: CarInput, steps: u32| {
        world.set_input(car, input).unwrap();
        for _ in 0..steps {
            world.step(DT).unwrap();
            assert_eq!(cutter.after_step(world).unwrap(), None, "no lap ends here");
        }
    };
    // Metres past the line (negative: behind it).
    let past_line = |world: &World| {
        let p = world.pose(CarId::from_raw(0)).unwrap().position.truncate();
        let s = track.locate(p).distance;
        if s > track.length() / 2.0 {
            s - track.length()
        } else {
            s
        }
    };
    // Reverse 4 s back over the line the car started on, stop, then drive
    // forward over it and on for 8 s: a crossing that undoes the backward
    // one is no lap.
    let reverse = CarInput {
        throttle: 0.4,
        gear: -1.0,
        ..CarInput::default()
    };
    drive(&mut world, &mut cutter, reverse, 240);
    let behind = past_line(&world);
    assert!(behind < -3.0, "backed over the line to {behind} m");
    let brake = CarInput {
        brake: 1.0,
        ..CarInput::default()
    };
    drive(&mut world, &mut cutter, brake, 90);
    let forward = CarInput {
        throttle: 0.6,
        gear: 1.0,
        ..CarInput::default()
    };
    drive(&mut world, &mut cutter, forward, 480);
    assert!(past_line(&world) > 20.0);
    assert_eq!(cutter.laps(), 0);
}
