//! A link emulator: what a message meets between a client and the server,
//! seeded so that a run repeats. Each direction is its own [`Link`]:
//! latency plus uniform jitter, periodic stalls, delivery in order (as a
//! WebSocket's TCP stream delivers), and a bounded queue, so a test's
//! memory stays bounded whatever a flood sends. No sockets: the in-process
//! tests use it directly and the loopback proxy wraps it around real
//! connections.

use std::collections::VecDeque;

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

/// One direction's behaviour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkModel {
    /// Mean one-way delay, ms.
    pub latency_ms: f64,
    /// Each message's delay is latency ± up to this, uniformly, ms.
    pub jitter_ms: f64,
    /// A stall starts every this many ms (0: never).
    pub stall_every_ms: f64,
    /// A stall holds every message for this long, ms.
    pub stall_ms: f64,
    /// Messages in flight beyond this are dropped, as a full socket buffer
    /// would refuse them.
    pub max_in_flight: usize,
    /// Seed of the delays.
    pub seed: u64,
}

impl Default for LinkModel {
    /// 100 ms ± 20 ms, no stalls, 4 096 messages in flight.
    fn default() -> Self {
        LinkModel {
            latency_ms: 100.0,
            jitter_ms: 20.0,
            stall_every_ms: 0.0,
            stall_ms: 0.0,
            max_in_flight: 4096,
            seed: 1,
        }
    }
}

/// One direction of a link, carrying messages of type `T`.
#[derive(Debug)]
pub struct Link<T> {
    model: LinkModel,
    rng: ChaCha8Rng,
    in_flight: VecDeque<(f64, T)>,
    last_delivery_ms: f64,
    dropped: u64,
}

impl<T> Link<T> {
    /// An empty link.
    #[must_use]
    pub fn new(model: LinkModel) -> Link<T> {
        Link {
            model,
            rng: ChaCha8Rng::seed_from_u64(model.seed),
            in_flight: VecDeque::new(),
            last_delivery_ms: f64::NEG_INFINITY,
            dropped: 0,
        }
    }

    /// Sends `message` at `now_ms`; false when the link is full and drops it.
    pub fn send(&mut self, now_ms: f64, message: T) -> bool {
        if self.in_flight.len() >= self.model.max_in_flight {
            self.dropped += 1;
            return false;
        }
        // Uniform in [−jitter, jitter]: 53 random bits as a fraction.
        let unit = (self.rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
        let jitter = self.model.jitter_ms * (2.0 * unit - 1.0);
        let mut at = now_ms + (self.model.latency_ms + jitter).max(0.0);
        if self.model.stall_every_ms > 0.0 {
            let phase = at % self.model.stall_every_ms;
            if phase < self.model.stall_ms {
                at += self.model.stall_ms - phase;
            }
        }
        // In order: never before the message sent ahead of it.
        at = at.max(self.last_delivery_ms);
        self.last_delivery_ms = at;
        self.in_flight.push_back((at, message));
        true
    }

    /// The next message due by `now_ms`, if any.
    pub fn receive(&mut self, now_ms: f64) -> Option<T> {
        if self.in_flight.front().is_some_and(|(at, _)| *at <= now_ms) {
            self.in_flight.pop_front().map(|(_, m)| m)
        } else {
            None
        }
    }

    /// When the next message is due, ms.
    #[must_use]
    pub fn next_delivery_ms(&self) -> Option<f64> {
        self.in_flight.front().map(|(at, _)| *at)
    }

    /// Messages dropped because the link was full.
    #[must_use]
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Messages in flight.
    #[must_use]
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }
}
