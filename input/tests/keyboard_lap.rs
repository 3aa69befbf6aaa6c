//! The keyboard tuning is drivable: a scripted player that only presses
//! and releases keys, as a person does, laps each built-in track cleanly
//! on its own surface. The player looks ahead like the AI (pure pursuit
//! on the centre line, a corner speed from the curvature ahead) but acts
//! only through `Keys` and the default `KeyboardTuning`: a steering key
//! held until the filtered steer passes the wanted angle by about a
//! frame's travel, then released to self-centre, as a player taps.

use std::sync::Arc;

use skidpad_core::glam::DVec2;
use skidpad_core::race::{GridLayout, LapTimer, RaceRules, grid_pose};
use skidpad_core::{Track, World, WorldConfig, preset, track_names};
use skidpad_input::{
    GearMode, GearSelector, KeyboardDriver, KeyboardTuning, Keys, ShiftButtons, car_input,
};

const DT: f64 = 1.0 / 60.0;
/// Lateral acceleration the scripted player plans corners for, m/s².
const CORNER_GRIP: f64 = 5.5;
/// Deceleration it plans braking for, m/s².
const BRAKING: f64 = 6.0;

/// The speed from which the player can still slow for every point of the
/// centre line within `ahead` metres of `from`.
fn safe_speed(track: &Track, from: f64, ahead: f64) -> f64 {
    let (d, k) = (track.distances(), track.curvature());
    let mut safe = f64::INFINITY;
    for (&s, &kappa) in d.iter().zip(k) {
        let gap = (s - from).rem_euclid(track.length());
        if gap <= ahead {
            let corner = libm::sqrt(CORNER_GRIP / kappa.abs().max(1e-4));
            safe = safe.min(libm::sqrt(corner * corner + 2.0 * BRAKING * gap));
        }
    }
    safe
}

/// The keys a player presses this frame.
fn keys_for(
    track: &Track,
    world: &World,
    car: skidpad_core::CarId,
    steer_now: f64,
    max_angle: f64,
    wheelbase: f64,
) -> Keys {
    let pose = world.pose(car).unwrap();
    let p = DVec2::new(pose.position.x, pose.position.y);
    let heading = DVec2::new(libm::cos(pose.yaw), libm::sin(pose.yaw));
    let here = track.locate(p);
    let lookahead = 8.0 + 0.7 * pose.speed;
    let (target, _) = track.point_at(here.distance + lookahead);
    let to = target - p;
    let sin_alpha = heading.perp_dot(to) / to.length();
    let road_wheel = libm::atan(wheelbase * 2.0 * sin_alpha / to.length());
    // Input is positive right; the road-wheel angle positive left.
    let wanted = (-road_wheel / max_angle).clamp(-1.0, 1.0);
    let speed_target = safe_speed(
        track,
        here.distance,
        20.0 + pose.speed * pose.speed / (2.0 * BRAKING),
    )
    .min(60.0);
    Keys {
        // Held while the steering has not passed the wanted angle by more
        // than a frame's travel; released (self-centring) past it.
        left: wanted < 0.0 && steer_now > wanted - 0.03,
        right: wanted > 0.0 && steer_now < wanted + 0.03,
        throttle: pose.speed < speed_target - 0.5,
        brake: pose.speed > speed_target + 1.0,
        ..Keys::default()
    }
}

#[test]
fn a_keyboard_player_laps_every_track_cleanly() {
    for (name, car_name) in track_names()
        .into_iter()
        .flat_map(|t| [(t, "rwd_sports"), (t, "fwd_hatchback")])
    {
        let track = Arc::new(Track::builtin(name).unwrap());
        let def = preset(car_name).unwrap();
        let mut world = World::new(WorldConfig::default()).unwrap();
        world.set_ground(Arc::new(track.ground().unwrap())).unwrap();
        let car = world
            .add_car(&def, grid_pose(&track, 0, &GridLayout::default()))
            .unwrap();
        let mut keyboard = KeyboardDriver::new(KeyboardTuning::default()).unwrap();
        let mut gears = GearSelector::new(GearMode::Automatic, 6);
        let mut timer = LapTimer::new(track.clone(), RaceRules::default());
        let mut laps = Vec::new();
        let mut steer = 0.0;
        let mut worst_offset: f64 = 0.0;
        for step in 0..(400.0 / DT) as u64 {
            let keys = keys_for(
                &track,
                &world,
                car,
                steer,
                def.steering.max_angle,
                def.chassis.wheelbase,
            );
            let speed = world.pose(car).unwrap().speed;
            let controls = keyboard.update(keys, DT, speed);
            steer = controls.steer;
            let gear = gears.update(ShiftButtons::default());
            world.set_input(car, car_input(&controls, gear, 6)).unwrap();
            world.step(DT).unwrap();
            let p = world.pose(car).unwrap().position;
            let here = DVec2::new(p.x, p.y);
            worst_offset = worst_offset.max(track.locate(here).offset.abs());
            if let Some(lap) = timer.observe((step + 1) as f64 * DT, here) {
                laps.push(lap);
                if laps.len() == 2 {
                    break;
                }
            }
        }
        println!(
            "{name}, {car_name}: laps {:?}, widest {:.1} m off the centre line (half width {:.1} m)",
            laps.iter()
                .map(|l| (l.time(), l.is_valid()))
                .collect::<Vec<_>>(),
            worst_offset,
            track.width() / 2.0
        );
        assert_eq!(laps.len(), 2, "{name}: two laps");
        assert!(
            laps.iter().all(|l| l.is_valid()),
            "{name}: both laps clean: {laps:?}"
        );
    }
}
