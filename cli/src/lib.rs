//! The `skidpad` command's work, as functions that return reports: the
//! binary (`main.rs`) parses arguments and prints; tests snapshot the same
//! reports. Every report prints as text (`Display`) or JSON (`Serialize`).

pub mod archived;
pub mod atomic;
pub mod beside;
pub mod car_cmd;
pub mod demo;
pub mod export;
pub mod files;
pub mod ghost_cmd;
pub mod inspect;
pub mod limits;
pub mod needs;
pub mod recover;
pub mod telemetry;
pub mod text;
pub mod tire_import;
pub mod track_cmd;
pub mod verify;
pub mod view;
