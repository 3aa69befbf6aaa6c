//! Runnable examples live beside this crate (`cargo run -p
//! skidpad-examples --example NAME`). The library holds what they and the
//! tests share: the validation manoeuvres (`manoeuvres`), which the
//! `validation` example prints as `VALIDATION.md`'s table and
//! `tests/validation_manoeuvres.rs` asserts, and the rapier host
//! (`rapier_ground`), which the `rapier_host` example prints and
//! `tests/rapier_run.rs` asserts.

pub mod manoeuvres;
pub mod measured_car;
pub mod rapier_ground;
pub mod traffic_stats;
