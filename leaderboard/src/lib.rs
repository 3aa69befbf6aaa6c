//! skidpad-leaderboard: a service that accepts replays from strangers,
//! re-simulates them off the request path on a job queue, and ranks the
//! lap times its own re-simulation measured.
//!
//! - [`api`]: the HTTP routes (axum); [`identity`] reads tokens and
//!   serves sign-up and the admin routes, [`accounts`] stores players and
//!   their hashed tokens.
//! - [`store`]: SQLite or PostgreSQL through one set of queries; the queue
//!   lives there, so workers may run in other processes and machines.
//! - [`worker`]: tasks that claim jobs on renewable leases and verify.
//! - [`judge`]: what "verified" means here: bit-exact re-simulation plus
//!   the leaderboard's rules; [`laps`] stores the race layer's laps of the re-simulated
//!   path and [`plausibility`] flags inputs no human makes; [`seals`] says
//!   whose seals make an online race's driver names trustworthy.
//! - [`reverify`]: re-simulating a stored run on demand, an older
//!   simulation version's in its archived core.
//! - [`metrics`]: the Prometheus exposition at `/metrics`; [`limits`] and
//!   [`in_flight`]: deadlines, rate limits and the per-address cap.
//! - [`service`]: starting the API and workers together.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod accounts;
pub mod api;
mod board_admin;
mod board_policies;
pub mod boards;
pub mod budget;
pub mod identity;
pub mod in_flight;
pub mod judge;
pub mod laps;
pub mod limits;
pub mod metrics;
pub mod outcome;
pub mod plausibility;
pub mod queue;
pub mod registry;
pub mod reverify;
pub mod seals;
pub mod service;
pub mod store;
pub mod worker;

pub use outcome::{Outcome, Rejection, Verified};
pub use store::{Engine, Store};
