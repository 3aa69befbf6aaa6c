//! What a replay needs to be played, its track and its ground, found the
//! way a player finds them, and whether the files given beside it
//! (`--track`, `--ground`) are those. `skidpad inspect` shows it, so a
//! missing or wrong file is named before `verify` or `view` fails on it.

use serde::Serialize;
use skidpad_core::{FlatGround, Ground, hex};
use skidpad_replay::{ReplayHeader, builtin_track_of_header};

use crate::beside::Beside;
use crate::text::printable;

/// A replay's track and ground.
#[derive(Clone, Debug, Serialize)]
pub struct Needs {
    /// The track its laps are timed on.
    pub track: Need,
    /// The ground it was raced on.
    pub ground: Need,
}

/// One thing a replay needs.
#[derive(Clone, Debug, Serialize)]
pub struct Need {
    /// True when a player has it: built in, carried, or given beside.
    pub found: bool,
    /// What it is and where it comes from, or why it is missing.
    pub what: String,
    /// True when the file given beside the replay is not the one it
    /// names (an input error: `inspect` exits 2).
    pub given_refused: bool,
}

impl Need {
    fn found(what: String) -> Need {
        Need {
            found: true,
            what,
            given_refused: false,
        }
    }

    fn missing(what: String, given_refused: bool) -> Need {
        Need {
            found: false,
            what,
            given_refused,
        }
    }
}

impl Needs {
    /// What `header` needs, given whether the replay carries its ground
    /// (`None` when this core did not read the body: an archived core's
    /// replay, or a damaged one) and the files beside it.
    #[must_use]
    pub fn of(header: &ReplayHeader, carries_ground: Option<bool>, beside: &Beside) -> Needs {
        Needs {
            track: track_need(header, beside),
            ground: ground_need(header, carries_ground, beside),
        }
    }

    /// True when a file given beside the replay is not what it names.
    #[must_use]
    pub fn refused_a_given_file(&self) -> bool {
        self.track.given_refused || self.ground.given_refused
    }
}

fn track_need(header: &ReplayHeader, beside: &Beside) -> Need {
    let Some(named) = header.metadata_value(ReplayHeader::TRACK_KEY) else {
        return Need::found("none named (laps are not timed)".into());
    };
    match header.track_with(beside.track.as_ref()) {
        Ok(Some(track)) => {
            let name = printable(track.name());
            if skidpad_core::track_names().contains(&named) {
                return Need::found(format!("{name}, built in"));
            }
            let from = if header
                .metadata_value(ReplayHeader::TRACK_DEFINITION_KEY)
                .is_some()
            {
                "carried in the replay"
            } else if skidpad_core::builtin_track_by_fingerprint(&track.fingerprint()).is_some() {
                "built in"
            } else {
                "the --track file"
            };
            Need::found(format!(
                "{name} (fingerprint {}), {from}",
                &track.fingerprint_hex()[..12]
            ))
        }
        Ok(None) => Need::found("none named (laps are not timed)".into()),
        Err(e) => match &beside.track {
            Some(_) => Need::missing(printable(&e.to_string()), true),
            None => Need::missing(
                format!("{} (--track FILE)", printable(&e.to_string())),
                false,
            ),
        },
    }
}

fn ground_need(header: &ReplayHeader, carries_ground: Option<bool>, beside: &Beside) -> Need {
    let (named, description) = match header.ground() {
        Ok(g) => g,
        Err(e) => return Need::missing(printable(&e.to_string()), false),
    };
    if named == FlatGround::plane_fingerprint() {
        return Need::found("the plane z = 0".into());
    }
    let label = format!(
        "{} (ground {})",
        printable(&description),
        &hex(&named)[..12]
    );
    match builtin_track_of_header(header) {
        Ok(Some(track)) => {
            return Need::found(format!("{label}, built-in track {track}'s surface"));
        }
        Ok(None) => {}
        Err(e) => return Need::missing(printable(&e.to_string()), false),
    }
    if carries_ground == Some(true) {
        return Need::found(format!("{label}, carried in the replay"));
    }
    // A track's generated surface is rebuilt from the track, carried or
    // given beside.
    if let Ok(Some(track)) = header.track_with(beside.track.as_ref())
        && track.ground().is_ok_and(|g| g.fingerprint() == named)
    {
        return Need::found(format!("{label}, generated from its track"));
    }
    let Some(given) = &beside.ground else {
        let what = match carries_ground {
            None => {
                format!("{label}: carried if the body holds it, else give its file with --ground")
            }
            Some(_) => format!("{label}, not carried: give its file with --ground"),
        };
        return Need::missing(what, false);
    };
    match given.build() {
        Ok(ground) if ground.fingerprint() == named => {
            Need::found(format!("{label}, the --ground file"))
        }
        Ok(ground) => Need::missing(
            format!(
                "{label}; the --ground file is a {} (ground {}), another ground",
                printable(&ground.describe()),
                &hex(&ground.fingerprint())[..12]
            ),
            true,
        ),
        Err(e) => Need::missing(
            format!("{label}; the --ground file does not build: {e}"),
            true,
        ),
    }
}
