//! The canonical per-car state: every bit that influences a car's future.
//! Snapshots and hashes are made from exactly this struct (see
//! `snapshot.rs`); outputs that only feed telemetry live in `StepOutputs`
//! (`outputs.rs`).

use glam::{DQuat, DVec3};

use crate::ground::GroundSlope;
use crate::input::CarInput;
use crate::lod::LodSetting;
use crate::surface::SurfaceId;

/// Largest coordinate a state may hold, m.
pub(crate) const MAX_POSITION: f64 = 1e7;
/// Largest velocity component, m/s.
pub(crate) const MAX_SPEED: f64 = 1e4;
/// Largest body or wheel rotation rate, rad/s.
pub(crate) const MAX_RATE: f64 = 1e5;
/// Largest tire deflection, m (the wheel model clamps far below it).
pub(crate) const MAX_DEFLECTION: f64 = 100.0;
/// Largest road-wheel angle a steering may give way, rad (the model holds
/// it within the lock; this only keeps it finite).
pub(crate) const MAX_STEER_GIVE: f64 = 10.0;
/// Largest lateral force an axle may have passed to the body, N (tires
/// give far less; this only keeps it finite).
pub(crate) const MAX_AXLE_FORCE: f64 = 1e9;
/// Longest simulated time, s (about 31 700 years).
pub(crate) const MAX_ELAPSED: f64 = 1e12;

/// A car's dynamic state.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CarState {
    /// Centre of mass, world frame, m.
    pub position: DVec3,
    /// Body to world rotation.
    pub orientation: DQuat,
    /// Centre-of-mass velocity, world frame, m/s.
    pub velocity: DVec3,
    /// Angular velocity, body frame, rad/s.
    pub angular_velocity: DVec3,
    /// Wheel spin, rad/s, positive rolling forward.
    pub wheel_omega: [f64; 4],
    /// Engaged gear: −1 reverse, 0 neutral, 1.. forward.
    pub gear: i32,
    /// Simulated time this car has been stepped for, s.
    pub elapsed: f64,
    /// The input the car runs with (what a driver last wrote).
    pub input: CarInput,
    /// Level of detail.
    pub lod: LodSetting,
    /// Surface under each wheel.
    pub surfaces: [SurfaceId; 4],
    /// Ground slope under the car.
    pub slope: GroundSlope,
    /// Contact-patch deflection of each tire, m: (along the wheel's
    /// heading, to its left). The relaxation-length state: at speed it lags
    /// the slip, at rest it is the spring that holds the car.
    pub tire_deflection: [[f64; 2]; 4],
    /// Engine speed, rad/s.
    pub engine_omega: f64,
    /// Road-wheel angle the steering's compliance has given way, rad,
    /// positive left (added to both front wheels' angles); always 0 for a
    /// rigid steering (`SteeringDefinition::compliance` absent).
    pub steer_give: f64,
    /// The lateral force (along the body's left axis) the ground put on
    /// each axle's tires in the last substep, N, front then rear: what
    /// the links of an axle with a roll centre above the ground turn into
    /// load transfer in the next substep (the forces come from the loads,
    /// so the loads take them one substep late). Kept at 0 for an axle
    /// without a roll centre, whose links add nothing.
    pub axle_lateral_force: [f64; 2],
    /// True while the clutch holds engine and gearbox at one speed.
    pub clutch_locked: bool,
}

/// Number of floats in a car state.
pub(crate) const FLOATS: usize = 39;
/// Where `elapsed` sits in `FLOAT_FIELDS` (it must also not be negative).
const ELAPSED: usize = 17;

/// One f64 of the state: its name in reports, its bound, and how it is
/// read from and written into a `CarState`.
pub(crate) struct FloatField {
    pub name: &'static str,
    /// Largest magnitude the state may hold (∞: finite is enough; those
    /// fields are validated by their own setters).
    pub bound: f64,
    pub get: fn(&CarState) -> f64,
    pub set: fn(&mut CarState, f64),
}

/// How a field is read and written: `place(position.x)` for a place
/// expression on the state (`wheel_omega[0]`, `tire_deflection[2][1]`),
/// `custom(get, set)` for the rest.
macro_rules! accessor {
    (get place ($($place:tt)+)) => {
        |s: &CarState| s.$($place)+
    };
    (set place ($($place:tt)+)) => {
        |s: &mut CarState, v: f64| s.$($place)+ = v
    };
    (get custom ($get:expr, $set:expr)) => {
        $get
    };
    (set custom ($get:expr, $set:expr)) => {
        $set
    };
}

/// The state's floats, listed once: the table every reader walks, and the
/// bounds check unrolled over the same list so each field is read
/// directly (it runs for every car after every step; through the table's
/// function pointers it cost about 700 instructions a car-step).
macro_rules! float_fields {
    ($($name:literal, $bound:expr, $kind:ident $args:tt;)*) => {
        /// The state's floats, listed once: the snapshot encoder and decoder
        /// (in this order), the field names of desync reports and the
        /// bounds check all read this table.
        pub(crate) const FLOAT_FIELDS: [FloatField; FLOATS] = [
            $(FloatField {
                name: $name,
                bound: $bound,
                get: accessor!(get $kind $args),
                set: accessor!(set $kind $args),
            },)*
        ];

        impl CarState {
            /// Every float finite and within its bound (what
            /// `first_out_of_bounds` finds the first exception to).
            #[inline]
            fn floats_within_bounds(&self) -> bool {
                let mut within = true;
                $(within &= within_bound((accessor!(get $kind $args))(self), $bound);)*
                within
            }
        }
    };
}

/// Finite and at most `bound` in magnitude (NaN is neither).
#[inline(always)]
fn within_bound(v: f64, bound: f64) -> bool {
    let magnitude = v.abs();
    (magnitude < f64::INFINITY) & (magnitude <= bound)
}

float_fields! {
    "position.x", MAX_POSITION, place(position.x);
    "position.y", MAX_POSITION, place(position.y);
    "position.z", MAX_POSITION, place(position.z);
    "orientation.x", f64::INFINITY, place(orientation.x);
    "orientation.y", f64::INFINITY, place(orientation.y);
    "orientation.z", f64::INFINITY, place(orientation.z);
    "orientation.w", f64::INFINITY, place(orientation.w);
    "velocity.x", MAX_SPEED, place(velocity.x);
    "velocity.y", MAX_SPEED, place(velocity.y);
    "velocity.z", MAX_SPEED, place(velocity.z);
    "angular_velocity.x", MAX_RATE, place(angular_velocity.x);
    "angular_velocity.y", MAX_RATE, place(angular_velocity.y);
    "angular_velocity.z", MAX_RATE, place(angular_velocity.z);
    "wheel_omega.fl", MAX_RATE, place(wheel_omega[0]);
    "wheel_omega.fr", MAX_RATE, place(wheel_omega[1]);
    "wheel_omega.rl", MAX_RATE, place(wheel_omega[2]);
    "wheel_omega.rr", MAX_RATE, place(wheel_omega[3]);
    "elapsed", MAX_ELAPSED, place(elapsed);
    "input.steer", f64::INFINITY, place(input.steer);
    "input.throttle", f64::INFINITY, place(input.throttle);
    "input.brake", f64::INFINITY, place(input.brake);
    "input.handbrake", f64::INFINITY, place(input.handbrake);
    "input.clutch", f64::INFINITY, place(input.clutch);
    "input.gear", f64::INFINITY, place(input.gear);
    // No override is stored as 0, which no valid rate is.
    "lod.substep_rate", f64::INFINITY, custom(
        |s: &CarState| s.lod.substep_rate.unwrap_or(0.0),
        |s: &mut CarState, v: f64| s.lod.substep_rate = (v != 0.0).then_some(v)
    );
    "slope.grade", f64::INFINITY, place(slope.grade);
    "slope.cross_slope", f64::INFINITY, place(slope.cross_slope);
    "tire_deflection_x.fl", MAX_DEFLECTION, place(tire_deflection[0][0]);
    "tire_deflection_y.fl", MAX_DEFLECTION, place(tire_deflection[0][1]);
    "tire_deflection_x.fr", MAX_DEFLECTION, place(tire_deflection[1][0]);
    "tire_deflection_y.fr", MAX_DEFLECTION, place(tire_deflection[1][1]);
    "tire_deflection_x.rl", MAX_DEFLECTION, place(tire_deflection[2][0]);
    "tire_deflection_y.rl", MAX_DEFLECTION, place(tire_deflection[2][1]);
    "tire_deflection_x.rr", MAX_DEFLECTION, place(tire_deflection[3][0]);
    "tire_deflection_y.rr", MAX_DEFLECTION, place(tire_deflection[3][1]);
    "engine_omega", MAX_RATE, place(engine_omega);
    "steer_give", MAX_STEER_GIVE, place(steer_give);
    "axle_lateral_force.front", MAX_AXLE_FORCE, place(axle_lateral_force[0]);
    "axle_lateral_force.rear", MAX_AXLE_FORCE, place(axle_lateral_force[1]);
}

impl CarState {
    /// The first float that is not finite or lies beyond its bound, or a
    /// negative elapsed time (SPEC §3.5: NaN and ±inf never enter the
    /// state). The bounds are far beyond anything a car does, and keep
    /// derived values such as |v|² finite.
    pub(crate) fn first_out_of_bounds(&self) -> Option<&'static FloatField> {
        FLOAT_FIELDS
            .iter()
            .find(|f| {
                let v = (f.get)(self);
                !(v.is_finite() && v.abs() <= f.bound)
            })
            .or_else(|| (self.elapsed < 0.0).then(|| &FLOAT_FIELDS[ELAPSED]))
    }

    /// True when every float is finite and within its bound and the
    /// elapsed time is not negative: `first_out_of_bounds` finds nothing.
    pub(crate) fn is_sane(&self) -> bool {
        self.floats_within_bounds() & (self.elapsed >= 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unrolled_check_agrees_with_the_table_field_by_field() {
        let def = crate::vehicle::presets::preset("kart").unwrap();
        let mut world = crate::World::new(crate::WorldConfig::default()).unwrap();
        let id = world.add_car(&def, crate::InitialPose::default()).unwrap();
        let sane = crate::state::snapshot::decode(
            &world.snapshot(id).unwrap(),
            &world.snapshot(id).unwrap()[10..18].try_into().unwrap(),
            crate::SurfaceTable::presets().surfaces().len(),
            def.top_gear(),
        );
        let sane = sane.expect("a fresh car's snapshot decodes");
        assert!(sane.is_sane());
        for (k, field) in FLOAT_FIELDS.iter().enumerate() {
            let mut bad = vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
            if field.bound.is_finite() {
                bad.extend([field.bound * 1.5, -field.bound * 1.5]);
            }
            for v in bad {
                let mut state = sane.clone();
                (field.set)(&mut state, v);
                assert!(!state.is_sane(), "{} = {v}", field.name);
                assert_eq!(
                    state.first_out_of_bounds().map(|f| f.name),
                    Some(FLOAT_FIELDS[k].name)
                );
            }
            if field.bound.is_finite() {
                let mut state = sane.clone();
                (field.set)(&mut state, -field.bound);
                assert!(state.is_sane() || k == ELAPSED, "{}", field.name);
            }
        }
        let mut state = sane.clone();
        state.elapsed = -1.0;
        assert!(!state.is_sane());
    }

    #[test]
    fn the_elapsed_index_names_elapsed() {
        assert_eq!(FLOAT_FIELDS[ELAPSED].name, "elapsed");
    }
}
