//! A game on rapier drives a skidpad car on rapier colliders (asphalt, a
//! gravel ramp, a wall) through the `Ground` trait, records a replay and a
//! ghost, and plays them back. See `src/rapier_ground.rs`.
//!
//! Run: `cargo run --release -p skidpad-examples --example rapier_host`

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let report = skidpad_examples::rapier_ground::run()?;
    println!("highest centre of mass  {:.2} m", report.top_height);
    println!("front-left surfaces     {:?}", report.surfaces);
    println!("body contacts (wall)    {}", report.wall_contacts);
    println!(
        "replay on the colliders {} desyncs, final hash {}",
        report.desyncs, report.hashes.1
    );
    println!("replay on the plane     refused: {}", report.plane_error);
    println!(
        "ghost                   {:.2} s, halfway at x {:.1} m, z {:.2} m",
        report.ghost.0, report.ghost.1, report.ghost.2
    );
    Ok(())
}
