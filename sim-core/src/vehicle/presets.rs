//! Built-in car presets: JSON definitions shipped in `presets/`, loaded and
//! validated by name.

use crate::vehicle::definition::CarDefinition;
use crate::{CoreError, Result};

/// (name, JSON) of every preset, in a stable order.
const PRESETS: &[(&str, &str)] = &[
    (
        "fwd_hatchback",
        include_str!("../../presets/fwd_hatchback.json"),
    ),
    ("rwd_sports", include_str!("../../presets/rwd_sports.json")),
    ("awd_rally", include_str!("../../presets/awd_rally.json")),
    ("kart", include_str!("../../presets/kart.json")),
];

/// Names of the built-in presets.
#[must_use]
pub fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|(name, _)| *name).collect()
}

/// The preset with this name, parsed and validated.
pub fn preset(name: &str) -> Result<CarDefinition> {
    let (_, json) =
        PRESETS
            .iter()
            .find(|(n, _)| *n == name)
            .ok_or_else(|| CoreError::UnknownName {
                kind: "preset",
                name: name.to_owned(),
                known: preset_names().join(", "),
            })?;
    CarDefinition::from_json(json)
}
