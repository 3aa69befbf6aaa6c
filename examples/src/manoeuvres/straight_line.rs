//! Straight-line manoeuvres: 0-100 km/h and stops from 100 km/h (with
//! and without ABS), and the friction bound the stops are held to.

use skidpad_core::{CarDefinition, CarInput, Result, TireParameters};

use super::{G, KMH_100, Rig, Stepping, drive, static_axle_load};

/// 0–100 km/h ranges (s) for production cars of each kind (hatchback
/// 8–13 s, sports car 4–7 s, rally car 3.5–6 s) and a 125 cc kart geared
/// for short tracks (which barely reaches 100 km/h).
pub const ZERO_TO_100_RANGES: [(&str, f64, f64); 4] = [
    ("fwd_hatchback", 8.0, 13.0),
    ("rwd_sports", 4.0, 7.0),
    ("awd_rally", 3.5, 6.0),
    ("kart", 8.0, 25.0),
];

/// Seconds of full throttle from rest to 100 km/h (None if not within
/// 60 s).
pub fn zero_to_100(def: &CarDefinition, stepping: Stepping) -> Result<Option<f64>> {
    let mut rig = Rig::new(def, stepping, 0.0)?;
    let limit = (60.0 * stepping.host_hz) as usize;
    for k in 1..=limit {
        rig.step(drive(1.0, 0.0, 0.0))?;
        if rig.speed()? >= KMH_100 {
            return Ok(Some(k as f64 * rig.dt));
        }
    }
    Ok(None)
}

/// Metres from full brake application at 100 km/h to standstill.
/// `abs` turns the car's ABS on or off for the stop.
pub fn stop_from_100(def: &CarDefinition, stepping: Stepping, abs: bool) -> Result<f64> {
    let mut def = def.clone();
    def.assists.abs = abs;
    let mut rig = Rig::new(&def, stepping, KMH_100)?;
    let start = rig.world.pose(rig.car)?.position;
    let limit = (30.0 * stepping.host_hz) as usize;
    for _ in 0..limit {
        let before = rig.world.pose(rig.car)?.position;
        let v0 = rig.speed()?;
        rig.step(CarInput {
            brake: 1.0,
            ..CarInput::default()
        })?;
        let v1 = rig.speed()?;
        if v1 < 0.05 {
            // Interpolate the last step to the instant the speed reached
            // zero, so the distance does not depend on the host rate's
            // granularity.
            let after = rig.world.pose(rig.car)?.position;
            let fraction = if v0 > v1 { v0 / (v0 - v1) } else { 1.0 };
            let last = after.truncate().distance(before.truncate()) * fraction.min(1.0);
            return Ok(before.truncate().distance(start.truncate()) + last);
        }
    }
    Ok(f64::INFINITY)
}

/// The friction bound v²/(2 µ g) for a stop from 100 km/h, with µ the
/// tires' peak longitudinal friction at static load (PDX1 and PDX2, load
/// weighted over the axles), from the definition alone.
#[must_use]
pub fn friction_bound_100(def: &CarDefinition) -> f64 {
    let mu = peak_friction(def);
    KMH_100 * KMH_100 / (2.0 * mu * G)
}

/// Load-weighted peak longitudinal friction coefficient at static load.
#[must_use]
pub fn peak_friction(def: &CarDefinition) -> f64 {
    load_weighted(def, TireParameters::peak_fx)
}

/// Σ `peak(tire, load)` over the four wheels at static load, over the
/// car's weight.
pub(super) fn load_weighted(def: &CarDefinition, peak: fn(&TireParameters, f64) -> f64) -> f64 {
    let (mut force, mut load) = (0.0, 0.0);
    for front in [true, false] {
        let fz = static_axle_load(def, front) / 2.0;
        force += 2.0 * peak(def.tires.get(front), fz);
        load += 2.0 * fz;
    }
    force / load
}
