//! What a board does with the runs it is given beyond their track and
//! cars: the ground they must be raced on, and runs whose player rewound
//! (`boards.rs` reads both from a board's JSON).

use serde::Deserialize;

/// The ground a board's runs must be raced on: a run on another ground is
/// another race, refused at the door naming both.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RacedOn {
    /// The track's own surface: its generated ground (kerbs, run-off,
    /// barriers), or a glTF scene's ground.
    Surface,
    /// The plane z = 0.
    Plane,
    /// Either (a board on a built-in or definition track, unless its
    /// `ground` says otherwise).
    #[default]
    Either,
}

/// What a board does with a run whose player rewound (flashbacks).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RewindPolicy {
    /// Rejected, saying how many rewinds it used.
    #[default]
    Refuse,
    /// Verified and shown with its rewinds, but not ranked.
    Unranked,
}
