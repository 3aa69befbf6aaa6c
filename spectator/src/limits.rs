//! What keeps one address from holding the spectator service: a cap on
//! its open live tails (each is a connection held for the whole race), a
//! per-address request rate (tower_governor: 429 with Retry-After), a
//! deadline on every answer but the live tail, and the subscriber count
//! the metrics report.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The service's limits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServiceLimits {
    /// Live tails one address may hold open at once; past it, 429.
    pub streams_per_address: u32,
    /// Requests one address may make at once (`0`: no rate limit).
    pub burst: u32,
    /// Time for an address to earn back one request.
    pub every: Duration,
    /// Deadline of every answer except the live tail (408 past it).
    pub timeout: Duration,
}

impl Default for ServiceLimits {
    /// A spectator holds one tail and fetches about one chunk every two
    /// seconds; a page of a few races stays far inside these.
    fn default() -> Self {
        ServiceLimits {
            streams_per_address: 8,
            burst: 120,
            every: Duration::from_millis(20),
            timeout: Duration::from_secs(30),
        }
    }
}

/// Open live tails, per address and in all.
#[derive(Debug, Default)]
pub struct Streams {
    per_address: Mutex<HashMap<IpAddr, u32>>,
    open: AtomicI64,
}

/// One open live tail; dropping it (the stream ended or the client went
/// away) frees its place.
#[derive(Debug)]
pub struct StreamSlot {
    streams: Arc<Streams>,
    address: IpAddr,
}

impl Streams {
    /// A place for one more tail from `address`, unless it holds `cap`.
    pub fn open(self: &Arc<Self>, address: IpAddr, cap: u32) -> Option<StreamSlot> {
        let mut per_address = self.per_address.lock().ok()?;
        let held = per_address.entry(address).or_insert(0);
        if *held >= cap {
            return None;
        }
        *held += 1;
        self.open.fetch_add(1, Ordering::Relaxed);
        Some(StreamSlot {
            streams: self.clone(),
            address,
        })
    }

    /// Live tails open now.
    #[must_use]
    pub fn open_now(&self) -> i64 {
        self.open.load(Ordering::Relaxed)
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        self.streams.open.fetch_sub(1, Ordering::Relaxed);
        if let Ok(mut per_address) = self.streams.per_address.lock()
            && let Some(held) = per_address.get_mut(&self.address)
        {
            *held -= 1;
            // Addresses with no tail leave the table.
            if *held == 0 {
                per_address.remove(&self.address);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_capped_per_address_and_freed_on_drop() {
        let streams = Arc::new(Streams::default());
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let first = streams.open(a, 2).unwrap();
        let _second = streams.open(a, 2).unwrap();
        assert!(streams.open(a, 2).is_none());
        let _other = streams.open(b, 2).unwrap();
        assert_eq!(streams.open_now(), 3);
        drop(first);
        assert_eq!(streams.open_now(), 2);
        assert!(streams.open(a, 2).is_some());
    }
}
