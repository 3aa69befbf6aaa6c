//! The built-in tracks' 3D surfaces: the road follows the centre line's
//! elevation, kerbs and grass lie where they should, barriers close the
//! run-off, and the AI laps both tracks on them with every preset.

use std::sync::Arc;

use skidpad_core::glam::{DVec2, DVec3};
use skidpad_core::{
    DriverStyle, Ground, GroundRay, InitialPose, SurfaceId, Track, World, WorldConfig, preset,
    preset_names, track_names,
};

const DT: f64 = 1.0 / 60.0;

fn down_at(ground: &dyn Ground, p: DVec2) -> Option<(f64, Option<SurfaceId>)> {
    ground
        .cast_ray(&GroundRay {
            origin: DVec3::new(p.x, p.y, 1000.0),
            direction: -DVec3::Z,
            max_distance: 1100.0,
        })
        .map(|hit| (hit.point.z, hit.surface))
}

#[test]
fn the_ground_follows_the_centre_line_with_kerbs_grass_and_barriers() {
    assert_eq!(track_names(), ["brandwood", "hillcrest"]);
    for name in track_names() {
        let track = Track::builtin(name).unwrap();
        let ground = track.ground().unwrap();
        let (lo, hi) = track
            .elevation()
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &z| (a.min(z), b.max(z)));
        if name == "hillcrest" {
            assert!(hi - lo > 15.0, "hillcrest climbs: {lo}..{hi} m");
        } else {
            assert_eq!((lo, hi), (0.0, 0.0), "brandwood is flat");
        }
        let half = track.width() / 2.0;
        for i in (0..track.points().len()).step_by(7) {
            let p = track.points()[i];
            let next = track.points()[(i + 1) % track.points().len()];
            let left = (next - p).normalize().perp();
            let (z, surface) = down_at(&ground, p).unwrap();
            assert!(
                (z - track.elevation()[i]).abs() < 1e-6,
                "{name} point {i}: {z}"
            );
            assert_eq!(surface, Some(SurfaceId::DRY_ASPHALT));
            for side in [1.0, -1.0] {
                let (_, kerb) = down_at(&ground, p + left * side * (half + 0.5)).unwrap();
                assert_eq!(kerb, Some(SurfaceId::KERB), "{name} point {i} side {side}");
                let (_, grass) = down_at(&ground, p + left * side * (half + 4.0)).unwrap();
                assert_eq!(
                    grass,
                    Some(SurfaceId::GRASS),
                    "{name} point {i} side {side}"
                );
            }
            // The outside barrier: a ray across the run-off from the track,
            // above the banked kerb, meets a wall facing it.
            let wall = ground.cast_ray(&GroundRay {
                origin: DVec3::new(p.x, p.y, track.elevation()[i] + 1.0),
                direction: left.extend(0.0)
                    * if track.curvature()[i] > 0.0 {
                        -1.0
                    } else {
                        1.0
                    },
                max_distance: 30.0,
            });
            let wall = wall.unwrap_or_else(|| panic!("{name} point {i}: no barrier"));
            assert!(
                wall.normal.z.abs() < 1e-9 && wall.distance > half + 1.0,
                "{wall:?}"
            );
        }
    }
}

#[test]
fn the_ai_laps_both_tracks_on_their_ground_with_every_preset() {
    for name in track_names() {
        let track = Arc::new(Track::builtin(name).unwrap());
        let ground = Arc::new(track.ground().unwrap());
        for car_name in preset_names() {
            let mut world = World::new(WorldConfig::default()).unwrap();
            world.set_ground(ground.clone()).unwrap();
            let id = world
                .add_car(
                    &preset(car_name).unwrap(),
                    skidpad_core::race::pose_along(&track, 0.0, 0.0, 10.0),
                )
                .unwrap();
            world.set_driver(id, Some(track.clone())).unwrap();
            let (mut raced, mut last) = (0.0, 0.0);
            let mut off_road = 0;
            let mut steps = 0;
            while raced < track.length() {
                world.step(DT).unwrap();
                steps += 1;
                assert!(
                    steps < 60 * 150,
                    "{name}, {car_name}: no lap in 150 s ({raced:.0} m)"
                );
                let pose = world.pose(id).unwrap();
                let at = track.locate(pose.position.truncate());
                let mut delta = at.distance - last;
                if delta < -track.length() / 2.0 {
                    delta += track.length();
                }
                raced += delta;
                last = at.distance;
                if at.offset.abs() > track.width() / 2.0 + 1.0 {
                    off_road += 1;
                }
                let height = pose.position.z - track.elevation()[at.segment];
                assert!(
                    height > -1.0 && height < 3.0,
                    "{name}, {car_name}: {height} m above the road"
                );
            }
            // The AI plans its speed from the bends alone (not crests,
            // dips or banking), so on hillcrest the light kart runs wide
            // onto the kerbs' far side now and then.
            println!(
                "{name}, {car_name}: lap in {:.1} s, beyond the kerbs {:.1} % of it",
                steps as f64 * DT,
                100.0 * off_road as f64 / steps as f64
            );
            assert!(
                off_road * 10 < steps,
                "{name}, {car_name}: off the road for {off_road} of {steps} steps"
            );
            assert!(
                world.contacts().iter().all(|c| c.second.is_some()),
                "no wall"
            );
        }
    }
}

/// A sports car at rest on Brandwood's grass, 2 m from the left barrier,
/// 200 m into the lap, turned `yaw_deg` from the track's direction (left
/// positive), driven for `seconds`: where it ends along the lap, and
/// whether it ever reversed.
fn from_the_barrier(yaw_deg: f64, backs_out: bool, seconds: u32) -> (f64, bool) {
    let style = DriverStyle {
        backs_out,
        ..DriverStyle::default()
    };
    let (distance, reversed, _) = driven_from_the_barrier(yaw_deg, style, seconds);
    (distance, reversed)
}

/// [`from_the_barrier`] with any driver style; also the resets the
/// driver made (step, pose).
fn driven_from_the_barrier(
    yaw_deg: f64,
    style: DriverStyle,
    seconds: u32,
) -> (f64, bool, Vec<(u32, InitialPose)>) {
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    let mut world = World::new(WorldConfig::default()).unwrap();
    world.set_ground(Arc::new(track.ground().unwrap())).unwrap();
    let (p, dir) = track.point_at(200.0);
    let left = dir.perp();
    let at = p + left * (track.width() / 2.0 + 10.0);
    let yaw = libm::atan2(dir.y, dir.x) + yaw_deg.to_radians();
    let car = world
        .add_car(
            &preset("rwd_sports").unwrap(),
            InitialPose {
                x: at.x,
                y: at.y,
                yaw,
                speed: 0.0,
            },
        )
        .unwrap();
    world
        .set_driver_with_style(car, Some(track.clone()), style)
        .unwrap();
    let mut reversed = false;
    let mut resets = Vec::new();
    for step in 0..60 * seconds {
        world.step(DT).unwrap();
        reversed |= world.input(car).unwrap().gear < 0.0;
        if let Some(pose) = world.last_step_record(car).unwrap().reset {
            resets.push((step, pose));
        }
    }
    let here = track.locate(world.pose(car).unwrap().position.truncate());
    (here.distance, reversed, resets)
}

#[test]
fn a_driver_that_backs_out_leaves_a_barrier_and_one_that_does_not_stays() {
    // Nosed 70° towards the barrier.
    let (stuck, never) = from_the_barrier(70.0, false, 20);
    let (away, reversed) = from_the_barrier(70.0, true, 20);
    assert!(!never, "the default driver never reverses");
    assert!(
        stuck < 215.0,
        "without backing out the car stays at the barrier: {stuck} m"
    );
    assert!(reversed, "the car backed out");
    assert!(
        away > 400.0,
        "after backing out the car drives on: {away} m"
    );
}

#[test]
fn a_driver_turned_round_against_the_barrier_backs_out_and_drives_on() {
    // Facing 160° from the track's direction, its nose along the barrier:
    // driving on would turn it into the wall, so it reverses first.
    let (away, reversed) = from_the_barrier(160.0, true, 30);
    assert!(reversed, "the car backed out");
    assert!(
        away > 400.0,
        "after backing out the car drives on: {away} m"
    );
}

#[test]
fn a_driver_that_resets_puts_a_stuck_car_back_on_the_track_once() {
    // Nosed into the barrier and not backing out, it pushes on: stuck.
    let style = DriverStyle {
        resets_after: Some(5.0),
        ..DriverStyle::default()
    };
    let (away, reversed, resets) = driven_from_the_barrier(70.0, style, 30);
    assert!(!reversed);
    assert_eq!(resets.len(), 1, "{resets:?}");
    let (step, pose) = resets[0];
    // Stuck from when it came to rest against the barrier, within its
    // first second (it rolls forward 2 m first): 5 s later.
    assert!((300..360 + 60).contains(&step), "reset at step {step}");
    let track = Track::builtin("brandwood").unwrap();
    let here = track.locate(skidpad_core::glam::DVec2::new(pose.x, pose.y));
    assert!(
        here.offset.abs() < 1e-6 && (here.distance - 200.0).abs() < 5.0,
        "{here:?}"
    );
    assert_eq!(pose.speed, 0.0);
    assert!(away > 400.0, "after the reset the car drives on: {away} m");
    // Out of range: refused, naming the field.
    for bad in [0.0, -1.0, f64::NAN, 1e9] {
        let style = DriverStyle {
            resets_after: Some(bad),
            ..DriverStyle::default()
        };
        let e = style.validated().unwrap_err().to_string();
        assert!(e.contains("resets_after"), "{e}");
    }
}
