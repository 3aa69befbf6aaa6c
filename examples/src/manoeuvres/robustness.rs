//! What a model must survive whatever the car: a car parked on a grade,
//! the timestep sweep, and an AI lap at the default substep rates against
//! four times them.

use std::sync::Arc;

use skidpad_core::race::{self, GridLayout, RaceEvent, RaceRules, RaceTiming};
use skidpad_core::{
    CarDefinition, CarInput, GroundSlope, Lod, LodSetting, Result, Track, World, WorldConfig,
};

use super::{LATERAL_G, Rig, Stepping, constant_radius, stop_from_100};

/// The parking cases of SPEC §4.7 for a car: (grade, on the handbrake):
/// 10, 20 and 30 % on the service brake, and 10 and 20 % on the handbrake
/// when the car has one.
#[must_use]
pub fn parked_cases(def: &CarDefinition) -> Vec<(f64, bool)> {
    let mut cases = vec![(0.1, false), (0.2, false), (0.3, false)];
    if def.brakes.handbrake_torque > 0.0 {
        cases.extend([(0.1, true), (0.2, true)]);
    }
    cases
}

/// The worst deviations of a timestep sweep from its finest setting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepRun {
    /// Understeer gradient at the finest setting, deg/g.
    pub gradient: f64,
    /// Locked and ABS stopping distances at the finest setting, m.
    pub stops: (f64, f64),
    /// Largest |K − K_finest|, deg/g.
    pub worst_gradient: f64,
    /// Largest relative stopping-distance deviation, locked and ABS.
    pub worst_stops: (f64, f64),
}

/// Host 30, 60, 120, 240 Hz × substeps 250, 500, 1000, 2000 Hz: the
/// understeer gradient and both stopping distances at every combination,
/// against host 240 Hz × substeps 2000 Hz.
pub fn timestep_sweep(def: &CarDefinition) -> Result<SweepRun> {
    let measure = |host_hz: f64, rate: f64| -> Result<(f64, f64, f64)> {
        let s = Stepping {
            lod: Lod::Full,
            host_hz,
            substep_hz: Some(rate),
        };
        Ok((
            constant_radius(def, s, &LATERAL_G)?.gradient(),
            stop_from_100(def, s, false)?,
            stop_from_100(def, s, true)?,
        ))
    };
    let (k0, locked0, abs0) = measure(240.0, 2000.0)?;
    let mut run = SweepRun {
        gradient: k0,
        stops: (locked0, abs0),
        worst_gradient: 0.0,
        worst_stops: (0.0, 0.0),
    };
    for host in [30.0, 60.0, 120.0, 240.0] {
        for rate in [250.0, 500.0, 1000.0, 2000.0] {
            let (k, locked, abs) = measure(host, rate)?;
            run.worst_gradient = run.worst_gradient.max((k - k0).abs());
            run.worst_stops.0 = run.worst_stops.0.max((locked / locked0 - 1.0).abs());
            run.worst_stops.1 = run.worst_stops.1.max((abs / abs0 - 1.0).abs());
        }
    }
    Ok(run)
}

/// The AI's lap of the built-in `brandwood` track on the plane, from its
/// start line at 15 m/s, timed by the race layer (`RaceTiming`: the line
/// crossing interpolated within the host step, so the time resolves the
/// differences between substep rates this measures) (s). `None` if it
/// takes longer than 5 minutes.
pub fn ai_lap(def: &CarDefinition, stepping: Stepping) -> Result<Option<f64>> {
    let track = Arc::new(Track::builtin("brandwood")?);
    let mut world = World::new(WorldConfig::default())?;
    // On the line, on the centre line, at 15 m/s.
    let on_the_line = GridLayout {
        first_row: 0.0,
        columns: 1,
        speed: 15.0,
        ..GridLayout::default()
    };
    let pose = race::grid_pose(&track, 0, &on_the_line);
    let car = world.add_car(def, pose)?;
    world.set_driver(car, Some(track.clone()))?;
    let lod = match stepping.substep_hz {
        Some(rate) => LodSetting::with_rate(stepping.lod, rate),
        None => LodSetting::new(stepping.lod),
    };
    world.set_lod(car, lod)?;
    let dt = stepping.dt();
    let mut timing = RaceTiming::new(track, RaceRules::default(), &world);
    for _ in 1..=(300.0 * stepping.host_hz) as u64 {
        world.step(dt)?;
        for event in timing.after_step(&world)? {
            if let RaceEvent::Lap { lap, .. } = event {
                return Ok(Some(lap.time()));
            }
        }
    }
    Ok(None)
}

/// What a parked car did over 10 s on a slope.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ParkedRun {
    /// Largest speed in the last 10 s, m/s.
    pub max_speed: f64,
    /// Distance moved over those 10 s, m.
    pub drift: f64,
}

/// Parks the car on a `grade` (rise over run) facing uphill, held by the
/// service brake or the handbrake: 2 s to settle, then 10 s measured.
pub fn parked(
    def: &CarDefinition,
    stepping: Stepping,
    grade: f64,
    handbrake: bool,
) -> Result<ParkedRun> {
    let mut rig = Rig::new(def, stepping, 0.0)?;
    rig.world.set_ground_slope(
        rig.car,
        GroundSlope {
            grade,
            cross_slope: 0.0,
        },
    )?;
    let input = CarInput {
        brake: if handbrake { 0.0 } else { 1.0 },
        handbrake: if handbrake { 1.0 } else { 0.0 },
        ..CarInput::default()
    };
    for _ in 0..(2.0 * stepping.host_hz) as usize {
        rig.step(input)?;
    }
    let start = rig.world.pose(rig.car)?.position;
    let mut run = ParkedRun::default();
    for _ in 0..(10.0 * stepping.host_hz) as usize {
        rig.step(input)?;
        run.max_speed = run.max_speed.max(rig.speed()?);
    }
    run.drift = rig.world.pose(rig.car)?.position.distance(start);
    Ok(run)
}
