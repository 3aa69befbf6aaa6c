//! A game's own ground, carried in its replay: two cars circle on a hilly
//! heightfield (a valley with an asphalt pad in the middle, grass and
//! gravel around it) that no skidpad build knows; the recorder is given
//! what the ground was built from (`RecorderOptions::ground`), so the
//! replay verifies from the file alone and the viewer draws the ground.
//!
//! Run: `cargo run --release -p skidpad-examples --example own_ground [-- OUT.skr]`
//! (default `target/own_ground.skr`), then `skidpad verify` or
//! `skidpad view` the file.

use skidpad_core::{
    CarInput, GroundSource, HeightfieldSource, InitialPose, SurfaceId, World, WorldConfig, hex,
    preset,
};
use skidpad_replay::{
    Limits, NoHooks, RecorderOptions, ReplayRecorder, encode_replay, verify_replay,
};

const DT: f64 = 1.0 / 60.0;
const STEPS: u64 = 60 * 40;
/// Samples per side and their spacing, m: a 240 m square.
const SIDE: usize = 61;
const SPACING: f64 = 4.0;

/// The valley: a bowl rising 6 m to its rim, with a gentle ripple; the
/// cells within 45 m of the middle asphalt, a gravel ring to 60 m, grass
/// beyond.
fn valley() -> GroundSource {
    let half = (SIDE - 1) as f64 * SPACING / 2.0;
    let at = |k: usize| {
        (
            (k % SIDE) as f64 * SPACING - half,
            (k / SIDE) as f64 * SPACING - half,
        )
    };
    let heights = (0..SIDE * SIDE)
        .map(|k| {
            let (x, y) = at(k);
            let r = (x * x + y * y) / (half * half);
            6.0 * r * r + 0.3 * (x / 9.0).sin() * (y / 13.0).cos()
        })
        .collect();
    let surfaces = (0..(SIDE - 1) * (SIDE - 1))
        .map(|c| {
            let (x, y) = at(c / (SIDE - 1) * SIDE + c % (SIDE - 1));
            let r = (x + SPACING / 2.0).hypot(y + SPACING / 2.0);
            match r {
                r if r < 45.0 => SurfaceId::DRY_ASPHALT,
                r if r < 60.0 => SurfaceId::GRAVEL,
                _ => SurfaceId::GRASS,
            }
        })
        .collect();
    GroundSource::Heightfield(HeightfieldSource {
        x0: -half,
        y0: -half,
        spacing: SPACING,
        columns: SIDE,
        rows: SIDE,
        heights,
        surfaces: Some(surfaces),
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/own_ground.skr".into());
    let ground = valley();
    let mut world = World::new(WorldConfig::default())?;
    world.set_ground(ground.build()?)?;
    for (name, y, steer) in [("fwd_hatchback", -25.0, -0.3), ("rwd_sports", 20.0, 0.3)] {
        let pose = InitialPose {
            x: 0.0,
            y,
            yaw: 0.0,
            speed: 8.0,
        };
        let car = world.add_car(&preset(name)?, pose)?;
        let input = CarInput {
            throttle: 0.25,
            steer,
            ..CarInput::default()
        };
        world.set_input(car, input)?;
    }
    let options = RecorderOptions {
        ground: Some(ground),
        ..RecorderOptions::default()
    };
    let mut recorder = ReplayRecorder::new(&world, options)?;
    for _ in 0..STEPS {
        recorder.step(&mut world, DT)?;
    }
    let replay = recorder.finish(&world)?;
    let bytes = encode_replay(&replay)?;
    std::fs::write(&out, &bytes)?;
    let report = verify_replay(&replay, NoHooks, &Limits::default())?;
    println!(
        "{out}: {} bytes, {} steps on a {}, carried; verified from the file: {} desyncs, final hash {}",
        bytes.len(),
        STEPS,
        world.ground().describe(),
        report.desyncs,
        hex(&world.world_hash())
    );
    if !report.is_valid() || report.desyncs != 0 {
        return Err("the replay did not verify".into());
    }
    Ok(())
}
