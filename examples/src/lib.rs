//! Runnable examples live beside this crate (`cargo run -p
//! skidpad-examples --example NAME`). The library holds the validation
//! manoeuvres (`validation`), shared by the `validation` example that
//! prints `VALIDATION.md`'s table and by `tests/validation.rs`.

pub mod rapier_host;
pub mod validation;
