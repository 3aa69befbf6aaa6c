//! A car as data: the serde definition types and their validation, the tire
//! parameters and `.tir` import, car packages (`.tir` files named by a
//! definition), the built-in presets, and the values derived
//! once from a definition. Nothing here simulates.

pub(crate) mod body;
pub(crate) mod car_params;
pub(crate) mod definition;
pub(crate) mod engine_torque;
pub(crate) mod package;
pub(crate) mod presets;
pub(crate) mod shift_schedule;
pub(crate) mod steering_feel;
pub(crate) mod steering_system;
pub(crate) mod tir;
pub(crate) mod tire;
pub(crate) mod torque_converter;
