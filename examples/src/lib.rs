//! Runnable examples live beside this file (`cargo run -p skidpad-examples
//! --example NAME`); this library holds nothing of its own.
