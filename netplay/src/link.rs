//! A link emulator: what a message meets between a client and the server,
//! seeded so that a run repeats. Each direction is its own [`Link`]:
//! latency plus uniform jitter, periodic stalls, losses (made good as TCP
//! makes them good: sent again a retransmission timeout later, with every
//! message behind waiting), delivery in order (as a WebSocket's TCP stream
//! delivers), and a bounded queue, so a test's memory stays bounded
//! whatever a flood sends. No sockets: the in-process
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
    /// Share of sends lost, 0 to 1: a lost message is sent again
    /// `retransmit_ms` later (doubling at each loss of the same message,
    /// as TCP backs off), and in order nothing behind it arrives first.
    pub loss: f64,
    /// The retransmission timeout, ms (Linux's is the smoothed round trip
    /// plus a margin, 200 ms at least).
    pub retransmit_ms: f64,
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
            loss: 0.0,
            retransmit_ms: 200.0,
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
        // No draw without losses, so a lossless link's delays stay the
        // ones its seed always gave.
        if self.model.loss > 0.0 {
            let mut timeout = self.model.retransmit_ms;
            // At most 6 losses in a row (TCP gives up later, after minutes).
            for _ in 0..6 {
                let unit = (self.rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
                if unit >= self.model.loss {
                    break;
                }
                at += timeout;
                timeout *= 2.0;
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Delays of `n` messages sent `every_ms` apart, each taken as soon as
    /// it is due.
    fn delays(model: LinkModel, n: u32, every_ms: f64) -> Vec<f64> {
        let mut link = Link::new(model);
        let mut out = Vec::new();
        let mut take = |link: &mut Link<f64>, until: f64| {
            while let Some(at) = link.next_delivery_ms().filter(|at| *at <= until) {
                let sent = link.receive(at).expect("due");
                out.push(at - sent);
            }
        };
        for i in 0..n {
            let sent = f64::from(i) * every_ms;
            take(&mut link, sent);
            assert!(link.send(sent, sent));
        }
        take(&mut link, f64::INFINITY);
        out
    }

    #[test]
    fn a_lossless_link_keeps_its_seeds_delays() {
        // A lossless link draws nothing for losses, whatever its timeout.
        let other_timeout = LinkModel {
            retransmit_ms: 999.0,
            ..LinkModel::default()
        };
        let plain = delays(LinkModel::default(), 500, 16.0);
        assert_eq!(delays(other_timeout, 500, 16.0), plain);
        assert!(
            plain.iter().all(|d| (80.0..=120.0 + 16.0).contains(d)),
            "{plain:?}"
        );
    }

    #[test]
    fn a_lost_message_comes_a_timeout_later_and_nothing_passes_it() {
        let still = LinkModel {
            jitter_ms: 0.0,
            loss: 0.02,
            ..LinkModel::default()
        };
        // A second apart, a loss delays only its own message.
        let apart = delays(still, 20_000, 1000.0);
        let lost = apart.iter().filter(|d| **d >= 300.0).count();
        assert!(
            (320..=480).contains(&lost),
            "{lost} of 20 000 lost, 2 % asked"
        );
        assert!(apart.iter().all(|d| *d == 100.0 || *d >= 300.0));
        assert!(apart.contains(&700.0), "a message lost twice backs off");
        // At 60 a second, the messages behind a loss wait for it (in order).
        let mut link = Link::new(still);
        for i in 0..2000 {
            link.send(f64::from(i) * 16.0, i);
        }
        let mut last = (f64::NEG_INFINITY, -1);
        while let Some(at) = link.next_delivery_ms() {
            let i = link.receive(at).expect("due");
            assert!(at >= last.0 && i == last.1 + 1, "in order");
            last = (at, i);
        }
        // Always lost: six losses, then through (TCP would give up later).
        let gone = LinkModel { loss: 1.0, ..still };
        assert_eq!(delays(gone, 3, 1000.0)[0], 100.0 + 200.0 * 63.0);
    }
}
