//! The interpolation buffer draws remote cars at server time − delay with
//! each field's schema interpolation (seed 001, "Интерполяция").

use skidpad_core::lerp_angle;
use skidpad_netplay::{
    Block, CARS_KEY, CONTACT_KEY, Frame, InterpolationSettings, Interpolator, Row, Value,
    race_schema,
};

/// A cars row with x, yaw and gear set, the rest zero.
fn car(x: f32, yaw: f32, gear: u8) -> Row {
    let mut row = vec![Value::F32(0.0); 9];
    row[0] = Value::F32(x);
    row[3] = Value::F32(yaw);
    row.extend([Value::U8(gear), Value::U8(0), Value::U8(0)]);
    row
}

fn frame(time_ms: u32, cars: Vec<(u32, Option<Row>)>) -> Frame {
    Frame {
        tick: time_ms * 60 / 1000,
        server_time_ms: time_ms,
        blocks: vec![(CARS_KEY, Block::Indexed(cars))],
    }
}

fn f32_at(row: &Row, i: usize) -> f64 {
    match row[i] {
        Value::F32(v) => f64::from(v),
        other => panic!("field {i} is {other:?}"),
    }
}

#[test]
fn cars_are_drawn_a_delay_behind_with_each_fields_interpolation() {
    let mut buffer = Interpolator::new(race_schema(), InterpolationSettings::default());
    assert!(buffer.is_empty());
    buffer.push(&frame(1000, vec![(3, Some(car(10.0, 3.0, 2)))]));
    buffer.push(&frame(1033, vec![(3, Some(car(13.3, -3.0, 3)))]));
    // Drawn time 1016.5 ms: halfway.
    let drawn = buffer.sample(1116.5);
    let row = &drawn[&(CARS_KEY, 3)];
    assert!(
        (f32_at(row, 0) - 11.65).abs() < 1e-5,
        "x lerps: {}",
        f32_at(row, 0)
    );
    // Yaw 3.0 → −3.0 goes the short way, through π, not through 0.
    let yaw = f32_at(row, 3);
    assert!(yaw.abs() > 3.0, "yaw took the long way: {yaw}");
    assert!((yaw - f64::from(lerp_angle(3.0, -3.0, 0.5))).abs() < 1e-6);
    assert_eq!(
        row[9],
        Value::U8(2),
        "the gear is discrete: the older frame's"
    );
    // Before the oldest frame and after the newest: held, never extrapolated.
    assert_eq!(f32_at(&buffer.sample(1000.0)[&(CARS_KEY, 3)], 0), 10.0);
    assert!((f32_at(&buffer.sample(5000.0)[&(CARS_KEY, 3)], 0) - 13.3).abs() < 1e-6);
}

#[test]
fn cars_appear_and_leave_at_their_frames_times() {
    let mut buffer = Interpolator::new(race_schema(), InterpolationSettings::default());
    buffer.push(&frame(0, vec![(1, Some(car(0.0, 0.0, 1)))]));
    // Car 2 joins and car 1 leaves in the same frame; a frame may carry
    // only what changed, so car 2's later frame still draws car 2.
    buffer.push(&frame(100, vec![(1, None), (2, Some(car(5.0, 0.0, 1)))]));
    buffer.push(&frame(200, vec![(2, Some(car(7.0, 0.0, 1)))]));
    let before = buffer.sample(150.0); // drawn at 50 ms
    assert!(before.contains_key(&(CARS_KEY, 1)) && !before.contains_key(&(CARS_KEY, 2)));
    let after = buffer.sample(250.0); // drawn at 150 ms
    assert!(!after.contains_key(&(CARS_KEY, 1)));
    assert!((f32_at(&after[&(CARS_KEY, 2)], 0) - 6.0).abs() < 1e-6);
}

#[test]
fn old_and_late_frames_are_dropped_and_a_first_shot_bypasses_the_buffer() {
    let settings = InterpolationSettings {
        delay_ms: 100.0,
        max_frame_age_ms: 1000.0,
    };
    let mut buffer = Interpolator::new(race_schema(), settings);
    for t in (0..=3000).step_by(33) {
        buffer.push(&frame(t, vec![(1, Some(car(t as f32 / 1000.0, 0.0, 1)))]));
    }
    // 1 000 ms of frames at 33 ms, plus the one on the edge.
    assert!(
        (30..=32).contains(&buffer.len()),
        "{} frames kept",
        buffer.len()
    );
    assert!(
        !buffer.push(&frame(2000, vec![(1, Some(car(-1.0, 0.0, 1)))])),
        "a late frame is ignored"
    );
    // Events are taken from the frame as it arrives, not drawn.
    let mut with_event = frame(3100, vec![]);
    with_event.blocks.push((
        CONTACT_KEY,
        Block::List(vec![vec![
            Value::U8(1),
            Value::U8(2),
            Value::F32(5.0),
            Value::F32(0.0),
            Value::F32(0.0),
            Value::F32(0.0),
        ]]),
    ));
    buffer.push(&with_event);
    assert_eq!(buffer.sample(3200.0).len(), 1, "only the car is drawn");

    buffer.first_shot(&frame(9000, vec![(4, Some(car(42.0, 0.0, 1)))]));
    assert_eq!(buffer.len(), 1);
    let drawn = buffer.sample(9000.0);
    assert_eq!(drawn.len(), 1);
    assert_eq!(
        f32_at(&drawn[&(CARS_KEY, 4)], 0),
        42.0,
        "drawn at once, without waiting a delay"
    );
}
