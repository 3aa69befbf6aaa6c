//! Ghosts in Bevy: a car's run kept as a pose track while it drives
//! ([`GhostTrail`]), and a ghost played back as an entity whose
//! `Transform` follows the track on the simulation's clock ([`GhostCar`]).
//! A ghost has no physics: it is drawn, never stepped.

use bevy_ecs::prelude::*;
use bevy_time::{Fixed, Time};
use bevy_transform::components::Transform;
use skidpad_core::World;
use skidpad_core::glam::DVec3;
use skidpad_ghost::{
    Ghost, GhostError, GhostMark, GhostPlayer, GhostPose, GhostRecorder, ghost_quaternion,
};

use crate::axes::{bevy_rotation, bevy_translation};
use crate::cars::SkidpadCar;
use crate::plugin::{SimulationRate, SkidpadWorld};

/// Put this on a car's entity to keep its run as a ghost: a frame after
/// every step from its first step (or the step after the trail was
/// added) on, frame 0 its pose before that step. Take
/// the ghost with [`ghost`](Self::ghost) (it keeps recording); cut laps
/// from it with `skidpad_ghost::slice_ghost` or a `LapCutter`.
#[derive(Component, Debug, Default, Clone)]
pub struct GhostTrail {
    recorder: Option<GhostRecorder>,
    /// The world's step count of the last frame kept.
    step: u64,
}

impl GhostTrail {
    /// The run so far as a ghost; an error before the car's first step.
    pub fn ghost(&self) -> Result<Ghost, GhostError> {
        match &self.recorder {
            Some(recorder) => recorder.finish(),
            None => Err(GhostError::InvalidArgument {
                what: "ghost trail",
                reason: "the car has not joined the world yet".into(),
            }),
        }
    }
}

impl GhostTrail {
    /// Where the trail stands (for a flashback to come back to), once
    /// started: its recorder's mark and the world's step of its last frame.
    pub(crate) fn mark(&self) -> Option<(GhostMark, u64)> {
        self.recorder.as_ref().map(|r| (r.mark(), self.step))
    }

    /// Back to `mark` (taken by [`mark`](Self::mark)), or not started at
    /// all for `None`: it starts again at the next step.
    pub(crate) fn go_back(&mut self, mark: Option<&(GhostMark, u64)>) -> Result<(), GhostError> {
        match (mark, &mut self.recorder) {
            (Some((mark, step)), Some(recorder)) => {
                recorder.go_back(mark)?;
                self.step = *step;
            }
            _ => *self = GhostTrail::default(),
        }
        Ok(())
    }

    /// Takes a step the world re-took in a flashback.
    pub(crate) fn retake_step(&mut self, world: &World) -> Result<(), GhostError> {
        if let Some(recorder) = &mut self.recorder {
            recorder.after_step(world)?;
            self.step = world.step_count();
        }
        Ok(())
    }
}

/// A ghost drawn as an entity: its `Transform` follows the ghost, whose
/// time 0 is the world's step `start_step` (the step a lap began, say),
/// between steps by the fixed clock's overstep, so it moves as smoothly as
/// an interpolated car.
///
/// ```
/// use bevy_app::{App, TaskPoolPlugin};
/// use bevy_time::{TimePlugin, TimeUpdateStrategy};
/// use skidpad_bevy::{CarSpawn, GhostCar, GhostTrail, SkidpadPlugin, SkidpadWorld};
/// use skidpad_core::{InitialPose, preset};
///
/// let mut app = App::new();
/// app.add_plugins((TaskPoolPlugin::default(), TimePlugin, SkidpadPlugin::default()))
///     .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
/// let rolling = InitialPose { speed: 10.0, ..InitialPose::default() };
/// let car = app.world_mut().spawn((CarSpawn::new(preset("kart")?, rolling), GhostTrail::default())).id();
/// for _ in 0..120 {
///     app.update();
/// }
/// // Race the run so far from now on.
/// let ghost = app.world().get::<GhostTrail>(car).unwrap().ghost()?;
/// let now = app.world().resource::<SkidpadWorld>().step_count();
/// app.world_mut().spawn(GhostCar::new(ghost, now));
/// app.update();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Component, Debug, Clone)]
#[require(Transform)]
pub struct GhostCar {
    player: GhostPlayer,
    /// The world's step count at the ghost's time 0.
    pub start_step: u64,
    /// The pose drawn last.
    pub pose: GhostPose,
}

impl GhostCar {
    /// `ghost` played from the world's step `start_step` on.
    #[must_use]
    pub fn new(ghost: Ghost, start_step: u64) -> Self {
        GhostCar {
            player: GhostPlayer::new(ghost),
            start_step,
            pose: GhostPose::default(),
        }
    }
}

/// Trails not started yet begin with their car's pose before the next
/// step (frame 0, time 0).
pub(crate) fn start_trails(
    mut trails: Query<(&SkidpadCar, &mut GhostTrail)>,
    world: Res<SkidpadWorld>,
) -> Result {
    for (car, mut trail) in &mut trails {
        if trail.recorder.is_none() {
            let mut recorder = GhostRecorder::new(car.id());
            recorder.start_at(&world)?;
            trail.recorder = Some(recorder);
            trail.step = world.step_count();
        }
    }
    Ok(())
}

/// Each started trail takes the step its car just ran (nothing when the
/// world did not step).
pub(crate) fn record_trails(
    mut trails: Query<&mut GhostTrail>,
    world: Res<SkidpadWorld>,
) -> Result {
    let step = world.step_count();
    for mut trail in &mut trails {
        let trail = &mut *trail;
        if let Some(recorder) = &mut trail.recorder
            && trail.step != step
        {
            recorder.after_step(&world)?;
            trail.step = step;
        }
    }
    Ok(())
}

/// Each ghost's pose at the simulation's time now.
pub(crate) fn draw_ghosts(
    mut ghosts: Query<(&mut GhostCar, &mut Transform)>,
    world: Res<SkidpadWorld>,
    rate: Res<SimulationRate>,
    fixed: Res<Time<Fixed>>,
) -> Result {
    let between = if rate.fixed_schedule {
        fixed.overstep_fraction_f64()
    } else {
        0.0
    };
    for (mut ghost, mut transform) in &mut ghosts {
        let steps = world.step_count().saturating_sub(ghost.start_step) as f64 + between;
        let pose = ghost.player.pose_at((steps * rate.dt) as f32)?;
        ghost.pose = pose;
        let position = DVec3::new(f64::from(pose.x), f64::from(pose.y), f64::from(pose.z));
        let [x, y, z, w] = ghost_quaternion(&pose);
        let rotation = skidpad_core::glam::DQuat::from_xyzw(
            f64::from(x),
            f64::from(y),
            f64::from(z),
            f64::from(w),
        );
        transform.translation = bevy_translation(position);
        transform.rotation = bevy_rotation(rotation);
    }
    Ok(())
}
