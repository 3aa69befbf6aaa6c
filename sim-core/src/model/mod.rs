//! The vehicle models: one substep of the four-wheel or the single-track
//! model, and what both use (the wheel and tire forces, drivetrain,
//! steering, aero, assists) and produce (`StepOutputs`).

pub(crate) mod aero;
pub(crate) mod assists;
pub(crate) mod body_contact;
pub(crate) mod drivetrain;
pub(crate) mod full_model;
pub(crate) mod impulse;
pub(crate) mod outputs;
pub(crate) mod single_track;
pub(crate) mod steering;
pub(crate) mod substep;
pub(crate) mod wheel;
