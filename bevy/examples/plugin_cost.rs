//! What the plugin costs per car-step: 20 AI cars racing brandwood (flat
//! ground) for STEPS steps three ways, one round of each in turn:
//! - `plain`: a Rust loop calling `World::step`;
//! - `bare`: a Bevy app (time, transforms) whose one system steps the
//!   world in `FixedPostUpdate`: Bevy's own frame, no plugin;
//! - `plugin`: the same app with `SkidpadPlugin`, the cars as entities
//!   with interpolated transforms.
//!
//! Each `app.update()` runs exactly one fixed step
//! (`TimeUpdateStrategy::FixedTimesteps(1)`). All three end on the same
//! world hash (checked). Prints JSON: medians of ns per car-step.
//!
//! Run: `cargo run --release -p skidpad-bevy --example plugin_cost [ROUNDS] [STEPS]`

use std::sync::Arc;
use std::time::Instant;

use bevy_app::{App, FixedPostUpdate, TaskPoolPlugin};
use bevy_ecs::prelude::*;
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use bevy_transform::TransformPlugin;
use skidpad_bevy::{CarSpawn, PoseInterpolation, SkidpadPlugin, SkidpadWorld};
use skidpad_core::race::pose_along;
use skidpad_core::{CarDefinition, InitialPose, Track, World, WorldConfig, preset};

const CARS: usize = 20;
const DT: f64 = 1.0 / 60.0;

struct Field {
    track: Arc<Track>,
    cars: Vec<(Arc<CarDefinition>, InitialPose)>,
}

impl Field {
    fn new() -> Field {
        let track = Arc::new(Track::builtin("brandwood").unwrap());
        let names = ["fwd_hatchback", "rwd_sports"];
        let cars = (0..CARS)
            .map(|k| {
                let s = track.length() * k as f64 / CARS as f64;
                (
                    Arc::new(preset(names[k % 2]).unwrap()),
                    pose_along(&track, s, 0.0, 15.0),
                )
            })
            .collect();
        Field { track, cars }
    }

    fn world(&self) -> World {
        let mut world = World::new(WorldConfig::default()).unwrap();
        for (definition, pose) in &self.cars {
            let car = world.add_car(definition, *pose).unwrap();
            world.set_driver(car, Some(self.track.clone())).unwrap();
        }
        world
    }
}

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((TaskPoolPlugin::default(), TimePlugin, TransformPlugin))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app
}

fn plain(field: &Field, steps: usize) -> (f64, [u8; 32]) {
    let mut world = field.world();
    let start = Instant::now();
    for _ in 0..steps {
        world.step(DT).unwrap();
    }
    (start.elapsed().as_nanos() as f64, world.world_hash())
}

#[derive(Resource)]
struct Bare(World);

fn bare(field: &Field, steps: usize) -> (f64, [u8; 32]) {
    let mut app = app();
    app.insert_resource(Bare(field.world()))
        .add_systems(FixedPostUpdate, |mut world: ResMut<Bare>| {
            world.0.step(DT).unwrap()
        });
    app.update(); // Bevy's first frame runs no fixed step
    let start = Instant::now();
    for _ in 0..steps {
        app.update();
    }
    let elapsed = start.elapsed().as_nanos() as f64;
    let world = &app.world().resource::<Bare>().0;
    assert_eq!(world.step_count(), steps as u64);
    (elapsed, world.world_hash())
}

fn plugin(field: &Field, steps: usize) -> (f64, [u8; 32]) {
    let mut app = app();
    app.add_plugins(SkidpadPlugin::default());
    for (definition, pose) in &field.cars {
        let spawn = CarSpawn {
            definition: definition.clone(),
            pose: *pose,
            driver: Some(field.track.clone()),
        };
        app.world_mut().spawn((spawn, PoseInterpolation));
    }
    app.update();
    let start = Instant::now();
    for _ in 0..steps {
        app.update();
    }
    let elapsed = start.elapsed().as_nanos() as f64;
    let world = app.world().resource::<SkidpadWorld>();
    assert_eq!(world.step_count(), steps as u64);
    (elapsed, world.world_hash())
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let rounds = args.first().copied().unwrap_or(5);
    let steps = args.get(1).copied().unwrap_or(600);
    let field = Field::new();
    let per_car_step = |ns: f64| ns / (steps * CARS) as f64;
    let (mut p, mut b, mut g) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let (plain_ns, plain_hash) = plain(&field, steps);
        let (bare_ns, bare_hash) = bare(&field, steps);
        let (plugin_ns, plugin_hash) = plugin(&field, steps);
        assert!(
            plain_hash == bare_hash && bare_hash == plugin_hash,
            "the three runs differ"
        );
        p.push(per_car_step(plain_ns));
        b.push(per_car_step(bare_ns));
        g.push(per_car_step(plugin_ns));
    }
    let (p, b, g) = (median(p), median(b), median(g));
    println!(
        "{}",
        serde_json::json!({
            "cars": CARS, "steps": steps, "rounds": rounds,
            "plain_ns_per_car_step": p, "bare_bevy_ns_per_car_step": b, "plugin_ns_per_car_step": g,
            "plugin_over_plain": g / p, "plugin_over_bare_bevy": g / b,
        })
    );
}
