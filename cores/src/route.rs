//! Which core re-simulates a replay of a given simulation version: the
//! native core of this build for its own version, the archived module for
//! any version the archive holds, and none for the rest (a newer
//! version). Every host asks here: the `skidpad` commands, the
//! leaderboard's re-verification and its table of versions, so the rule
//! and the words for it have one home.

use skidpad_core::SIMULATION_VERSION;

use crate::Archive;

/// Where a replay of some simulation version is re-simulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoreRoute {
    /// This build's own core: the replay is of [`SIMULATION_VERSION`].
    Native,
    /// The archived module of that version, run in the sandbox.
    Archived(u32),
    /// No core here can: a version the archive does not hold.
    Unavailable(u32),
}

impl CoreRoute {
    /// The route for a replay of `version` with `archive` at hand (`None`:
    /// no archive could be opened, so only the native core is there).
    #[must_use]
    pub fn for_version(version: u32, archive: Option<&Archive>) -> CoreRoute {
        if version == SIMULATION_VERSION {
            CoreRoute::Native
        } else if archive.is_some_and(|a| a.versions().contains(&version)) {
            CoreRoute::Archived(version)
        } else {
            CoreRoute::Unavailable(version)
        }
    }

    /// `native`, `archived` or `none`, as a service's JSON says it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            CoreRoute::Native => "native",
            CoreRoute::Archived(_) => "archived",
            CoreRoute::Unavailable(_) => "none",
        }
    }
}

/// How a verdict names the core that made it: `simulation version 16
/// (native)` for this build's version, `simulation version 3 (archived)`
/// for any other.
#[must_use]
pub fn core_label(version: u32) -> String {
    if version == SIMULATION_VERSION {
        format!("simulation version {version} (native)")
    } else {
        format!("simulation version {version} (archived)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_version_has_one_route_and_one_label() {
        let archive = Archive::embedded().expect("the embedded archive");
        assert_eq!(
            CoreRoute::for_version(SIMULATION_VERSION, Some(&archive)),
            CoreRoute::Native
        );
        assert_eq!(
            CoreRoute::for_version(1, Some(&archive)),
            CoreRoute::Archived(1)
        );
        assert_eq!(CoreRoute::for_version(1, None).name(), "none");
        assert_eq!(
            CoreRoute::for_version(SIMULATION_VERSION + 1, Some(&archive)),
            CoreRoute::Unavailable(SIMULATION_VERSION + 1)
        );
        assert_eq!(core_label(3), "simulation version 3 (archived)");
        assert!(core_label(SIMULATION_VERSION).ends_with("(native)"));
    }
}
