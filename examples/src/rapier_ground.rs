//! A game already on rapier drives skidpad cars on its colliders: the
//! [`RapierGround`] answers the wheels' rays with rapier's scene queries,
//! and a run is recorded as a replay and a ghost and played back on the
//! same colliders.
//!
//! Each collider's `user_data` carries the skidpad surface id of its
//! material. Determinism: rapier's answer to a ray depends only on the
//! colliders and the ray in one build; replays recorded here verify here.
//! Across targets, enable rapier's `enhanced-determinism` feature and check
//! with goldens, as SPEC §3 asks of any ground.

use std::sync::Arc;

use rapier3d_f64::prelude::{ColliderBuilder, PhysicsWorld, QueryFilter, Ray, Vector};
use skidpad_core::glam::DVec3;
use skidpad_core::{
    CarInput, Ground, GroundHit, GroundRay, InitialPose, SurfaceId, World, WorldConfig, hex, preset,
};
use skidpad_ghost::{Ghost, GhostPlayer, GhostRecorder, decode_ghost, encode_ghost};
use skidpad_replay::{
    Limits, NoHooks, RecorderOptions, ReplayRecorder, decode_replay, encode_replay, verify_replay,
    verify_replay_on,
};

/// A skidpad ground made of a rapier world's colliders.
pub struct RapierGround {
    physics: PhysicsWorld,
    fingerprint: [u8; 32],
}

impl std::fmt::Debug for RapierGround {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "RapierGround({} colliders)",
            self.physics.colliders.len()
        )
    }
}

impl RapierGround {
    /// Wraps `physics` (stepped at least once, so its broad phase knows
    /// the colliders). The fingerprint hashes every collider's shape,
    /// pose and user data in handle order.
    #[must_use]
    pub fn new(physics: PhysicsWorld) -> RapierGround {
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"skidpad ground rapier");
        for (_, collider) in physics.colliders.iter() {
            let description = format!(
                "{:?} {:?} {}",
                collider.shape().as_typed_shape(),
                collider.position(),
                collider.user_data
            );
            hasher.update(description.as_bytes());
        }
        RapierGround {
            physics,
            fingerprint: *hasher.finalize().as_bytes(),
        }
    }
}

impl Ground for RapierGround {
    fn cast_ray(&self, ray: &GroundRay) -> Option<GroundHit> {
        // skidpad's rays reach back as far as forward (a sunk wheel still
        // finds the surface): cast from that far behind the origin.
        let back = ray.origin - ray.direction * ray.max_distance;
        let r = Ray::new(
            Vector::new(back.x, back.y, back.z),
            Vector::new(ray.direction.x, ray.direction.y, ray.direction.z),
        );
        let (handle, hit) = self.physics.cast_ray_and_get_normal(
            &r,
            2.0 * ray.max_distance,
            true,
            QueryFilter::default(),
        )?;
        let normal = DVec3::new(hit.normal.x, hit.normal.y, hit.normal.z);
        // Inside a solid the ray starts with no surface to report, and a
        // surface it leaves is not one it enters from above.
        if normal.dot(ray.direction) >= 0.0 {
            return None;
        }
        let distance = hit.time_of_impact - ray.max_distance;
        let surface = self.physics.colliders.get(handle).map(|c| c.user_data);
        Some(GroundHit {
            distance,
            point: ray.at(distance),
            normal,
            surface: surface.and_then(|s| u8::try_from(s).ok()).map(SurfaceId),
        })
    }

    fn fingerprint(&self) -> [u8; 32] {
        self.fingerprint
    }

    fn max_surface_id(&self) -> Option<SurfaceId> {
        self.physics
            .colliders
            .iter()
            .filter_map(|(_, c)| u8::try_from(c.user_data).ok())
            .max()
            .map(SurfaceId)
    }

    fn describe(&self) -> String {
        format!("rapier world of {} colliders", self.physics.colliders.len())
    }
}

/// The game's level: a 200 m asphalt slab, a gravel ramp rising 10° along
/// +x, and a wall beyond it.
#[must_use]
pub fn level() -> RapierGround {
    let mut physics = PhysicsWorld::new();
    let slab = ColliderBuilder::cuboid(100.0, 20.0, 0.5)
        .translation(Vector::new(90.0, 0.0, -0.5))
        .user_data(u128::from(SurfaceId::DRY_ASPHALT.0));
    physics.insert_collider(slab, None);
    let pitch = -10.0_f64.to_radians();
    let ramp = ColliderBuilder::cuboid(10.0, 6.0, 0.5)
        .translation(Vector::new(40.0, 0.0, 1.2))
        .rotation(Vector::new(0.0, pitch, 0.0))
        .user_data(u128::from(SurfaceId::GRAVEL.0));
    physics.insert_collider(ramp, None);
    let wall = ColliderBuilder::cuboid(0.5, 20.0, 1.5)
        .translation(Vector::new(150.0, 0.0, 1.5))
        .user_data(u128::from(SurfaceId::GRASS.0));
    physics.insert_collider(wall, None);
    // One step puts the colliders in the broad phase the queries use.
    physics.step();
    RapierGround::new(physics)
}

/// What a run on the rapier level showed.
#[derive(Debug)]
pub struct Report {
    /// Highest centre of mass reached, m.
    pub top_height: f64,
    /// The surfaces the front-left wheel ran on, in order, without repeats.
    pub surfaces: Vec<SurfaceId>,
    /// Contacts of the body with the ground (the wall), summed over steps.
    pub wall_contacts: usize,
    /// Desyncs when the replay was re-simulated on the same colliders.
    pub desyncs: u64,
    /// The run's final world hash, and the re-simulation's.
    pub hashes: (String, String),
    /// The error when the replay was offered the plane instead.
    pub plane_error: String,
    /// The ghost's duration and its pose halfway, x and z, m.
    pub ghost: (f32, f32, f32),
}

/// Drives a sports car over the ramp and into the wall, recording a
/// replay and a ghost, then plays both back.
pub fn run() -> Result<Report, Box<dyn std::error::Error>> {
    const DT: f64 = 1.0 / 60.0;
    let ground: Arc<RapierGround> = Arc::new(level());
    let mut world = World::new(WorldConfig::default())?;
    world.set_ground(ground.clone())?;
    let car = world.add_car(
        &preset("rwd_sports")?,
        InitialPose {
            x: 5.0,
            ..InitialPose::default()
        },
    )?;
    let mut recorder = ReplayRecorder::new(&world, RecorderOptions::default())?;
    let mut ghost = GhostRecorder::new(car);
    let (mut top_height, mut surfaces, mut wall_contacts) = (f64::MIN, Vec::new(), 0);
    for step in 0..600 {
        let throttle = if step < 360 { 0.7 } else { 0.0 };
        world.set_input(
            car,
            CarInput {
                throttle,
                ..CarInput::default()
            },
        )?;
        recorder.step(&mut world, DT)?;
        ghost.after_step(&world)?;
        top_height = top_height.max(world.pose(car)?.position.z);
        let surface = world.wheel_surfaces(car)?[0];
        if surfaces.last() != Some(&surface) {
            surfaces.push(surface);
        }
        wall_contacts += world
            .contacts()
            .iter()
            .filter(|c| c.second.is_none())
            .count();
    }
    let replay = decode_replay(&encode_replay(&recorder.finish(&world)?)?)?;
    let report = verify_replay_on(&replay, ground.clone(), NoHooks, &Limits::default())?;
    let plane_error = match verify_replay(&replay, NoHooks, &Limits::default()) {
        Err(e) => e.to_string(),
        Ok(_) => "the plane was accepted".into(),
    };
    let ghost: Ghost = decode_ghost(&encode_ghost(&ghost.finish()?)?)?;
    let duration = ghost.duration();
    let mut player = GhostPlayer::new(ghost);
    let halfway = player.pose_at(duration / 2.0)?;
    Ok(Report {
        top_height,
        surfaces,
        wall_contacts,
        desyncs: report.desyncs,
        hashes: (hex(&world.world_hash()), hex(&report.final_hash)),
        plane_error,
        ghost: (duration, halfway.x, halfway.z),
    })
}
