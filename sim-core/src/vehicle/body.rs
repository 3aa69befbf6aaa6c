//! The box a car's body fills, for car-to-car contact: derived from the
//! definition's geometry (no extra data), the same box the web viewer
//! draws.

use glam::DVec3;

use crate::vehicle::definition::CarDefinition;

/// How far the body reaches beyond each wheel, m.
const OVERHANG: f64 = 0.25;
/// How far the body reaches beyond the wider track's wheel centres, m.
const SIDE: f64 = 0.1;
/// Ground clearance of the body's floor, m.
const CLEARANCE: f64 = 0.1;

/// An axis-aligned box in the body frame (origin at the centre of mass,
/// x forward, y left, z up).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BodyBox {
    /// Centre of the box, body frame, m.
    pub centre: DVec3,
    /// Half the box's length, width and height, m.
    pub half: DVec3,
}

impl BodyBox {
    pub(crate) fn of(def: &CarDefinition) -> BodyBox {
        let c = &def.chassis;
        let (front_r, rear_r) = (def.wheels.front.radius, def.wheels.rear.radius);
        let front = c.cg_to_front_axle + front_r + OVERHANG;
        let rear = c.cg_to_front_axle - c.wheelbase - rear_r - OVERHANG;
        let half_width = c.track.front.max(c.track.rear) / 2.0 + SIDE;
        let floor = CLEARANCE - c.cg_height;
        // As tall as the viewer's body and cabin.
        let top = front_r - c.cg_height + 0.05 + 1.8 * (0.9 * c.cg_height).max(0.35);
        BodyBox {
            centre: DVec3::new((front + rear) / 2.0, 0.0, (floor + top) / 2.0),
            half: DVec3::new((front - rear) / 2.0, half_width, (top - floor) / 2.0),
        }
    }
}
