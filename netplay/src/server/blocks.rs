//! The blocks every player's frame shares: the cars block, and a tick's
//! events (car–car contacts by seat pair, once per episode of touching;
//! the laps the race layer timed).

use std::collections::BTreeMap;

use skidpad_core::race::RaceEvent;
use skidpad_core::{CarId, Contact};

use super::RaceServer;
use crate::error::{NetError, Result};
use crate::frame::{Block, Value};
use crate::race_schema::{CarRow, flags};

impl RaceServer {
    pub(super) fn seat_of_car(&self, car: CarId) -> Option<u8> {
        self.seats
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.car == car))
            .and_then(|i| u8::try_from(i).ok())
    }

    /// The step just taken's contacts, laps and finishes, as events.
    pub(super) fn collect_events(&mut self) -> skidpad_core::Result<()> {
        // This tick's car–car contacts by seat pair, the strongest of a
        // pair's contact points (two body corners can touch at once).
        let mut now: BTreeMap<(u8, u8), &Contact> = BTreeMap::new();
        for c in self.world.contacts() {
            let (Some(a), Some(b)) = (
                self.seat_of_car(c.first),
                c.second.and_then(|s| self.seat_of_car(s)),
            ) else {
                continue;
            };
            let strongest = now.entry((a.min(b), a.max(b))).or_insert(c);
            if c.impulse > strongest.impulse {
                *strongest = c;
            }
        }
        let f = |v: f64| Value::F32(v as f32);
        for (&(a, b), c) in &now {
            if self.touching.contains(&(a, b)) {
                continue;
            }
            self.stats.contacts += 1;
            self.contacts.push(vec![
                Value::U8(a),
                Value::U8(b),
                f(c.impulse),
                f(c.point.x),
                f(c.point.y),
                f(c.point.z),
            ]);
        }
        self.touching = now.into_keys().collect();
        for event in self.timing.after_step(&self.world)? {
            if let RaceEvent::Lap { car, lap } = event
                && let Some(seat) = self.seat_of_car(car)
            {
                self.laps.push(vec![
                    Value::U8(seat),
                    Value::U16(u16::try_from(lap.number).unwrap_or(u16::MAX)),
                    Value::U32(libm::round(lap.time() * 1000.0) as u32),
                    Value::U8(u8::from(lap.is_valid())),
                ]);
            }
        }
        Ok(())
    }

    /// The cars block: every seated car, and hasData 0 for those gone.
    pub(super) fn cars_block(&self) -> Result<Block> {
        let mut rows = Vec::new();
        // The standings once a frame, not once a car (they sort the field).
        let finished: Vec<CarId> = self
            .timing
            .standings()
            .into_iter()
            .filter(|s| matches!(s.status, skidpad_core::race::CarStatus::Finished(_)))
            .map(|s| s.car)
            .collect();
        for (index, seat) in self.seats.iter().enumerate() {
            let Some(seat) = seat else { continue };
            let core = |e: skidpad_core::CoreError| NetError::Refused {
                reason: e.to_string(),
            };
            let car = seat.car;
            let finished = finished.contains(&car);
            let mut bits = 0;
            if self.world.input(car).map_err(core)?.brake > 0.05 {
                bits |= flags::BRAKING;
            }
            if finished {
                bits |= flags::FINISHED;
            }
            let row = CarRow {
                pose: self.world.pose(car).map_err(core)?,
                rpm: self.world.channel(car, "engine_rpm").map_err(core)?,
                gear: self.world.channel(car, "gear").map_err(core)? as i32,
                lap: self.timing.laps(car).map_or(0, |l| l.len() as u32),
                flags: bits,
            };
            rows.push((index as u32, Some(row.to_row())));
        }
        rows.extend(self.gone.iter().map(|&s| (u32::from(s), None)));
        Ok(Block::Indexed(rows))
    }
}
