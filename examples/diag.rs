use skidpad_core::{InitialPose, Track, World, WorldConfig, preset};
use std::sync::Arc;
fn main() {
    let track = Arc::new(Track::builtin("brandwood").unwrap());
    for name in ["fwd_hatchback", "rwd_sports"] {
        let mut world = World::new(WorldConfig::default()).unwrap();
        let id = world
            .add_car(
                &preset(name).unwrap(),
                InitialPose {
                    x: 60.0,
                    y: 0.0,
                    yaw: 0.0,
                    speed: 0.0,
                },
            )
            .unwrap();
        world.set_driver(id, Some(track.clone())).unwrap();
        let mut worst = 0.0f64;
        for step in 0..60 * 250 {
            world.step(1.0 / 60.0).unwrap();
            let p = world.pose(id).unwrap();
            let here = track.locate(p.position.truncate());
            if here.offset.abs() > worst + 0.5 || (step % 600 == 0) {
                worst = worst.max(here.offset.abs());
                println!(
                    "{name} t={:.1} s={:.0} off={:.2} v={:.1} slip={:.3} yawrate={:.2} steer={:.2} thr={:.2} brk={:.2} gear={}",
                    step as f64 / 60.0,
                    here.distance,
                    here.offset,
                    p.speed,
                    world.channel(id, "body_slip").unwrap(),
                    world.channel(id, "yaw_rate").unwrap(),
                    world.channel(id, "input_steer").unwrap(),
                    world.channel(id, "input_throttle").unwrap(),
                    world.channel(id, "input_brake").unwrap(),
                    world.channel(id, "gear").unwrap()
                );
            }
        }
    }
}
