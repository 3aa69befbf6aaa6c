//! A car's canonical state (every bit that influences its future) and its
//! byte layout: snapshots and the hashes built on them.

pub(crate) mod car_state;
pub(crate) mod snapshot;
