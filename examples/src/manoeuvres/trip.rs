//! Crashes sideways on flat, dry ground: a car struck square in the side
//! by another of its preset (FMVSS 214's moving barrier strikes at
//! 54 km/h), a car sliding sideways into a standing one (a car that has
//! spun, met by the field), and a car sliding sideways into a kerb, the
//! trip that rolls real cars over.
//!
//! Theory: a blow through the centre of mass's height pushes a car without
//! rolling it; what rolls it is a force low down (the tires, a kerb under
//! them) while the body's inertia carries on above, and a trip rolls the
//! car over once its lateral speed's energy lifts the centre of mass over
//! the kerb-side wheels. The rows say where each preset sits.

use std::sync::Arc;

use super::G;
use skidpad_core::glam::DVec3;
use skidpad_core::{
    CarDefinition, CarId, InitialPose, KERB_WIDTH, RUNOFF_WIDTH, Result, Track, TriangleMesh,
    World, WorldConfig, set_snapshot_float,
};

/// One host step, s.
const DT: f64 = 1.0 / 60.0;
/// How long each crash is watched, host steps (5 s).
const WATCH_STEPS: usize = 300;
/// FMVSS 214's side-impact speed, m/s.
pub const FMVSS_214: f64 = 15.0;
/// The kerb's height, m: a high kerbstone.
pub const KERB_HEIGHT: f64 = 0.2;
/// Lateral speeds tried for the kerb trip, m/s.
const TRIP_SPEEDS: std::ops::RangeInclusive<u32> = 4..=20;

/// What a crash did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Crash {
    /// Largest |roll| of the car struck (or tripped), deg.
    pub struck_roll_deg: f64,
    /// Largest |roll| of the other car, deg (0 for a kerb).
    pub other_roll_deg: f64,
    /// Largest car-to-car normal impulse in one step, N·s.
    pub impulse: f64,
    /// How far the struck car moved sideways, m.
    pub pushed_m: f64,
}

impl Crash {
    /// The struck car turned past 90°: on its side or its roof.
    #[must_use]
    pub fn rolled_over(&self) -> bool {
        self.struck_roll_deg >= 90.0
    }
}

fn at(x: f64, y: f64, yaw: f64, speed: f64) -> InitialPose {
    InitialPose { x, y, yaw, speed }
}

/// Sets a standing car sliding sideways (to its left, +y) at `speed`,
/// wheels not turning: a car that has spun.
fn slide_sideways(world: &mut World, car: CarId, speed: f64) -> Result<()> {
    let mut snapshot = world.snapshot(car)?;
    set_snapshot_float(&mut snapshot, "velocity.y", speed)?;
    world.restore(car, &snapshot)
}

/// Steps `world` for the watch and reports on `struck` and `other`.
fn watch(world: &mut World, struck: CarId, other: Option<CarId>) -> Result<Crash> {
    let start = world.pose(struck)?.position.y;
    let mut crash = Crash::default();
    let roll =
        |world: &World, car: CarId| -> Result<f64> { Ok(world.pose(car)?.roll.abs().to_degrees()) };
    for _ in 0..WATCH_STEPS {
        world.step(DT)?;
        for c in world.contacts().iter().filter(|c| c.second.is_some()) {
            crash.impulse = crash.impulse.max(c.impulse);
        }
        crash.struck_roll_deg = crash.struck_roll_deg.max(roll(world, struck)?);
        if let Some(other) = other {
            crash.other_roll_deg = crash.other_roll_deg.max(roll(world, other)?);
        }
    }
    crash.pushed_m = world.pose(struck)?.position.y - start;
    Ok(crash)
}

/// A standing car struck square in its right side, through its centre of
/// mass, by another of its definition at `speed` m/s.
pub fn side_impact(def: &CarDefinition, speed: f64) -> Result<Crash> {
    let mut world = World::new(WorldConfig::default())?;
    let struck = world.add_car(def, at(0.0, 0.0, 0.0, 0.0))?;
    let striker = world.add_car(def, at(0.0, -8.0, core::f64::consts::FRAC_PI_2, speed))?;
    watch(&mut world, struck, Some(striker))
}

/// A car sliding sideways at `speed` m/s into a standing one of its
/// definition, side to side. The sliding car is the one reported struck.
pub fn slide_into_standing(def: &CarDefinition, speed: f64) -> Result<Crash> {
    let mut world = World::new(WorldConfig::default())?;
    let standing = world.add_car(def, at(0.0, 5.0, 0.0, 0.0))?;
    let sliding = world.add_car(def, at(0.0, 0.0, 0.0, 0.0))?;
    slide_sideways(&mut world, sliding, speed)?;
    watch(&mut world, sliding, Some(standing))
}

/// Flat ground with a kerb of [`KERB_HEIGHT`] along y = 5 (a vertical
/// face, flat again beyond it).
fn kerb() -> Result<TriangleMesh> {
    let v = DVec3::new;
    let h = KERB_HEIGHT;
    let vertices = [
        v(-30.0, -20.0, 0.0),
        v(30.0, -20.0, 0.0),
        v(30.0, 5.0, 0.0),
        v(-30.0, 5.0, 0.0),
        v(-30.0, 5.0, h),
        v(30.0, 5.0, h),
        v(30.0, 30.0, h),
        v(-30.0, 30.0, h),
    ];
    let faces = [
        [0, 1, 2],
        [0, 2, 3],
        [3, 2, 5],
        [3, 5, 4],
        [4, 5, 6],
        [4, 6, 7],
    ];
    TriangleMesh::new(&vertices, &faces)
}

/// A car sliding sideways at `speed` m/s into the kerb, its wheels 4 m
/// short of it.
pub fn kerb_trip(def: &CarDefinition, speed: f64) -> Result<Crash> {
    let mut world = World::new(WorldConfig::default())?;
    world.set_ground(Arc::new(kerb()?))?;
    let car = world.add_car(def, at(0.0, 0.0, 0.0, 0.0))?;
    slide_sideways(&mut world, car, speed)?;
    watch(&mut world, car, None)
}

/// A car sliding sideways at `speed` m/s across built-in track `track`'s
/// right-hand run-off into its barrier (a 1.2 m wall), `distance` m
/// along the centre line, its wheels about 4 m short of the wall. The
/// wall meets the body's whole side: since simulation version 12 it
/// pushes there, halfway up the side, not at the roof's corner.
pub fn barrier_slide(def: &CarDefinition, track: &str, distance: f64, speed: f64) -> Result<Crash> {
    let track = Track::builtin(track)?;
    let mut world = World::new(WorldConfig::default())?;
    world.set_ground(Arc::new(track.ground()?))?;
    let (centre, along) = track.point_at(distance);
    let right = -along.perp();
    // The barrier stands at the run-off's outer edge.
    let short = 4.0 + def.chassis.track.front.max(def.chassis.track.rear) / 2.0;
    let at = centre + right * (track.width() / 2.0 + KERB_WIDTH + RUNOFF_WIDTH - short);
    let yaw = along.y.atan2(along.x);
    let car = world.add_car(def, self::at(at.x, at.y, yaw, 0.0))?;
    let mut snapshot = world.snapshot(car)?;
    set_snapshot_float(&mut snapshot, "velocity.x", right.x * speed)?;
    set_snapshot_float(&mut snapshot, "velocity.y", right.y * speed)?;
    world.restore(car, &snapshot)?;
    watch(&mut world, car, None)
}

/// The lateral speed, m/s, at which a rigid car sliding sideways into the
/// kerb just tips over it: its lateral momentum about the kerb's edge
/// (the car's centre of mass `d` above it, `r` from it) becomes rotation
/// about that edge, ω = m·v·d / I_edge with I_edge = I_xx + m·r², whose
/// energy ½·I_edge·ω² must lift the centre of mass by r − d; so
/// v = √(2·g·(r − d)·I_edge / m) / d. Lossless, so a real trip (and the
/// simulated one, with its suspension and restitution) needs more.
/// `None` when the centre of mass is not above the kerb's edge.
#[must_use]
pub fn trip_theory_speed(def: &CarDefinition) -> Option<f64> {
    let c = &def.chassis;
    let d = c.cg_height - KERB_HEIGHT;
    if d <= 0.0 {
        return None;
    }
    let half_track = (c.track.front + c.track.rear) / 4.0;
    let r = half_track.hypot(d);
    let edge_inertia = c.inertia[0] + c.mass * r * r;
    Some((2.0 * G * (r - d) * edge_inertia / c.mass).sqrt() / d)
}

/// The lowest whole lateral speed from 4 to 20 m/s at which the kerb trip
/// rolls the car over; `None` if none does.
pub fn kerb_trip_speed(def: &CarDefinition) -> Result<Option<f64>> {
    for speed in TRIP_SPEEDS.map(f64::from) {
        if kerb_trip(def, speed)?.rolled_over() {
            return Ok(Some(speed));
        }
    }
    Ok(None)
}
