//! The player's cache of intermediate snapshots, for seeks that land
//! between keyframes without re-simulating from the keyframe.

use std::collections::BTreeMap;

/// Default memory budget of the cache.
pub const DEFAULT_CACHE_BUDGET: usize = 64 << 20;

/// Snapshots of every car, and the game's state, at one step.
#[derive(Clone, Debug)]
pub(crate) struct CachedPoint {
    pub snapshots: Vec<Vec<u8>>,
    pub game_state: Vec<u8>,
}

impl CachedPoint {
    fn bytes(&self) -> usize {
        // Vec headers included: what the entry really costs.
        self.snapshots.iter().map(|s| s.len() + 24).sum::<usize>() + self.game_state.len() + 64
    }
}

/// Points every `interval` steps, within a byte budget. The interval is
/// the smallest power of two (at least 4) for which points over the whole
/// replay fit the budget, so normally nothing is ever evicted; if game
/// state grows past the estimate, the points farthest from the play
/// position go first.
#[derive(Clone, Debug)]
pub(crate) struct SnapshotCache {
    interval: u64,
    budget: usize,
    used: usize,
    points: BTreeMap<u64, CachedPoint>,
}

impl SnapshotCache {
    pub(crate) fn new(budget: usize, steps: u64, point_bytes: usize) -> Self {
        let mut interval = 4_u64;
        while interval < steps.max(1)
            && (steps / interval + 1).saturating_mul(point_bytes as u64) > budget as u64
        {
            interval *= 2;
        }
        SnapshotCache {
            interval,
            budget,
            used: 0,
            points: BTreeMap::new(),
        }
    }

    pub(crate) fn interval(&self) -> u64 {
        self.interval
    }

    pub(crate) fn wants(&self, step: u64) -> bool {
        self.budget > 0 && step.is_multiple_of(self.interval) && !self.points.contains_key(&step)
    }

    pub(crate) fn insert(&mut self, step: u64, point: CachedPoint) {
        let size = point.bytes();
        if size > self.budget {
            return;
        }
        while self.used + size > self.budget {
            // Evict the point farthest from the one being added.
            let first = self.points.keys().next().copied();
            let last = self.points.keys().next_back().copied();
            let victim = match (first, last) {
                (Some(a), Some(b)) => {
                    if step.abs_diff(a) >= step.abs_diff(b) {
                        a
                    } else {
                        b
                    }
                }
                _ => return,
            };
            if let Some(old) = self.points.remove(&victim) {
                self.used -= old.bytes();
            }
        }
        self.used += size;
        self.points.insert(step, point);
    }

    /// The latest point at or before `step`.
    pub(crate) fn at_or_before(&self, step: u64) -> Option<(u64, &CachedPoint)> {
        self.points.range(..=step).next_back().map(|(&s, p)| (s, p))
    }

    pub(crate) fn used_bytes(&self) -> usize {
        self.used
    }

    pub(crate) fn len(&self) -> usize {
        self.points.len()
    }
}
