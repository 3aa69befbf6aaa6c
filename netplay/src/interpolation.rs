//! The client's interpolation buffer (seed 001, "Интерполяция"): remote
//! entities are drawn at server time − delay, each f32 field of a hot block
//! by its schema interpolation, everything else as the older frame has it.
//!
//! The buffer keeps, for each frame, the hot state *after* that frame:
//! a frame may carry only the entities that changed, and a row with
//! hasData 0 removes its entity. An entity is drawn from the frame it first
//! appears in; one removed stays drawn until the removing frame's time.

use std::collections::{BTreeMap, VecDeque};

use skidpad_core::lerp_angle;

use crate::frame::{Block, Frame, Row, Value};
use crate::schema::{BlockClass, Interp, Schema};

/// How far behind the server the client draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InterpolationSettings {
    /// Drawn time = server time − this, ms. 100 ms at 30 frames a second
    /// keeps about three frames in hand.
    pub delay_ms: f64,
    /// Frames older than this behind the newest are dropped, ms.
    pub max_frame_age_ms: f64,
}

impl Default for InterpolationSettings {
    /// The seed's client defaults: 100 ms and 1 000 ms.
    fn default() -> Self {
        InterpolationSettings {
            delay_ms: 100.0,
            max_frame_age_ms: 1000.0,
        }
    }
}

/// An entity of a hot block: key byte and id (or slot, or list position).
pub type EntityKey = (u8, u32);

/// Hot state after one frame.
#[derive(Clone, Debug)]
struct Shot {
    time_ms: f64,
    entities: BTreeMap<EntityKey, Row>,
}

/// Frames in hand and the state they describe.
#[derive(Clone, Debug)]
pub struct Interpolator {
    schema: Schema,
    settings: InterpolationSettings,
    shots: VecDeque<Shot>,
}

impl Interpolator {
    /// An empty buffer for frames of `schema`.
    #[must_use]
    pub fn new(schema: Schema, settings: InterpolationSettings) -> Interpolator {
        Interpolator {
            schema,
            settings,
            shots: VecDeque::new(),
        }
    }

    /// The first shot (seed 001, port 4): it bypasses the buffer, so what
    /// was in hand is dropped and the frame is drawn at once.
    pub fn first_shot(&mut self, frame: &Frame) {
        self.shots.clear();
        let entities = self.apply(BTreeMap::new(), frame);
        self.shots.push_back(Shot {
            time_ms: f64::from(frame.server_time_ms),
            entities,
        });
    }

    /// Adds a frame. A frame not newer than the newest in hand arrived out
    /// of order and is ignored (returns false): its state is already
    /// superseded.
    pub fn push(&mut self, frame: &Frame) -> bool {
        let time_ms = f64::from(frame.server_time_ms);
        let base = match self.shots.back() {
            Some(last) if time_ms <= last.time_ms => return false,
            Some(last) => last.entities.clone(),
            None => BTreeMap::new(),
        };
        let entities = self.apply(base, frame);
        self.shots.push_back(Shot { time_ms, entities });
        let oldest_kept = time_ms - self.settings.max_frame_age_ms;
        while self.shots.len() > 1 && self.shots[0].time_ms < oldest_kept {
            self.shots.pop_front();
        }
        true
    }

    /// The delay and frame age it draws with.
    #[must_use]
    pub fn settings(&self) -> InterpolationSettings {
        self.settings
    }

    /// Frames in hand.
    #[must_use]
    pub fn len(&self) -> usize {
        self.shots.len()
    }

    /// True before the first frame.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.shots.is_empty()
    }

    /// The hot entities as drawn at server time `server_now_ms`, i.e. at
    /// `server_now_ms − delay`. Before the oldest frame in hand it shows
    /// that frame, after the newest it holds the newest (no extrapolation).
    #[must_use]
    pub fn sample(&self, server_now_ms: f64) -> BTreeMap<EntityKey, Row> {
        let t = server_now_ms - self.settings.delay_ms;
        let Some(newer_at) = self.shots.iter().position(|s| s.time_ms > t) else {
            return self
                .shots
                .back()
                .map(|s| s.entities.clone())
                .unwrap_or_default();
        };
        if newer_at == 0 {
            return self.shots[0].entities.clone();
        }
        let (a, b) = (&self.shots[newer_at - 1], &self.shots[newer_at]);
        let alpha = (t - a.time_ms) / (b.time_ms - a.time_ms);
        a.entities
            .iter()
            .map(|(key, old)| {
                let row = match b.entities.get(key) {
                    Some(new) => self.blend(key.0, old, new, alpha),
                    None => old.clone(),
                };
                (*key, row)
            })
            .collect()
    }

    fn blend(&self, key: u8, old: &Row, new: &Row, alpha: f64) -> Row {
        let Some(spec) = self.schema.by_id(key) else {
            return old.clone();
        };
        spec.fields
            .iter()
            .zip(old.iter().zip(new))
            .map(|(field, (a, b))| match (field.interp, *a, *b) {
                (Interp::Lerp, Value::F32(a), Value::F32(b)) => {
                    Value::F32(lerp(f64::from(a), f64::from(b), alpha) as f32)
                }
                (Interp::LerpAngle, Value::F32(a), Value::F32(b)) => {
                    Value::F32(lerp_angle(a, b, alpha as f32))
                }
                _ => *a,
            })
            .collect()
    }

    /// `base` with the frame's hot blocks applied.
    fn apply(&self, mut base: BTreeMap<EntityKey, Row>, frame: &Frame) -> BTreeMap<EntityKey, Row> {
        for (key, block) in &frame.blocks {
            let Some(spec) = self.schema.by_id(*key) else {
                continue;
            };
            if spec.class != BlockClass::Hot {
                continue;
            }
            match block {
                Block::Indexed(rows) => {
                    for (id, row) in rows {
                        match row {
                            Some(row) => base.insert((*key, *id), row.clone()),
                            None => base.remove(&(*key, *id)),
                        };
                    }
                }
                Block::Slots(rows) => {
                    for (index, row) in rows {
                        base.insert((*key, u32::from(*index)), row.clone());
                    }
                }
                Block::List(rows) => {
                    // An anonymous hot list has no identity across frames:
                    // each frame's list replaces the last.
                    base.retain(|(k, _), _| k != key);
                    for (i, row) in rows.iter().enumerate() {
                        base.insert((*key, i as u32), row.clone());
                    }
                }
            }
        }
        base
    }
}

fn lerp(a: f64, b: f64, alpha: f64) -> f64 {
    a + (b - a) * alpha
}
