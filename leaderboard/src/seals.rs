//! Which race servers' seals a leaderboard trusts.
//!
//! A replay's `player`, `player_car` and `drivers` keys are the submitter's
//! to write. For a race one person recorded alone that is fine: the car
//! they name is theirs. An online race's recording holds every driver's
//! car, and anyone who has it (a spectator, say) could name someone else's
//! car as theirs. So a run whose replay names its drivers is ranked only
//! when a race server this leaderboard trusts sealed it
//! (`skidpad_replay::seal_replay`): the names and the ranked car are then
//! the server's.

use skidpad_replay::{Replay, ReplayHeader, check_seal};

use crate::outcome::Rejection;

/// The race servers whose seals are trusted, and whether unsealed runs
/// are ranked at all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SealPolicy {
    /// Trusted servers' public keys, 64 lowercase hex digits each.
    trusted: Vec<String>,
    /// Whether every run must carry a trusted seal (a board of online
    /// races only). Without it, a run that names no drivers may be
    /// unsealed.
    pub sealed_only: bool,
}

impl SealPolicy {
    /// Trusts the servers whose public keys (64 hex digits, as `skidpad-netplay
    /// keygen` prints them) are given; an error names a malformed key.
    pub fn trusting<S: AsRef<str>>(keys: &[S], sealed_only: bool) -> Result<Self, String> {
        let trusted = keys
            .iter()
            .map(|key| {
                let key = key.as_ref().trim();
                if key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit()) {
                    Ok(key.to_ascii_lowercase())
                } else {
                    Err(format!(
                        "{key:?} is not a race server's public key (64 hex digits)"
                    ))
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            trusted,
            sealed_only,
        })
    }

    /// The trusted servers' public keys.
    #[must_use]
    pub fn trusted(&self) -> &[String] {
        &self.trusted
    }

    /// The trusted server that sealed `replay`, or `None` for an unsealed
    /// run this policy ranks; a rejection for a seal that does not check
    /// out, a server not trusted here, or an unsealed run that needs a
    /// seal.
    pub(crate) fn check(&self, replay: &Replay) -> Result<Option<String>, Rejection> {
        let sealed_by = check_seal(replay).map_err(|e| Rejection::rules(e.to_string()))?;
        match sealed_by {
            Some(server) if self.trusted.contains(&server) => Ok(Some(server)),
            Some(server) => Err(Rejection::rules(format!(
                "sealed by race server {server}, which this leaderboard does not trust"
            ))),
            None if self.sealed_only => Err(Rejection::rules(
                "this leaderboard ranks only runs sealed by a race server it trusts",
            )),
            None if replay
                .header
                .metadata_value(ReplayHeader::DRIVERS_KEY)
                .is_some() =>
            {
                Err(Rejection::rules(format!(
                    "the replay names its drivers (metadata `{}`), so it is an online race's: \
                     it is ranked only with the seal of a race server this leaderboard trusts \
                     (`skidpad-netplay entry --seal-key`)",
                    ReplayHeader::DRIVERS_KEY
                )))
            }
            None => Ok(None),
        }
    }
}
