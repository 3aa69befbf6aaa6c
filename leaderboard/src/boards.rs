//! Per-track rules (`--boards FILE`): which tracks this service ranks,
//! how many cars besides the ranked one a run there may carry (rivals
//! the player raced against; 0 means a lone car), and its longest run.
//! Checked at the door from the upload's header, as the service-wide
//! budget is (`budget.rs`), and answered 422 naming the board's rule.
//! Without a file every built-in track is open within the budget.
//!
//! The file is JSON, a list of boards:
//!
//! ```json
//! [{"track": "brandwood", "rivals": 0, "max_steps": 36000},
//!  {"track": "hillcrest", "rivals": 5, "max_steps": 108000}]
//! ```

use serde::Deserialize;
use skidpad_core::Track;
use skidpad_replay::ReplayHeader;

/// One track's rules.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct BoardRules {
    /// The built-in track's key.
    pub track: String,
    /// Cars a run may carry besides the ranked one.
    #[serde(default)]
    pub rivals: u32,
    /// Most steps of a run (60 a second at the usual rate).
    pub max_steps: u64,
}

/// The boards this service ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Boards {
    rules: Vec<BoardRules>,
}

/// Most rivals a board may allow: the SDK's own field sizes stay far
/// beyond what a leaderboard re-simulates.
const MAX_RIVALS: u32 = 63;

impl Boards {
    /// Reads the boards' JSON, refusing an unknown track, a track listed
    /// twice, or a rule outside its range, with the board named.
    pub fn from_json(text: &str) -> Result<Boards, String> {
        let rules: Vec<BoardRules> =
            serde_json::from_str(text).map_err(|e| format!("boards file: {e}"))?;
        if rules.is_empty() {
            return Err("boards file: lists no board".into());
        }
        for (k, board) in rules.iter().enumerate() {
            let name = &board.track;
            if Track::builtin(name).is_err() {
                return Err(format!("boards file: board {k}: unknown track {name:?}"));
            }
            if rules[..k].iter().any(|b| &b.track == name) {
                return Err(format!("boards file: track {name:?} is listed twice"));
            }
            if board.rivals > MAX_RIVALS {
                return Err(format!(
                    "boards file: {name}: rivals must be at most {MAX_RIVALS}"
                ));
            }
            if board.max_steps == 0 {
                return Err(format!("boards file: {name}: max_steps must be positive"));
            }
        }
        Ok(Boards { rules })
    }

    /// Why the run in `header` breaks its board's rules, or `None`. A run
    /// that names no track is left to the judge, which rejects it.
    #[must_use]
    pub fn refusal(&self, header: &ReplayHeader) -> Option<String> {
        let track = header.metadata_value(ReplayHeader::TRACK_KEY)?;
        let Some(board) = self.rules.iter().find(|b| b.track == track) else {
            let open: Vec<&str> = self.rules.iter().map(|b| b.track.as_str()).collect();
            return Some(format!(
                "this service ranks no board on track {track:?} (--boards: {})",
                open.join(", ")
            ));
        };
        let allowed = u64::from(board.rivals) + 1;
        if u64::from(header.car_count) > allowed {
            return Some(format!(
                "the replay has {} cars; the {track} board ranks one car with at most {} rivals (--boards)",
                header.car_count, board.rivals
            ));
        }
        (header.step_count > board.max_steps).then(|| {
            format!(
                "the replay has {} steps; the {track} board accepts at most {} (--boards)",
                header.step_count, board.max_steps
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_files_are_refused_with_the_board_named() {
        let err = |text: &str| Boards::from_json(text).unwrap_err();
        assert!(err("[]").contains("no board"));
        assert!(
            err(r#"[{"track": "nowhere", "max_steps": 10}]"#).contains("unknown track \"nowhere\"")
        );
        assert!(err(r#"[{"track": "brandwood", "max_steps": 10}, {"track": "brandwood", "max_steps": 9}]"#).contains("twice"));
        assert!(
            err(r#"[{"track": "brandwood", "rivals": 64, "max_steps": 10}]"#).contains("rivals")
        );
        assert!(err(r#"[{"track": "brandwood", "max_steps": 0}]"#).contains("max_steps"));
        assert!(
            err(r#"[{"track": "brandwood", "max_steps": 5, "laps": 3}]"#).contains("unknown field")
        );
        let boards = Boards::from_json(r#"[{"track": "brandwood", "max_steps": 5}]"#).unwrap();
        assert_eq!(boards.rules[0].rivals, 0, "a lone car by default");
    }
}
