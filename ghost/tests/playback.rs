//! GhostPlayer interpolation, clamping, angle wrap, lookup order; GhostSet;
//! the quaternion; slicing.

mod common;

use std::f32::consts::{FRAC_PI_2, PI};

use common::f32_between;
use proptest::prelude::*;
use skidpad_ghost::{
    Ghost, GhostError, GhostFrame, GhostPlayer, GhostPose, GhostSet, ghost_quaternion, lerp_angle,
    slice_ghost, slice_ghost_frames, wrap_angle,
};

fn frame(t: f32, x: f32, yaw: f32) -> GhostFrame {
    GhostFrame {
        t,
        pose: GhostPose {
            x,
            y: 2.0 * x,
            z: 0.5,
            yaw,
            pitch: 0.01 * x,
            roll: -0.02,
            steer: 0.1,
            speed: x,
        },
    }
}

fn small_ghost() -> Ghost {
    Ghost::from_frames(vec![
        frame(0.0, 0.0, 0.0),
        frame(0.5, 1.0, 0.2),
        frame(1.0, 3.0, 0.4),
        frame(2.0, 4.0, 0.6),
    ])
    .unwrap()
}

#[test]
fn exact_times_return_frames_and_between_is_linear() {
    let ghost = small_ghost();
    let mut player = GhostPlayer::new(ghost.clone());
    for f in ghost.frames() {
        assert_eq!(player.pose_at(f.t).unwrap(), f.pose);
    }
    let mid = player.pose_at(1.5).unwrap();
    assert_eq!(mid.x, 3.5);
    assert!((mid.yaw - 0.5).abs() < 1e-6);
    assert_eq!(player.pose_at(0.25).unwrap().x, 0.5);
}

#[test]
fn time_is_clamped_and_nan_is_an_error() {
    let ghost = small_ghost();
    let mut player = GhostPlayer::new(ghost.clone());
    assert_eq!(player.pose_at(-3.0).unwrap(), ghost.frames()[0].pose);
    assert_eq!(player.pose_at(99.0).unwrap(), ghost.frames()[3].pose);
    assert_eq!(
        player.pose_at(f32::INFINITY).unwrap(),
        ghost.frames()[3].pose
    );
    assert!(matches!(
        player.pose_at(f32::NAN),
        Err(GhostError::InvalidArgument { .. })
    ));
    let single = Ghost::from_frames(vec![frame(0.0, 7.0, 1.0)]).unwrap();
    assert_eq!(GhostPlayer::new(single).pose_at(3.0).unwrap().x, 7.0);
}

#[test]
fn angles_take_the_short_way_across_pi() {
    let ghost =
        Ghost::from_frames(vec![frame(0.0, 0.0, PI - 0.1), frame(1.0, 1.0, -PI + 0.1)]).unwrap();
    let mut player = GhostPlayer::new(ghost);
    let mid = player.pose_at(0.5).unwrap().yaw;
    assert!(
        (mid.abs() - PI).abs() < 1e-5,
        "midpoint {mid} should sit at ±π, not 0"
    );
    let quarter = player.pose_at(0.25).unwrap().yaw;
    assert!((quarter - (PI - 0.05)).abs() < 1e-5, "{quarter}");
    let three_quarters = player.pose_at(0.75).unwrap().yaw;
    assert!(
        (three_quarters - (-PI + 0.05)).abs() < 1e-5,
        "{three_quarters}"
    );
}

/// Reference lookup, independent of the player: clamp, linear scan for the
/// bracketing frames, interpolate.
fn reference_pose(ghost: &Ghost, t: f32) -> GhostPose {
    let frames = ghost.frames();
    let t = t.clamp(ghost.start_time(), ghost.end_time());
    let i = frames.iter().rposition(|f| f.t <= t).unwrap();
    let Some(b) = frames.get(i + 1) else {
        return frames[i].pose;
    };
    let a = &frames[i];
    let u = (t - a.t) / (b.t - a.t);
    let lerp = |x: f32, y: f32| x + (y - x) * u;
    let (p, q) = (a.pose, b.pose);
    GhostPose {
        x: lerp(p.x, q.x),
        y: lerp(p.y, q.y),
        z: lerp(p.z, q.z),
        yaw: lerp_angle(p.yaw, q.yaw, u),
        pitch: lerp_angle(p.pitch, q.pitch, u),
        roll: lerp_angle(p.roll, q.roll, u),
        steer: lerp(p.steer, q.steer),
        speed: lerp(p.speed, q.speed),
    }
}

/// A ghost with irregular frame spacing, as `every` and variable dt give.
fn irregular_ghost(gaps: &[f32]) -> Ghost {
    let mut t = 0.0;
    let frames = gaps
        .iter()
        .enumerate()
        .map(|(k, gap)| {
            let f = frame(t, k as f32, wrap_angle(k as f32 * 0.7));
            t += gap;
            f
        })
        .collect();
    Ghost::from_frames(frames).unwrap()
}

proptest! {
    #[test]
    fn any_lookup_order_gives_the_same_poses(
        gaps in prop::collection::vec(prop_oneof![Just(1.0 / 60.0_f32), f32_between(0.001, 0.5)], 1..400),
        times in prop::collection::vec(f32_between(-1.0, 60.0), 1..80),
    ) {
        let ghost = irregular_ghost(&gaps);
        let mut player = GhostPlayer::new(ghost.clone());
        let mut into = GhostPose::default();
        for &t in &times {
            let pose = player.pose_at(t).unwrap();
            prop_assert_eq!(pose, reference_pose(&ghost, t));
            player.pose_at_into(t, &mut into).unwrap();
            prop_assert_eq!(into, pose);
        }
    }

    #[test]
    fn the_quaternion_matches_the_rotation_matrix(
        yaw in f32_between(-PI, PI),
        pitch in prop_oneof![f32_between(-FRAC_PI_2, FRAC_PI_2), Just(FRAC_PI_2), Just(-FRAC_PI_2), f32_between(FRAC_PI_2 - 2e-3, FRAC_PI_2), f32_between(-FRAC_PI_2, 2e-3 - FRAC_PI_2)],
        roll in f32_between(-PI, PI),
    ) {
        let pose = GhostPose { yaw, pitch, roll, ..GhostPose::default() };
        let [qx, qy, qz, qw] = ghost_quaternion(&pose).map(f64::from);
        prop_assert!(((qx * qx + qy * qy + qz * qz + qw * qw) - 1.0).abs() < 1e-6);
        // Independent construction: R = Rz(yaw) · Ry(pitch) · Rx(roll).
        let (y, p, r) = (f64::from(yaw), f64::from(pitch), f64::from(roll));
        let rz = [[y.cos(), -y.sin(), 0.0], [y.sin(), y.cos(), 0.0], [0.0, 0.0, 1.0]];
        let ry = [[p.cos(), 0.0, p.sin()], [0.0, 1.0, 0.0], [-p.sin(), 0.0, p.cos()]];
        let rx = [[1.0, 0.0, 0.0], [0.0, r.cos(), -r.sin()], [0.0, r.sin(), r.cos()]];
        let expected = mat_mul(mat_mul(rz, ry), rx);
        // The quaternion's matrix.
        let from_q = [
            [1.0 - 2.0 * (qy * qy + qz * qz), 2.0 * (qx * qy - qz * qw), 2.0 * (qx * qz + qy * qw)],
            [2.0 * (qx * qy + qz * qw), 1.0 - 2.0 * (qx * qx + qz * qz), 2.0 * (qy * qz - qx * qw)],
            [2.0 * (qx * qz - qy * qw), 2.0 * (qy * qz + qx * qw), 1.0 - 2.0 * (qx * qx + qy * qy)],
        ];
        for i in 0..3 {
            for j in 0..3 {
                prop_assert!((from_q[i][j] - expected[i][j]).abs() < 2e-6, "R[{i}][{j}]: {} vs {}", from_q[i][j], expected[i][j]);
            }
        }
    }
}

fn mat_mul(a: [[f64; 3]; 3], b: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut m = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    m
}

#[test]
fn a_ghost_set_plays_eight_ghosts_on_one_clock() {
    let ghosts: Vec<Ghost> = (0..8)
        .map(|k| {
            let shift = k as f32;
            Ghost::from_frames(vec![
                frame(0.0, shift, 0.0),
                frame(1.0, shift + 10.0, 0.5),
                frame(3.0, shift + 20.0, 1.0),
            ])
            .unwrap()
        })
        .collect();
    let mut set = GhostSet::new();
    for g in &ghosts {
        set.add(g.clone());
    }
    assert_eq!(set.len(), 8);
    for step in 0..240 {
        let poses = set.advance(1.0 / 60.0).unwrap().to_vec();
        let t = set.time() as f32;
        for (k, g) in ghosts.iter().enumerate() {
            assert_eq!(poses[k], reference_pose(g, t), "ghost {k} at step {step}");
        }
    }
    assert_eq!(set.set_time(0.5).unwrap()[3].x, 8.0);
    assert!(set.set_time(f64::NAN).is_err());
}

#[test]
fn slicing_by_time_keeps_boundary_frames_and_retimes() {
    let times = [0.0_f32, 0.1, 0.2, 0.3, 0.4];
    let ghost =
        Ghost::from_frames(times.iter().map(|&t| frame(t, t * 10.0, 0.0)).collect()).unwrap();
    // Bounds that name frame times as f64 keep those frames (rounding to f32).
    let cut = slice_ghost(&ghost, 0.1, 0.3).unwrap();
    assert_eq!(cut.len(), 3);
    assert_eq!(cut.frames()[0].t, 0.0);
    assert_eq!(cut.frames()[0].pose, ghost.frames()[1].pose);
    assert_eq!(cut.frames()[2].t, 0.3_f32 - 0.1_f32);
    // Between frames.
    let between = slice_ghost(&ghost, 0.15, 0.35).unwrap();
    assert_eq!(between.len(), 2);
    assert_eq!(between.frames()[0].pose, ghost.frames()[2].pose);
    // Partly out of range is clipped; wholly out of range is an error.
    assert_eq!(slice_ghost(&ghost, -5.0, 0.1).unwrap().len(), 2);
    assert_eq!(slice_ghost(&ghost, 0.35, 99.0).unwrap().len(), 1);
    for (from, to) in [(0.41, 1.0), (-2.0, -1.0), (0.3, 0.1), (0.11, 0.19)] {
        assert!(
            matches!(
                slice_ghost(&ghost, from, to),
                Err(GhostError::EmptySlice { .. })
            ),
            "{from}..{to}"
        );
    }
    assert!(slice_ghost(&ghost, f64::NAN, 1.0).is_err());
}

#[test]
fn slicing_by_frame_index_is_half_open() {
    let ghost = small_ghost();
    let cut = slice_ghost_frames(&ghost, 1, 3).unwrap();
    assert_eq!(cut.len(), 2);
    assert_eq!(cut.frames()[0].t, 0.0);
    assert_eq!(cut.frames()[1].t, 0.5);
    assert_eq!(cut.frames()[1].pose, ghost.frames()[2].pose);
    assert_eq!(slice_ghost_frames(&ghost, 2, 100).unwrap().len(), 2);
    for (i0, i1) in [(2, 2), (3, 1), (4, 9)] {
        assert!(matches!(
            slice_ghost_frames(&ghost, i0, i1),
            Err(GhostError::EmptySlice { .. })
        ));
    }
}

#[test]
fn invalid_frames_are_refused() {
    assert_eq!(Ghost::from_frames(vec![]).unwrap_err(), GhostError::Empty);
    let mut bad = frame(0.0, 1.0, 0.0);
    bad.pose.roll = f32::NAN;
    assert!(matches!(
        Ghost::from_frames(vec![bad]),
        Err(GhostError::NonFiniteFrame { field: "roll", .. })
    ));
    let err = Ghost::from_frames(vec![frame(1.0, 0.0, 0.0), frame(1.0, 1.0, 0.0)]).unwrap_err();
    assert!(matches!(
        err,
        GhostError::TimeNotIncreasing { index: 1, .. }
    ));
}
