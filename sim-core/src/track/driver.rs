//! The path-following AI driver (SPEC §4.4).
//!
//! Steering is pure pursuit toward a point on the racing line a
//! speed-dependent distance ahead, plus the shortfall of the curvature the
//! car follows (its yaw rate over its speed) behind the one asked for, so
//! an understeering car is not carried wide. A car heading for the track
//! limit on the outside of a bend eases off, and the throttle fades as the
//! car corners near its tires' peak. Speed follows a profile made once per
//! car and track: a cornering limit from curvature, then a backward
//! (braking) and a forward (acceleration) pass around the closed lap.
//!
//! The driver keeps no state between steps: its output is a function of
//! the car's state alone. That keeps a recording world (with drivers) and
//! its playback world (without) hashing alike.

use std::sync::Arc;

use glam::DVec2;

use crate::input::CarInput;
use crate::math;
use crate::model::drivetrain::{differential, gearbox};
use crate::norm::Norm;
use crate::pose::planar_heading;
use crate::state::car_state::CarState;
use crate::track::traffic::{Racecraft, Surroundings, TrafficCar};
use crate::track::{Track, TrackPosition};
use crate::vehicle::definition::{CarDefinition, DriveLayout, STANDARD_GRAVITY, ShiftMode};
use crate::{CoreError, Result};

/// Gain on the shortfall of the curvature the car follows behind the one
/// pure pursuit asks for (`AiDriver::drive`).
const CURVATURE_FEEDBACK: f64 = 1.0;
/// Below this forward speed, m/s, yaw rate over speed says little about
/// the path, so the feedback is off.
const CURVATURE_FEEDBACK_SPEED: f64 = 5.0;

/// Room to the track limit, m, inside which a car on the outside of a
/// bend is running wide (`AiDriver::running_wide`).
const WIDE_ROOM: f64 = 2.0;
/// How far ahead, s, the driver judges where the car is heading across
/// the road: about the pedals' and the tires' response.
const WIDE_HORIZON: f64 = 0.5;
/// Fraction of its speed a car running wide with no room left aims below
/// it (beyond the 0.3 m/s that lifts off the throttle): a lift and a
/// light brake, not the braking that would take the grip the turn needs.
const WIDE_EASE: f64 = 0.05;

/// A car slower than this (m/s, forward; negative while reversing) counts
/// as stopped for backing out.
const BACK_OUT_SPEED: f64 = 1.0;
/// A stopped car off the road backs out while its heading points away
/// from the road by more than 30° (sin 30°).
const BACK_OUT_SIN: f64 = 0.5;
/// A stopped car off the road also backs out while it faces against the
/// track's direction by more than 120° (cos 120°): turned round against a
/// barrier, driving on would only push it into the wall.
const BACK_OUT_WRONG_WAY_COS: f64 = -0.5;
/// Throttle while reversing out.
const BACK_OUT_THROTTLE: f64 = 1.0;
/// Reversing faster than this (m/s) the driver brakes: full throttle in
/// reverse at full lock, or a push from another car, took cars fast enough
/// to roll them against the barriers.
const BACK_OUT_MAX_REVERSE: f64 = 3.0;

/// Tunable behaviour of an [`AiDriver`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DriverStyle {
    /// Fraction of the tires' peak lateral grip used in corners.
    pub cornering_grip: f64,
    /// Fraction of peak grip used when braking.
    pub braking_grip: f64,
    /// Longitudinal acceleration assumed by the forward pass, m/s².
    pub acceleration: f64,
    /// Look-ahead distance at standstill, m.
    pub lookahead_base: f64,
    /// Extra look-ahead per m/s of speed, s.
    pub lookahead_time: f64,
    /// Highest target speed, m/s.
    pub top_speed: f64,
    /// Reverse out when stopped off the road facing away from the track
    /// (nose in a barrier after a spin or a push), instead of pushing on.
    /// Off by default: it changes what the driver does, so existing
    /// AI-driven runs keep their bits; turn it on for grounds with
    /// barriers (`Track::ground`).
    pub backs_out: bool,
    /// Race the other cars (keep a gap, pass, give room: `traffic.rs`)
    /// instead of driving as if alone. Off by default: it changes what the
    /// driver does, so existing AI-driven runs keep their bits.
    pub racecraft: Option<Racecraft>,
    /// Put the car back on the track once it has been stuck this many
    /// seconds (moving slower than 1 m/s, or on its side or
    /// roof): on the centre line level with it, facing along the track,
    /// at rest, through [`World::reset_car`](crate::World::reset_car), so
    /// a replay records it like a game's reset. `None` by default: it
    /// changes what the driver does, so existing AI-driven runs keep their
    /// bits.
    pub resets_after: Option<f64>,
}

/// Below this planar speed, m/s, a car counts as stuck (for
/// [`DriverStyle::resets_after`]).
pub(crate) const STUCK_SPEED: f64 = 1.0;

impl Default for DriverStyle {
    fn default() -> Self {
        DriverStyle {
            cornering_grip: 0.65,
            braking_grip: 0.6,
            acceleration: 4.0,
            lookahead_base: 6.0,
            lookahead_time: 0.45,
            top_speed: 70.0,
            backs_out: false,
            racecraft: None,
            resets_after: None,
        }
    }
}

impl DriverStyle {
    /// The style, or an error naming the first field outside its range:
    /// grip fractions in (0, 2], acceleration in (0, 100] m/s², look-ahead
    /// base in (0, 1000] m, look-ahead time in [0, 10] s, top speed in
    /// (0, 1000] m/s. NaN and infinities are outside every range.
    pub fn validated(self) -> Result<Self> {
        let open = |lo: f64, hi: f64, v: f64| v > lo && v <= hi;
        for (what, v, ok) in [
            (
                "cornering_grip",
                self.cornering_grip,
                open(0.0, 2.0, self.cornering_grip),
            ),
            (
                "braking_grip",
                self.braking_grip,
                open(0.0, 2.0, self.braking_grip),
            ),
            (
                "acceleration",
                self.acceleration,
                open(0.0, 100.0, self.acceleration),
            ),
            (
                "lookahead_base",
                self.lookahead_base,
                open(0.0, 1000.0, self.lookahead_base),
            ),
            (
                "lookahead_time",
                self.lookahead_time,
                (0.0..=10.0).contains(&self.lookahead_time),
            ),
            (
                "top_speed",
                self.top_speed,
                open(0.0, 1000.0, self.top_speed),
            ),
        ] {
            if !ok {
                return Err(CoreError::InvalidArgument {
                    what: "driver style",
                    reason: format!("{what} is out of range: {v}"),
                });
            }
        }
        if let Some(craft) = self.racecraft {
            craft.validated()?;
        }
        if let Some(t) = self.resets_after
            && !(t > 0.0 && t <= 3600.0)
        {
            return Err(CoreError::InvalidArgument {
                what: "driver style",
                reason: format!("resets_after is out of range (0, 3600] s: {t}"),
            });
        }
        Ok(self)
    }
}

/// A driver that laps a track.
#[derive(Clone, Debug)]
pub struct AiDriver {
    track: Arc<Track>,
    style: DriverStyle,
    /// Target speed at each track point, m/s.
    speed_profile: Vec<f64>,
    /// Highest brake pedal that does not lock the wheels at static load.
    brake_limit: f64,
    /// The lateral acceleration the profile corners at, m/s².
    cornering: f64,
    /// The tires' peak lateral acceleration, m/s² (the lesser axle's).
    peak_lateral: f64,
}

impl AiDriver {
    /// A driver for this car on this track; the style is validated.
    pub fn new(track: Arc<Track>, def: &CarDefinition, style: DriverStyle) -> Result<Self> {
        let style = style.validated()?;
        let grip = def.tires.front.pdy1.min(def.tires.rear.pdy1);
        let mut lateral = style.cornering_grip * grip * STANDARD_GRAVITY;
        let mut braking = style.braking_grip * grip * STANDARD_GRAVITY;
        if let Some(craft) = style.racecraft {
            lateral *= craft.pace;
            braking *= craft.pace;
        }
        let speed_profile = speed_profile(
            &track,
            lateral,
            braking,
            style.acceleration,
            style.top_speed,
        );
        Ok(AiDriver {
            track,
            style,
            speed_profile,
            brake_limit: brake_limit(def),
            cornering: lateral,
            peak_lateral: grip * STANDARD_GRAVITY,
        })
    }

    /// The track being driven.
    #[must_use]
    pub fn track(&self) -> &Arc<Track> {
        &self.track
    }

    /// How this driver drives (validated).
    #[must_use]
    pub fn style(&self) -> &DriverStyle {
        &self.style
    }

    /// Target speed at each track point, m/s.
    #[must_use]
    pub fn speed_profile(&self) -> &[f64] {
        &self.speed_profile
    }

    /// How long the car may be stuck before the driver resets it, s.
    #[must_use]
    pub fn resets_after(&self) -> Option<f64> {
        self.style.resets_after
    }

    /// Where the driver puts a stuck car at `position`:
    /// [`Track::rejoin_point`] on its track.
    #[must_use]
    pub fn reset_point(&self, position: DVec2) -> (DVec2, f64) {
        self.track.rejoin_point(position)
    }

    /// Whether this driver races the other cars (and so needs the world's
    /// traffic snapshot).
    #[must_use]
    pub fn races_traffic(&self) -> bool {
        self.style.racecraft.is_some()
    }

    /// The input for the car's current state; `traffic` is the world's
    /// snapshot and this car's entry in it (read only with racecraft).
    pub(crate) fn drive(
        &self,
        def: &CarDefinition,
        state: &CarState,
        traffic: Option<(&TrafficCar, &[TrafficCar])>,
    ) -> CarInput {
        let position = DVec2::new(state.position.x, state.position.y);
        let heading = planar_heading(state.orientation);
        let speed = DVec2::new(state.velocity.x, state.velocity.y).dot(heading);
        // The world's traffic snapshot already located this car on this
        // track (the same call on the same position).
        let here = match traffic.and_then(|(me, _)| me.on_track) {
            Some(here) => here,
            None => self.track.locate(position),
        };
        if self.style.backs_out
            && let Some(back_out) = self.back_out(heading, speed, &here)
        {
            return back_out;
        }

        // Pure pursuit: the arc through the target point has curvature
        // 2·sin(α)/L, which the steered axle meets at angle atan(wheelbase·k).
        let lookahead = self.style.lookahead_base + self.style.lookahead_time * speed.max(0.0);
        let (mut target, along) = self
            .track
            .point_at_from(here.distance + lookahead, here.segment);
        // Aim for the middle of the road, which an imported centre line
        // need not follow (a centred one leaves the target as it is).
        let middle = self
            .track
            .edges_along(here.distance + lookahead, here.segment)
            .middle();
        if middle != 0.0 {
            target += along.perp() * middle;
        }
        // Speed: hold the lowest profile speed over the next stretch the
        // pedals need to act (their lag, plus the look-ahead's bias).
        let mut target_speed = self.profile_min(&here, 3.0 + speed.max(0.0) * 0.4);
        if let Some(cap) = self.running_wide(&here, state, speed) {
            target_speed = target_speed.min(cap);
        }
        if let (Some(craft), Some((me, all))) = (&self.style.racecraft, traffic) {
            let advice = Surroundings::of(me, all, self.track.length()).advise(
                craft,
                me,
                here.offset,
                speed,
                target_speed,
                {
                    let edges = self.track.edges(&here);
                    edges.left.min(edges.right)
                },
            );
            target += along.perp() * advice.offset;
            target_speed = target_speed.min(advice.speed_cap);
        }
        let to_target = target - position;
        // sin α = (heading × to_target)/|to_target| for a unit heading, so
        // no angle is taken.
        let distance = to_target.norm();
        let sin_alpha = if distance > 0.0 {
            heading.perp_dot(to_target) / distance
        } else {
            0.0
        };
        let curvature = 2.0 * sin_alpha / distance.max(1.0);
        // Pure pursuit asks for the arc's curvature as if the tires did
        // not slip; a car cornering hard turns less than its wheels point
        // (understeer), and a long look-ahead only corrects that once the
        // car is metres wide. The shortfall between the curvature asked
        // for and the one the car follows (yaw rate over speed) is added
        // to the steer.
        let followed = if speed > CURVATURE_FEEDBACK_SPEED {
            state.angular_velocity.z / speed
        } else {
            curvature
        };
        let asked = curvature + CURVATURE_FEEDBACK * (curvature - followed);
        let road_wheel = math::atan(def.chassis.wheelbase * asked);
        let steer = (-road_wheel / def.steering.max_angle).clamp(-1.0, 1.0);

        let error = target_speed - speed;
        let (throttle, brake) = if error >= -0.3 {
            let wanted = (0.4 + 0.6 * error).clamp(0.0, 1.0);
            (wanted * self.traction_factor(def, state, speed), 0.0)
        } else {
            (0.0, (-(error + 0.3) * 0.4).clamp(0.0, self.brake_limit))
        };
        let gear = match def.gearbox.mode {
            ShiftMode::Automatic => 0.0,
            ShiftMode::Manual => {
                let carrier = differential::input_speed(def, &state.wheel_omega);
                let radius = def.wheels.get(def.drive == DriveLayout::Fwd).radius;
                let ground = speed / radius;
                f64::from(gearbox::scheduled_gear(
                    def,
                    state.gear.max(1),
                    throttle,
                    carrier,
                    ground,
                ))
            }
        };
        CarInput {
            steer,
            throttle,
            brake,
            handbrake: 0.0,
            clutch: 0.0,
            gear,
        }
    }

    /// Reverses out when the car has come to rest off the road with its nose
    /// pointing away from the road by more than 30° (into a barrier after a
    /// spin or a push) or facing against the track's direction by more than
    /// 120°, at full lock so the nose swings back towards the track's
    /// direction; `None` otherwise. It keeps reversing (braking above
    /// 3 m/s) while it moves backwards and stops once neither holds, so it
    /// needs no memory (the driver has no state). A car on the road, or off
    /// it but pointing back towards it, drives on.
    fn back_out(&self, heading: DVec2, speed: f64, here: &TrackPosition) -> Option<CarInput> {
        if here.offset.abs() <= self.track.edges(here).toward(here.offset)
            || speed >= BACK_OUT_SPEED
        {
            return None;
        }
        let (_, along) = self.track.point_at_from(here.distance, here.segment);
        // Away from the road: the left normal on the left of the centre
        // line, the right one on the right.
        let outward = along.perp() * here.offset.signum();
        let facing_out = heading.dot(outward) > BACK_OUT_SIN;
        let wrong_way = heading.dot(along) < BACK_OUT_WRONG_WAY_COS;
        if !(facing_out || wrong_way) {
            return None;
        }
        // Reversing with the wheels to the right turns the nose left: steer
        // to the side opposite the one the track's direction lies on
        // (negative steer is left, as in `drive`).
        let left_of_heading = heading.perp_dot(along) > 0.0;
        let reversing_too_fast = speed < -BACK_OUT_MAX_REVERSE;
        Some(CarInput {
            steer: if left_of_heading { 1.0 } else { -1.0 },
            throttle: if reversing_too_fast {
                0.0
            } else {
                BACK_OUT_THROTTLE
            },
            brake: if reversing_too_fast { 1.0 } else { 0.0 },
            handbrake: 0.0,
            clutch: 0.0,
            gear: -1.0,
        })
    }

    /// Eases off the throttle when the driven wheels spin or the car slides,
    /// as a driver would: 1 with grip, falling to 0 as slip grows.
    fn traction_factor(&self, def: &CarDefinition, state: &CarState, speed: f64) -> f64 {
        let driven = def.drive.driven_wheels();
        let reference = speed.abs().max(3.0);
        let worst_slip = driven
            .iter()
            .map(|&i| {
                let radius = def.wheels.get(i < 2).radius;
                (state.wheel_omega[i] * radius - speed) / reference
            })
            .fold(0.0_f64, f64::max);
        let body = state.orientation.inverse() * state.velocity;
        let slide = if body.x > 3.0 {
            math::atan(body.y.abs() / body.x)
        } else {
            0.0
        };
        let from_slip = ((0.25 - worst_slip) / 0.15).clamp(0.0, 1.0);
        let from_slide = ((0.12 - slide) / 0.06).clamp(0.0, 1.0);
        // The friction circle: a car cornering near its tires' peak has no
        // grip left to put power down (a front-driven car's fronts push it
        // wide), so the throttle fades from 70 % to 90 % of the peak.
        let cornering = (state.angular_velocity.z * speed).abs() / self.peak_lateral;
        let from_cornering = ((0.9 - cornering) / 0.2).clamp(0.0, 1.0);
        from_slip.min(from_slide).min(from_cornering)
    }

    /// The speed to ease to when the car is running wide: on the outside
    /// of a bend within `WIDE_ROOM` of the track limit (the road's edge
    /// plus a kerb, `RaceRules`' default) it is not turning as tightly as
    /// the road, whatever the profile planned (a locked axle, a line left
    /// to pass, a push). Lifting, then braking lightly as the room closes,
    /// tightens its turn and keeps its lap valid; never below the speed
    /// at which the bend takes half the profile's cornering, so a car that
    /// is off the road drives back instead of stopping. `None` when it has
    /// room.
    fn running_wide(&self, here: &TrackPosition, state: &CarState, speed: f64) -> Option<f64> {
        let bend = self.track.curvature()[here.segment];
        // Where the car will be across the road in `WIDE_HORIZON`, at its
        // present sideways speed.
        let (_, along) = self.track.point_at_from(here.distance, here.segment);
        let sideways = DVec2::new(state.velocity.x, state.velocity.y).dot(along.perp());
        let offset = here.offset + sideways * WIDE_HORIZON;
        // On the outside: the offset (positive left) and the bend's side
        // (positive curvature turns left) differ.
        if bend.abs() < 1e-3 || offset * bend >= 0.0 {
            return None;
        }
        let limit = self.track.edges(here).toward(offset) + crate::KERB_WIDTH;
        let room = limit - offset.abs();
        if room >= WIDE_ROOM {
            return None;
        }
        let closed = (1.0 - room / WIDE_ROOM).min(1.0);
        let floor = (0.5 * self.cornering / bend.abs()).sqrt();
        Some((speed * (1.0 - WIDE_EASE * closed) - 0.3).max(floor))
    }

    /// Lowest profile speed from `here` over the next `ahead` metres.
    fn profile_min(&self, here: &TrackPosition, ahead: f64) -> f64 {
        let length = self.track.length();
        let d = self.track.distances();
        let n = d.len();
        let s = self.track.wrap(here.distance);
        let mut i = self.track.segment_at(s, Some(here.segment));
        let mut lowest = self.speed_profile[i];
        let mut covered = 0.0;
        while covered < ahead {
            let j = (i + 1) % n;
            covered += if j == 0 { length - d[i] } else { d[j] - d[i] };
            lowest = lowest.min(self.speed_profile[j]);
            i = j;
        }
        lowest
    }
}

/// Cornering limit, then braking (backward) and acceleration (forward)
/// passes. Two laps of each pass let the limits wrap across the start.
fn speed_profile(track: &Track, lateral: f64, braking: f64, accel: f64, top: f64) -> Vec<f64> {
    let k = track.curvature();
    let d = track.distances();
    let n = k.len();
    let mut v: Vec<f64> = k
        .iter()
        .map(|k| {
            if k.abs() > 1e-9 {
                (lateral / k.abs()).sqrt().min(top)
            } else {
                top
            }
        })
        .collect();
    let gap = |i: usize| {
        let j = (i + 1) % n;
        if j == 0 {
            track.length() - d[i]
        } else {
            d[j] - d[i]
        }
    };
    for _ in 0..2 {
        for i in (0..n).rev() {
            let next = v[(i + 1) % n];
            v[i] = v[i].min((next * next + 2.0 * braking * gap(i)).sqrt());
        }
    }
    for _ in 0..2 {
        for i in 0..n {
            let j = (i + 1) % n;
            v[j] = v[j].min((v[i] * v[i] + 2.0 * accel * gap(i)).sqrt());
        }
    }
    v
}

/// Pedal fraction at which the first axle would lock under static load and
/// a typical braking load transfer, with a 15 % margin.
fn brake_limit(def: &CarDefinition) -> f64 {
    let b = &def.brakes;
    if b.max_torque <= 0.0 {
        return 0.0;
    }
    let transfer =
        def.chassis.mass * 0.6 * STANDARD_GRAVITY * def.chassis.cg_height / def.chassis.wheelbase;
    let mut limit: f64 = 1.0;
    for (front, share) in [(true, b.front_bias), (false, 1.0 - b.front_bias)] {
        if share <= 0.0 {
            continue;
        }
        let load = def.static_axle_load(front) + if front { transfer } else { -transfer };
        let tire = def.tires.get(front);
        let lock_torque = tire.pdx1 * load.max(0.0) * def.wheels.get(front).radius;
        limit = limit.min(0.85 * lock_torque / (b.max_torque * share));
    }
    limit.clamp(0.05, 1.0)
}
