//! A headless Bevy app racing three cars on brandwood through the plugin
//! (one driven by a scripted player, two by the AI), and the same race as
//! a plain-Rust game loop, for the tests to compare.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use bevy_app::{App, FixedUpdate, TaskPoolPlugin};
use bevy_ecs::prelude::*;
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use bevy_transform::TransformPlugin;
use skidpad_bevy::{
    CarControls, CarSpawn, SimulationPaused, SkidpadCar, SkidpadPlugin, SkidpadSystems,
    SkidpadWorld, start_recording,
};
use skidpad_core::race::{GridLayout, grid_pose};
use skidpad_core::{CarId, CarInput, GroundSource, Track, World, WorldConfig, preset};
use skidpad_replay::{RecorderOptions, ReplayRecorder, encode_replay};

pub const KEYFRAME_EVERY: u32 = 120;

/// The scripted player's input for the step after `step` steps: full
/// throttle, weaving left and right every 1.5 s.
pub fn player_input(step: u64) -> CarInput {
    let weave = [-0.08, 0.0, 0.08][((step / 90) % 3) as usize];
    CarInput {
        throttle: 0.9,
        steer: weave,
        ..CarInput::default()
    }
}

pub fn brandwood() -> Arc<Track> {
    Arc::new(Track::builtin("brandwood").expect("brandwood is built in"))
}

/// A world on brandwood's surface.
pub fn world_on(track: &Track) -> World {
    let mut world = World::new(WorldConfig::default()).expect("default settings");
    world
        .set_ground(Arc::new(track.ground().expect("brandwood's ground")))
        .expect("the ground fits");
    world
}

pub fn recorder_options(track: &Arc<Track>) -> RecorderOptions<'static> {
    RecorderOptions {
        keyframe_every: KEYFRAME_EVERY,
        ground: Some(GroundSource::Mesh(track.ground_source())),
        track: Some(track.clone()),
        ..RecorderOptions::default()
    }
}

/// A headless app with the plugin (60 Hz in `FixedPostUpdate`), Bevy's
/// clock advanced by hand as `clock` says.
pub fn headless_app(clock: TimeUpdateStrategy) -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        TimePlugin,
        TransformPlugin,
        SkidpadPlugin::default(),
    ))
    .insert_resource(clock);
    app
}

/// Bevy's clock advanced by one frame of a `frame_hz` display per update.
pub fn frames_of(frame_hz: f64) -> TimeUpdateStrategy {
    TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / frame_hz))
}

/// The player is the grid's first car: the one without a driver.
#[derive(Component)]
pub struct Player;

/// The player's controls for the next step, from the step count.
fn drive_player(world: Res<SkidpadWorld>, mut player: Query<&mut CarControls, With<Player>>) {
    for mut controls in &mut player {
        controls.0 = player_input(world.step_count());
    }
}

/// Pauses the simulation on step `STEPS`, so that every frame rate stops
/// on the same step.
#[derive(Resource)]
pub struct StopAt(pub u64);

fn stop_at(world: Res<SkidpadWorld>, stop: Res<StopAt>, mut paused: ResMut<SimulationPaused>) {
    if world.step_count() >= stop.0 {
        paused.0 = true;
    }
}

/// Who drives the grid's first car.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum FirstCar {
    /// The scripted player ([`player_input`]).
    Player,
    /// The AI, as the other two.
    Ai,
}

/// A headless app drawing `frame_hz` frames a second (Bevy's clock
/// advanced by hand), the plugin at 60 Hz, three cars spawned on the grid
/// and a recording started before the first step.
pub fn race_app(frame_hz: f64, stop: u64) -> App {
    race_app_with(frame_hz, stop, FirstCar::Player)
}

/// [`race_app`] with the first car's driver chosen.
pub fn race_app_with(frame_hz: f64, stop: u64, first: FirstCar) -> App {
    let track = brandwood();
    let mut app = headless_app(frames_of(frame_hz));
    app.insert_resource(SkidpadWorld(world_on(&track)))
        .insert_resource(StopAt(stop))
        .add_systems(FixedUpdate, drive_player)
        .add_systems(
            bevy_app::FixedPostUpdate,
            stop_at.after(SkidpadSystems::Writeback),
        );
    let layout = GridLayout::default();
    let rwd = Arc::new(preset("rwd_sports").expect("a preset"));
    let fwd = Arc::new(preset("fwd_hatchback").expect("a preset"));
    app.world_mut().spawn((
        CarSpawn {
            definition: rwd.clone(),
            pose: grid_pose(&track, 0, &layout),
            driver: (first == FirstCar::Ai).then(|| track.clone()),
        },
        CarControls::default(),
        Player,
    ));
    for slot in 1..3 {
        let definition = if slot == 1 { fwd.clone() } else { rwd.clone() };
        app.world_mut().spawn(CarSpawn {
            definition,
            pose: grid_pose(&track, slot, &layout),
            driver: Some(track.clone()),
        });
    }
    start_recording(app.world_mut(), recorder_options(&track)).expect("recording starts");
    app
}

/// Runs frames until the world has taken `steps` steps (and paused).
pub fn run_until(app: &mut App, steps: u64) {
    for _ in 0..100_000 {
        if app.world().resource::<SkidpadWorld>().step_count() >= steps {
            return;
        }
        app.update();
    }
    panic!("the world never reached step {steps}");
}

/// The car ids of the app's cars, in id order.
pub fn car_ids(app: &mut App) -> Vec<CarId> {
    let mut query = app.world_mut().query::<&SkidpadCar>();
    let mut ids: Vec<CarId> = query.iter(app.world()).map(|c| c.id()).collect();
    ids.sort_unstable();
    ids
}

/// The same race as a plain game loop: the world, three cars, the
/// recorder's `step`, the player's input set before each step. Returns the
/// replay's bytes and the final world hash.
pub fn plain_race(steps: u64) -> (Vec<u8>, [u8; 32]) {
    let track = brandwood();
    let mut world = world_on(&track);
    let layout = GridLayout::default();
    let player = world
        .add_car(
            &preset("rwd_sports").unwrap(),
            grid_pose(&track, 0, &layout),
        )
        .unwrap();
    for (slot, name) in [(1, "fwd_hatchback"), (2, "rwd_sports")] {
        let car = world
            .add_car(&preset(name).unwrap(), grid_pose(&track, slot, &layout))
            .unwrap();
        world.set_driver(car, Some(track.clone())).unwrap();
    }
    let mut recorder = ReplayRecorder::new(&world, recorder_options(&track)).unwrap();
    for step in 0..steps {
        world.set_input(player, player_input(step)).unwrap();
        recorder.step(&mut world, 1.0 / 60.0).unwrap();
    }
    let replay = recorder.finish(&world).unwrap();
    (encode_replay(&replay).unwrap(), world.world_hash())
}
