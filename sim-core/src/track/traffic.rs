//! What a racing driver sees of the other cars, and what it does about
//! them (racecraft): keep a gap to the car ahead and brake for it, pass
//! it on the side with room, and give room to a car alongside.
//!
//! The world takes one snapshot of every car before a step ([`TrafficCar`],
//! in id order) and every driver reads the same snapshot, so a driver's
//! output is a function of the world's state at the step's start alone:
//! the same on one thread or many, and the same when a recording is made
//! again. A driven car's snapshot holds where it is on its driver's track
//! (found once per step, and used by its own driver too), so a driver
//! sees another driven car along the track: ahead round a bend is ahead.
//! A car without a driver is seen in the driver's own frame (x ahead
//! along its heading, y to its left).

use glam::DVec2;

use crate::CarId;
use crate::track::TrackPosition;
use crate::{CoreError, Result};

/// One car as the others see it at the start of a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrafficCar {
    /// Whose.
    pub id: CarId,
    /// Centre of mass, world x–y, m.
    pub position: DVec2,
    /// Velocity, world x–y, m/s.
    pub velocity: DVec2,
    /// Unit heading, world x–y.
    pub heading: DVec2,
    /// Half the body's length, m.
    pub half_length: f64,
    /// Half the body's width, m.
    pub half_width: f64,
    /// Where it is on its driver's track (`None` for a car without a
    /// driver).
    pub on_track: Option<TrackPosition>,
}

/// How a driver races other cars; each field is a skill a field of
/// drivers can differ in (`Racecraft::varied` draws them from a seed).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Racecraft {
    /// Time gap kept to the car ahead, s (plus 2.5 m): smaller is
    /// more aggressive.
    pub headway: f64,
    /// How far the driver's line sits from the centre line, m (positive:
    /// left): drivers who differ here spread across the road instead of
    /// queueing on one line.
    pub line_offset: f64,
    /// Fraction of the cornering and braking grip the style asks for
    /// that this driver uses, in (0, 1]: its pace and braking point.
    pub pace: f64,
}

impl Default for Racecraft {
    /// A careful driver: 0.8 s behind the car ahead, on the centre line,
    /// at the style's full pace.
    fn default() -> Self {
        Racecraft {
            headway: 0.8,
            line_offset: 0.0,
            pace: 1.0,
        }
    }
}

/// Gap kept at a standstill, m, bumper to bumper.
const MIN_GAP: f64 = 2.5;
/// Deceleration a follower plans with, m/s²: well inside what the AI's
/// braking grip gives.
const FOLLOW_BRAKING: f64 = 5.0;
/// Deceleration a follower allows the car ahead, m/s²: a full stop on
/// dry asphalt (or a car ahead that crashes). A follower that assumed
/// the car ahead keeps its speed ran into it whenever it braked hard
/// (simulation versions 10 and 11).
const LEAD_BRAKING: f64 = 10.0;
/// Time over which a follower closes the gap to the one it keeps, s.
const FOLLOW_TIME: f64 = 2.0;
/// Cars further than this (m, centre to centre) are not looked at.
const HORIZON: f64 = 60.0;
/// Lateral room kept beside another car's body, m: a car at the limit
/// wanders more than half a metre off its line (0.6 until simulation
/// version 11 left half the hard contacts side by side).
const SIDE_ROOM: f64 = 1.3;
/// A car ahead slower than the driver's target by this much (m/s) is
/// passed rather than followed.
const PASS_MARGIN: f64 = 2.0;
/// A pass needs its corridor free of other cars from this far behind the
/// driver (m, beyond the bodies' lengths)…
const PASS_BEHIND: f64 = 5.0;
/// …to this far past the car being passed, m.
const PASS_AHEAD: f64 = 15.0;
/// A car merging back after a pass (or drifting to its line) waits until
/// the car it passed is this far behind, m, beyond the bodies' lengths.
const MERGE_CLEAR: f64 = 8.0;
/// Longest reach of the pass and give-room offsets from the centre line,
/// as a fraction of the half road width minus the car's half width.
const OFFSET_REACH: f64 = 0.9;

impl Racecraft {
    /// The racecraft, or an error naming the first field out of range:
    /// headway in [0.2, 5] s, line offset within ±10 m, pace in (0.5, 1].
    pub fn validated(self) -> Result<Self> {
        let bad = |what: &str, v: f64| {
            Err(CoreError::InvalidArgument {
                what: "racecraft",
                reason: format!("{what} is out of range: {v}"),
            })
        };
        if !(0.2..=5.0).contains(&self.headway) {
            return bad("headway", self.headway);
        }
        if !(-10.0..=10.0).contains(&self.line_offset) {
            return bad("line_offset", self.line_offset);
        }
        if !(self.pace > 0.5 && self.pace <= 1.0) {
            return bad("pace", self.pace);
        }
        Ok(self)
    }

    /// A driver of a field whose skills differ, drawn from `seed` and the
    /// driver's index alone (a field raced again with the same seed races
    /// the same): headway 0.5 to 1.1 s, line ±1 m, pace 0.94 to 1.0.
    #[must_use]
    pub fn varied(seed: u64, driver: u64) -> Racecraft {
        let mut state = seed ^ driver.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut unit = || {
            // splitmix64: an integer hash, the same on every target.
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 11) as f64 / (1u64 << 53) as f64
        };
        Racecraft {
            headway: 0.5 + 0.6 * unit(),
            line_offset: 2.0 * unit() - 1.0,
            pace: 0.94 + 0.06 * unit(),
        }
    }
}

/// What traffic asks of a driver this step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TrafficAdvice {
    /// Highest speed the gap to the car ahead allows, m/s (infinite with
    /// nothing ahead).
    pub speed_cap: f64,
    /// Lateral offset from the centre line to drive at, m.
    pub offset: f64,
}

/// Most neighbours a driver keeps track of (the nearest; a pass needs
/// only the few around it).
const MAX_NEIGHBOURS: usize = 8;

/// Another car as a driver sees it: ahead along the track (or its
/// heading) `x`, to its left `y`, centre to centre.
#[derive(Clone, Copy, Debug)]
struct Neighbour {
    id: CarId,
    x: f64,
    y: f64,
    /// Its and the driver's half lengths added.
    lengths: f64,
    /// Its and the driver's half widths added.
    widths: f64,
}

/// A driver's view of the snapshot: the nearest cars, the car ahead in
/// its lane, a car alongside to give room to.
pub(crate) struct Surroundings {
    /// The nearest neighbours by centre distance, at most
    /// [`MAX_NEIGHBOURS`], nearest first.
    near: [Option<(f64, Neighbour)>; MAX_NEIGHBOURS],
    /// The nearest car ahead whose body overlaps the driver's lane:
    /// (bumper-to-bumper gap m, its speed along the driver's heading m/s,
    /// its lateral position m, its id).
    ahead: Option<(f64, f64, f64, CarId)>,
    /// The nearest car alongside (overlapping lengthwise): its lateral
    /// position, m.
    alongside: Option<f64>,
}

impl Surroundings {
    /// Looks at every other car of `traffic` from `me`'s seat, on a
    /// track of `lap` m.
    pub(crate) fn of(me: &TrafficCar, traffic: &[TrafficCar], lap: f64) -> Surroundings {
        let (forward, left) = (me.heading, me.heading.perp());
        let mut ahead: Option<(f64, f64, f64, CarId)> = None;
        let mut alongside: Option<(f64, f64)> = None;
        let mut near = [None; MAX_NEIGHBOURS];
        for other in traffic {
            if other.id == me.id {
                continue;
            }
            let d = other.position - me.position;
            if d.length_squared() > HORIZON * HORIZON {
                continue;
            }
            // Along the track and across it when both are on it; else in
            // the driver's frame.
            let (x, y) = match (me.on_track, other.on_track) {
                (Some(mine), Some(theirs)) => {
                    let mut along = theirs.distance - mine.distance;
                    if along > lap / 2.0 {
                        along -= lap;
                    } else if along < -lap / 2.0 {
                        along += lap;
                    }
                    (along, theirs.offset - mine.offset)
                }
                _ => (d.dot(forward), d.dot(left)),
            };
            let lengths = me.half_length + other.half_length;
            let widths = me.half_width + other.half_width;
            let speed = other.velocity.dot(forward);
            // Kept sorted by distance; ties keep the earlier id.
            let mut entry = Some((
                d.length_squared(),
                Neighbour {
                    id: other.id,
                    x,
                    y,
                    lengths,
                    widths,
                },
            ));
            for slot in &mut near {
                match (slot.as_ref(), entry.as_ref()) {
                    (None, _) => {
                        *slot = entry.take();
                        break;
                    }
                    (Some((kept, _)), Some((new, _))) if new < kept => {
                        std::mem::swap(slot, &mut entry);
                    }
                    _ => {}
                }
            }
            // Ahead in the lane: any car whose centre is ahead and whose
            // body overlaps the lane, even one already overlapping
            // lengthwise (its gap is then zero: back off).
            if x > 0.0 && y.abs() < widths + SIDE_ROOM {
                let gap = (x - lengths).max(0.0);
                if ahead.is_none_or(|(g, _, _, _)| gap < g) {
                    ahead = Some((gap, speed, y, other.id));
                }
            }
            if x.abs() <= lengths && y.abs() < widths + 2.0 * SIDE_ROOM {
                // Ties to the first in id order: the snapshot's order.
                if alongside.is_none_or(|(a, _)| y.abs() < a) {
                    alongside = Some((y.abs(), y));
                }
            }
        }
        Surroundings {
            near,
            ahead,
            alongside: alongside.map(|(_, y)| y),
        }
    }

    /// The advice for a driver at `offset` from the centre line (m,
    /// positive left), going `speed` m/s with `target` m/s wanted, on a
    /// road `half_road` m from the centre line to each edge.
    pub(crate) fn advise(
        &self,
        craft: &Racecraft,
        me: &TrafficCar,
        offset: f64,
        speed: f64,
        target: f64,
        half_road: f64,
    ) -> TrafficAdvice {
        let reach = ((half_road - me.half_width) * OFFSET_REACH).max(0.0);
        let mut line = craft.line_offset.clamp(-reach, reach);
        let mut speed_cap = f64::INFINITY;
        if let Some((gap, their_speed, y, passed)) = self.ahead {
            let wanted_gap = MIN_GAP + craft.headway * speed.max(0.0);
            // Never faster than a speed that stops, braking at
            // FOLLOW_BRAKING, within the room beyond MIN_GAP plus the
            // distance the car ahead needs to stop at LEAD_BRAKING
            // (v²/2a_f ≤ room + v_ahead²/2a_l); and close the gap error
            // over FOLLOW_TIME.
            let room = (gap - MIN_GAP).max(0.0);
            let their = their_speed.max(0.0);
            let stoppable = (2.0 * FOLLOW_BRAKING * room
                + FOLLOW_BRAKING / LEAD_BRAKING * their * their)
                .sqrt();
            let settling = their_speed + (gap - wanted_gap) / FOLLOW_TIME;
            speed_cap = stoppable.min(settling).max(0.0);
            if their_speed + PASS_MARGIN < target {
                // Pass on the side away from it (its offset from the
                // centre line is about ours plus its lateral position),
                // if no other car is in that corridor from just behind
                // to past it.
                let theirs = offset + y;
                let side = if theirs > 0.0 { -1.0 } else { 1.0 };
                let pass_line = side * reach;
                let clear = self.near.iter().flatten().all(|(_, n)| {
                    let in_corridor = (offset + n.y - pass_line).abs() < n.widths + SIDE_ROOM;
                    let beside =
                        n.x > -(n.lengths + PASS_BEHIND) && n.x < gap + n.lengths + PASS_AHEAD;
                    n.id == passed || !(in_corridor && beside)
                });
                if clear {
                    line = pass_line;
                    // Once the car itself is clear of it sideways, the gap
                    // no longer binds.
                    if (offset - theirs).abs() > 2.0 * me.half_width + SIDE_ROOM {
                        speed_cap = f64::INFINITY;
                    }
                }
            }
        }
        // A line change must not sweep across a car beside or just
        // behind: hold the present offset until it has dropped back.
        let (lo, hi) = (offset.min(line), offset.max(line));
        let blocked = self.near.iter().flatten().any(|(_, n)| {
            let theirs = offset + n.y;
            n.x > -(n.lengths + MERGE_CLEAR)
                && n.x <= n.lengths
                && theirs > lo - n.widths - SIDE_ROOM
                && theirs < hi + n.widths + SIDE_ROOM
                && (theirs - offset).abs() >= n.widths
        });
        if blocked {
            line = offset.clamp(-reach, reach);
        }
        if let Some(y) = self.alongside {
            // Away from the car alongside, by the overlap plus room.
            let room = 2.0 * me.half_width + 2.0 * SIDE_ROOM - y.abs();
            if room > 0.0 {
                line = (offset - y.signum() * room).clamp(-reach, reach);
            }
        }
        TrafficAdvice {
            speed_cap,
            offset: line,
        }
    }
}
